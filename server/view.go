package server

import (
	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/gateway"
	"github.com/toolwire/toolwire/session"
)

// sessionView is GET /v1/sessions/{id}: the session and its timeline,
// built from the same stored events its stream sends.
type sessionView struct {
	Session sessionJSON `json:"session"`
	// Window is the agent's context window in tokens, 0 when unknown.
	Window int `json:"window"`
	// Messages are the messages a person or the agent's prompt added,
	// each with the turn it came before.
	Messages []promptJSON `json:"messages"`
	Turns    []turnJSON   `json:"turns"`
	// Pending are the calls that wait for a decision, when the session
	// is paused.
	Pending *approvalData `json:"pending"`
	// End is how the run ended, when it did.
	End     *doneData    `json:"end"`
	Results []resultJSON `json:"results"`
	// LastEvent is the id of the last stored event: a stream opened with
	// it as Last-Event-ID sends only what comes after this view.
	LastEvent string `json:"last_event"`
	// GatewayRecord is, for a session that holds a record of toolwire
	// gateway (agent "toolwire gateway"), the record: what the request
	// broke, what the gateway did, the diff. Absent otherwise.
	GatewayRecord *gateway.Record `json:"gateway_record,omitzero"`
}

type promptJSON struct {
	Before int    `json:"before_turn"`
	Role   string `json:"role"`
	Text   string `json:"text"`
}

// turnJSON is one turn: its model call, the model's message, and each
// call with its result.
type turnJSON struct {
	Turn      int            `json:"turn"`
	Model     *modelCallData `json:"model"`
	Text      string         `json:"text"`
	Reasoning string         `json:"reasoning,omitzero"`
	Calls     []callJSON     `json:"calls"`
}

type callJSON struct {
	toolCallData
	Decision *decisionData   `json:"decision"`
	Result   *toolResultData `json:"result"`
}

type resultJSON struct {
	Ref       string `json:"ref"`
	Tool      string `json:"tool"`
	Kind      string `json:"kind"`
	MediaType string `json:"media_type"`
	Size      int64  `json:"size"`
	URL       string `json:"url"` // the route that pages it
}

// viewOf builds the view of a trace from its stored events.
func (s *Server) viewOf(tr *session.Trace, evs []Event, window int) sessionView {
	v := sessionView{Session: s.sessionOf(tr.Session), Window: window, Messages: []promptJSON{}, Turns: []turnJSON{}, Results: []resultJSON{}}
	if tr.Session.Agent == gateway.RecordAgent && len(tr.Steps) > 0 {
		v.GatewayRecord, _ = gateway.ParseRecord(tr.Steps[len(tr.Steps)-1].State)
	}
	turn := func(n int) *turnJSON {
		for len(v.Turns) < n {
			v.Turns = append(v.Turns, turnJSON{Turn: len(v.Turns) + 1, Calls: []callJSON{}})
		}
		return &v.Turns[max(n, 1)-1]
	}
	call := func(n int, id string) *callJSON {
		t := turn(n)
		for i := range t.Calls {
			if t.Calls[i].CallID == id {
				return &t.Calls[i]
			}
		}
		return nil
	}
	next := 1 // the turn the next model call begins
	for _, ev := range evs {
		v.LastEvent = ev.ID.String()
		switch ev.Type {
		case evMessage:
			var d messageData
			if json.Unmarshal(ev.Data, &d) == nil {
				v.Messages = append(v.Messages, promptJSON{Before: next, Role: d.Role, Text: d.Text})
			}
		case evTurn:
			var d turnData
			if json.Unmarshal(ev.Data, &d) == nil {
				next = d.Turn
			}
		case evModelCall:
			var d modelCallData
			if json.Unmarshal(ev.Data, &d) == nil {
				turn(d.Turn).Model = &d
			}
		case evAssistant:
			var d assistantData
			if json.Unmarshal(ev.Data, &d) == nil {
				t := turn(d.Turn)
				t.Text, t.Reasoning = d.Text, d.Reasoning
				next = d.Turn + 1
			}
		case evToolCall:
			var d toolCallData
			if json.Unmarshal(ev.Data, &d) == nil {
				t := turn(d.Turn)
				t.Calls = append(t.Calls, callJSON{toolCallData: d})
			}
		case evToolResult:
			var d toolResultData
			if json.Unmarshal(ev.Data, &d) == nil {
				if c := call(d.Turn, d.CallID); c != nil {
					c.Result = &d
				}
			}
		case evDecision:
			var d decisionData
			if json.Unmarshal(ev.Data, &d) == nil {
				if c := call(d.Turn, d.CallID); c != nil {
					c.Decision = &d
				}
			}
		case evApproval:
			var d approvalData
			if json.Unmarshal(ev.Data, &d) == nil {
				v.Pending = &d
			}
		case evDone:
			var d doneData
			if json.Unmarshal(ev.Data, &d) == nil {
				v.End = &d
			}
		}
	}
	if tr.Session.Status != session.StatusPaused {
		v.Pending = nil
	}
	if tr.Session.Status != session.StatusDone && tr.Session.Status != session.StatusFailed {
		v.End = nil
	}
	for _, r := range tr.Results {
		v.Results = append(v.Results, resultJSON{Ref: r.Ref, Tool: r.Tool, Kind: r.Kind, MediaType: r.MediaType, Size: r.Size,
			URL: "/v1/sessions/" + tr.Session.ID + "/results/" + r.Ref})
	}
	return v
}
