package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/session"
)

// The error codes of the API, one per kind of failure; each answer with
// an error says its code, its HTTP status and a message for people.
const (
	codeBadRequest   = "bad_request"  // 400: a malformed body, query or header
	codeUnauthorized = "unauthorized" // 401: no bearer token, or the wrong one
	codeCrossOrigin  = "cross_origin" // 403: a browser page of another site, or a Host that is not loopback
	codeNotFound     = "not_found"    // 404: no such route, session, agent, turn or result
	codeMethod       = "method_not_allowed"
	codeConflict     = "conflict"          // 409: another writer resumed the session first
	codeBusy         = "run_in_progress"   // 409: the session has a run going on in this server
	codeState        = "not_resumable"     // 409: the session is not in a state that takes this
	codeAgent        = "agent_unavailable" // 409: the session's agent is not in the agents directory
	codeTooLarge     = "body_too_large"    // 413
	codeMediaType    = "unsupported_media_type"
	codeInvalidEdit  = "invalid_edit"  // 422: edited arguments break the tool's schema
	codeTooManyRuns  = "too_many_runs" // 429: the server's limit of concurrent runs
	codeInternal     = "internal"      // 500
	codeAgentError   = "agent_error"   // 500: an agent file that cannot be built
	codeUnsupported  = "not_supported" // 501: the store lacks a capability
	codeShuttingDown = "shutting_down" // 503
)

// An apiError is an error answer: the status, the code and the message.
type apiError struct {
	Status  int
	Code    string
	Message string
	// Retry, when not 0, is sent as Retry-After, in seconds.
	Retry int
}

func (e *apiError) Error() string { return e.Message }

func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// errorBody is the one shape of every error answer.
type errorBody struct {
	Error errorJSON `json:"error"`
}

type errorJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Status  int    `json:"status"`
}

// writeError answers err: an *apiError as it says, a store's or a run's
// error by its kind, anything else as an internal error whose message is
// logged, not sent.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	ae := s.classify(err)
	if ae.Status >= 500 && ae.Code == codeInternal {
		s.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if ae.Retry > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(ae.Retry))
	}
	writeJSON(w, ae.Status, errorBody{Error: errorJSON{Code: ae.Code, Message: ae.Message, Status: ae.Status}})
}

// classify maps err to its answer.
func (s *Server) classify(err error) *apiError {
	var ae *apiError
	var ce *session.ConflictError
	var re *toolwire.ResumeError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &mbe):
		return errorf(http.StatusRequestEntityTooLarge, codeTooLarge, "the request body is larger than the server's limit of %d bytes", mbe.Limit)
	case errors.As(err, &ce):
		return errorf(http.StatusConflict, codeConflict, "%s", ce.Error())
	case errors.Is(err, session.ErrNotFound):
		return errorf(http.StatusNotFound, codeNotFound, "no session has that id")
	case errors.Is(err, toolwire.ErrInvalidEdit) && errors.As(err, &re):
		return errorf(http.StatusUnprocessableEntity, codeInvalidEdit, "%s", re.Problem)
	case errors.As(err, &re):
		return errorf(http.StatusConflict, codeState, "session %s: %s", re.Session, re.Problem)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return errorf(http.StatusServiceUnavailable, codeShuttingDown, "the request was cancelled")
	}
	return errorf(http.StatusInternalServerError, codeInternal, "internal error; the server's log says more")
}

// writeJSON writes v as the JSON answer with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"the answer could not be encoded","status":500}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
