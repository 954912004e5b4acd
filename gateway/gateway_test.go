package gateway

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	_ "modernc.org/sqlite"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/sqlite"
	"github.com/toolwire/toolwire/transcript"
)

// newGateway starts a gateway with cfg in front of upstream, for every
// dialect, and returns its URL.
func newGateway(t testing.TB, upstream string, cfg Config) (string, *Gateway) {
	t.Helper()
	cfg.OpenAI, cfg.Anthropic, cfg.Gemini = upstream, upstream, upstream
	g, err := New(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return srv.URL, g
}

// newStore returns a SQLite session store in a new file.
func newStore(t testing.TB) session.Store {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "toolwire.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := sqlite.New(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// pathOf is the route of dialect d (for Gemini, of gemini-2.5-flash).
func pathOf(d transcript.Dialect, stream bool) string {
	return modelPath(d, "gemini-2.5-flash", stream)
}

// modelPath is the route of dialect d, which for Gemini names the model.
func modelPath(d transcript.Dialect, model string, stream bool) string {
	switch d {
	case transcript.OpenAIChat:
		return "/v1/chat/completions"
	case transcript.OpenAIResponses:
		return "/v1/responses"
	case transcript.Anthropic:
		return "/v1/messages"
	}
	if stream {
		return "/v1beta/models/" + model + ":streamGenerateContent?alt=sse"
	}
	return "/v1beta/models/" + model + ":generateContent"
}

// post sends data to base's route of dialect d with the headers a client
// of that provider sends, and returns the answer, read whole.
func post(t testing.TB, base string, d transcript.Dialect, data []byte, stream bool, header ...string) (*http.Response, []byte) {
	t.Helper()
	return postTo(t, base+pathOf(d, stream), d, data, header...)
}

// postTo is post to the URL url.
func postTo(t testing.TB, url string, d transcript.Dialect, data []byte, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if d == transcript.Anthropic {
		req.Header.Set("anthropic-version", "2023-06-01")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// providerError reads an error body in dialect d's shape and returns its
// message, failing t when the body is not in that shape.
func providerError(t testing.TB, d transcript.Dialect, status int, b []byte) (message string, detail detailJSON) {
	t.Helper()
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    any     `json:"code"`
			Status  string  `json:"status"`
		} `json:"error"`
		Toolwire detailJSON `json:"toolwire"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("error body is not JSON: %v\n%s", err, b)
	}
	switch d {
	case transcript.OpenAIChat, transcript.OpenAIResponses:
		if e.Error.Type == "" || e.Type != "" || e.Error.Status != "" {
			t.Errorf("error body is not OpenAI's shape: %s", b)
		}
	case transcript.Anthropic:
		if e.Type != "error" || e.Error.Type == "" || e.Error.Param != nil || e.Error.Code != nil {
			t.Errorf("error body is not Anthropic's shape: %s", b)
		}
	case transcript.Gemini:
		if e.Error.Status == "" || e.Error.Code != float64(status) {
			t.Errorf("error body is not Gemini's shape (code %v, want %d): %s", e.Error.Code, status, b)
		}
	}
	if e.Error.Message == "" {
		t.Errorf("error body has no message: %s", b)
	}
	return e.Error.Message, e.Toolwire
}

// TestBrokenHistories sends the five classic broken histories in every
// dialect through the gateway under each policy, with the conformance
// server as the upstream: repair completes each, reject answers each with
// the provider's error shape, pass lets the upstream's own 400 through
// byte for byte. A history a dialect accepts goes through under every
// policy.
func TestBrokenHistories(t *testing.T) {
	for _, h := range brokenHistories() {
		for _, d := range transcript.Dialects() {
			data := body(t, d, h.Messages, false)
			rep, err := wire.Check(data, d)
			if err != nil {
				t.Fatal(err)
			}
			broken := !rep.Accepted()
			for _, policy := range []Policy{Repair, Reject, Pass} {
				t.Run(h.Name+"/"+string(d)+"/"+string(policy), func(t *testing.T) {
					up := llmtest.NewServer(t, llmtest.Turn{Text: "Paris is sunny, Rome is rainy."})
					base, _ := newGateway(t, up.URL, Config{Policy: policy})
					resp, b := post(t, base, d, data, false)
					verdict := Verdict(resp.Header.Get(VerdictHeader))
					if !broken {
						if resp.StatusCode != 200 || verdict != VerdictAccepted {
							t.Fatalf("an accepted history: status %d, verdict %q, want 200 accepted\n%s", resp.StatusCode, verdict, b)
						}
						return
					}
					if got, want := resp.Header.Get(RulesHeader), ruleList(rep.Violations); got != want {
						t.Errorf("%s = %q, want %q", RulesHeader, got, want)
					}
					switch policy {
					case Repair:
						if resp.StatusCode != 200 || verdict != VerdictRepaired {
							t.Fatalf("status %d, verdict %q, want 200 repaired\n%s", resp.StatusCode, verdict, b)
						}
						reqs := up.Requests()
						if len(reqs) != 1 || reqs[0].Rejected != "" {
							t.Fatalf("the upstream got %d request(s) (%+v), want 1 it accepts", len(reqs), reqs)
						}
						if again, err := wire.Check(reqs[0].Body, d); err != nil || !again.Accepted() {
							t.Errorf("the body sent upstream is not accepted: %v %v", err, again)
						}
					case Reject:
						if resp.StatusCode != 400 || verdict != VerdictRejected {
							t.Fatalf("status %d, verdict %q, want 400 rejected\n%s", resp.StatusCode, verdict, b)
						}
						msg, detail := providerError(t, d, 400, b)
						first := firstError(rep.Violations)
						if !strings.Contains(msg, string(first.Rule)) || !strings.Contains(msg, first.ProviderError) {
							t.Errorf("message %q does not name %s with the provider's text %q", msg, first.Rule, first.ProviderError)
						}
						if detail.Error != codeRejected || detail.Policy != Reject || detail.Dialect != d || len(detail.Violations) != len(rep.Violations) || detail.Fixable == nil || !*detail.Fixable {
							t.Errorf("toolwire detail = %+v, want rejected, reject, %s, %d violations, fixable", detail, d, len(rep.Violations))
						}
						if n := len(up.Requests()); n != 0 {
							t.Errorf("the upstream got %d request(s), want none", n)
						}
					case Pass:
						direct, db := post(t, up.URL, d, data, false)
						if resp.StatusCode != direct.StatusCode || !bytes.Equal(b, db) {
							t.Errorf("through the gateway: %d %s\ndirect: %d %s", resp.StatusCode, b, direct.StatusCode, db)
						}
						if resp.StatusCode != 400 || verdict != VerdictPassed {
							t.Errorf("status %d, verdict %q, want the upstream's 400, passed", resp.StatusCode, verdict)
						}
					}
				})
			}
		}
	}
}

func firstError(vs []transcript.Violation) transcript.Violation {
	for _, v := range vs {
		if !v.Warning {
			return v
		}
	}
	return transcript.Violation{}
}

// TestConversationJudged sends an agent's conversation through a gateway
// under policy reject, one request per turn, each repeating the one
// before and adding a call and its result, and then a turn that leaves a
// call unanswered: the gateway judges each request by what it adds
// (Config.Remember), and rejects the broken one with the verdict of
// judging it whole. A gateway that remembers nothing judges each whole,
// with the same verdicts.
func TestConversationJudged(t *testing.T) {
	for _, remember := range []int64{0, -1} {
		turns := make([]llmtest.Turn, 4)
		for i := range turns {
			turns[i] = llmtest.Turn{Text: "Done."}
		}
		up := llmtest.NewServer(t, turns...)
		base, g := newGateway(t, up.URL, Config{Policy: Reject, Remember: remember})
		msgs := []llm.Message{llm.System("You are a concise assistant."), llm.User("Which orders were refunded?")}
		for turn := range 4 {
			id := fmt.Sprintf("call_%d", turn)
			msgs = append(msgs, llm.Assistant(call(id, "search_orders", fmt.Sprintf(`{"page":%d}`, turn))),
				llm.Tool(result(id, "search_orders", strings.Repeat(`{"id":"o-1","status":"refunded"} `, 20))))
			resp, b := post(t, base, transcript.OpenAIChat, body(t, transcript.OpenAIChat, msgs, false), false)
			if resp.StatusCode != 200 || Verdict(resp.Header.Get(VerdictHeader)) != VerdictAccepted {
				t.Fatalf("remember %d, turn %d: status %d, verdict %q\n%s", remember, turn, resp.StatusCode, resp.Header.Get(VerdictHeader), b)
			}
		}
		msgs = append(msgs, llm.Assistant(call("call_x", "search_orders", `{"page":9}`)), llm.User("Well?"))
		data := body(t, transcript.OpenAIChat, msgs, false)
		rep, err := wire.Check(data, transcript.OpenAIChat)
		if err != nil || rep.Accepted() {
			t.Fatalf("the last turn is not a broken history: %v %+v", err, rep)
		}
		resp, b := post(t, base, transcript.OpenAIChat, data, false)
		if resp.StatusCode != 400 || resp.Header.Get(RulesHeader) != ruleList(rep.Violations) {
			t.Fatalf("remember %d, the broken turn: status %d, rules %q, want 400 and %q\n%s", remember, resp.StatusCode, resp.Header.Get(RulesHeader), ruleList(rep.Violations), b)
		}
		_, detail := providerError(t, transcript.OpenAIChat, 400, b)
		if len(detail.Violations) != len(rep.Violations) || detail.Violations[0].Path != rep.Violations[0].Path {
			t.Errorf("remember %d: violations %+v, want those of %+v", remember, detail.Violations, rep.Violations)
		}
		want := wire.JudgeStats{Whole: 1, Continued: 4}
		if remember < 0 {
			want = wire.JudgeStats{}
		}
		if got := g.judging.Stats(); got != want {
			t.Errorf("remember %d: the gateway's judge did %+v, want %+v", remember, got, want)
		}
	}
}

// TestGeminiModelInURL: a Gemini request names its model in its URL, and
// Gemini 3 wants a thought signature on the first call of a step of the
// current turn (GEM-THOUGHT-SIG). Sent to a Gemini 3 model, a history
// without one is rejected under reject, and repaired (with the placeholder
// signature Google documents) under repair, which the upstream, holding
// the request to the same model, accepts; sent to Gemini 2.5, it is
// accepted as it is.
func TestGeminiModelInURL(t *testing.T) {
	data := []byte(`{"contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}}]}]}`)
	for _, c := range []struct {
		model   string
		policy  Policy
		status  int
		verdict Verdict
	}{
		{"gemini-3-pro-preview", Reject, 400, VerdictRejected},
		{"gemini-3-pro-preview", Repair, 200, VerdictRepaired},
		{"gemini-2.5-flash", Reject, 200, VerdictAccepted},
	} {
		up := llmtest.NewServer(t, llmtest.Turn{Text: "Sunny."})
		base, _ := newGateway(t, up.URL, Config{Policy: c.policy})
		resp, b := postTo(t, base+modelPath(transcript.Gemini, c.model, false), transcript.Gemini, data)
		if resp.StatusCode != c.status || Verdict(resp.Header.Get(VerdictHeader)) != c.verdict {
			t.Fatalf("%s, %s: status %d, verdict %q; want %d %s\n%s", c.model, c.policy, resp.StatusCode, resp.Header.Get(VerdictHeader), c.status, c.verdict, b)
		}
		if c.status == 400 && resp.Header.Get(RulesHeader) != "GEM-THOUGHT-SIG" {
			t.Errorf("%s: rules %q, want GEM-THOUGHT-SIG", c.model, resp.Header.Get(RulesHeader))
		}
		if c.verdict == VerdictRepaired {
			reqs := up.Requests()
			if len(reqs) != 1 || !bytes.Contains(reqs[0].Body, []byte(`"thoughtSignature":"skip_thought_signature_validator"`)) {
				t.Errorf("the upstream got %+v, want the body with the placeholder signature", reqs)
			}
		}
	}
	// The upstream holds a Gemini 3 request to the rule too: the body as
	// it is, sent past the gateway, is refused.
	up := llmtest.NewServer(t)
	if resp, b := postTo(t, up.URL+modelPath(transcript.Gemini, "gemini-3-pro-preview", false), transcript.Gemini, data); resp.StatusCode != 400 {
		t.Errorf("the upstream accepted a Gemini 3 call without a signature: %d %s", resp.StatusCode, b)
	}
}
