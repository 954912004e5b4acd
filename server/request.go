package server

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

// requestJSON is the body a turn's model call sent, as its provider
// received it.
type requestJSON struct {
	Turn    int                `json:"turn"`
	Dialect transcript.Dialect `json:"dialect"`
	// Exact is false when the body cannot be the one sent byte for byte:
	// fitting changed the history before the call (the session keeps the
	// whole history), or the call continued a response the provider
	// stored. Note says which.
	Exact bool           `json:"exact"`
	Note  string         `json:"note,omitzero"`
	Body  jsontext.Value `json:"body"`
}

// turnRequest answers GET /v1/sessions/{id}/turns/{turn}/request: the
// messages and tools the turn's model call sent, in its provider's wire
// format, built again from the session (the last attempt, when the call
// was made more than once).
func (s *Server) turnRequest(w http.ResponseWriter, r *http.Request) error {
	n, err := strconv.Atoi(r.PathValue("turn"))
	if err != nil || n < 1 {
		return errorf(http.StatusBadRequest, codeBadRequest, "turn %q: want a turn number, from 1", cut(r.PathValue("turn"), 20))
	}
	tr, err := s.catalog.Show(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	var before *toolwire.State // the state the turn's model call was made from
	var trace toolwire.StepTrace
	var prev *toolwire.State
	prevEnd := 0
	for _, st := range tr.Steps {
		cp, err := toolwire.ParseCheckpoint(st.State)
		if err != nil {
			return err
		}
		if cp.Trace.Did == toolwire.CallModel && prev != nil && prev.Turn+1 == n && prev.Next.Kind == toolwire.CallModel {
			b := *prev
			b.Messages = tr.Messages[:prevEnd]
			before, trace = &b, cp.Trace
		}
		prev, prevEnd = cp.State, min(st.First+st.Messages, len(tr.Messages))
	}
	if before == nil {
		return errorf(http.StatusNotFound, codeNotFound, "session %s made no model call in turn %d", tr.Session.ID, n)
	}
	e, err := s.agents.forSession(tr.Session)
	if err != nil {
		return err
	}
	d := e.agent.Dialect()
	if d == "" {
		return errorf(http.StatusNotFound, codeNotFound, "the agent's model has no provider wire format to show")
	}
	req := e.agent.Request(before)
	_, model, _ := strings.Cut(e.def.Model, ":")
	body, err := wire.New(d, transcript.Request{Messages: req.Messages, Tools: req.Tools, Model: model}, false)
	if err != nil {
		return err
	}
	b, _, err := body.Encode()
	if err != nil {
		return err
	}
	out := requestJSON{Turn: n, Dialect: d, Exact: true, Body: b}
	switch {
	case trace.Fitted:
		out.Exact, out.Note = false, "fitting changed the history before this call (results cleared or rounds summarized); the body shows the whole history the session keeps"
	case before.Previous != nil:
		out.Exact, out.Note = false, "this call continued a response the provider stored; it sent only the messages after it"
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
