package sqlstore

// A row is data. A damaged file or a hostile database can hold anything in
// any column: NULL, text where a number belongs, a negative count, a
// position far past the end. The reads scan every column into a value,
// which takes whatever the driver gives and never fails, and decode it
// here: a count is a hint that reserves at most maxPrealloc items, a
// position is checked before anything is indexed by it, and every problem
// becomes a [*session.CorruptError] that names the row, the column and
// the value.

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/internal/rows"
	"github.com/toolwire/toolwire/tool"
)

// maxPrealloc bounds what a count read from a row reserves: past it, a
// slice grows as the rows it counts arrive.
const maxPrealloc = 1024

// maxCount bounds the message counts and positions of a row: far more
// messages than a session holds, small enough that adding two never
// overflows an int.
const maxCount = math.MaxInt32

// The times a row may hold: years 1 to 9999, as time.Time formats them.
var (
	minTime = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Microsecond)
)

// A value is one column of a row as the driver gives it: NULL, an
// integer, a real number, a boolean, text, a time or a blob. Scanning into
// a value never fails, so that the store, not the driver, says what is
// wrong with a row.
type value struct {
	// v is nil for NULL, an int64, float64, bool, string or time.Time,
	// or isBlob.
	v any
	// blob is the blob when v is isBlob: kept apart, since boxing a slice
	// in v would allocate for every row.
	blob []byte
}

// isBlob marks a value that is a blob.
type isBlob struct{}

// Scan keeps src, copying a blob, which the driver may reuse for the next
// row.
func (c *value) Scan(src any) error {
	if b, ok := src.([]byte); ok {
		c.v, c.blob = isBlob{}, bytes.Clone(b)
		return nil
	}
	c.v, c.blob = src, nil
	return nil
}

// A badColumn says what is wrong with the value of one column.
type badColumn struct {
	table, column string
	value         value
	want          string
}

func (e *badColumn) Error() string {
	return fmt.Sprintf("%s.%s = %s: want %s", e.table, e.column, describe(e.value), e.want)
}

// maxShown bounds how much of a text or blob value an error shows.
const maxShown = 64

// describe renders a column's value for an error message, in SQL's terms.
func describe(c value) string {
	switch v := c.v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return "the real number " + strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case string:
		return quote(v)
	case isBlob:
		return fmt.Sprintf("a %d-byte blob", len(c.blob))
	case time.Time:
		return v.Format(time.RFC3339Nano)
	}
	return "a value of an unknown type"
}

// label renders a value that names a row in an error's item: text as it
// is (cut short), any other value as [describe] renders it.
func label(v value) string {
	if s, ok := v.v.(string); ok && len(s) <= maxShown && utf8.ValidString(s) {
		return s
	}
	return describe(v)
}

// quote quotes s, cut to maxShown bytes.
func quote(s string) string {
	if len(s) <= maxShown {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:maxShown]), len(s))
}

// cols decodes the columns of one row of table, keeping the first problem
// in err, and the column it is about; after a problem, the values they
// return are zero.
type cols struct {
	table  string
	err    error
	column string
}

// fail records that column's value v is not what the store wants.
func (c *cols) fail(column string, v value, want string) {
	if c.err == nil {
		c.err, c.column = &badColumn{c.table, column, v, want}, column
	}
}

// int returns an integer from lo to hi.
func (c *cols) int(column string, v value, lo, hi int64) int64 {
	n, ok := v.v.(int64)
	if !ok || n < lo || n > hi {
		c.fail(column, v, fmt.Sprintf("an integer from %d to %d", lo, hi))
		return 0
	}
	return n
}

// nullInt returns an integer from lo to hi, or 0 for NULL.
func (c *cols) nullInt(column string, v value, lo, hi int64) int64 {
	if v.v == nil {
		return 0
	}
	return c.int(column, v, lo, hi)
}

// text returns text.
func (c *cols) text(column string, v value) string {
	s, ok := v.v.(string)
	if !ok {
		c.fail(column, v, "text")
	}
	return s
}

// nullText returns text, or "" for NULL.
func (c *cols) nullText(column string, v value) string {
	if v.v == nil {
		return ""
	}
	return c.text(column, v)
}

// bytes returns bytes, from a blob or text; nil for NULL when null says
// that the column may be NULL.
func (c *cols) bytes(column string, v value, null bool) []byte {
	switch b := v.v.(type) {
	case isBlob:
		if v.blob == nil {
			return []byte{}
		}
		return v.blob
	case string:
		return []byte(b)
	case nil:
		if null {
			return nil
		}
	}
	c.fail(column, v, "bytes")
	return nil
}

// json returns one JSON value, by the module's strict reader, or nil for
// NULL.
func (c *cols) json(column string, v value) []byte {
	b := c.bytes(column, v, true)
	if b == nil || c.err != nil {
		return nil
	}
	if err := rows.CheckJSON(b); err != nil {
		c.err, c.column = fmt.Errorf("%s.%s: %w", c.table, column, err), column
		return nil
	}
	return b
}

// time returns a time in years 1 to 9999, as SQLite keeps it
// (microseconds since 1970) or PostgreSQL (a timestamp); the zero time
// for NULL when null says that the column may be NULL.
func (c *cols) time(column string, v value, null bool) time.Time {
	var t time.Time
	switch x := v.v.(type) {
	case int64:
		if x >= minTime.UnixMicro() && x <= maxTime.UnixMicro() {
			return rows.FromMicros(x)
		}
	case time.Time:
		t = x.UTC()
		if !t.Before(minTime) && !t.After(maxTime) {
			return t
		}
	case nil:
		if null {
			return t
		}
	}
	c.fail(column, v, "a time in years 1 to 9999")
	return time.Time{}
}

// status returns a session status.
func (c *cols) status(column string, v value) session.Status {
	s := session.Status(c.text(column, v))
	if c.err == nil && !s.Valid() {
		c.fail(column, v, "running, paused, done or failed")
	}
	return s
}

// sessionRow scans the columns of queries.sessionCols.
type sessionRow struct {
	id, title, agent, status, version, step, messages, created, updated value
	model, baseURL, modelOptions                                        value
}

func (r *sessionRow) dest() []any {
	return []any{&r.id, &r.title, &r.agent, &r.status, &r.version, &r.step, &r.messages, &r.created, &r.updated,
		&r.model, &r.baseURL, &r.modelOptions}
}

// session decodes the row of the session id; an empty id takes the row's.
func (r *sessionRow) session(id string) (session.Session, error) {
	var s session.Session
	rowID, ok := r.id.v.(string)
	if id == "" && ok {
		id = rowID
	}
	switch {
	case !ok:
		return s, rows.Corrupt(id, "id", &badColumn{"toolwire_sessions", "id", r.id, "text"})
	case rowID != id:
		return s, rows.Corrupt(id, "id", &badColumn{"toolwire_sessions", "id", r.id, fmt.Sprintf("%q, the id asked for", id)})
	}
	s.ID = id
	c := cols{table: "toolwire_sessions"}
	s.Title = c.text("title", r.title)
	s.Agent = c.text("agent", r.agent)
	s.Status = c.status("status", r.status)
	// A version that the next commit cannot increment is not one.
	s.Version = c.int("version", r.version, 1, math.MaxInt64-1)
	s.Step = int(c.int("step", r.step, 0, math.MaxInt))
	s.Messages = int(c.int("messages", r.messages, 0, maxCount))
	s.Created = c.time("created", r.created, false)
	s.Updated = c.time("updated", r.updated, false)
	s.Model.Spec = c.text("model", r.model)
	s.Model.BaseURL = c.text("base_url", r.baseURL)
	if opts := c.bytes("model_options", r.modelOptions, true); c.err == nil {
		var err error
		if s.Model.Options, err = rows.DecodeModelOptions(opts); err != nil {
			c.fail("model_options", r.modelOptions, "a JSON object of model options ("+err.Error()+")")
		}
	}
	if c.err == nil {
		if err := rows.CheckModel(session.Model{Spec: s.Model.Spec, BaseURL: s.Model.BaseURL}); err != nil {
			c.fail("model", r.model, "a model spec and base URL as a run stores them")
		}
	}
	if c.err != nil {
		// The item is the column, as in "session s1: status is corrupt".
		return s, rows.Corrupt(id, c.column, c.err)
	}
	return s, nil
}

// decodeMessage decodes the row of message next of sess, whose columns
// are seq and data.
func decodeMessage(sess session.Session, next int, seq, data value) (llm.Message, error) {
	item := func() string { return fmt.Sprintf("message %d", next) }
	c := cols{table: "toolwire_messages"}
	n := c.int("seq", seq, 0, math.MaxInt64)
	switch {
	case c.err != nil:
	case n > int64(next):
		return llm.Message{}, rows.Corrupt(sess.ID, item(), fmt.Errorf("it is missing (the next stored one is %d)", n))
	case n < int64(next):
		c.fail("seq", seq, fmt.Sprintf("%d: another row holds message %d", next, n))
	case next >= sess.Messages:
		c.fail("seq", seq, fmt.Sprintf("below %d, the session's message count (toolwire_sessions.messages)", sess.Messages))
	}
	b := c.bytes("data", data, false)
	if c.err != nil {
		return llm.Message{}, rows.Corrupt(sess.ID, item(), c.err)
	}
	m, err := rows.DecodeMessage(b)
	if err != nil {
		return llm.Message{}, rows.Corrupt(sess.ID, item(), fmt.Errorf("toolwire_messages.data: %w", err))
	}
	return m, nil
}

// stepRow scans the columns of queries.selectSteps.
type stepRow struct {
	number, version, status, first, messages, state, created value
}

func (r *stepRow) dest() []any {
	return []any{&r.number, &r.version, &r.status, &r.first, &r.messages, &r.state, &r.created}
}

// steps decodes the step rows of a session, in order of number, checking
// that they add sess's messages (n of them read) one after the other.
type steps struct {
	sess     session.Session
	n        int
	prev     int // the number of the step before; 0 before the first
	end      int // where the step before ends in the messages
	lastSeen bool
}

// record decodes the row of the next step.
func (st *steps) record(r *stepRow) (session.StepRecord, error) {
	var rec session.StepRecord
	c := cols{table: "toolwire_steps"}
	id := st.sess.ID
	rec.Number = int(c.int("number", r.number, 1, math.MaxInt))
	switch {
	case c.err != nil:
	case rec.Number <= st.prev:
		c.fail("number", r.number, fmt.Sprintf("more than %d, the step before", st.prev))
	case rec.Number > st.sess.Step:
		c.fail("number", r.number, fmt.Sprintf("at most %d, the session's latest step (toolwire_sessions.step)", st.sess.Step))
	}
	rec.Version = c.int("version", r.version, 1, math.MaxInt64)
	rec.Status = c.status("status", r.status)
	if first, ok := r.first.v.(int64); !ok || first != int64(st.end) {
		where := fmt.Sprintf("where step %d ends", st.prev)
		if st.prev == 0 {
			where = "the first message"
		}
		c.fail("first_seq", r.first, fmt.Sprintf("%d, %s", st.end, where))
	}
	rec.First = st.end
	// The latest step adds the last of the messages; the others any number
	// of them.
	lo, hi := int64(0), int64(st.n-st.end)
	if rec.Number == st.sess.Step {
		lo = hi
	}
	count := c.int("messages", r.messages, lo, hi)
	rec.Messages = int(count)
	state := c.bytes("state", r.state, true)
	rec.Created = c.time("created", r.created, false)
	if c.err != nil {
		return rec, rows.Corrupt(id, "step "+label(r.number), c.err)
	}
	if state != nil {
		rec.State = state
		if err := checkState(id, rec.Number, state); err != nil {
			return rec, err
		}
	}
	st.prev, st.end = rec.Number, st.end+rec.Messages
	st.lastSeen = st.lastSeen || rec.Number == st.sess.Step
	return rec, nil
}

// done checks, after the last row, that the session's latest step was
// among them.
func (st *steps) done() error {
	if st.sess.Step > 0 && !st.lastSeen {
		return rows.Corrupt(st.sess.ID, fmt.Sprintf("step %d", st.sess.Step), fmt.Errorf("the step is missing (the latest stored step is %d)", st.prev))
	}
	return nil
}

// checkState checks the state of step number of session id.
func checkState(id string, number int, state []byte) error {
	if err := rows.CheckJSON(state); err != nil {
		return rows.Corrupt(id, fmt.Sprintf("state of step %d", number), fmt.Errorf("toolwire_steps.state: %w", err))
	}
	return nil
}

// callRow scans the columns of queries.callCols.
type callRow struct {
	id, attempt, step, tool, idem, key, args, started, finished, status, result, duration value
}

func (r *callRow) dest() []any {
	return []any{&r.id, &r.attempt, &r.step, &r.tool, &r.idem, &r.key, &r.args, &r.started, &r.finished, &r.status, &r.result, &r.duration}
}

// call decodes the row of a call record of session id.
func (r *callRow) call(id string) (session.Call, error) {
	var out session.Call
	c := cols{table: "toolwire_calls"}
	item := func() string { return fmt.Sprintf("call %s attempt %s", label(r.id), label(r.attempt)) }
	out.ID = c.text("call_id", r.id)
	out.Attempt = int(c.int("attempt", r.attempt, 1, math.MaxInt))
	out.Step = int(c.int("step", r.step, 0, math.MaxInt))
	out.Tool = c.text("tool", r.tool)
	switch idem := tool.Idempotency(c.text("idempotency", r.idem)); idem {
	case "", tool.Level0, tool.Level1, tool.Level2:
		out.Idempotency = idem
	default:
		c.fail("idempotency", r.idem, "level_0, level_1, level_2 or nothing")
	}
	out.IdempotencyKey = c.text("idempotency_key", r.key)
	if args := c.bytes("arguments", r.args, true); len(args) > 0 {
		out.Arguments = args
	}
	out.Started = c.time("started", r.started, false)
	out.Finished = c.time("finished", r.finished, true)
	c.nullText("status", r.status)
	result := c.bytes("result", r.result, true)
	out.Duration = time.Duration(c.nullInt("duration", r.duration, 0, math.MaxInt64))
	if c.err != nil {
		return out, rows.Corrupt(id, item(), c.err)
	}
	if result != nil {
		res, err := rows.DecodeResult(result)
		if err == nil && (res.CallID != out.ID || res.Name != out.Tool) {
			err = fmt.Errorf("the result answers %s (%s), not this call", label(value{v: res.CallID}), label(value{v: res.Name}))
		}
		if err != nil {
			return out, rows.Corrupt(id, item(), fmt.Errorf("toolwire_calls.result: %w", err))
		}
		out.Result = res
	}
	return out, nil
}

// resultRow scans the columns of an offloaded result: those of
// queries.selectResultInfos, or of queries.selectResult, which reads data
// instead of ref and the data's length.
type resultRow struct {
	ref, tool, kind, media, data, rules, size, length, created value
}

// infoDest returns the destinations of queries.selectResultInfos.
func (r *resultRow) infoDest() []any {
	return []any{&r.ref, &r.tool, &r.kind, &r.media, &r.rules, &r.size, &r.length, &r.created}
}

// dataDest returns the destinations of queries.selectResult.
func (r *resultRow) dataDest() []any {
	return []any{&r.tool, &r.kind, &r.media, &r.data, &r.rules, &r.size, &r.created}
}

// result decodes the row of an offloaded result of session id; withData
// says whether it holds the data (dataDest) or its length (infoDest).
func (r *resultRow) result(id string, withData bool) (session.Offloaded, error) {
	out := session.Offloaded{Session: id}
	c := cols{table: "toolwire_results"}
	length := r.length
	out.Ref = c.text("ref", r.ref)
	if withData {
		out.Data = c.bytes("data", r.data, false)
		length = value{v: int64(len(out.Data))}
	}
	out.Tool = c.text("tool", r.tool)
	out.Kind = c.text("kind", r.kind)
	out.MediaType = c.text("media_type", r.media)
	if rules := c.json("rules", r.rules); rules != nil {
		out.Rules = rules
	}
	out.Size = c.int("size", r.size, 0, math.MaxInt64)
	if n, ok := length.v.(int64); c.err == nil && (!ok || n != out.Size) {
		c.fail("size", r.size, "the data's length, "+describe(length))
	}
	out.Created = c.time("created", r.created, false)
	if c.err != nil {
		return out, rows.Corrupt(id, "result "+label(value{v: out.Ref}), c.err)
	}
	return out, nil
}
