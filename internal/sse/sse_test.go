package sse

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t testing.TB, r io.Reader, max int) ([]Event, error) {
	t.Helper()
	sr := NewReader(r, max)
	var out []Event
	for {
		ev, err := sr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		ev.Data = append([]byte{}, ev.Data...)
		out = append(out, ev)
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Event
	}{
		{"openai chat", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []Event{{Data: []byte(`{"a":1}`)}, {Data: []byte(`[DONE]`)}}},
		{"anthropic typed", "event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\n",
			[]Event{{Type: "message_start", Data: []byte(`{"type":"message_start"}`)}, {Type: "ping", Data: []byte(`{"type": "ping"}`)}}},
		{"gemini crlf", "data: {\"candidates\":[]}\r\n\r\ndata: {}\r\n\r\n", []Event{{Data: []byte(`{"candidates":[]}`)}, {Data: []byte(`{}`)}}},
		{"lone cr", "data: a\rdata: b\r\r", []Event{{Data: []byte("a\nb")}}},
		{"multi-line data", "data: a\ndata:b\ndata:  c\n\n", []Event{{Data: []byte("a\nb\n c")}}},
		{"comments and no data", ": keep-alive\n\nevent: ping\n\nid: 7\ndata: x\n\n", []Event{{ID: "7", Data: []byte("x")}}},
		{"bom", "\uFEFFdata: x\n\n", []Event{{Data: []byte("x")}}},
		{"empty data line", "data\n\n", []Event{{Data: []byte{}}}},
		{"unknown fields", "retry: 100\nfoo: bar\ndata: x\n\n", []Event{{Data: []byte("x")}}},
		{"no blank line at the end", "data: x\n\ndata: [DONE]", []Event{{Data: []byte("x")}, {Data: []byte("[DONE]")}}},
		{"event type resets", "event: a\ndata: 1\n\ndata: 2\n\n", []Event{{Type: "a", Data: []byte("1")}, {Data: []byte("2")}}},
		{"nothing", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				got, err := readAll(t, r, 0)
				if err != nil {
					t.Fatalf("Next() error: %v", err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("read %q = %q, want %q", tt.in, got, tt.want)
				}
			}
		})
	}
}

func TestReaderLimits(t *testing.T) {
	for _, in := range []string{
		"data: " + strings.Repeat("x", 100) + "\n\n",
		"data: " + strings.Repeat("x", 40) + "\ndata: " + strings.Repeat("x", 40) + "\ndata: " + strings.Repeat("x", 40) + "\n\n",
	} {
		_, err := readAll(t, strings.NewReader(in), 64)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("read %d bytes with limit 64: error = %v, want ErrTooLarge", len(in), err)
		}
	}
}

func TestReaderError(t *testing.T) {
	boom := errors.New("connection reset")
	r := NewReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom)), 0)
	if ev, err := r.Next(); err != nil || string(ev.Data) != "a" {
		t.Fatalf("Next() = %q, %v, want a", ev.Data, err)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("Next() error = %v, want %v", err, boom)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("Next() after an error = %v, want the same error", err)
	}
}

func TestAppendEvent(t *testing.T) {
	got := AppendEvent(nil, Event{Type: "content_block_delta", Data: []byte("a\r\nb\nc")})
	if want := "event: content_block_delta\ndata: a\ndata: b\ndata: c\n\n"; string(got) != want {
		t.Errorf("AppendEvent() = %q, want %q", got, want)
	}
}

// FuzzReader reads arbitrary input: it never panics, never returns more
// data than it read, and reads back what AppendEvent wrote.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"data: {\"a\":1}\n\ndata: [DONE]\n\n",
		"event: message_start\r\ndata: {}\r\n\r\n",
		"data: a\rdata: b\r\r",
		": c\nid: 1\ndata\n\n",
		"\uFEFFdata: x",
	} {
		f.Add([]byte(s), "ping", []byte("a\nb"))
	}
	f.Fuzz(func(t *testing.T, in []byte, typ string, data []byte) {
		var n int
		sr := NewReader(bytes.NewReader(in), 1<<10)
		for {
			ev, err := sr.Next()
			if err != nil {
				break
			}
			n += len(ev.Data)
			if n > len(in) {
				t.Fatalf("read %d bytes of data from %d bytes of input", n, len(in))
			}
		}

		if strings.ContainsAny(typ, "\r\n") {
			return
		}
		ev := Event{Type: typ, Data: data}
		got, err := readAll(t, bytes.NewReader(AppendEvent(nil, ev)), 0)
		if err != nil {
			t.Fatal(err)
		}
		want := bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
		if len(got) != 1 || got[0].Type != typ || !bytes.Equal(got[0].Data, want) {
			t.Fatalf("read back %q, want type %q data %q", got, typ, want)
		}
	})
}
