package tool

import (
	"errors"
	"fmt"
	"io"

	"github.com/toolwire/toolwire/internal/jsonx"
)

// decodeJSON decodes one strict JSON value (the module's one JSON layer,
// internal/jsonx: duplicate names and invalid UTF-8 refused) into what
// encoding/json with UseNumber makes of it, numbers kept exact as
// json.Number. Its error says what is wrong and where.
func decodeJSON(b []byte) (any, error) {
	v, err := jsonx.DecodeAny(b)
	if err != nil {
		return nil, syntaxError(b, err)
	}
	return v, nil
}

// A jsonSyntaxError is where and why bytes are not JSON.
type jsonSyntaxError struct {
	offset int // byte offset; len(data) for an input cut off
	what   error
}

func (e *jsonSyntaxError) Error() string { return e.what.Error() }

// syntaxError describes err, an error of reading data as JSON.
func syntaxError(data []byte, err error) *jsonSyntaxError {
	if errors.Is(err, io.EOF) && len(data) == 0 {
		return &jsonSyntaxError{offset: 0, what: errors.New("empty input")}
	}
	off, _, what := jsonx.Describe(data, err)
	if off < 0 {
		off = 0
	}
	return &jsonSyntaxError{offset: int(off), what: what}
}

// syntaxMessage renders a syntax error of data at its line and column.
func syntaxMessage(data []byte, e *jsonSyntaxError) string {
	line, col := lineCol(data, e.offset)
	return fmt.Sprintf("%v at line %d, column %d (byte %d)", e.what, line, col, e.offset)
}
