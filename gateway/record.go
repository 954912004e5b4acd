package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/transcript"
)

// RecordAgent is the Agent of the sessions that hold the gateway's
// records: what tells them from the sessions of agent runs.
const RecordAgent = "toolwire gateway"

// RecordKind is the "kind" of a record's JSON, its format's name and
// version.
const RecordKind = "toolwire.gateway.record/v1"

// A Record is what the gateway keeps of a request it repaired or
// rejected: where it came, what its body broke, what the gateway did
// and how the body sent differs from the body received. It is stored as
// a session of its own (Agent [RecordAgent], one step whose state is the
// record's JSON, no messages), so that toolwire sessions list and show
// read it with the sessions of runs; the session is done for a repaired
// request and failed for a rejected one.
type Record struct {
	Kind    string             `json:"kind"`
	Method  string             `json:"method"`
	Path    string             `json:"path"` // without the query, which may hold a key
	Dialect transcript.Dialect `json:"dialect"`
	Model   string             `json:"model,omitempty"`
	Policy  Policy             `json:"policy"`
	Verdict Verdict            `json:"verdict"`
	// Status is the status the gateway answered a rejected request with;
	// 0 for one it forwarded.
	Status int `json:"status,omitzero"`
	// Message is the error message of a rejected request.
	Message string `json:"message,omitempty"`
	// Violations are what the body received breaks.
	Violations []RecordViolation `json:"violations"`
	// Changes are the repairs made (for a rejected request, those that
	// the repair would have made), each with its rule.
	Changes []RecordChange `json:"changes,omitempty"`
	// Diff is how the body sent upstream differs from the body received;
	// empty for a rejected request.
	Diff []DiffLine `json:"diff,omitempty"`
	// Shaped lists the tool results shaping cut down: call id, tool,
	// tokens before and after, ref (a record of verdict shaped).
	Shaped []string `json:"shaped,omitempty"`
	// Reads counts the read_result rounds the gateway answered.
	Reads int `json:"reads,omitzero"`
	// BytesIn and BytesOut are the sizes of the body received and of the
	// body sent (0 when none was sent).
	BytesIn  int `json:"bytes_in"`
	BytesOut int `json:"bytes_out"`
}

// A RecordViolation is a violation of a recorded body.
type RecordViolation struct {
	Rule          string `json:"rule"`
	Path          string `json:"path"`
	Message       string `json:"message"`
	ProviderError string `json:"provider_error,omitempty"`
	Warning       bool   `json:"warning,omitzero"`
}

// A RecordChange is one repair, as toolwire check --fix --json lists it.
type RecordChange struct {
	Rule   string `json:"rule"`
	Path   string `json:"path"`
	Action string `json:"action"`
	Reason string `json:"reason"`
}

// ParseRecord reads a record from a gateway session's step state.
func ParseRecord(state jsontext.Value) (*Record, error) {
	var r Record
	if err := json.Unmarshal(state, &r); err != nil {
		return nil, fmt.Errorf("gateway: read a record: %w", err)
	}
	if r.Kind != RecordKind {
		return nil, fmt.Errorf("gateway: read a record: its kind is %q, want %q", r.Kind, RecordKind)
	}
	return &r, nil
}

// record stores what the gateway did with a request, when it has a
// store, and returns the session that holds it ("" when there is no
// store or the store failed, which is logged: a record is not worth
// failing the request for). e is the refusal of a rejected request, nil
// for a repaired one.
func (g *Gateway) record(ctx context.Context, r *http.Request, x *exchange, in []byte, f *wire.Fixed, e *refusal) string {
	if g.cfg.Store == nil {
		return ""
	}
	rec := &Record{Kind: RecordKind, Method: r.Method, Path: r.URL.Path, Dialect: x.p.dialect, Model: modelOf(in, r), Policy: x.policy,
		Verdict: VerdictRepaired, BytesIn: len(in)}
	for _, v := range f.Found {
		rec.Violations = append(rec.Violations, RecordViolation{Rule: string(v.Rule), Path: v.Path, Message: v.Message, ProviderError: v.ProviderError, Warning: v.Warning})
	}
	for _, c := range f.Changes {
		rec.Changes = append(rec.Changes, RecordChange{Rule: string(c.Rule), Path: c.Path, Action: string(c.Action), Reason: c.Reason})
	}
	status := session.StatusDone
	title := fmt.Sprintf("repaired %s %s: %s", x.p.dialect, r.URL.Path, ruleList(f.Found))
	if e != nil {
		rec.Verdict, rec.Status, rec.Message = VerdictRejected, e.status, e.message
		status = session.StatusFailed
		title = fmt.Sprintf("rejected %s %s: %s", x.p.dialect, r.URL.Path, ruleList(f.Found))
	} else {
		rec.BytesOut = len(f.Body)
		rec.Diff = Diff(in, f.Body)
	}
	return g.keep(ctx, rec, title, status)
}

// keep stores rec as a session of its own, and returns its id ("" when
// the store failed, which is logged).
func (g *Gateway) keep(ctx context.Context, rec *Record, title string, status session.Status) string {
	state, err := json.Marshal(rec, json.Deterministic(true))
	if err == nil {
		var s session.Session
		s, err = g.cfg.Store.Create(ctx, session.Session{ID: newID(), Title: cut(title, 200), Agent: RecordAgent,
			Model: session.Model{Spec: specOf(rec.Dialect, rec.Model)}})
		if err == nil {
			_, err = g.cfg.Store.Commit(ctx, &session.Step{Session: s.ID, Version: s.Version, Number: 1, Status: status, State: state})
		}
		if err == nil {
			return s.ID
		}
	}
	g.log.ErrorContext(ctx, "gateway: cannot record a request", "path", rec.Path, "err", err.Error())
	return ""
}

// recordShaping stores what shaping did to a request: the results it
// shaped, the read_result rounds it answered, and the diff of the body
// first sent against the body received (after any repair).
func (g *Gateway) recordShaping(ctx context.Context, r *http.Request, x *exchange, in, out []byte) string {
	if g.cfg.Store == nil {
		return ""
	}
	rec := &Record{Kind: RecordKind, Method: r.Method, Path: r.URL.Path, Dialect: x.p.dialect, Model: modelOf(in, r), Policy: x.policy,
		Verdict: VerdictShaped, Shaped: x.shaped, Reads: x.reads, Diff: Diff(in, out), BytesIn: len(in), BytesOut: len(out)}
	return g.keep(ctx, rec, fmt.Sprintf("shaped %s %s: %d result(s), %d read_result round(s)", x.p.dialect, r.URL.Path, len(x.shaped), x.reads), session.StatusDone)
}

// newID returns a new record's session id: "gw_" and 24 hex digits.
func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "gw_" + hex.EncodeToString(b[:])
}

// modelOf returns the model a request names: its body's "model" field,
// or Gemini's path (models/MODEL:generateContent).
func modelOf(body []byte, r *http.Request) string {
	if m := urlModel(r); m != "" {
		return m
	}
	var m struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &m, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return cut(m.Model, 200)
}

// urlModel returns the model a request's URL names: Gemini's path
// (models/MODEL:generateContent), whose body names none; "" for the others.
func urlModel(r *http.Request) string {
	call := r.PathValue("call")
	if i := strings.LastIndexByte(call, ':'); i > 0 {
		return cut(call[:i], 200)
	}
	return ""
}

// specOf is the model spec of a record's session, as toolwire run names
// models: "openai:gpt-4o", "anthropic:claude-sonnet-4-5".
func specOf(d transcript.Dialect, model string) string {
	if model == "" {
		return ""
	}
	prefix := map[transcript.Dialect]string{transcript.OpenAIChat: "openai", transcript.OpenAIResponses: "openai-responses",
		transcript.Anthropic: "anthropic", transcript.Gemini: "gemini"}[d]
	return prefix + ":" + model
}
