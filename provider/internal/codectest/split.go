package codectest

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// A Split is a body cut around the elements of its message array: the
// body is Head, the elements joined by commas, then Tail.
type Split struct {
	Head  []byte // up to the array's '[' included
	Elems [][]byte
	Tail  []byte // from the array's ']' on
}

// SplitArray cuts body, a JSON object with an array member named key or a
// bare array, around that array's elements. ok is false for a body that is
// neither, or that is not JSON.
func SplitArray(body []byte, key string) (s Split, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	switch dec.PeekKind() {
	case '[':
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return s, false
		}
		for {
			if dec.PeekKind() != '"' {
				return s, false
			}
			name, err := dec.ReadToken()
			if err != nil {
				return s, false
			}
			if name.String() == key && dec.PeekKind() == '[' {
				break
			}
			if err := dec.SkipValue(); err != nil {
				return s, false
			}
		}
	default:
		return s, false
	}
	if _, err := dec.ReadToken(); err != nil {
		return s, false
	}
	s.Head = body[:dec.InputOffset()]
	for dec.PeekKind() != ']' {
		v, err := dec.ReadValue()
		if err != nil {
			return s, false
		}
		s.Elems = append(s.Elems, bytes.Clone(v))
	}
	if _, err := dec.ReadToken(); err != nil {
		return s, false
	}
	s.Tail = body[dec.InputOffset()-1:]
	return s, true
}

// Join returns the body with elems as its array's elements.
func (s Split) Join(elems [][]byte) []byte {
	out := append([]byte(nil), s.Head...)
	out = append(out, bytes.Join(elems, []byte(","))...)
	return append(out, s.Tail...)
}
