package server

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"iter"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/session"
)

// readJSON reads r's body, at most Config.MaxBody bytes, into v: a JSON
// object without members v does not know. empty tells whether a missing
// body is allowed.
func (s *Server) readJSON(w http.ResponseWriter, r *http.Request, v any, empty bool) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			return errorf(http.StatusUnsupportedMediaType, codeMediaType, "the body must be JSON, sent as Content-Type: application/json (got %q)", cut(ct, 80))
		}
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return errorf(http.StatusBadRequest, codeBadRequest, "the body could not be read: %v", err)
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		if empty {
			return nil
		}
		return errorf(http.StatusBadRequest, codeBadRequest, "the body is empty: want a JSON object")
	}
	if err := json.Unmarshal(b, v, json.RejectUnknownMembers(true)); err != nil {
		return errorf(http.StatusBadRequest, codeBadRequest, "the body is not the JSON object this route takes: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// sessionJSON is a session's summary.
type sessionJSON struct {
	ID       string         `json:"id"`
	Title    string         `json:"title"`
	Agent    string         `json:"agent"`
	Model    string         `json:"model,omitzero"`
	Status   session.Status `json:"status"`
	Live     bool           `json:"live"` // a run of it goes on in this server
	Version  int64          `json:"version"`
	Steps    int            `json:"steps"`
	Messages int            `json:"messages"`
	Created  time.Time      `json:"created"`
	Updated  time.Time      `json:"updated"`
	Events   string         `json:"events"` // the URL path of its event stream
}

func (s *Server) sessionOf(ss session.Session) sessionJSON {
	return sessionJSON{ID: ss.ID, Title: ss.Title, Agent: s.agents.shown(ss.Agent), Model: ss.Model.Spec, Status: ss.Status, Live: s.runs.get(ss.ID) != nil,
		Version: ss.Version, Steps: ss.Step, Messages: ss.Messages, Created: ss.Created, Updated: ss.Updated, Events: "/v1/sessions/" + ss.ID + "/events"}
}

func (s *Server) listAgents(w http.ResponseWriter, r *http.Request) error {
	list, err := s.agents.list()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"agents": list})
	return nil
}

// listSessions answers GET /v1/sessions?status=&q=&limit=&cursor=.
func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	status := session.Status(q.Get("status"))
	if status != "" && !status.Valid() {
		return errorf(http.StatusBadRequest, codeBadRequest, "status=%s: want running, paused, done or failed", cut(string(status), 40))
	}
	limit, err := intParam(q.Get("limit"), 50, 1, 1000, "limit")
	if err != nil {
		return err
	}
	search := strings.ToLower(strings.TrimSpace(q.Get("q")))
	match := func(ss session.Session) bool {
		if status != "" && ss.Status != status {
			return false
		}
		if search == "" {
			return true
		}
		for _, f := range []string{ss.ID, ss.Title, s.agents.shown(ss.Agent)} {
			if strings.Contains(strings.ToLower(f), search) {
				return true
			}
		}
		return false
	}
	out := []sessionJSON{}
	cursor := q.Get("cursor")
	// A filtered listing reads pages no longer than what it still needs,
	// so that it never stops inside a page, up to 10 000 sessions a call.
	for scanned := 0; len(out) < limit && scanned < 10_000; {
		page, err := s.catalog.List(r.Context(), &session.ListOptions{Limit: min(limit-len(out), 1000), Cursor: cursor})
		if err != nil {
			if errors.Is(err, session.ErrInvalid) {
				return errorf(http.StatusBadRequest, codeBadRequest, "cursor: not a cursor this server gave")
			}
			return err
		}
		scanned += len(page.Sessions)
		for _, ss := range page.Sessions {
			if match(ss) {
				out = append(out, s.sessionOf(ss))
			}
		}
		cursor = page.Next
		if cursor == "" {
			break
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"sessions": out, "next": cursor})
	return nil
}

// intParam reads a query number: def when empty, else one in [lo, hi].
func intParam(v string, def, lo, hi int, name string) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, errorf(http.StatusBadRequest, codeBadRequest, "%s=%s: want a whole number from %d to %d", name, cut(v, 40), lo, hi)
	}
	return n, nil
}

type createBody struct {
	Agent   string `json:"agent"`
	Message string `json:"message"`
}

// createSession answers POST /v1/sessions {agent, message}: a new
// session of the agent, whose run starts with message.
func (s *Server) createSession(w http.ResponseWriter, r *http.Request) error {
	var body createBody
	if err := s.readJSON(w, r, &body, false); err != nil {
		return err
	}
	if body.Agent == "" {
		return errorf(http.StatusBadRequest, codeBadRequest, "agent is missing: name an agent of GET /v1/agents")
	}
	if strings.TrimSpace(body.Message) == "" {
		return errorf(http.StatusBadRequest, codeBadRequest, "message is empty: say what the agent is to do")
	}
	e, err := s.agents.open(body.Agent)
	if err != nil {
		return err
	}
	st := e.agent.Start(body.Message)
	if err := s.launch(st.ID, 0, func(ctx context.Context) iter.Seq2[toolwire.Event, error] { return e.agent.Continue(ctx, st) }); err != nil {
		return err
	}
	return s.writeSession(w, r, st.ID, http.StatusCreated)
}

// writeSession answers with the summary of session id.
func (s *Server) writeSession(w http.ResponseWriter, r *http.Request, id string, status int) error {
	snap, err := s.cfg.Store.Load(r.Context(), id)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/v1/sessions/"+id)
	writeJSON(w, status, map[string]any{"session": s.sessionOf(snap.Session)})
	return nil
}

type messageBody struct {
	Message string `json:"message"`
}

// postMessage answers POST /v1/sessions/{id}/messages {message}: the
// session's run goes on with a new message from the person.
func (s *Server) postMessage(w http.ResponseWriter, r *http.Request) error {
	var body messageBody
	if err := s.readJSON(w, r, &body, false); err != nil {
		return err
	}
	if strings.TrimSpace(body.Message) == "" {
		return errorf(http.StatusBadRequest, codeBadRequest, "message is empty; to continue a run without one, POST /v1/sessions/{id}/resume")
	}
	return s.resume(w, r, &toolwire.Decisions{Message: body.Message})
}

// resumeSession answers POST /v1/sessions/{id}/resume: a run that a
// crash or a shutdown stopped goes on, as the recovery rules say, or a
// run that ended on a failed model call makes it again.
func (s *Server) resumeSession(w http.ResponseWriter, r *http.Request) error {
	var body struct{}
	if err := s.readJSON(w, r, &body, true); err != nil {
		return err
	}
	return s.resume(w, r, nil)
}

type decisionBody struct {
	CallID   string         `json:"call_id"`
	Decision string         `json:"decision"`
	Reason   string         `json:"reason"`
	Args     jsontext.Value `json:"args"`
}

type decideBody struct {
	Decisions []decisionBody `json:"decisions"`
	Message   string         `json:"message"`
}

// decide answers POST /v1/sessions/{id}/approvals: a decision for each
// call that waits, and the run goes on.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) error {
	var body decideBody
	if err := s.readJSON(w, r, &body, false); err != nil {
		return err
	}
	if len(body.Decisions) == 0 {
		return errorf(http.StatusBadRequest, codeBadRequest, "decisions is empty: give one for each call that waits (GET /v1/sessions/{id}/approvals lists them)")
	}
	d := &toolwire.Decisions{Calls: map[string]toolwire.Decision{}, Message: body.Message}
	for i, dc := range body.Decisions {
		if dc.CallID == "" {
			return errorf(http.StatusBadRequest, codeBadRequest, "decisions[%d].call_id is missing", i)
		}
		if _, dup := d.Calls[dc.CallID]; dup {
			return errorf(http.StatusBadRequest, codeBadRequest, "decisions[%d]: call %s is decided twice", i, cut(dc.CallID, 80))
		}
		switch toolwire.DecisionKind(dc.Decision) {
		case toolwire.Approved:
			d.Calls[dc.CallID] = toolwire.Approve()
		case toolwire.Rejected:
			d.Calls[dc.CallID] = toolwire.Reject(dc.Reason)
		case toolwire.Edited:
			if len(dc.Args) == 0 {
				return errorf(http.StatusBadRequest, codeBadRequest, "decisions[%d]: an edit needs args, the arguments to run the call with", i)
			}
			d.Calls[dc.CallID] = toolwire.Edit(dc.Args)
		default:
			return errorf(http.StatusBadRequest, codeBadRequest, "decisions[%d].decision is %q: want approve, reject or edit", i, cut(dc.Decision, 40))
		}
	}
	return s.resume(w, r, d)
}

// resume starts the run that continues session {id} with d.
func (s *Server) resume(w http.ResponseWriter, r *http.Request, d *toolwire.Decisions) error {
	id := r.PathValue("id")
	if s.runs.get(id) != nil {
		return errorf(http.StatusConflict, codeBusy, "session %s has a run going on; wait for it to pause or end (GET /v1/sessions/%s/events)", id, id)
	}
	snap, err := s.cfg.Store.Load(r.Context(), id)
	if err != nil {
		return err
	}
	e, err := s.agents.forSession(snap.Session)
	if err != nil {
		return err
	}
	if err := s.launch(id, snap.Session.Step, func(ctx context.Context) iter.Seq2[toolwire.Event, error] { return e.agent.ResumeStream(ctx, id, d) }); err != nil {
		return err
	}
	return s.writeSession(w, r, id, http.StatusAccepted)
}

// deleteSession answers DELETE /v1/sessions/{id}.
func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if s.runs.get(id) != nil {
		return errorf(http.StatusConflict, codeBusy, "session %s has a run going on; delete it once the run pauses or ends", id)
	}
	if err := s.catalog.Delete(r.Context(), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// pendingCallJSON is a call that waits for a decision, with its tool's
// parameters, for an edit.
type pendingCallJSON struct {
	CallID     string         `json:"call_id"`
	Tool       string         `json:"tool"`
	Args       jsontext.Value `json:"args"`
	Parameters jsontext.Value `json:"parameters,omitzero"`
}

// listApprovals answers GET /v1/sessions/{id}/approvals: the calls that
// wait for a decision (none when the session is not paused).
func (s *Server) listApprovals(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	snap, err := s.cfg.Store.Load(r.Context(), id)
	if err != nil {
		return err
	}
	out := []pendingCallJSON{}
	turn := 0
	if len(snap.State) > 0 {
		cp, err := toolwire.ParseCheckpoint(snap.State)
		if err != nil {
			return err
		}
		turn = cp.State.Turn
		if cp.State.Next.Kind == toolwire.AwaitApproval {
			params := map[string]jsontext.Value{}
			if e, err := s.agents.forSession(snap.Session); err == nil {
				for _, t := range e.agent.Tools() {
					params[t.Name] = jsontext.Value(t.Parameters)
				}
			}
			for _, pc := range cp.State.Next.Calls {
				if pc.Result == nil {
					out = append(out, pendingCallJSON{CallID: pc.Call.ID, Tool: pc.Call.Name, Args: argsJSON(pc.Call.Input), Parameters: params[pc.Call.Name]})
				}
			}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"session": id, "status": snap.Session.Status, "turn": turn, "calls": out})
	return nil
}

// resultPage is a page of an offloaded result.
type resultPage struct {
	Ref       string `json:"ref"`
	Tool      string `json:"tool"`
	Kind      string `json:"kind"`
	MediaType string `json:"media_type"`
	Size      int64  `json:"size"`
	Offset    int    `json:"offset"`
	// Next is the offset of the next page; absent on the last.
	Next *int `json:"next_offset,omitzero"`
	// Encoding is "text" (UTF-8, cut at character boundaries) or
	// "base64" for data that is not text.
	Encoding string `json:"encoding"`
	Data     string `json:"data"`
}

// pageResult answers GET /v1/sessions/{id}/results/{ref}?offset=&limit=:
// a page of an offloaded result's raw data, by bytes.
func (s *Server) pageResult(w http.ResponseWriter, r *http.Request) error {
	if s.results == nil {
		return errorf(http.StatusNotImplemented, codeUnsupported, "this server's store keeps no offloaded results")
	}
	q := r.URL.Query()
	offset, err := intParam(q.Get("offset"), 0, 0, 1<<40, "offset")
	if err != nil {
		return err
	}
	limit, err := intParam(q.Get("limit"), 64<<10, 1, 1<<20, "limit")
	if err != nil {
		return err
	}
	id, ref := r.PathValue("id"), r.PathValue("ref")
	o, err := s.results.Result(r.Context(), id, ref)
	if errors.Is(err, session.ErrNotFound) {
		return errorf(http.StatusNotFound, codeNotFound, "session %s has no result %s (or no such session)", id, cut(ref, 80))
	}
	if err != nil {
		return err
	}
	data := o.Data
	if offset > len(data) {
		return errorf(http.StatusBadRequest, codeBadRequest, "offset=%d is past the result's end (%d bytes)", offset, len(data))
	}
	text := utf8.Valid(data)
	end := min(len(data), offset+limit)
	if text {
		for offset < len(data) && !utf8.RuneStart(data[offset]) {
			offset++ // a page starts on a character
		}
		end = max(end, offset)
		for end < len(data) && end > offset && !utf8.RuneStart(data[end]) {
			end--
		}
	}
	p := resultPage{Ref: ref, Tool: o.Tool, Kind: o.Kind, MediaType: o.MediaType, Size: int64(len(data)), Offset: offset, Encoding: "text"}
	if text {
		p.Data = string(data[offset:end])
	} else {
		p.Encoding = "base64"
		p.Data = base64.StdEncoding.EncodeToString(data[offset:end])
	}
	if end < len(data) {
		p.Next = &end
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

// showSession answers GET /v1/sessions/{id}: the session, its turns as a
// timeline, what waits for approval, its offloaded results.
func (s *Server) showSession(w http.ResponseWriter, r *http.Request) error {
	tr, err := s.catalog.Show(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	window := s.agents.windowOf(tr.Session.Agent)
	if window == 0 {
		if e, err := s.agents.forSession(tr.Session); err == nil {
			window = e.window
		}
	}
	writeJSON(w, http.StatusOK, s.viewOf(tr, timeline(tr, window), window))
	return nil
}
