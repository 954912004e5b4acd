package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/gateway"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/toolresult"
)

// An Event is one event of a session's stream: its id, its type (the
// SSE event field) and its data, a JSON object. docs/api.md lists the
// types and their data.
type Event struct {
	ID   ID
	Type string
	Data jsontext.Value
}

// The event types. Those marked live are sent only while a run goes on
// in this server: they are not stored, and a client that reconnects
// later reads what they showed in the stored events that follow them.
const (
	evMessage    = "message"       // a user or system message added to the history
	evTurn       = "turn"          // a turn begins: its model call is ready
	evModelCall  = "model_call"    // a model call's cost: duration, tokens sent, window, usage
	evAssistant  = "assistant"     // the model's message: its text and the ids of its calls
	evToolCall   = "tool_call"     // one call the model made, with its arguments
	evToolResult = "tool_result"   // one tool message's result, exactly as the model reads it
	evApproval   = "approval"      // the run paused: calls wait for a person's decision
	evDecision   = "decision"      // a person's decision on a waiting call, at resume
	evDone       = "done"          // the run ended
	evText       = "text"          // live: a fragment of the model's text
	evToolStart  = "tool_start"    // live: an attempt of a tool call starts
	evToolDone   = "tool_done"     // live: an attempt of a tool call ends
	evProgress   = "tool_progress" // live: a running tool reports how far it is
	evError      = "error"         // live: the run stopped on an error the session does not hold
	evIdle       = "idle"          // live: the run in this server ended or stopped; nothing more comes until the next
)

type usageJSON struct {
	Input      int `json:"input_tokens"`
	Output     int `json:"output_tokens"`
	CacheRead  int `json:"cache_read_tokens,omitzero"`
	CacheWrite int `json:"cache_write_tokens,omitzero"`
	Reasoning  int `json:"reasoning_tokens,omitzero"`
}

func usageOf(u llm.Usage) usageJSON {
	return usageJSON{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens}
}

type messageData struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

type turnData struct {
	Turn int `json:"turn"`
}

type modelCallData struct {
	Turn       int       `json:"turn"`
	DurationMS float64   `json:"duration_ms"`
	Sent       int       `json:"sent"`
	Tokens     int       `json:"tokens"`
	Window     int       `json:"window,omitzero"`
	Fitted     bool      `json:"fitted"`
	Cleared    int       `json:"cleared,omitzero"`
	Removed    int       `json:"removed,omitzero"`
	Usage      usageJSON `json:"usage"`
	Error      string    `json:"error,omitzero"`
}

type assistantData struct {
	Turn      int      `json:"turn"`
	Text      string   `json:"text"`
	Reasoning string   `json:"reasoning,omitzero"`
	Calls     []string `json:"calls"`
}

type toolCallData struct {
	Turn     int            `json:"turn"`
	CallID   string         `json:"call_id"`
	Tool     string         `json:"tool"`
	Args     jsontext.Value `json:"args"`
	Approval bool           `json:"approval"`
}

type partJSON struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitzero"`
	MediaType string `json:"media_type,omitzero"`
	Size      int    `json:"size,omitzero"`
	URL       string `json:"url,omitzero"`
}

type toolResultData struct {
	Turn   int        `json:"turn"`
	CallID string     `json:"call_id"`
	Tool   string     `json:"tool"`
	Status llm.Status `json:"status"`
	// Summary, ErrorType, Truncated and Ref are read from the envelope
	// of the result's text, when it is one.
	Summary    string     `json:"summary,omitzero"`
	ErrorType  string     `json:"error_type,omitzero"`
	Truncated  bool       `json:"truncated,omitzero"`
	Ref        string     `json:"ref,omitzero"`
	Content    []partJSON `json:"content"`
	DurationMS float64    `json:"duration_ms"`
	Attempts   int        `json:"attempts"`
}

type pendingJSON struct {
	CallID string         `json:"call_id"`
	Tool   string         `json:"tool"`
	Args   jsontext.Value `json:"args"`
}

type approvalData struct {
	Turn  int           `json:"turn"`
	Calls []pendingJSON `json:"calls"`
}

type decisionData struct {
	Turn     int            `json:"turn"`
	CallID   string         `json:"call_id"`
	Tool     string         `json:"tool"`
	Decision string         `json:"decision"`
	Reason   string         `json:"reason,omitzero"`
	Args     jsontext.Value `json:"args,omitzero"`
}

type doneData struct {
	Status  session.Status      `json:"status"`
	Reason  toolwire.StopReason `json:"reason"`
	Message string              `json:"message"`
	Answer  string              `json:"answer,omitzero"`
	Output  jsontext.Value      `json:"output,omitzero"`
	Turns   int                 `json:"turns"`
	Usage   usageJSON           `json:"usage"`
}

type textData struct {
	Turn int    `json:"turn"`
	Text string `json:"text"`
}

type toolStartData struct {
	Turn    int    `json:"turn"`
	CallID  string `json:"call_id"`
	Tool    string `json:"tool"`
	Attempt int    `json:"attempt"`
}

type toolDoneData struct {
	Turn       int        `json:"turn"`
	CallID     string     `json:"call_id"`
	Tool       string     `json:"tool"`
	Attempt    int        `json:"attempt"`
	Status     llm.Status `json:"status"`
	DurationMS float64    `json:"duration_ms"`
}

type progressData struct {
	Turn     int     `json:"turn"`
	CallID   string  `json:"call_id"`
	Tool     string  `json:"tool"`
	Attempt  int     `json:"attempt"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitzero"`
	Message  string  `json:"message,omitzero"`
}

type errorData struct {
	Message string `json:"message"`
}

type idleData struct {
	Status session.Status `json:"status"`
}

// encode writes an event's data.
func encode(v any) jsontext.Value {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		b, _ = json.Marshal(errorData{Message: "the event could not be encoded: " + err.Error()})
	}
	return b
}

// argsJSON is a call's arguments as a JSON value: as the model sent
// them when they are JSON, else as a string.
func argsJSON(b []byte) jsontext.Value {
	if len(b) == 0 {
		return jsontext.Value("{}")
	}
	if v := jsontext.Value(b); v.IsValid() {
		v = v.Clone()
		_ = v.Compact()
		return v
	}
	s, _ := json.Marshal(string(b))
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// timeline derives the stored events of a session from its trace, step
// by step, each step's numbered from 1: the same trace gives the same
// events and ids every time. window, when known, is the agent's context
// window, reported with each model call.
func timeline(tr *session.Trace, window int) []Event {
	if tr.Session.Agent == gateway.RecordAgent {
		return nil // a gateway record, not a run: its view says what it holds
	}
	var out []Event
	records := map[string][]session.Call{}
	for _, c := range tr.Calls {
		records[c.ID] = append(records[c.ID], c)
	}
	turn := 0 // the turns the state counted before the step
	for _, st := range tr.Steps {
		seq := 0
		add := func(typ string, v any) {
			seq++
			out = append(out, Event{ID: ID{Step: st.Number, Seq: seq}, Type: typ, Data: encode(v)})
		}
		cp, err := toolwire.ParseCheckpoint(st.State)
		if err != nil {
			add(evError, errorData{Message: fmt.Sprintf("the state of step %d cannot be read: %s", st.Number, strings.TrimPrefix(err.Error(), "toolwire: "))})
			continue
		}
		trace, next := cp.Trace, cp.State
		if trace.Did == toolwire.CallModel {
			add(evModelCall, modelCallData{Turn: turn + 1, DurationMS: ms(trace.Duration()), Sent: trace.Sent, Tokens: trace.Tokens, Window: window,
				Fitted: trace.Fitted, Cleared: trace.Cleared, Removed: trace.Removed, Usage: usageOf(trace.UsageOf()), Error: trace.Error})
		}
		if trace.Did == "resume" {
			for _, pc := range next.Next.Calls {
				if d := pc.Decision; d != nil && pc.Result == nil {
					dd := decisionData{Turn: next.Turn, CallID: pc.Call.ID, Tool: pc.Call.Name, Decision: string(d.Kind), Reason: d.Reason}
					if d.Kind == toolwire.Edited {
						dd.Args = argsJSON(pc.Call.Input)
					}
					add(evDecision, dd)
				}
			}
		}
		approval := map[string]bool{}
		for _, pc := range next.Next.Calls {
			approval[pc.Call.ID] = pc.Approval || pc.Decision != nil
		}
		for i := st.First; i < st.First+st.Messages && i < len(tr.Messages); i++ {
			m := tr.Messages[i]
			switch m.Role {
			case llm.RoleAssistant:
				ad := assistantData{Turn: next.Turn, Text: m.Text(), Calls: []string{}}
				for _, p := range m.Parts {
					if r, ok := p.(llm.Reasoning); ok {
						ad.Reasoning += r.Text
					}
				}
				calls := m.ToolCalls()
				for _, c := range calls {
					ad.Calls = append(ad.Calls, c.ID)
				}
				add(evAssistant, ad)
				for _, c := range calls {
					add(evToolCall, toolCallData{Turn: next.Turn, CallID: c.ID, Tool: c.Name, Args: argsJSON(c.Input), Approval: approval[c.ID]})
				}
			case llm.RoleTool:
				for _, r := range m.ToolResults() {
					add(evToolResult, resultData(next.Turn, r, records[r.CallID]))
				}
			default:
				add(evMessage, messageData{Role: string(m.Role), Text: m.Text()})
			}
		}
		switch next.Next.Kind {
		case toolwire.CallModel:
			add(evTurn, turnData{Turn: next.Turn + 1})
		case toolwire.AwaitApproval:
			ad := approvalData{Turn: next.Turn, Calls: []pendingJSON{}}
			for _, pc := range next.Next.Calls {
				if pc.Result == nil {
					ad.Calls = append(ad.Calls, pendingJSON{CallID: pc.Call.ID, Tool: pc.Call.Name, Args: argsJSON(pc.Call.Input)})
				}
			}
			add(evApproval, ad)
		case toolwire.Done:
			if stop := next.Next.Stop; stop != nil {
				add(evDone, doneData{Status: st.Status, Reason: stop.Reason, Message: stop.Message, Answer: stop.Answer, Output: stop.Output,
					Turns: next.Turn, Usage: usageOf(next.Usage)})
			}
		}
		turn = next.Turn
	}
	return out
}

// resultData is one result of a tool message, with what its envelope
// and its call's records say.
func resultData(turn int, r llm.ToolResult, recs []session.Call) toolResultData {
	d := toolResultData{Turn: turn, CallID: r.CallID, Tool: r.Name, Status: r.Status, Content: []partJSON{}}
	for _, p := range r.Content {
		switch p := p.(type) {
		case llm.Text:
			d.Content = append(d.Content, partJSON{Type: "text", Text: p.Text})
		case llm.Image:
			d.Content = append(d.Content, partJSON{Type: "image", MediaType: p.MediaType, Size: len(p.Data), URL: p.URL})
		}
	}
	if len(r.Content) > 0 {
		if t, ok := r.Content[0].(llm.Text); ok {
			if env, err := toolresult.Parse([]byte(t.Text)); err == nil {
				d.Summary, d.Truncated, d.Ref = env.Summary, env.Meta.Truncated, env.Meta.Ref
				if env.Error != nil {
					d.ErrorType = string(env.Error.Type)
				}
			}
		}
	}
	for _, c := range recs {
		d.Attempts = max(d.Attempts, c.Attempt)
		if c.Result != nil {
			d.DurationMS = ms(c.Duration)
		}
	}
	return d
}
