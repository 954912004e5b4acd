// Package session is the durable record of agent runs: the [Store] contract
// that the agent loop writes its sessions through, and the types it reads
// and writes.
//
// A session holds, in order:
//   - its messages, each stored once when the step that added it commits,
//     and read back in exactly that order;
//   - the loop's state after each step, an opaque JSON value with its step
//     number;
//   - a write-ahead record of every tool call: started (tool, idempotency
//     level and key, attempt, arguments) before the tool runs, finished (its
//     result, duration) when it returns;
//   - the raw tool results that were offloaded behind a reference.
//
// # Steps and versions
//
// Every session has a version, 1 when [Store.Create] makes it. A writer
// names the version it read in each [Step] it commits; [Store.Commit] writes
// the step's new messages, its state and its call records in one
// transaction and moves the session to the next version, or, if another
// writer committed first, writes nothing and returns a [*ConflictError]
// (errors.Is(err, [ErrConflict])). A step writes only what is new: the cost
// of a commit follows the size of the step, not of the history.
//
// Call records are written between commits, as tools start and finish,
// by [Store.Record]. A record does not move the session's version, so the
// calls of one step may be recorded concurrently, but it is fenced by it:
// a writer whose version is stale cannot record a call. A started record
// is written once: two writers starting the same attempt of the same call
// cannot both succeed.
//
// [Store.Load] returns what a loop needs to go on with a session: its
// messages, its latest state and the call records of its latest step, the
// unfinished ones among them after a crash ([Snapshot.Unfinished]).
//
// # Implementations
//
// Package session/memory keeps sessions in memory, session/sqlite in a
// SQLite database (over a *sql.DB whose driver the program chooses) and
// session/postgres in PostgreSQL (over a pgx pool). Each passes the
// conformance suite in session/sessiontest. Besides [Store], each
// implements the optional [Catalog] (list, show, delete), [Results]
// (offloaded results) and [Pruner] (their retention); a caller finds them
// by type assertion.
//
// docs/sessions.md describes the schema, migrations, conflicts, retention
// and how several processes share one database.
package session

import (
	"context"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
)

// Status says where a session's run stands.
type Status string

// The statuses a [Session] can have.
const (
	// StatusRunning: the loop is working on the session, or was when it
	// stopped (a crash leaves a session running).
	StatusRunning Status = "running"
	// StatusPaused: the run waits for a person (an approval, an answer).
	StatusPaused Status = "paused"
	// StatusDone: the model gave its final answer.
	StatusDone Status = "done"
	// StatusFailed: the run stopped on an error.
	StatusFailed Status = "failed"
)

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusRunning, StatusPaused, StatusDone, StatusFailed:
		return true
	}
	return false
}

// A Session is a stored run's summary.
type Session struct {
	// ID names the session. [Store.Create] makes one when it is empty;
	// a given ID is 1 to 128 letters, digits and the characters "_-.:".
	ID string
	// Title is a line for people, such as the question asked. Optional.
	Title string
	// Agent names the agent definition that runs the session. Optional.
	Agent string
	// Model is the model the run talks to, so that a resume talks to the
	// same one. Optional; never an API key.
	Model Model
	// Status is where the run stands; [Store.Create] makes an empty status
	// [StatusRunning].
	Status Status
	// Version is 1 after [Store.Create] and grows by one at every
	// [Store.Commit]. Set by the store.
	Version int64
	// Step is the number of the latest committed step, 0 before the first.
	// Set by the store.
	Step int
	// Messages counts the stored messages. Set by the store.
	Messages int
	// Created and Updated are set by the store, in UTC, to the microsecond.
	Created time.Time
	Updated time.Time
}

// A Model says which model a session's run talks to and how: what a
// resume needs to open the same model again. It holds no secret: never an
// API key, a header or a password; [Store.Create] refuses a BaseURL with
// a password in it.
type Model struct {
	// Spec names the model: "openai:gpt-4o", "anthropic:claude-sonnet-4-5",
	// "replay:FILE". Empty when the caller did not say.
	Spec string
	// BaseURL is the API's base URL the run was given; empty means the
	// provider's default.
	BaseURL string
	// Options are what the run sends with every model call and bounds it
	// by.
	Options ModelOptions
}

// ModelOptions are a run's model options. The zero value of each field
// means the default of the agent, the provider or the program.
type ModelOptions struct {
	// Temperature is the sampling temperature, in [0, 2]; nil means the
	// provider's default.
	Temperature *float64
	// MaxOutputTokens bounds each answer; 0 means the default.
	MaxOutputTokens int
	// Effort is how much a reasoning model thinks before it answers.
	Effort llm.Effort
	// Timeout is how long a model call may wait for its first byte;
	// IdleTimeout how long a streamed answer may stay silent.
	Timeout     time.Duration
	IdleTimeout time.Duration
	// MaxTurns is the most model calls the run makes.
	MaxTurns int
}

// A Step is what one step of the loop writes, atomically.
type Step struct {
	// Session is the session's ID.
	Session string
	// Version is the session's version that the writer read. If the
	// session is no longer at that version, nothing is written and
	// [Store.Commit] returns a [*ConflictError].
	Version int64
	// Number is the step's number: greater than the session's latest step
	// (it need not be the next integer).
	Number int
	// Status is the session's status after the step; empty keeps it.
	Status Status
	// Messages are the step's new messages, appended in order after the
	// stored ones. Each must survive the persistence format
	// ([llm.Conversation]) unchanged in meaning: a message that the strict
	// decoder would refuse (a tool message without a result, a call
	// without an id) is refused here, before anything is written.
	Messages []llm.Message
	// State is the loop's state after the step, any JSON value; nil stores
	// none.
	State jsontext.Value
	// Calls are call records written with the step, as by [Store.Record];
	// a call whose Step is 0 belongs to this step.
	Calls []Call
}

// A Call is the write-ahead record of one attempt of one tool call.
//
// A Call without a Result is a started record: it is written before the
// tool runs. A Call with a Result is a finished record: it completes the
// started record of the same ID and Attempt, or stands alone for a call
// that never ran (refused arguments, a rejected approval).
type Call struct {
	// ID is the model's call id ([llm.ToolCall] ID).
	ID string
	// Tool is the tool's name.
	Tool string
	// Idempotency is the tool's level; empty if the tool declares none.
	Idempotency tool.Idempotency
	// IdempotencyKey is the key a level-1 tool was given, the same on
	// every attempt of one call.
	IdempotencyKey string
	// Attempt counts from 1.
	Attempt int
	// Arguments are the arguments the tool ran with, verbatim; they need
	// not be valid JSON.
	Arguments jsontext.Value
	// Step is the number of the step that asked for the call. 0 means, in
	// [Store.Record], the session's latest step and, in a [Step], that
	// step.
	Step int
	// Result is the call's result, nil while the call is unfinished. It
	// is stored in the persistence format of [llm.Conversation].
	Result *llm.ToolResult
	// Duration is how long the attempt ran, as the caller measured it.
	Duration time.Duration
	// Started and Finished are set by the store when the started and the
	// finished record are written. Finished is zero while Result is nil.
	Started  time.Time
	Finished time.Time
}

// A Snapshot is what a loop needs to continue a session.
type Snapshot struct {
	// Session is the session's summary; Session.Version is the version
	// to name in the next [Step].
	Session Session
	// Messages are every stored message, in order.
	Messages []llm.Message
	// State is the state of the latest step (Session.Step), nil if it has
	// none or no step was committed.
	State jsontext.Value
	// Calls are the call records of the latest step and any later one
	// (Call.Step >= Session.Step), in the order they were first written.
	Calls []Call
}

// Unfinished returns the records of [Snapshot.Calls] that have no result:
// after a crash, the attempts that started and may or may not have taken
// effect.
func (s *Snapshot) Unfinished() []Call {
	var out []Call
	for _, c := range s.Calls {
		if c.Result == nil {
			out = append(out, c)
		}
	}
	return out
}

// A Trace is everything stored about a session, for people and tools that
// show it.
type Trace struct {
	Session  Session
	Messages []llm.Message
	// Steps are every committed step, in order.
	Steps []StepRecord
	// Calls are every call record, in the order they were first written.
	Calls []Call
	// Results describe the session's offloaded results in the order they
	// were stored. Their Data is nil; Size says how large it is.
	Results []Offloaded
}

// A StepRecord is one committed step, as [Catalog.Show] reports it.
type StepRecord struct {
	Number  int
	Version int64  // the session's version after the step
	Status  Status // the session's status after the step
	// First is the index in the session's messages of the step's first
	// new message; Messages counts them.
	First    int
	Messages int
	State    jsontext.Value // nil if the step stored none
	Created  time.Time
}

// An Offloaded is a raw tool result kept behind a reference, so that a model
// can page through it later (the read_result tool) and so that it survives
// a restart.
type Offloaded struct {
	// Ref names the result, unique in the database: set by the store, or
	// chosen by the caller ("r-" and up to 62 letters, digits, _ or -, as
	// toolresult.DeriveRef makes them), when the session's result of that
	// ref is replaced and a ref that another session holds is an error
	// wrapping [ErrConflict].
	Ref string
	// Session is the session the result belongs to; set by the store.
	Session string
	// Tool is the name of the tool that produced the result.
	Tool string
	// Kind says what the data is ("json", "text", "image", ...), as the
	// observation pipeline names it.
	Kind string
	// MediaType is the data's media type, such as "application/json".
	MediaType string
	// Data is the raw result.
	Data []byte
	// Rules is how the result is shaped when read back, a JSON value; nil
	// for none.
	Rules jsontext.Value
	// Size is len(Data); set by the store.
	Size int64
	// Created is set by the store.
	Created time.Time
}

// ListOptions selects a page of sessions for [Catalog.List].
type ListOptions struct {
	// Limit bounds the page's length. 0 means 50; at most 1000.
	Limit int
	// Cursor continues a listing where a [Page] ended ([Page.Next]);
	// empty starts with the newest session.
	Cursor string
}

// A Page is one page of a listing, newest session first.
type Page struct {
	Sessions []Session
	// Next is the cursor of the following page, empty on the last page.
	Next string
}

// Retention bounds how long offloaded results are kept. The zero value
// keeps them all.
type Retention struct {
	// MaxAge deletes results stored longer ago than this. 0: no limit.
	MaxAge time.Duration
	// MaxBytes deletes the oldest results, across all sessions, until the
	// Data of those left takes at most this many bytes. 0: no limit.
	MaxBytes int64
}

// Valid reports whether r is a retention a store accepts: neither limit is
// negative.
func (r Retention) Valid() bool { return r.MaxAge >= 0 && r.MaxBytes >= 0 }

// StoreConfig is the configuration that every store of this module takes:
// session/memory and session/postgres take it as their Config, and
// session/sqlite adds settings of its own to the same fields. A nil
// *StoreConfig, or a zero field, means the documented default.
type StoreConfig struct {
	// Retention bounds how long offloaded results are kept; see
	// [Pruner]. The zero value keeps them all.
	Retention Retention
	// Now is the clock for the times the store sets. Default time.Now.
	Now func() time.Time
}

// WithDefaults returns a copy of c with every zero field set to its
// default. It accepts a nil c.
func (c *StoreConfig) WithDefaults() *StoreConfig {
	var out StoreConfig
	if c != nil {
		out = *c
	}
	if out.Now == nil {
		out.Now = time.Now
	}
	return &out
}

// Pruned counts what [Pruner.Prune] deleted.
type Pruned struct {
	Results int   // offloaded results deleted
	Bytes   int64 // the size of their data
}

// Store is the contract of a session store: what the agent loop needs to
// make a run durable. Implementations are safe for concurrent use, by
// goroutines and, for stores over a database, by processes.
type Store interface {
	// Create stores a new session at version 1, with no messages and no
	// steps, and returns it as stored. An empty ID is made up; a session
	// that already exists with the given ID is a [*ConflictError] whose
	// Read version is 0.
	Create(ctx context.Context, s Session) (Session, error)
	// Commit writes a step atomically if the session is still at
	// step.Version, and returns the session at its new version. A stale
	// version is a [*ConflictError]; a missing session [ErrNotFound];
	// a step that is not valid (see [Step]) an error wrapping [ErrInvalid].
	// On any error nothing is written.
	Commit(ctx context.Context, step *Step) (Session, error)
	// Record writes call records, atomically, if the session is still at
	// version, without changing the version. A started record whose ID
	// and Attempt are already recorded, or a finished record for an
	// attempt already finished, is a [*ConflictError] naming the call.
	Record(ctx context.Context, session string, version int64, calls ...Call) error
	// Load reads a session: its messages, its latest state and the call
	// records of its latest step. A stored item that cannot be read back
	// is a [*CorruptError] naming the session and the item.
	Load(ctx context.Context, id string) (*Snapshot, error)
}

// Catalog is the optional capability of a [Store] to list, show and delete
// its sessions.
type Catalog interface {
	// List returns a page of sessions, newest first.
	List(ctx context.Context, opts *ListOptions) (Page, error)
	// Show returns everything stored about a session.
	Show(ctx context.Context, id string) (*Trace, error)
	// Delete removes a session with everything it holds: messages, steps,
	// call records and offloaded results.
	Delete(ctx context.Context, id string) error
}

// Results is the optional capability of a [Store] to keep offloaded raw
// tool results.
type Results interface {
	// PutResult stores r for a session and returns its new reference. The
	// session must exist ([ErrNotFound] otherwise).
	PutResult(ctx context.Context, session string, r Offloaded) (ref string, err error)
	// Result returns the result stored under ref for the session;
	// [ErrNotFound] if there is none, or if ref belongs to another session.
	Result(ctx context.Context, session, ref string) (Offloaded, error)
}

// Pruner is the optional capability of a [Store] to apply its [Retention]
// to offloaded results.
type Pruner interface {
	// Prune deletes the offloaded results that the store's retention
	// setting no longer keeps, and says how many. It deletes first by
	// age, then by size.
	Prune(ctx context.Context) (Pruned, error)
}

// PruneOn calls p.Prune at every tick until ctx is done or tick is closed,
// on the caller's goroutine: the caller owns the ticker and how long this
// runs, and nothing outlives the call. It returns the first error from
// Prune, nil when tick is closed, and ctx.Err() when ctx is done.
//
//	t := time.NewTicker(time.Hour)
//	defer t.Stop()
//	err := session.PruneOn(ctx, store, t.C)
func PruneOn(ctx context.Context, p Pruner, tick <-chan time.Time) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case _, ok := <-tick:
			if !ok {
				return nil
			}
			if _, err := p.Prune(ctx); err != nil {
				return err
			}
		}
	}
}
