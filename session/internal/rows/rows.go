// Package rows turns what the session stores keep into bytes and back: the
// validation of what a writer asks to store, the encoding of messages and
// results in the persistence format, identifiers, timestamps and listing
// cursors. Every store uses it, so that the same input gets the same verdict
// and the same bytes in every store.
package rows

import (
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// Now returns clock's time as the stores keep it: UTC, to the microsecond
// (PostgreSQL's precision), without a monotonic reading.
func Now(clock func() time.Time) time.Time {
	return clock().Round(0).UTC().Truncate(time.Microsecond)
}

// Micros and FromMicros convert a time to and from microseconds since the
// Unix epoch, the form SQLite keeps.
func Micros(t time.Time) int64 { return t.UnixMicro() }

// FromMicros is the inverse of [Micros].
func FromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// idAlphabet is lowercase base32 without padding: ids that are easy to read
// aloud and safe in URLs, file names and shells.
const idAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// random returns prefix followed by n random characters of idAlphabet
// (5 bits each).
func random(prefix string, n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand)
	out := make([]byte, len(prefix)+n)
	copy(out, prefix)
	for i, c := range b {
		out[len(prefix)+i] = idAlphabet[c&31]
	}
	return string(out)
}

// NewID returns a new session id: "s-" and 16 random characters (80 bits).
func NewID() string { return random("s-", 16) }

// NewRef returns a new offloaded-result reference, as toolresult names
// them: "r-" and 14 random characters (70 bits), short enough for a model
// to copy.
func NewRef() string { return toolresult.NewRef() }

// CheckRef reports whether ref may name an offloaded result that a caller
// chose: "r-" and 1 to 62 letters, digits, _ or -.
func CheckRef(ref string) error {
	rest, ok := strings.CutPrefix(ref, "r-")
	if !ok || rest == "" || len(ref) > 64 {
		return fmt.Errorf("%w: result ref %q: want r- and 1 to 62 letters, digits, _ or -", session.ErrInvalid, ref)
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("%w: result ref %q: %q is not allowed (want letters, digits, _ and - only)", session.ErrInvalid, ref, c)
		}
	}
	return nil
}

// CheckID reports whether id may name a session.
func CheckID(id string) error {
	if id == "" || len(id) > 128 {
		return fmt.Errorf("%w: session id %q: want 1 to 128 characters", session.ErrInvalid, id)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_-.:", c) >= 0) {
			return fmt.Errorf("%w: session id %q: %q is not allowed (want letters, digits and the characters _-.: only)", session.ErrInvalid, id, c)
		}
	}
	return nil
}

// NewSession validates s for [session.Store.Create] and returns it as it is
// to be stored at now: an id made up if empty, status running if empty,
// version 1, no step and no message.
func NewSession(s session.Session, now time.Time) (session.Session, error) {
	if s.ID == "" {
		s.ID = NewID()
	}
	if err := CheckID(s.ID); err != nil {
		return s, err
	}
	if s.Status == "" {
		s.Status = session.StatusRunning
	}
	if !s.Status.Valid() {
		return s, fmt.Errorf("%w: status %q (want running, paused, done or failed)", session.ErrInvalid, s.Status)
	}
	if err := CheckModel(s.Model); err != nil {
		return s, err
	}
	s.Model = CopyModel(s.Model)
	s.Version, s.Step, s.Messages = 1, 0, 0
	s.Created, s.Updated = now, now
	return s, nil
}

// A Step is a [session.Step] checked and encoded for storage.
type Step struct {
	Messages [][]byte // each in the persistence format
	Calls    []Call
}

// A Call is a [session.Call] checked and encoded for storage.
type Call struct {
	session.Call
	Result []byte // nil for a started record
	Status string // the result's status; "" for a started record
}

// CheckStep validates st before anything is written and encodes it.
func CheckStep(st *session.Step) (Step, error) {
	var out Step
	if st == nil {
		return out, fmt.Errorf("%w: the step is nil", session.ErrInvalid)
	}
	if err := CheckID(st.Session); err != nil {
		return out, err
	}
	if st.Version < 1 {
		return out, fmt.Errorf("%w: version %d: a session's versions start at 1", session.ErrInvalid, st.Version)
	}
	if st.Number < 1 {
		return out, fmt.Errorf("%w: step number %d: steps are numbered from 1", session.ErrInvalid, st.Number)
	}
	if st.Status != "" && !st.Status.Valid() {
		return out, fmt.Errorf("%w: status %q (want running, paused, done or failed)", session.ErrInvalid, st.Status)
	}
	if st.State != nil {
		if err := CheckJSON(st.State); err != nil {
			return out, fmt.Errorf("%w: state: %w", session.ErrInvalid, err)
		}
	}
	out.Messages = make([][]byte, len(st.Messages))
	for i, m := range st.Messages {
		b, err := EncodeMessage(m)
		if err != nil {
			return out, fmt.Errorf("%w: messages[%d]: %w", session.ErrInvalid, i, err)
		}
		out.Messages[i] = b
	}
	calls, err := CheckCalls(st.Calls, st.Number)
	out.Calls = calls
	return out, err
}

// CheckCalls validates and encodes call records; a record whose Step is 0
// gets step.
func CheckCalls(calls []session.Call, step int) ([]Call, error) {
	out := make([]Call, len(calls))
	for i, c := range calls {
		enc, err := checkCall(c)
		if err != nil {
			return nil, fmt.Errorf("%w: calls[%d] (%s): %w", session.ErrInvalid, i, c.ID, err)
		}
		if enc.Step == 0 {
			enc.Step = step
		}
		out[i] = enc
	}
	return out, nil
}

func checkCall(c session.Call) (Call, error) {
	out := Call{Call: c}
	out.Started, out.Finished = time.Time{}, time.Time{}
	switch {
	case c.ID == "":
		return out, errors.New("the call id is empty")
	case c.Tool == "":
		return out, errors.New("the tool name is empty")
	case c.Attempt < 1:
		return out, fmt.Errorf("attempt %d: attempts count from 1", c.Attempt)
	case c.Step < 0:
		return out, fmt.Errorf("step %d is negative", c.Step)
	case c.Duration < 0:
		return out, fmt.Errorf("duration %v is negative", c.Duration)
	}
	switch c.Idempotency {
	case "", tool.Level0, tool.Level1, tool.Level2:
	default:
		return out, fmt.Errorf("idempotency %q is not a level (want level_0, level_1 or level_2)", c.Idempotency)
	}
	if c.Result == nil {
		return out, nil
	}
	r := *c.Result
	if r.CallID != c.ID || r.Name != c.Tool {
		return out, fmt.Errorf("the result answers %s (%s), not this call", r.CallID, r.Name)
	}
	b, err := EncodeResult(r)
	if err != nil {
		return out, err
	}
	out.Result, out.Status = b, string(r.Status)
	return out, nil
}

// An Action is what writing a call record does to the stored ones.
type Action int

// The actions of [Plan].
const (
	Insert Action = iota // no record of that attempt yet: add one
	Finish               // complete the started record with the result
)

// Plan decides, in order, what writing each of calls does, given stored,
// which reports whether an attempt is already recorded and whether that
// record is finished. A started record for an attempt already recorded,
// or a finished record for an attempt already finished (by a stored
// record or by an earlier one of calls), is a conflict: Plan returns the
// [*session.ConflictError] of the first, for session id at version.
func Plan(id string, version int64, calls []Call, stored func(callID string, attempt int) (exists, finished bool)) ([]Action, error) {
	type key struct {
		id      string
		attempt int
	}
	written := map[key]bool{} // finished, for the attempts that calls write
	out := make([]Action, len(calls))
	for i := range calls {
		c := &calls[i]
		k := key{c.ID, c.Attempt}
		finished, exists := written[k]
		if !exists {
			exists, finished = stored(c.ID, c.Attempt)
		}
		switch {
		case !exists:
			out[i] = Insert
		case c.Result == nil || finished:
			return nil, CallConflict(id, version, c)
		default:
			out[i] = Finish
		}
		written[k] = finished || c.Result != nil
	}
	return out, nil
}

// CallConflict returns the [*session.ConflictError] of a call record that
// another writer wrote first, in session id at version.
func CallConflict(id string, version int64, c *Call) error {
	return &session.ConflictError{Session: id, Read: version, Current: version, Call: c.ID, Attempt: c.Attempt}
}

// Latest gives the records of calls whose Step is 0 the session's latest
// step, as [session.Store.Record] does.
func Latest(calls []Call, step int) {
	for i := range calls {
		if calls[i].Step == 0 {
			calls[i].Step = step
		}
	}
}

// Current checks that sess, read for a write, is still at version, the
// version the writer read: if it is not, another writer committed first.
func Current(sess session.Session, version int64) error {
	if sess.Version != version {
		return &session.ConflictError{Session: sess.ID, Read: version, Current: sess.Version}
	}
	return nil
}

// Advance returns sess after the step st, committed at now, which appends
// added messages, and the record of that step. The step must come after
// the session's latest one ([session.ErrInvalid] otherwise).
func Advance(sess session.Session, st *session.Step, added int, now time.Time) (session.Session, session.StepRecord, error) {
	if st.Number <= sess.Step {
		return sess, session.StepRecord{}, fmt.Errorf("%w: step %d is not after the session's latest step %d", session.ErrInvalid, st.Number, sess.Step)
	}
	rec := session.StepRecord{Number: st.Number, First: sess.Messages, Messages: added, State: st.State, Created: now}
	sess.Version++
	sess.Step = st.Number
	sess.Messages += added
	if st.Status != "" {
		sess.Status = st.Status
	}
	sess.Updated = now
	rec.Version, rec.Status = sess.Version, sess.Status
	return sess, rec, nil
}

// EncodeMessage encodes m in the persistence format, as a conversation of
// one message, and checks that the strict decoder reads it back.
func EncodeMessage(m llm.Message) ([]byte, error) {
	b, err := llm.Conversation{Messages: []llm.Message{m}}.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if _, err := DecodeMessage(b); err != nil {
		return nil, err
	}
	return b, nil
}

// DecodeMessage decodes a message written by [EncodeMessage].
func DecodeMessage(b []byte) (llm.Message, error) {
	var c llm.Conversation
	if err := c.UnmarshalJSON(b); err != nil {
		return llm.Message{}, err
	}
	if len(c.Messages) != 1 {
		return llm.Message{}, fmt.Errorf("holds %d messages, want 1", len(c.Messages))
	}
	return c.Messages[0], nil
}

// EncodeResult encodes r in the persistence format, as a conversation of
// one tool message holding it, and checks that it reads back.
func EncodeResult(r llm.ToolResult) ([]byte, error) {
	b, err := EncodeMessage(llm.Tool(r))
	if err != nil {
		return nil, fmt.Errorf("result: %w", err)
	}
	return b, nil
}

// DecodeResult decodes a result written by [EncodeResult].
func DecodeResult(b []byte) (*llm.ToolResult, error) {
	m, err := DecodeMessage(b)
	if err != nil {
		return nil, err
	}
	if len(m.Parts) != 1 {
		return nil, fmt.Errorf("holds %d parts, want one tool result", len(m.Parts))
	}
	r, ok := m.Parts[0].(llm.ToolResult)
	if !ok {
		return nil, errors.New("holds no tool result")
	}
	return &r, nil
}

// CheckJSON reports whether b is one JSON value, by the module's strict
// reader.
func CheckJSON(b []byte) error {
	if err := jsonx.Valid(b); err != nil {
		return jsonx.Error("", llm.Dotted, b, err)
	}
	return nil
}

// Corrupt returns a [*session.CorruptError].
func Corrupt(id, item string, err error) error {
	return &session.CorruptError{Session: id, Item: item, Err: err}
}

// CheckOffloaded validates a result to offload and returns it as it is to
// be stored.
func CheckOffloaded(id string, r session.Offloaded, now time.Time) (session.Offloaded, error) {
	if err := CheckID(id); err != nil {
		return r, err
	}
	if r.Rules != nil {
		if err := CheckJSON(r.Rules); err != nil {
			return r, fmt.Errorf("%w: rules: %w", session.ErrInvalid, err)
		}
	}
	if r.Data == nil {
		r.Data = []byte{}
	}
	if r.Ref != "" {
		if err := CheckRef(r.Ref); err != nil {
			return r, err
		}
	} else {
		r.Ref = NewRef()
	}
	r.Session, r.Size, r.Created = id, int64(len(r.Data)), now
	return r, nil
}

// The bounds of [session.ListOptions.Limit].
const (
	DefaultLimit = 50
	MaxLimit     = 1000
)

// A Cursor is where a listing resumes: after the session created at
// Created with ID, in newest-first order.
type Cursor struct {
	Set     bool
	Created time.Time
	ID      string
}

// List validates opts and returns the page's limit and where it starts.
func List(opts *session.ListOptions) (limit int, cur Cursor, err error) {
	var o session.ListOptions
	if opts != nil {
		o = *opts
	}
	switch {
	case o.Limit == 0:
		limit = DefaultLimit
	case o.Limit < 0 || o.Limit > MaxLimit:
		return 0, cur, fmt.Errorf("%w: limit %d (want 1 to %d, or 0 for %d)", session.ErrInvalid, o.Limit, MaxLimit, DefaultLimit)
	default:
		limit = o.Limit
	}
	if o.Cursor == "" {
		return limit, cur, nil
	}
	us, id, ok := strings.Cut(o.Cursor, ".")
	n, err := strconv.ParseInt(us, 10, 64)
	if !ok || err != nil || id == "" {
		return 0, cur, fmt.Errorf("%w: cursor %q is not one that a page returned", session.ErrInvalid, o.Cursor)
	}
	return limit, Cursor{Set: true, Created: FromMicros(n), ID: id}, nil
}

// Page finishes a listing: given up to limit+1 sessions, newest first, it
// keeps limit and sets Next when there were more.
func Page(sessions []session.Session, limit int) session.Page {
	p := session.Page{Sessions: sessions}
	if len(sessions) > limit {
		p.Sessions = sessions[:limit]
		last := p.Sessions[limit-1]
		p.Next = strconv.FormatInt(Micros(last.Created), 10) + "." + last.ID
	}
	return p
}

// Newer reports whether a comes before b in a listing: created later, or at
// the same time with a greater id.
func Newer(a, b session.Session) bool {
	if !a.Created.Equal(b.Created) {
		return a.Created.After(b.Created)
	}
	return a.ID > b.ID
}

// After reports whether s is listed after the cursor.
func (c Cursor) After(s session.Session) bool {
	return !c.Set || Newer(session.Session{Created: c.Created, ID: c.ID}, s)
}
