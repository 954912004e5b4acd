package gemini

// This file maps the shared JSON tree (internal/jsontree) onto this
// package's errors. The decoder reads a body once into the tree, so that it
// can look at a block's "type" before its other fields, copy any value
// verbatim, and name the exact dotted path of every error. encoding/json
// can do none of these: it matches keys case-insensitively, lets a
// duplicate key overwrite an earlier one, and reports a type error without
// array indices.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/internal/jsontree"
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

func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString("gemini: ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

// ErrSyntax is wrapped by every [DecodeError] for a body that is not valid
// JSON.
var ErrSyntax = errors.New("invalid JSON")

// parse parses a body, which the tree then aliases. Errors are
// [*DecodeError]s.
func parse(src []byte) (*jsontree.Tree, error) {
	t, err := jsontree.Parse(src, nil)
	if err != nil {
		var se *jsontree.SyntaxError
		if errors.As(err, &se) {
			return nil, &DecodeError{Path: se.Path, Offset: se.Offset,
				Err: fmt.Errorf("%w at line %d, column %d: %s", ErrSyntax, se.Line, se.Column, se.Msg)}
		}
		return nil, &DecodeError{Offset: -1, Err: err}
	}
	return t, nil
}
