package client

import (
	"bytes"
	"testing"
)

func TestSegments(t *testing.T) {
	tests := []struct {
		name  string
		elems [][]byte
		want  string
	}{
		{"none", nil, `{"m":[]}`},
		{"one", [][]byte{[]byte(`1`)}, `{"m":[1]}`},
		{"empty ones left out", [][]byte{nil, []byte(`1`), {}, []byte(`2`), nil}, `{"m":[1,2]}`},
		{"only empty", [][]byte{nil, {}}, `{"m":[]}`},
	}
	for _, tt := range tests {
		var s Segments
		s.Add([]byte(`{"m":`))
		s.Open()
		s.Elems(tt.elems)
		s.Close()
		s.Add([]byte(`}`), nil)
		if got := bytes.Join(s.Pieces(), nil); string(got) != tt.want {
			t.Errorf("%s: body = %s, want %s", tt.name, got, tt.want)
		}
		for _, p := range s.Pieces() {
			if len(p) == 0 {
				t.Errorf("%s: an empty piece in %q", tt.name, s.Pieces())
			}
		}
	}
}

// An element in pieces gets one comma before it, none inside it.
func TestSegmentsElemInPieces(t *testing.T) {
	var s Segments
	s.Open()
	s.Elem([]byte(`{"a":1`), []byte(`,"b":2`), []byte(`}`))
	s.Elem(nil, []byte(`3`))
	s.Close()
	if got, want := string(bytes.Join(s.Pieces(), nil)), `[{"a":1,"b":2},3]`; got != want {
		t.Errorf("body = %s, want %s", got, want)
	}
}

// A frame's holes are filled where the writer called them, in order.
func TestFrame(t *testing.T) {
	var f Frame
	write := func(s string) func(*Segments) { return func(sg *Segments) { sg.Add([]byte(s)) } }
	system, msgs, tools := f.Hole(write(`"be brief"`)), f.Hole(write(`[1,2]`)), f.Hole(write(`[{"name":"t"}]`))
	body := []byte(`{"model":"m","system":`)
	body = system(body)
	body = append(body, `,"messages":`...)
	body = msgs(body)
	body = append(body, `,"tools":`...)
	body = tools(body)
	body = append(body, '}')
	var s Segments
	f.Fill(&s, body)
	if got, want := string(bytes.Join(s.Pieces(), nil)), `{"model":"m","system":"be brief","messages":[1,2],"tools":[{"name":"t"}]}`; got != want {
		t.Errorf("body = %s, want %s", got, want)
	}
}
