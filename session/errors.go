package session

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound: no session, or no offloaded result, has that id.
	ErrNotFound = errors.New("session: not found")
	// ErrConflict: another writer changed the session first. Errors that
	// wrap it are [*ConflictError]s.
	ErrConflict = errors.New("session: conflict")
	// ErrCorrupt: a stored item cannot be read back. Errors that wrap it
	// are [*CorruptError]s.
	ErrCorrupt = errors.New("session: corrupt data")
	// ErrInvalid: the caller asked to write something a store does not
	// keep (an invalid message, state that is not JSON, a step number that
	// goes backwards). Nothing was written.
	ErrInvalid = errors.New("session: invalid input")
	// ErrSchema: the database's schema is from a newer build. Errors that
	// wrap it are [*SchemaError]s.
	ErrSchema = errors.New("session: unknown schema version")
)

// A ConflictError reports a write refused because the session changed since
// the writer read it. The writer should load the session again and decide
// anew; retrying the same write cannot succeed.
type ConflictError struct {
	// Session is the session's ID.
	Session string
	// Read is the version the writer named; 0 when it created the session.
	Read int64
	// Current is the session's version in the store.
	Current int64
	// Call and Attempt name the call record that was already written, for
	// a conflict over a call record; Call is empty otherwise.
	Call    string
	Attempt int
}

func (e *ConflictError) Error() string {
	switch {
	case e.Call != "":
		return fmt.Sprintf("conflict: session %s: call %s attempt %d is already recorded by another writer", e.Session, e.Call, e.Attempt)
	case e.Read == 0:
		return fmt.Sprintf("conflict: session %s already exists (at version %d)", e.Session, e.Current)
	}
	return fmt.Sprintf("conflict: session %s is at version %d, but this writer read version %d: another writer committed first; load the session again", e.Session, e.Current, e.Read)
}

// Unwrap returns [ErrConflict].
func (e *ConflictError) Unwrap() error { return ErrConflict }

// A CorruptError reports a stored item that cannot be read back: a row
// whose JSON is invalid, a missing message, an unknown status, a count or
// a position out of range. Other sessions are not affected.
type CorruptError struct {
	// Session is the session's ID; empty when the session's row holds no
	// id that can be read.
	Session string
	// Item names what is unreadable: "message 12", "step 3", "state of
	// step 3", "call c1 attempt 2", "result r-...", or a field of the
	// session ("status", "messages").
	Item string
	// Err says why; for a stored value out of range, it names the table,
	// the column and the value: "toolwire_steps.first_seq = -1: want 0,
	// the first message".
	Err error
}

func (e *CorruptError) Error() string {
	if e.Session == "" {
		return fmt.Sprintf("a session's %s is corrupt: %v", e.Item, e.Err)
	}
	return fmt.Sprintf("session %s: %s is corrupt: %v", e.Session, e.Item, e.Err)
}

// Unwrap returns [ErrCorrupt] and the underlying error.
func (e *CorruptError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }

// A SchemaError reports a database whose schema is newer than this build
// knows. Nothing was written to it.
type SchemaError struct {
	// Found is the database's schema version.
	Found int
	// Known is the newest version this build can read and write.
	Known int
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("the database has schema version %d, but this build knows versions up to %d: it was written by a newer toolwire; upgrade, or use another database (nothing was written)", e.Found, e.Known)
}

// Unwrap returns [ErrSchema].
func (e *SchemaError) Unwrap() error { return ErrSchema }
