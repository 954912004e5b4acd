package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/toolwire/toolwire/internal/jsontree"
)

// decodeJSON parses one JSON value into what encoding/json with UseNumber
// makes of it (numbers kept exact, as json.Number), rejecting trailing
// data.
func decodeJSON(b []byte) (any, error) {
	v, _, err := decodeUnique(b)
	return v, err
}

// decodeUnique is [decodeJSON] that also reports whether every object in b
// has distinct keys. Only then may a [setter] stand in for json.Unmarshal
// on v: json.Unmarshal into a struct sees every occurrence of a key, the
// map in v only the last.
//
// Values come from [jsontree.Tree.Value] (FuzzDecodeJSON holds it to
// encoding/json); errors from encoding/json, whose messages results and
// spec errors quote.
func decodeUnique(b []byte) (v any, unique bool, err error) {
	t, err := jsontree.Parse(b, &jsontree.Options{AllowInvalidUTF8: true})
	if err != nil {
		// Not JSON, or 2 GiB or more (which jsontree refuses and
		// encoding/json reads): encoding/json decides, and says why.
		v, err := decodeJSONStd(b)
		return v, false, err
	}
	return t.Value(t.Root()), t.FirstDuplicate() == jsontree.None, nil
}

// decodeJSONStd is decodeJSON by encoding/json alone: the reference, and
// the source of error messages.
func decodeJSONStd(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF {
			return nil, errors.New("empty input")
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &trailingDataError{offset: dec.InputOffset()}
	}
	return v, nil
}

// trailingDataError reports more data after a complete JSON value, which
// encoding/json's Decoder leaves to its caller.
type trailingDataError struct {
	offset int64 // where the extra data starts
}

func (e *trailingDataError) Error() string { return "unexpected data after the JSON value" }
