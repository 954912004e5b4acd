package gemini

// The decoder reads a body once into the shared JSON tree
// (internal/jsontree), so that it can find a part's data field before its
// other fields, copy any value verbatim, and name the exact dotted path of
// every error. encoding/json can do none of these: it matches keys
// case-insensitively, lets a duplicate key overwrite an earlier one, and
// reports a type error without array indices.

import (
	"errors"

	"github.com/toolwire/toolwire/provider/internal/codec"
)

// A DecodeError reports where and why a body could not be decoded.
type DecodeError struct {
	// Path is the dotted path of the offending value, such as
	// "contents.2.parts.1.functionResponse.name"; "" for the body as a whole.
	Path string
	// Offset is the byte offset of a syntax error, or -1.
	Offset int
	// Err says what is wrong.
	Err error
}

// Error returns "gemini: PATH: what is wrong".
func (e *DecodeError) Error() string { return codec.ErrorText("gemini", e.Path, e.Err) }

// Unwrap returns the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

// ErrSyntax is wrapped by every [DecodeError] for a body that is not valid
// JSON.
var ErrSyntax = errors.New("invalid JSON")

// decodeError returns err, a decoding error of the shared machinery, as a
// [*DecodeError].
func decodeError(err error) error {
	if pe, ok := err.(*codec.PathError); ok {
		return &DecodeError{Path: pe.Path, Offset: pe.Offset, Err: pe.Err}
	}
	return err
}
