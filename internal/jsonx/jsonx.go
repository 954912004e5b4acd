// Package jsonx is what every toolwire reader shares on top of
// github.com/go-json-experiment/json and its jsontext package, the module's
// one JSON layer: the strict options all readers use, so that the same bytes
// get the same answer everywhere (duplicate names refused, names matched
// case-sensitively, invalid UTF-8 refused, raw values kept verbatim), and
// the translation of its errors into an [llm.DecodeError] with a path, a
// line, a column and a byte offset.
package jsonx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
)

// Strict returns the jsontext options of every toolwire reader: duplicate
// member names and invalid UTF-8 are errors (the jsontext defaults, stated
// so that no reader loosens them by accident).
func Strict() []jsontext.Options {
	return []jsontext.Options{jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false)}
}

// NewDecoder returns a strict decoder reading data.
func NewDecoder(data []byte) *jsontext.Decoder {
	return jsontext.NewDecoder(bytes.NewReader(data), Strict()...)
}

// Error returns err, an error of decoding data, as an [llm.DecodeError] of
// op with its path written in style: a jsontext syntax error names the
// value it is in (its JSON pointer), the line and column, and the byte
// offset; an unexpected end of the input says so. An *llm.DecodeError is
// returned as it is, with op and style set where unset.
func Error(op string, style llm.PathStyle, data []byte, err error) *llm.DecodeError {
	var de *llm.DecodeError
	if errors.As(err, &de) {
		if de.Op == "" {
			de.Op, de.Style = op, style
		}
		return de
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		line, col := LineColumn(data, se.ByteOffset)
		what := se.Err
		switch {
		case what == nil:
			what = errors.New("invalid JSON")
		case errors.Is(what, io.ErrUnexpectedEOF):
			what = errors.New("the input ends before the document does")
		case errors.Is(what, jsontext.ErrDuplicateName):
			what = fmt.Errorf("duplicate member name %q", se.JSONPointer.LastToken())
		}
		return &llm.DecodeError{Op: op, Path: PointerPath(se.JSONPointer), Style: style, Offset: se.ByteOffset,
			Err: fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, what)}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		if len(bytes.TrimSpace(data)) == 0 {
			return &llm.DecodeError{Op: op, Style: style, Offset: -1, Err: errors.New("empty input: want a JSON document")}
		}
		line, col := LineColumn(data, int64(len(data)))
		return &llm.DecodeError{Op: op, Style: style, Offset: int64(len(data)),
			Err: fmt.Errorf("invalid JSON at line %d, column %d: the input ends before the document does", line, col)}
	}
	return &llm.DecodeError{Op: op, Style: style, Offset: -1, Err: err}
}

// PointerPath returns the path a JSON pointer names. A pointer does not say
// whether a token is a member name or an index; a decimal token is taken as
// an index.
func PointerPath(p jsontext.Pointer) llm.Path {
	var path llm.Path
	for tok := range p.Tokens() {
		if i, err := strconv.Atoi(tok); err == nil && i >= 0 && strconv.Itoa(i) == tok {
			path = path.Index(i)
		} else {
			path = path.Key(tok)
		}
	}
	return path
}

// LineColumn returns the 1-based line and column (in bytes) of offset in
// data.
func LineColumn(data []byte, offset int64) (line, column int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line = bytes.Count(before, []byte{'\n'}) + 1
	column = int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, column
}
