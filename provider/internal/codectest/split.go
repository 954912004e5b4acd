package codectest

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"

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

// After holds a codec's decoding of a body after another (DecodeAfter) to
// decoding it whole: for each cut of s at an element of its array, the
// body of the elements before the cut is decoded, then the body of those
// after it after that one, and same (nil: reflect.DeepEqual) compares the
// request with the one decoding all the elements gives. A body that does
// not decode whole, or whose first part does not, is not a case.
func After[R any](t *testing.T, name string, s Split, decode func([]byte) (R, error), after func(prev R, body []byte) (R, error), same func(got, want R) bool) {
	t.Helper()
	if same == nil {
		same = func(got, want R) bool { return reflect.DeepEqual(got, want) }
	}
	whole, err := decode(s.Join(s.Elems))
	if err != nil {
		return
	}
	for k := range len(s.Elems) + 1 {
		first, err := decode(s.Join(s.Elems[:k]))
		if err != nil {
			continue
		}
		got, err := after(first, s.Join(s.Elems[k:]))
		if err != nil {
			t.Fatalf("%s, after %d of %d messages: %v", name, k, len(s.Elems), err)
		}
		if !same(got, whole) {
			t.Fatalf("%s, after %d of %d messages:\ngot  %+v\nwant %+v", name, k, len(s.Elems), got, whole)
		}
	}
}

// AfterFiles is [After] for the input.json of every test case archive
// that matches glob whose array key is an array, and for more bodies.
func AfterFiles[R any](t *testing.T, glob, key string, decode func([]byte) (R, error), after func(prev R, body []byte) (R, error), same func(got, want R) bool, more ...string) {
	t.Helper()
	for _, body := range more {
		s, ok := SplitArray([]byte(body), key)
		if !ok {
			t.Fatalf("no %s array in %s", key, body)
		}
		After(t, body, s, decode, after, same)
	}
	files, _ := filepath.Glob(glob)
	if len(files) == 0 {
		t.Fatalf("no test bodies match %s", glob)
	}
	split := 0
	for _, f := range files {
		if s, ok := SplitArray(Input(t, f), key); ok { // a Gemini body may give one content object
			After(t, f, s, decode, after, same)
			split++
		}
	}
	if split < len(files)/2 {
		t.Fatalf("only %d of the %d bodies of %s have a %s array", split, len(files), glob, key)
	}
}

// FuzzAfter is [After] for any body, seeded with the archives of glob.
func FuzzAfter[R any](f *testing.F, glob, key string, decode func([]byte) (R, error), after func(prev R, body []byte) (R, error), same func(got, want R) bool) {
	Seed(f, glob)
	f.Fuzz(func(t *testing.T, body []byte) {
		if s, ok := SplitArray(body, key); ok {
			After(t, "fuzz", s, decode, after, same)
		}
	})
}
