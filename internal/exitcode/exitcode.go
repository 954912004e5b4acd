// Package exitcode is the exit status of toolwire's commands, part of the
// CLI's public contract (docs/cli.md): the codes, and the error that
// carries one up to main. The toolwire command and its Temporal plugin
// (temporal/cmd/toolwire-temporal, a module of its own) both exit by it,
// so that a command exits alike whichever of them runs it.
package exitcode

import "fmt"

// The exit codes. cmd/toolwire's exit code table says, for a user, when
// each applies.
const (
	// OK is success.
	OK = 0
	// Rejected: the input was read and judged, and failed.
	Rejected = 1
	// Usage: the command line or the input cannot be used.
	Usage = 2
	// Env: something the command needs is unreachable or failing.
	Env = 3
	// Internal: an internal error, to be reported.
	Internal = 4
)

// An Error carries an exit code up to main. A nil Err exits silently:
// the command already printed why.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Usagef is an error about the command line or unreadable input: it
// exits [Usage].
func Usagef(format string, args ...any) error {
	return &Error{Code: Usage, Err: fmt.Errorf(format, args...)}
}

// Envf is an error of something the command needs: it exits [Env].
func Envf(format string, args ...any) error {
	return &Error{Code: Env, Err: fmt.Errorf(format, args...)}
}
