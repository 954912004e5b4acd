package server

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/internal/sse"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/session"
)

// holdTurns is a run whose first turn calls hold, which runs until the
// test lets it go, and whose second answers.
func holdTurns() []llmtest.Turn {
	return []llmtest.Turn{
		{Calls: []llmtest.Call{{ID: "call_hold", Name: "hold", Args: `{"text":"h1"}`}}},
		{Text: "All done: the hold is placed."},
	}
}

// msInEnvelope is a duration inside a tool message's text.
var msInEnvelope = regexp.MustCompile(`duration_ms\\":[0-9]+`)

// transcriptOf writes events one a line, "ID TYPE DATA", for a golden
// file; live durations are left out, as they vary.
func transcriptOf(evs []sse.Event) []byte {
	var b strings.Builder
	for _, ev := range evs {
		var m map[string]any
		_ = json.Unmarshal(ev.Data, &m)
		for _, k := range []string{"duration_ms", "created"} {
			if _, ok := m[k]; ok {
				m[k] = "…"
			}
		}
		if r, ok := m["result"].(map[string]any); ok {
			r["duration_ms"] = "…"
		}
		data, _ := json.Marshal(m, json.Deterministic(true))
		data = msInEnvelope.ReplaceAll(data, []byte(`duration_ms\\":…`))
		fmt.Fprintf(&b, "%s %s %s\n", ev.ID, ev.Type, data)
	}
	return []byte(b.String())
}

// TestFullRunEventOrder runs a session while its stream is open: every
// event comes once, in id order, stored and live ones interleaved as
// the run made them (testdata/full-run.golden).
func TestFullRunEventOrder(t *testing.T) {
	h := newHarness(t, options{}, holdTurns()...)
	id := h.create("Place a hold")
	<-h.gate.started // turn 1's call runs: the stream opens in the middle of the run
	s := h.open(id, "", false)
	head := s.until(t, "tool_start")
	h.gate.open()
	evs := append(head, s.rest(t)...)
	golden.Check(t, "testdata/full-run.golden", transcriptOf(evs))
	assertOrdered(t, evs)
	if got := h.status(id); got != session.StatusDone {
		t.Errorf("status = %s, want done", got)
	}
	// The stored events, read again after the run, are the same ones,
	// with the same ids, less the live ones.
	again := h.events(id, "")
	var stored []sse.Event
	for _, ev := range evs {
		if !live(ev.Type) {
			stored = append(stored, ev)
		}
	}
	if got, want := transcriptOf(again), transcriptOf(stored); string(got) != string(want) {
		t.Errorf("the stored events read again differ:\n%s\nwant\n%s", got, want)
	}
	// The session's view tells the same run, turn by turn.
	v := decode[sessionView](t, h.do("GET", "/v1/sessions/"+id, "", ""), http.StatusOK)
	if len(v.Turns) != 2 || len(v.Turns[0].Calls) != 1 || v.Turns[0].Calls[0].Result == nil || v.Turns[1].Text != "All done: the hold is placed." || v.End == nil {
		t.Errorf("view = %+v", v)
	}
	if v.Session.Agent != "test" {
		t.Errorf("the session's agent is shown as %q, want its name", v.Session.Agent)
	}
	if v.Turns[0].Model == nil || v.Turns[0].Model.Tokens == 0 || v.Window == 0 {
		t.Errorf("turn 1 reports no budget use: %+v, window %d", v.Turns[0].Model, v.Window)
	}
	if v.LastEvent != stored[len(stored)-1].ID {
		t.Errorf("last_event = %s, want %s", v.LastEvent, stored[len(stored)-1].ID)
	}
}

func live(typ string) bool {
	switch typ {
	case evText, evToolStart, evToolDone, evProgress, evError, evIdle:
		return true
	}
	return false
}

// assertOrdered fails unless the ids of evs strictly increase.
func assertOrdered(t *testing.T, evs []sse.Event) {
	t.Helper()
	var prev ID
	for i, ev := range evs {
		id, err := ParseID(ev.ID)
		if err != nil {
			t.Fatalf("event %d: id %q: %v", i, ev.ID, err)
		}
		if !prev.Less(id) {
			t.Fatalf("event %d (%s) has id %s, not after %s", i, ev.Type, id, prev)
		}
		prev = id
	}
}

// TestReconnect drops the stream in the middle of a run and opens it
// again with Last-Event-ID: while the run goes on, and after it ended.
// The two connections together send every event of one connection,
// none twice.
func TestReconnect(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after string // reconnect after this event
		ended bool   // reconnect only once the run has ended
	}{
		{"mid-run at a live event", "tool_start", false},
		{"mid-run at a stored event", "tool_call", false},
		{"after the run at a live event", "tool_start", true},
		{"after the run at a stored event", "tool_call", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, options{}, holdTurns()...)
			id := h.create("Place a hold")
			<-h.gate.started
			s := h.open(id, "", false)
			first := s.until(t, tc.after)
			s.close()
			last := first[len(first)-1].ID
			var second []sse.Event
			if tc.ended {
				h.gate.open()
				h.wait(id)
				second = h.events(id, last)
			} else {
				s2 := h.open(id, last, false)
				if tc.after == "tool_call" {
					second = s2.until(t, "tool_start")
				}
				h.gate.open()
				second = append(second, s2.rest(t)...)
			}
			all := append(first, second...)
			assertOrdered(t, all)
			// Against the stored events: none is missing.
			stored := h.events(id, "")
			have := map[string]bool{}
			for _, ev := range all {
				have[ev.ID] = true
			}
			for _, ev := range stored {
				if !have[ev.ID] {
					t.Errorf("event %s %s was missed across the reconnect", ev.ID, ev.Type)
				}
			}
			if !tc.ended {
				// Mid-run, the live events of the rest of the run came too.
				for _, typ := range []string{"tool_done", "text", "idle"} {
					if !strings.Contains(types(second), typ) {
						t.Errorf("the second connection sent no %s event: %s", typ, types(second))
					}
				}
			}
		})
	}
}

// TestRequestBody: the request a turn sent, built again from the
// session, holds the messages the provider received.
func TestRequestBody(t *testing.T) {
	h := newHarness(t, options{}, llmtest.Turn{Calls: []llmtest.Call{{Name: "echo", Args: `{"text":"a"}`}}}, llmtest.Turn{Text: "ok"})
	id := h.create("Echo a")
	h.wait(id)
	for turn := 1; turn <= 2; turn++ {
		v := decode[requestJSON](t, h.do("GET", fmt.Sprintf("/v1/sessions/%s/turns/%d/request", id, turn), "", ""), http.StatusOK)
		if v.Dialect != "openai-chat" || !v.Exact {
			t.Errorf("turn %d: dialect %s, exact %v", turn, v.Dialect, v.Exact)
		}
		b, err := wire.Decode(v.Body, v.Dialect)
		must(t, err)
		got := b.Request().Messages
		want := h.model.Requests()[turn-1].Messages(t)
		if gj, wj := convJSON(t, got), convJSON(t, want); gj != wj {
			t.Errorf("turn %d: the body's messages\n%s\nwant what the provider received\n%s", turn, gj, wj)
		}
	}
	r := h.do("GET", "/v1/sessions/"+id+"/turns/3/request", "", "")
	if r.status != http.StatusNotFound || r.errorOf(t).Code != codeNotFound {
		t.Errorf("turn 3: %d %s", r.status, r.body)
	}
}

func convJSON(t *testing.T, msgs []llm.Message) string {
	b, err := llm.Conversation{Messages: msgs}.MarshalJSON()
	must(t, err)
	return string(b)
}

// TestOffloadedResult pages a result too large for its room: the tool
// message names its ref, and the pages put together are the result.
func TestOffloadedResult(t *testing.T) {
	h := newHarness(t, options{}, llmtest.Turn{Calls: []llmtest.Call{{Name: "orders", Args: `{}`}}}, llmtest.Turn{Text: "300 orders"})
	id := h.create("List the orders")
	h.wait(id)
	v := decode[sessionView](t, h.do("GET", "/v1/sessions/"+id, "", ""), http.StatusOK)
	res := v.Turns[0].Calls[0].Result
	if res == nil || res.Ref == "" || !res.Truncated || len(v.Results) != 1 || v.Results[0].Ref != res.Ref {
		t.Fatalf("no offloaded result: %+v, results %+v", res, v.Results)
	}
	if !strings.Contains(res.Content[0].Text, "<script>") {
		t.Errorf("the tool message as sent is not kept verbatim: %s", res.Content[0].Text)
	}
	var data strings.Builder
	offset := 0
	for pages := 0; ; pages++ {
		p := decode[resultPage](t, h.do("GET", fmt.Sprintf("%s?offset=%d&limit=4000", v.Results[0].URL, offset), "", ""), http.StatusOK)
		data.WriteString(p.Data)
		if p.Next == nil {
			if pages < 2 {
				t.Errorf("%d pages, want several", pages+1)
			}
			break
		}
		offset = *p.Next
	}
	var orders []order
	if err := json.Unmarshal([]byte(data.String()), &orders); err != nil || len(orders) != 300 || orders[299].ID != "o-00299" {
		t.Errorf("the pages put together: %d orders, %v", len(orders), err)
	}
	r := h.do("GET", "/v1/sessions/"+id+"/results/r-nope", "", "")
	if r.status != http.StatusNotFound {
		t.Errorf("an unknown ref: %d %s", r.status, r.body)
	}
}

// TestListAndDelete lists sessions by status and text, and deletes one.
func TestListAndDelete(t *testing.T) {
	h := newHarness(t, options{}, llmtest.Turn{Text: "hi"}, llmtest.Turn{Calls: []llmtest.Call{{ID: "c1", Name: "notify", Args: `{"message":"x"}`}}})
	done := h.create("Say hello")
	h.wait(done)
	paused := h.create("Tell the customer")
	h.wait(paused)
	list := func(q string) []string {
		v := decode[struct {
			Sessions []sessionJSON `json:"sessions"`
			Next     string        `json:"next"`
		}](t, h.do("GET", "/v1/sessions"+q, "", ""), http.StatusOK)
		var ids []string
		for _, s := range v.Sessions {
			ids = append(ids, s.ID)
		}
		return ids
	}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"", []string{paused, done}},
		{"?status=paused", []string{paused}},
		{"?status=done", []string{done}},
		{"?q=HELLO", []string{done}},
		{"?q=nothing-like-it", nil},
		{"?limit=1", []string{paused}},
	} {
		if got := list(tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("GET /v1/sessions%s = %v, want %v", tc.q, got, tc.want)
		}
	}
	agents := decode[struct {
		Agents []agentJSON `json:"agents"`
	}](t, h.do("GET", "/v1/agents", "", ""), http.StatusOK)
	if len(agents.Agents) != 2 || agents.Agents[1].Name != "test" || !slices.Equal(agents.Agents[1].Approval, []string{"notify"}) || agents.Agents[0].Error == "" {
		t.Errorf("agents = %+v", agents.Agents)
	}
	if r := h.do("DELETE", "/v1/sessions/"+done, "", ""); r.status != http.StatusNoContent {
		t.Errorf("DELETE: %d %s", r.status, r.body)
	}
	if r := h.do("GET", "/v1/sessions/"+done, "", ""); r.status != http.StatusNotFound {
		t.Errorf("GET a deleted session: %d", r.status)
	}
}
