package server

import (
	"context"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/session"
)

// notifyTurns is a run that pauses for approval of notify, then answers.
func notifyTurns() []llmtest.Turn {
	return []llmtest.Turn{
		{Calls: []llmtest.Call{{ID: "call_n", Name: "notify", Args: `{"message":"Your order ships today."}`}}},
		{Text: "The customer is told."},
	}
}

type approvals struct {
	Session string            `json:"session"`
	Status  session.Status    `json:"status"`
	Turn    int               `json:"turn"`
	Calls   []pendingCallJSON `json:"calls"`
}

// TestApprovalFlow pauses a run for a call that needs approval, refuses
// an edit that breaks the tool's schema, and goes on with each decision.
func TestApprovalFlow(t *testing.T) {
	for _, tc := range []struct {
		name     string
		decision string
		status   string // of the call's result
		ran      string // what the tool ran with, in the result's text
	}{
		{"approve", `{"call_id":"call_n","decision":"approve"}`, "success", ""},
		{"reject", `{"call_id":"call_n","decision":"reject","reason":"not now"}`, "error", "not now"},
		{"edit", `{"call_id":"call_n","decision":"edit","args":{"message":"It ships tomorrow."}}`, "success", "It ships tomorrow."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, options{}, notifyTurns()...)
			id := h.create("Tell the customer")
			first := h.events(id, "")
			if got := types(first); !strings.HasSuffix(got, "tool_call approval idle") {
				t.Fatalf("events before the pause: %s", got)
			}
			if h.status(id) != session.StatusPaused {
				t.Fatalf("status %s, want paused", h.status(id))
			}
			a := decode[approvals](t, h.do("GET", "/v1/sessions/"+id+"/approvals", "", ""), http.StatusOK)
			if len(a.Calls) != 1 || a.Calls[0].CallID != "call_n" || a.Calls[0].Tool != "notify" || string(a.Calls[0].Args) != `{"message":"Your order ships today."}` || len(a.Calls[0].Parameters) == 0 {
				t.Fatalf("approvals = %+v", a)
			}
			r := h.do("POST", "/v1/sessions/"+id+"/approvals", "", `{"decisions":[{"call_id":"call_n","decision":"edit","args":{"message":7}}]}`)
			if e := r.errorOf(t); r.status != http.StatusUnprocessableEntity || e.Code != codeInvalidEdit || !strings.Contains(e.Message, "message") {
				t.Fatalf("a bad edit: %d %+v", r.status, e)
			}
			if h.status(id) != session.StatusPaused {
				t.Fatal("a refused edit changed the session")
			}
			r = h.do("POST", "/v1/sessions/"+id+"/approvals", "", `{"decisions":[`+tc.decision+`]}`)
			if r.status != http.StatusAccepted {
				t.Fatalf("decide: %d %s", r.status, r.body)
			}
			rest := h.events(id, first[len(first)-2].ID) // after the approval event
			if got := types(rest); !strings.HasPrefix(got, "decision") || !strings.Contains(got, "tool_result") || !strings.Contains(got, " done") {
				t.Errorf("events after the decision: %s", got)
			}
			var res toolResultData
			for _, ev := range rest {
				if ev.Type == "tool_result" {
					must(t, json.Unmarshal(ev.Data, &res))
				}
			}
			if string(res.Status) != tc.status || !strings.Contains(res.Content[0].Text, tc.ran) {
				t.Errorf("the call's result: %s %s", res.Status, res.Content[0].Text)
			}
			if h.status(id) != session.StatusDone {
				t.Errorf("status %s, want done", h.status(id))
			}
			a = decode[approvals](t, h.do("GET", "/v1/sessions/"+id+"/approvals", "", ""), http.StatusOK)
			if len(a.Calls) != 0 {
				t.Errorf("calls still wait: %+v", a.Calls)
			}
		})
	}
}

// TestConcurrentResume: of two clients that approve the same paused
// call at once, one goes on and the other gets 409 — on one server, and
// on two servers sharing one database.
func TestConcurrentResume(t *testing.T) {
	for _, shared := range []bool{false, true} {
		name := "one server"
		if shared {
			name = "two servers, one database"
		}
		t.Run(name, func(t *testing.T) {
			db := t.TempDir() + "/shared.db"
			a := newHarness(t, options{dbPath: db}, notifyTurns()...)
			b := a
			if shared {
				b = newHarness(t, options{dbPath: db}, notifyTurns()[1:]...)
				a.model.Add() // a's second turn may go unused
			}
			id := a.create("Tell the customer")
			a.wait(id)
			statuses := make([]response, 2)
			var wg sync.WaitGroup
			for i, h := range []*harness{a, b} {
				wg.Go(func() {
					statuses[i] = h.do("POST", "/v1/sessions/"+id+"/approvals", "", `{"decisions":[{"call_id":"call_n","decision":"approve"}]}`)
				})
			}
			wg.Wait()
			a.wait(id)
			b.wait(id)
			var ok, conflict int
			for _, r := range statuses {
				switch r.status {
				case http.StatusAccepted:
					ok++
				case http.StatusConflict:
					conflict++
					if c := r.errorOf(t).Code; c != codeConflict && c != codeBusy && c != codeState {
						t.Errorf("409 with code %s", c)
					}
				default:
					t.Errorf("status %d: %s", r.status, r.body)
				}
			}
			if ok != 1 || conflict != 1 {
				t.Errorf("%d accepted, %d conflicts; want one of each", ok, conflict)
			}
		})
	}
}

// TestErrors: each malformed or impossible request gets its status, the
// one error shape and a message that says what to fix.
func TestErrors(t *testing.T) {
	h := newHarness(t, options{maxBody: 256}, notifyTurns()...)
	id := h.create("Tell the customer")
	h.wait(id)
	big := `{"agent":"test","message":"` + strings.Repeat("x", 300) + `"}`
	foreign, err := h.store.Create(context.Background(), session.Session{Agent: "/elsewhere/secret-dir/other.yaml"})
	must(t, err)
	for _, tc := range []struct {
		name, method, path, body string
		header                   []string
		status                   int
		code, says               string
	}{
		{"malformed JSON", "POST", "/v1/sessions", `{"agent":"test",`, nil, 400, codeBadRequest, "not the JSON object"},
		{"an unknown member", "POST", "/v1/sessions", `{"agent":"test","message":"hi","model":"x"}`, nil, 400, codeBadRequest, "model"},
		{"no message", "POST", "/v1/sessions", `{"agent":"test"}`, nil, 400, codeBadRequest, "message is empty"},
		{"an empty body", "POST", "/v1/sessions", ``, nil, 400, codeBadRequest, "body is empty"},
		{"oversize body", "POST", "/v1/sessions", big, nil, 413, codeTooLarge, "256 bytes"},
		{"not JSON", "POST", "/v1/sessions", `agent=test`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, codeMediaType, "application/json"},
		{"an agent path", "POST", "/v1/sessions", `{"agent":"../etc/passwd","message":"hi"}`, nil, 400, codeBadRequest, "not an agent name"},
		{"an agent with a slash", "POST", "/v1/sessions", `{"agent":"sub/test","message":"hi"}`, nil, 400, codeBadRequest, "no slashes"},
		{"an unknown agent", "POST", "/v1/sessions", `{"agent":"nope","message":"hi"}`, nil, 404, codeNotFound, "GET /v1/agents"},
		{"a broken agent file", "POST", "/v1/sessions", `{"agent":"broken","message":"hi"}`, nil, 500, codeAgentError, "broken"},
		{"an unknown session", "GET", "/v1/sessions/run_nope", "", nil, 404, codeNotFound, "no session"},
		{"events of an unknown session", "GET", "/v1/sessions/run_nope/events", "", nil, 404, codeNotFound, "no session"},
		{"a message to an unknown session", "POST", "/v1/sessions/run_nope/messages", `{"message":"hi"}`, nil, 404, codeNotFound, "no session"},
		{"a message while calls wait", "POST", "/v1/sessions/" + id + "/messages", `{"message":"hi"}`, nil, 409, codeState, "wait(s) for a decision"},
		{"a decision for no call", "POST", "/v1/sessions/" + id + "/approvals", `{"decisions":[{"call_id":"x","decision":"approve"}]}`, nil, 409, codeState, "does not wait"},
		{"an unknown decision", "POST", "/v1/sessions/" + id + "/approvals", `{"decisions":[{"call_id":"call_n","decision":"maybe"}]}`, nil, 400, codeBadRequest, "approve, reject or edit"},
		{"a session of another agent directory", "POST", "/v1/sessions/" + foreign.ID + "/resume", "", nil, 409, codeAgent, "other.yaml, which is not in this server's agents directory"},
		{"a bad Last-Event-ID", "GET", "/v1/sessions/" + id + "/events", "", []string{"Last-Event-ID", "12"}, 400, codeBadRequest, "12.3"},
		{"a bad turn", "GET", "/v1/sessions/" + id + "/turns/0/request", "", nil, 400, codeBadRequest, "from 1"},
		{"a bad status filter", "GET", "/v1/sessions?status=sleeping", "", nil, 400, codeBadRequest, "running, paused"},
		{"a bad limit", "GET", "/v1/sessions?limit=0", "", nil, 400, codeBadRequest, "limit"},
		{"a method not allowed", "PUT", "/v1/sessions/" + id, "", nil, 405, codeMethod, "DELETE, GET"},
		{"an unknown route", "GET", "/v1/nope", "", nil, 404, codeNotFound, "no route"},
		{"a page of another site", "POST", "/v1/sessions", `{"agent":"test","message":"hi"}`, []string{"Sec-Fetch-Site", "cross-site"}, 403, codeCrossOrigin, "another site"},
		{"a decision from another origin", "POST", "/v1/sessions/" + id + "/approvals", `{"decisions":[{"call_id":"call_n","decision":"approve"}]}`, []string{"Origin", "https://evil.example"}, 403, codeCrossOrigin, "https://evil.example"},
		{"a delete from another site", "DELETE", "/v1/sessions/" + id, "", []string{"Sec-Fetch-Site", "same-site"}, 403, codeCrossOrigin, "another site"},
		{"a name pointed at loopback", "GET", "/v1/sessions", "", []string{"Host", "evil.example:8080"}, 403, codeCrossOrigin, "evil.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.do(tc.method, tc.path, "", tc.body, tc.header...)
			e := r.errorOf(t)
			if r.status != tc.status || e.Code != tc.code || e.Status != tc.status || !strings.Contains(e.Message, tc.says) {
				t.Errorf("%s %s = %d %+v, want %d %s saying %q", tc.method, tc.path, r.status, e, tc.status, tc.code, tc.says)
			}
			if strings.Contains(e.Message, "secret-dir") {
				t.Errorf("the message shows the server's paths: %s", e.Message)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
}

// TestAuth: with a token, every /v1 request needs it; without one, the
// server listens on loopback only.
func TestAuth(t *testing.T) {
	h := newHarness(t, options{token: "s3cret-token"}, llmtest.Turn{Text: "hi"})
	for _, tc := range []struct {
		header string
		status int
	}{
		{"", 401},
		{"Bearer wrong", 401},
		{"Bearer s3cret-token-and-more", 401},
		{"Basic s3cret-token", 401},
		{"Bearer s3cret-token", 200},
	} {
		// With a token, any host name may be served (it is not loopback
		// only): the token, not the name, is the check.
		r := h.do("GET", "/v1/sessions", "", "", "Authorization", tc.header, "Host", "toolwire.internal:8080")
		if r.status != tc.status {
			t.Errorf("Authorization %q: %d, want %d", tc.header, r.status, tc.status)
		}
		if r.status == 401 {
			if e := r.errorOf(t); e.Code != codeUnauthorized || strings.Contains(string(r.body), "s3cret") {
				t.Errorf("401 answer: %s", r.body)
			}
		}
	}
	for _, tc := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8080", "", true},
		{"[::1]:8080", "", true},
		{"localhost:8080", "", true},
		{"0.0.0.0:8080", "", false},
		{":8080", "", false},
		{"192.168.1.4:8080", "", false},
		{"0.0.0.0:8080", "t", true},
		{"no-port", "t", false},
	} {
		if err := CheckAddr(tc.addr, tc.token); (err == nil) != tc.ok {
			t.Errorf("CheckAddr(%q, %q) = %v, want ok %v", tc.addr, tc.token, err, tc.ok)
		}
	}
	// Serve refuses a listener on every interface without a token.
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	must(t, err)
	s, err := New(&Config{Store: h.store, Agents: h.dir})
	must(t, err)
	if err := s.Serve(context.Background(), ln); err == nil || !strings.Contains(err.Error(), "needs a token") {
		t.Errorf("Serve on 0.0.0.0 without a token = %v", err)
	}
}

// TestRunLimit: a run more than the server's limit gets 429.
func TestRunLimit(t *testing.T) {
	h := newHarness(t, options{maxRuns: 1}, append(holdTurns(), llmtest.Turn{Text: "second"})...)
	id := h.create("Place a hold")
	<-h.gate.started
	r := h.do("POST", "/v1/sessions", "", `{"agent":"test","message":"another"}`)
	if e := r.errorOf(t); r.status != http.StatusTooManyRequests || e.Code != codeTooManyRuns || r.header.Get("Retry-After") == "" {
		t.Errorf("a second run: %d %+v", r.status, e)
	}
	r = h.do("POST", "/v1/sessions/"+id+"/messages", "", `{"message":"more"}`)
	if r.status != http.StatusConflict || r.errorOf(t).Code != codeBusy {
		t.Errorf("a message during the run: %d %s", r.status, r.body)
	}
	if r := h.do("DELETE", "/v1/sessions/"+id, "", ""); r.status != http.StatusConflict {
		t.Errorf("DELETE during the run: %d", r.status)
	}
	h.gate.open()
	h.wait(id)
	h.create("another") // a slot is free again
}

// TestShutdown: a shutdown lets the tool call in flight finish and stops
// the run before its next model call; a call still running when the
// grace ends is recorded interrupted (hold is level_0). Either way the
// session is left to resume, and no new run starts.
func TestShutdown(t *testing.T) {
	for _, tc := range []struct {
		name   string
		finish bool // the call finishes within the grace
		status string
		error  string
	}{
		{"the call finishes", true, "success", ""},
		{"the grace ends", false, "error", "interrupted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			grace := time.Hour
			if !tc.finish {
				grace = time.Millisecond
			}
			db := t.TempDir() + "/shared.db"
			h := newHarness(t, options{grace: grace, dbPath: db}, holdTurns()...)
			id := h.create("Place a hold")
			<-h.gate.started
			done := make(chan struct{})
			go func() {
				h.srv.Shutdown(context.Background())
				close(done)
			}()
			if tc.finish {
				for !h.srv.runs.closingNow() {
					runtime.Gosched()
				}
				h.gate.open()
			}
			<-done
			r := h.do("POST", "/v1/sessions", "", `{"agent":"test","message":"another"}`)
			if r.status != http.StatusServiceUnavailable || r.errorOf(t).Code != codeShuttingDown {
				t.Errorf("a run after the shutdown: %d %s", r.status, r.body)
			}
			if h.status(id) != session.StatusRunning {
				t.Errorf("status %s, want running (to resume)", h.status(id))
			}
			if n := len(h.model.Requests()); n != 1 {
				t.Errorf("%d model calls, want 1: the run stops before the next", n)
			}
			v := decode[sessionView](t, h.do("GET", "/v1/sessions/"+id, "", ""), http.StatusOK)
			res := v.Turns[0].Calls[0].Result
			if res == nil || string(res.Status) != tc.status || res.ErrorType != tc.error {
				t.Errorf("the call's result: %+v", res)
			}
			// The next server resumes the session where it stopped.
			next := newHarness(t, options{dbPath: db}, holdTurns()[1])
			if r := next.do("POST", "/v1/sessions/"+id+"/resume", "", ""); r.status != http.StatusAccepted {
				t.Fatalf("resume: %d %s", r.status, r.body)
			}
			next.wait(id)
			if next.status(id) != session.StatusDone {
				t.Errorf("after the resume: %s, want done", next.status(id))
			}
		})
	}
}

// TestStreamOutlivesTimeouts: an event stream stays open through quiet
// spells longer than the connection's read and write timeouts, and a
// server's Serve shuts it down when its context ends.
func TestStreamOutlivesTimeouts(t *testing.T) {
	h := newHarness(t, options{}, holdTurns()...)
	s, err := New(&Config{Store: h.store, Agents: h.dir, Build: h.srv.cfg.Build,
		ReadTimeout: 100 * time.Millisecond, WriteTimeout: 100 * time.Millisecond, Heartbeat: 30 * time.Millisecond})
	must(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	h.http.URL = "http://" + ln.Addr().String() // the harness's requests go to s
	id := h.create("Place a hold")
	<-h.gate.started
	st := h.open(id, "", false)
	st.until(t, "tool_start")
	time.Sleep(400 * time.Millisecond) // four timeouts without an event
	h.gate.open()
	if got := types(st.rest(t)); !strings.HasSuffix(got, "done idle") {
		t.Errorf("after the quiet spell the stream sent %s", got)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestUI: Config.UI is served at / with a policy that keeps its pages to
// their own origin; /v1 stays the API's, and the viewer's files need no
// token (they hold no data).
func TestUI(t *testing.T) {
	h := newHarness(t, options{token: "tok"})
	s, err := New(&Config{Store: h.store, Agents: h.dir, Token: "tok", UI: fstest.MapFS{"index.html": {Data: []byte("<title>viewer</title>")}}})
	must(t, err)
	h.http.Config.Handler = s
	r := h.do("GET", "/", "", "")
	if r.status != http.StatusOK || !strings.Contains(string(r.body), "viewer") || !strings.Contains(r.header.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Errorf("GET /: %d %v %s", r.status, r.header, r.body)
	}
	if r := h.do("GET", "/v1/agents", "", ""); r.status != http.StatusUnauthorized {
		t.Errorf("GET /v1/agents without the token: %d", r.status)
	}
	if r := h.do("GET", "/v1/agents", "tok", ""); r.status != http.StatusOK {
		t.Errorf("GET /v1/agents: %d %s", r.status, r.body)
	}
	s.Shutdown(context.Background())
}

// TestCORS: off by default; an allowed origin gets its preflight and its
// header, no other origin does.
func TestCORS(t *testing.T) {
	h := newHarness(t, options{})
	if r := h.do("GET", "/v1/agents", "", "", "Origin", "https://app.example"); r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS is on by default: %v", r.header)
	}
	s, err := New(&Config{Store: h.store, Agents: h.dir, AllowOrigins: []string{"https://app.example"}})
	must(t, err)
	h.http.Config.Handler = s
	r := h.do("OPTIONS", "/v1/sessions", "", "", "Origin", "https://app.example", "Access-Control-Request-Method", "POST")
	if r.status != http.StatusNoContent || r.header.Get("Access-Control-Allow-Origin") != "https://app.example" || !strings.Contains(r.header.Get("Access-Control-Allow-Headers"), "Last-Event-ID") {
		t.Errorf("preflight: %d %v", r.status, r.header)
	}
	if r := h.do("GET", "/v1/agents", "", "", "Origin", "https://evil.example"); r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("another origin is allowed: %v", r.header)
	}
	// The allowed origin may change state; the page itself (same origin)
	// too; another may not. (This server has no tools for the agent: a
	// request let through fails later, with another code.)
	for _, tc := range []struct {
		header  []string
		refused bool
	}{
		{[]string{"Origin", "https://app.example", "Sec-Fetch-Site", "cross-site"}, false},
		{[]string{"Sec-Fetch-Site", "same-origin"}, false},
		{[]string{"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"}, true},
	} {
		r := h.do("POST", "/v1/sessions", "", `{"agent":"test","message":"hi"}`, tc.header...)
		if refused := r.status == http.StatusForbidden && r.errorOf(t).Code == codeCrossOrigin; refused != tc.refused {
			t.Errorf("POST with %v: %d %s; refused as cross-origin: %v, want %v", tc.header, r.status, r.body, refused, tc.refused)
		}
	}
	s.Shutdown(context.Background())
}
