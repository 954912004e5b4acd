// Package toolresult shapes what a tool returns into what a model reads: the
// observation envelope of the tool-message protocol
// (docs/tool-message-protocol.md) and, in later stages, the pipeline that
// flattens, prunes, budgets, truncates and offloads large results.
package toolresult

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
)

// ErrorType classifies a failed tool call. The list is closed; see the
// constants.
type ErrorType string

// The error types of the tool-message protocol.
const (
	InvalidArguments   ErrorType = "invalid_arguments"   // arguments parsed but broke the schema
	MalformedArguments ErrorType = "malformed_arguments" // arguments were not valid JSON
	UnknownTool        ErrorType = "unknown_tool"        // no tool has that name
	Timeout            ErrorType = "timeout"             // the tool did not finish in time
	RateLimited        ErrorType = "rate_limited"        // the tool or its upstream throttled the call
	PermissionDenied   ErrorType = "permission_denied"   // the caller may not do this
	NotFound           ErrorType = "not_found"           // the thing asked for does not exist
	Conflict           ErrorType = "conflict"            // the request conflicts with the current state
	UpstreamError      ErrorType = "upstream_error"      // a service the tool depends on failed
	InternalError      ErrorType = "internal_error"      // the tool itself failed
	Interrupted        ErrorType = "interrupted"         // the run stopped before the outcome was known
	Cancelled          ErrorType = "cancelled"           // the call was cancelled before it finished
	RejectedByUser     ErrorType = "rejected_by_user"    // a human declined to approve the call
)

// ErrorTypes returns every error type, in the protocol's order, in a new
// slice.
func ErrorTypes() []ErrorType {
	return []ErrorType{
		InvalidArguments, MalformedArguments, UnknownTool, Timeout, RateLimited,
		PermissionDenied, NotFound, Conflict, UpstreamError, InternalError,
		Interrupted, Cancelled, RejectedByUser,
	}
}

// Valid reports whether t is one of the protocol's error types.
func (t ErrorType) Valid() bool {
	switch t {
	case InvalidArguments, MalformedArguments, UnknownTool, Timeout, RateLimited,
		PermissionDenied, NotFound, Conflict, UpstreamError, InternalError,
		Interrupted, Cancelled, RejectedByUser:
		return true
	}
	return false
}

// Retryable reports whether the same call, made again unchanged, may
// succeed: true for timeouts, rate limits and upstream failures. It is the
// default of [Error.Retryable] in [Failure].
func (t ErrorType) Retryable() bool {
	switch t {
	case Timeout, RateLimited, UpstreamError:
		return true
	}
	return false
}

// Error describes why a tool call failed.
type Error struct {
	Type       ErrorType
	Message    string        // what went wrong, for the model; never a stack trace
	Retryable  bool          // whether the same call, made again, may succeed
	RetryAfter time.Duration // how long to wait before retrying; 0 if unknown
}

// Meta describes how an observation was produced.
type Meta struct {
	Source    string        // where the data came from: a tool, service or URL
	Duration  time.Duration // how long the call took; rendered in milliseconds
	Truncated bool          // part of the data was cut to fit
	Omitted   int           // how many items were left out
	Ref       string        // where the full result can be fetched
	Attempts  int           // how many times the tool ran, when more than once
	// Repaired says how malformed arguments were repaired before the call,
	// when they were.
	Repaired string
	// InvalidUTF8 is set when text or data held invalid UTF-8, which
	// rendering replaced with U+FFFD.
	InvalidUTF8 bool

	// The fields below are set by a [Shaper].

	// Level says how much of the result the model sees: "full", "head",
	// "aggregate", or "cleared" once fitting has removed it.
	Level Level
	// TokensBefore is what the tool's output would have cost unshaped.
	TokensBefore int
	// TokensAfter is what the rendered tool message costs.
	TokensAfter int
	// Pruned counts the empty fields (null, "", [], {}) left out.
	Pruned int
	// Flattened counts the nested objects written as dotted keys.
	Flattened int
	// Trace names the language of a stack trace reduced to its first
	// line; the whole trace is behind Ref.
	Trace string
}

func (m Meta) isZero() bool { return m == Meta{} }

// An Envelope is the observation a tool call returns to the model, in the
// tool-message protocol (docs/tool-message-protocol.md). Build one with
// [Success], [Empty], [Partial] or [Failure], or as a struct literal; render
// it with [Envelope.Result].
type Envelope struct {
	// Status is the outcome. An empty result is a success whose summary says
	// nothing was found, never an error. Partial means part of the work was
	// done, and the summary says which part is missing.
	Status llm.Status
	// Summary is one line a model can act on: what was asked, what came
	// back. Line breaks are rendered as spaces.
	Summary string
	// Data is the structured result: any value encoding/json can marshal,
	// a jsontext.Value, a [*JSON] parsed once, a [Raw] output or a
	// [Blob]; a [Shaper] makes it fit a budget. nil leaves it out.
	Data any
	// Error describes the failure; required when Status is error.
	Error *Error
	// Suggestion is advisory, phrased as options the model may take ("you
	// could retry in 6 s or use the backup source"), never an order. See
	// [Options].
	Suggestion string
	// Meta describes how the observation was produced.
	Meta Meta
}

// Success returns a successful observation carrying data.
func Success(summary string, data any) Envelope {
	return Envelope{Status: llm.StatusSuccess, Summary: summary, Data: data}
}

// EmptySummary is the summary of [Empty] when it is given none.
const EmptySummary = "the call succeeded and found nothing"

// Empty returns the observation of a call that succeeded and found nothing:
// a success with empty data. The summary should say what was looked for;
// "" gives [EmptySummary], so that an empty result always renders as the
// success it is (a summary is required, and an envelope without one would
// render as an internal_error).
func Empty(summary string) Envelope {
	if strings.TrimSpace(summary) == "" {
		summary = EmptySummary
	}
	return Envelope{Status: llm.StatusSuccess, Summary: summary, Data: jsontext.Value("[]")}
}

// Partial returns the observation of a call that did part of the work. The
// summary should say which part is missing.
func Partial(summary string, data any) Envelope {
	return Envelope{Status: llm.StatusPartial, Summary: summary, Data: data}
}

// Failure returns the observation of a failed call. The message becomes
// both the summary and the error message; Retryable defaults to
// [ErrorType.Retryable].
func Failure(typ ErrorType, message string) Envelope {
	return Envelope{
		Status:  llm.StatusError,
		Summary: message,
		Error:   &Error{Type: typ, Message: message, Retryable: typ.Retryable()},
	}
}

// Options phrases alternatives as advice for [Envelope.Suggestion]:
//
//	Options("retry in 6 s", "use the backup source")
//	// "You could retry in 6 s or use the backup source."
func Options(options ...string) string {
	switch len(options) {
	case 0:
		return ""
	case 1:
		return "You could " + strings.TrimSuffix(options[0], ".") + "."
	}
	trimmed := make([]string, len(options))
	for i, o := range options {
		trimmed[i] = strings.TrimSuffix(o, ".")
	}
	last := len(trimmed) - 1
	return "You could " + strings.Join(trimmed[:last], ", ") + " or " + trimmed[last] + "."
}

// Validate reports whether e follows the protocol: a known status, a
// summary, an error of a known type exactly when the status is error (a
// partial result may also carry one), and no negative durations or counts.
func (e Envelope) Validate() error {
	var problems []string
	if !e.Status.Valid() {
		problems = append(problems, fmt.Sprintf("status %q is not success, error or partial", e.Status))
	}
	if strings.TrimSpace(e.Summary) == "" {
		problems = append(problems, "summary is empty (say what was asked and what came back)")
	}
	switch e.Meta.Level {
	case "", LevelFull, LevelHead, LevelAggregate, LevelCleared:
	default:
		problems = append(problems, fmt.Sprintf("meta level %q is not full, head, aggregate or cleared", e.Meta.Level))
	}
	switch {
	case e.Status == llm.StatusError && e.Error == nil:
		problems = append(problems, "status error needs an Error saying what failed")
	case e.Status == llm.StatusSuccess && e.Error != nil:
		problems = append(problems, "status success cannot carry an Error (use partial or error)")
	}
	if e.Error != nil {
		if !e.Error.Type.Valid() {
			problems = append(problems, fmt.Sprintf("error type %q is not one of the protocol's types", e.Error.Type))
		}
		if e.Error.RetryAfter < 0 {
			problems = append(problems, "error retry_after is negative")
		}
	}
	if e.Meta.Duration < 0 || e.Meta.Omitted < 0 || e.Meta.Attempts < 0 ||
		e.Meta.TokensBefore < 0 || e.Meta.TokensAfter < 0 || e.Meta.Pruned < 0 || e.Meta.Flattened < 0 {
		problems = append(problems, "meta has a negative duration or count")
	}
	if problems != nil {
		return fmt.Errorf("toolresult: invalid envelope: %s", strings.Join(problems, "; "))
	}
	return nil
}

// MarshalJSON renders e as the content of a tool message: compact,
// deterministic (same envelope, same bytes; keys in the protocol's order,
// map keys sorted), with <, > and & unescaped and non-ASCII text kept as
// is. Invalid UTF-8 is replaced by U+FFFD and flagged in meta.invalid_utf8.
// It fails if e does not [Envelope.Validate] or its Data cannot be encoded.
func (e Envelope) MarshalJSON() ([]byte, error) {
	return e.AppendJSON(make([]byte, 0, 256))
}

// AppendJSON appends the rendering of e to dst; see [Envelope.MarshalJSON].
func (e Envelope) AppendJSON(dst []byte) ([]byte, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	var data []byte
	var dataReplaced bool
	if e.Data != nil {
		var err error
		if data, dataReplaced, err = encodeData(e.Data); err != nil {
			return nil, fmt.Errorf("toolresult: encode data: %w", err)
		}
	}
	w := writer{dst: dst}
	w.raw(`{"status":`)
	w.str(string(e.Status))
	w.raw(`,"summary":`)
	w.str(oneLine(e.Summary))
	if data != nil {
		w.raw(`,"data":`)
		w.raw(string(data))
	}
	if err := e.Error; err != nil {
		w.raw(`,"error":{"type":`)
		w.str(string(err.Type))
		w.raw(`,"message":`)
		w.str(err.Message)
		w.raw(`,"retryable":`)
		w.dst = strconv.AppendBool(w.dst, err.Retryable)
		if err.RetryAfter > 0 {
			w.raw(`,"retry_after_ms":`)
			w.dst = strconv.AppendInt(w.dst, err.RetryAfter.Milliseconds(), 10)
		}
		w.raw("}")
	}
	if e.Suggestion != "" {
		w.raw(`,"suggestion":`)
		w.str(oneLine(e.Suggestion))
	}
	m := e.Meta
	if dataReplaced || !w.valid(m) {
		m.InvalidUTF8 = true
	}
	if !m.isZero() {
		w.meta(m)
	}
	w.raw("}")
	return w.dst, nil
}

// Result renders e into the tool result answering the call with the given
// id and tool name. It never fails: an envelope that cannot be rendered
// becomes an internal_error result saying why, so that every call still
// gets exactly one answer.
func (e Envelope) Result(callID, name string) llm.ToolResult {
	b, err := e.MarshalJSON()
	status := e.Status
	if err != nil {
		f := Failure(InternalError, "the tool's result could not be rendered: "+err.Error())
		f.Meta = Meta{Source: e.Meta.Source, Duration: e.Meta.Duration}
		b, _ = f.MarshalJSON() // a Failure with valid fields always renders
		status = llm.StatusError
	}
	return llm.ToolResult{CallID: callID, Name: name, Status: status, Content: []llm.Part{llm.Text{Text: string(b)}}}
}

// oneLine folds line breaks and tabs into single spaces and trims the
// ends.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") {
		return strings.TrimSpace(s)
	}
	return strings.Join(strings.Fields(s), " ")
}

// encodeData renders Data compactly without HTML escaping. It reports
// whether invalid UTF-8 was replaced.
func encodeData(v any) ([]byte, bool, error) {
	if r, ok := v.(jsonx.RawMessage); ok {
		// Raw JSON either way. Not a case of the switch: where
		// encoding/json is built on json v2 (Go 1.27), RawMessage and
		// jsontext.Value are one type, and the cases would collide.
		v = jsontext.Value(r)
	}
	switch v := v.(type) {
	case rendered:
		out, replaced := v.bytes()
		return out, replaced, nil
	case *JSON:
		if v == nil {
			return []byte("null"), false, nil
		}
		out, replaced := v.render()
		return out, replaced, nil
	case jsontext.Value:
		out, replaced, ok := compactJSON(v)
		if !ok {
			return nil, false, errors.New("data is a jsontext.Value that is not valid JSON")
		}
		return out, replaced, nil
	case Raw:
		// Unshaped raw output: JSON as JSON, text as a string; binary is
		// described, never written out.
		if out, replaced, ok := compactJSON(v); ok {
			return out, replaced, nil
		}
		if looksText(v) {
			b, replaced := jsonx.AppendString(nil, string(v))
			return b, replaced, nil
		}
		return blobData(sniff(v), len(v), 0, 0), false, nil
	case Blob:
		return blobData(v.MediaType, len(v.Data), 0, 0), false, nil
	default:
		out, replaced, err := jsonx.MarshalReplacing(v)
		if err != nil {
			return nil, false, err
		}
		if !utf8.Valid(out) { // invalid bytes inside a nested jsontext.Value
			out = []byte(jsonx.ValidUTF8(string(out)))
			replaced = true
		}
		return out, replaced, nil
	}
}

// compactJSON returns raw without insignificant white space, and whether
// invalid UTF-8 in it was replaced; ok is false when raw is not one JSON
// value. (Compacting validates as it goes: no second pass checks raw.)
// Each invalid byte becomes one U+FFFD, as in every string the envelope
// writes and as the strict reader compares member names, so that names
// it holds distinct ("k\xff\xff" and "k\ufffd") stay distinct.
func compactJSON(raw []byte) (out []byte, replaced, ok bool) {
	v := jsontext.Value(bytes.Clone(raw)) // Compact works in place
	if err := v.Compact(); err != nil {
		return nil, false, false
	}
	out = v
	if !utf8.Valid(out) {
		return []byte(jsonx.ValidUTF8(string(out))), true, true
	}
	return out, false, true
}

// writer appends JSON, noting whether any string needed UTF-8 repair.
type writer struct {
	dst      []byte
	replaced bool
}

func (w *writer) raw(s string) { w.dst = append(w.dst, s...) }

func (w *writer) str(s string) {
	var replaced bool
	w.dst, replaced = jsonx.AppendString(w.dst, s)
	w.replaced = w.replaced || replaced
}

// valid reports whether everything written so far, and the strings of m,
// were valid UTF-8.
func (w *writer) valid(m Meta) bool {
	return !w.replaced && utf8.ValidString(m.Source) && utf8.ValidString(m.Ref) && utf8.ValidString(m.Repaired) && utf8.ValidString(m.Trace)
}

func (w *writer) meta(m Meta) {
	sep := func() {
		if w.dst[len(w.dst)-1] != '{' {
			w.raw(",")
		}
	}
	w.raw(`,"meta":{`)
	if m.Source != "" {
		sep()
		w.raw(`"source":`)
		w.str(m.Source)
	}
	if m.Duration > 0 {
		sep()
		w.raw(`"duration_ms":`)
		w.dst = strconv.AppendInt(w.dst, m.Duration.Milliseconds(), 10)
	}
	if m.Truncated {
		sep()
		w.raw(`"truncated":true`)
	}
	if m.Omitted > 0 {
		sep()
		w.raw(`"omitted":`)
		w.dst = strconv.AppendInt(w.dst, int64(m.Omitted), 10)
	}
	if m.Ref != "" {
		sep()
		w.raw(`"ref":`)
		w.str(m.Ref)
	}
	if m.Attempts > 0 {
		sep()
		w.raw(`"attempts":`)
		w.dst = strconv.AppendInt(w.dst, int64(m.Attempts), 10)
	}
	if m.Repaired != "" {
		sep()
		w.raw(`"repaired":`)
		w.str(m.Repaired)
	}
	if m.InvalidUTF8 {
		sep()
		w.raw(`"invalid_utf8":true`)
	}
	if m.Level != "" {
		sep()
		w.raw(`"level":`)
		w.str(string(m.Level))
	}
	w.int("tokens_before", m.TokensBefore)
	w.int("tokens_after", m.TokensAfter)
	w.int("pruned", m.Pruned)
	w.int("flattened", m.Flattened)
	if m.Trace != "" {
		sep()
		w.raw(`"trace":`)
		w.str(m.Trace)
	}
	w.raw("}")
}

// int writes a positive integer meta field.
func (w *writer) int(key string, v int) {
	if v <= 0 {
		return
	}
	if w.dst[len(w.dst)-1] != '{' {
		w.raw(",")
	}
	w.raw(`"` + key + `":`)
	w.dst = strconv.AppendInt(w.dst, int64(v), 10)
}
