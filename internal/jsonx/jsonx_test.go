package jsonx

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
)

func TestError(t *testing.T) {
	tests := []struct {
		in, want string
		offset   int64
	}{
		{"{\"messages\": [\n  {\"role\": \"user\", \"role\": \"x\"}]}", `t: messages.0.role: invalid JSON at line 2, column 20: duplicate member name "role" (at byte 34)`, 34},
		{`{"a": [1, 2,]}`, `t: a.2: invalid JSON at line 1, column 13: invalid character ']' at start of value`, 12},
		{"{\"a\": \"\xff\"}", `t: a: invalid JSON at line 1, column 8: invalid UTF-8`, 7},
		{`{"a": 1`, `t: invalid JSON at line 1, column 8: the input ends before the document does (at byte 7)`, 7},
		{"  \n", `t: empty input: want a JSON document`, -1},
	}
	for _, tt := range tests {
		dec := NewDecoder([]byte(tt.in))
		_, err := dec.ReadValue()
		de := Error("t", llm.Dotted, []byte(tt.in), err)
		if got := de.Error(); !strings.HasPrefix(got, tt.want) || de.Offset != tt.offset {
			t.Errorf("Error(%q) = %q at %d, want %q at %d", tt.in, got, de.Offset, tt.want, tt.offset)
		}
	}
}

func TestPointerPath(t *testing.T) {
	if got := PointerPath(jsontext.Pointer("/messages/4/content/0/a~1b")).Format(llm.Indexed); got != "messages[4].content[0].a/b" {
		t.Errorf("PointerPath = %q", got)
	}
}
