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
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
)

// Strict returns the jsontext options of every toolwire reader: duplicate
// member names and invalid UTF-8 are errors (the jsontext defaults, stated
// so that no reader loosens them by accident).
func Strict() []jsontext.Options {
	return []jsontext.Options{jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false)}
}

// NewDecoder returns a strict decoder reading data. Reading from a
// bytes.Buffer, jsontext parses data in place, without copying it.
func NewDecoder(data []byte) *jsontext.Decoder {
	return jsontext.NewDecoder(bytes.NewBuffer(data), Strict()...)
}

// ErrTrailingData is the problem of a document that goes on after its one
// value; the error that carries it names the first character that follows.
var ErrTrailingData = errors.New("unexpected data after the top-level value")

var errEnd = errors.New("the input ends before the document does")

// maxDepth is how deep jsontext lets objects and arrays nest.
const maxDepth = 10000

// Valid returns nil when data holds exactly one strict JSON value, with
// white space around it allowed; else the reason it does not, for
// [Describe] and [Error]: a *jsontext.SyntacticError, or io.EOF for an
// input of white space only.
func Valid(data []byte) error {
	dec := NewDecoder(data)
	if _, err := dec.ReadValue(); err != nil {
		return err
	}
	return End(dec, data)
}

// End returns nil when dec, reading data, has nothing left but white
// space, else a *jsontext.SyntacticError at the first byte of what is
// left: [ErrTrailingData] and that character ("unexpected data after the
// top-level value: 'x'"), whether or not it could start a value.
func End(dec *jsontext.Decoder, data []byte) error {
	off := min(dec.InputOffset(), int64(len(data)))
	rest := bytes.TrimLeft(data[off:], " \t\r\n")
	if len(rest) == 0 {
		return nil
	}
	c, _ := utf8.DecodeRune(rest)
	return &jsontext.SyntacticError{ByteOffset: int64(len(data) - len(rest)), Err: fmt.Errorf("%w: %q", ErrTrailingData, c)}
}

// Describe returns where in data err, an error of reading it, was found
// and what the problem is, in jsontext's words: the byte offset (the
// length of data for an input cut off, -1 for an empty one), the JSON
// pointer of the value it is in, and the problem ("invalid character ','
// at start of string", "duplicate member name \"a\"", "the input ends
// before the document does").
func Describe(data []byte, err error) (offset int64, ptr jsontext.Pointer, what error) {
	var se *jsontext.SyntacticError
	switch {
	case errors.As(err, &se):
		offset, ptr, what = se.ByteOffset, se.JSONPointer, se.Err
		switch {
		case what == nil:
			what = errors.New("invalid JSON")
		case errors.Is(what, io.ErrUnexpectedEOF):
			offset, what = int64(len(data)), errEnd
		case errors.Is(what, jsontext.ErrDuplicateName):
			what = fmt.Errorf("duplicate member name %q", se.JSONPointer.LastToken())
		case what.Error() == "exceeded max depth": // jsontext exports no sentinel for it
			what = fmt.Errorf("nested deeper than %d levels", maxDepth)
		}
		return offset, ptr, what
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		if len(bytes.TrimSpace(data)) == 0 {
			return -1, "", errors.New("empty input: want a JSON document")
		}
		return int64(len(data)), "", errEnd
	}
	return -1, "", err
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
	off, ptr, what := Describe(data, err)
	if off < 0 {
		return &llm.DecodeError{Op: op, Style: style, Offset: -1, Err: what}
	}
	line, col := LineColumn(data, off)
	return &llm.DecodeError{Op: op, Path: PointerPath(ptr), Style: style, Offset: off,
		Err: fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, what)}
}

// DecodeAny decodes data, one strict JSON value, into what encoding/json
// gives an any with UseNumber: map[string]any, []any (empty, not nil),
// json.Number (the number's text as written), string, bool or nil. Its
// errors are those of [Valid].
func DecodeAny(data []byte) (any, error) {
	r := anyReaders.Get().(*anyReader)
	defer anyReaders.Put(r)
	r.src = *bytes.NewBuffer(data)
	r.dec.Reset(&r.src, Strict()...)
	dec := &r.dec
	v, err := readAny(dec)
	if err == nil {
		err = End(dec, data)
	}
	if err != nil {
		if verr := Valid(data); verr != nil {
			err = verr // the same words as every other reader's
		}
		return nil, err
	}
	return v, nil
}

// anyReader is a decoder DecodeAny reuses: a jsontext.Decoder is large,
// and tool calls decode two small documents each (arguments and result).
type anyReader struct {
	src bytes.Buffer
	dec jsontext.Decoder
}

var anyReaders = sync.Pool{New: func() any { return new(anyReader) }}

func readAny(dec *jsontext.Decoder) (any, error) {
	switch dec.PeekKind() {
	case '0':
		v, err := dec.ReadValue()
		return Number(v), err
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for dec.PeekKind() == '"' {
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			k := tok.String() // before the next read voids tok
			v, err := readAny(dec)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		_, err := dec.ReadToken() // '}', or the error
		return m, err
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		a := []any{}
		for k := dec.PeekKind(); k != ']' && k != 0; k = dec.PeekKind() {
			v, err := readAny(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.ReadToken() // ']', or the error
		return a, err
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case 't', 'f':
		return tok.Bool(), nil
	}
	return tok.String(), nil
}

// KindPhrase names the kind of a JSON value in an error message: "an
// object", "a string", ...; the kind 0 (no value: the end of the input)
// is "nothing".
func KindPhrase(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '0':
		return "a number"
	case '"':
		return "a string"
	case '[':
		return "an array"
	case '{':
		return "an object"
	}
	return "nothing"
}

// AppendString appends s to dst as a JSON string the way a model should
// read it: <, > and & are not escaped, non-ASCII text is kept as is, and
// invalid UTF-8 is replaced by U+FFFD. It reports whether any replacement
// was made.
func AppendString[S ~string | ~[]byte](dst []byte, s S) ([]byte, bool) {
	dst, err := jsontext.AppendQuote(dst, s)
	return dst, err != nil
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

// ValidUTF8 returns s with every byte that is not part of a valid UTF-8
// sequence replaced by U+FFFD, one replacement per byte, which is what
// encoding/json makes of such a string. It returns s itself when s is
// valid.
func ValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}
