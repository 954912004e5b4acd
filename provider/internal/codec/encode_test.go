package codec

import (
	"errors"
	"fmt"
	"testing"

	"github.com/toolwire/toolwire/llm"
)

// testEncoder writes its messages' call ids, "B" before them for a bare
// array, and fails its body when err is set.
type testEncoder struct {
	Frame
	msgs []llm.Message
	err  error
}

func (e *testEncoder) Source() []Msg { return nil }

func (e *testEncoder) Bare(dst []byte) []byte { return e.calls(append(dst, 'B')) }

func (e *testEncoder) Body(dst []byte) ([]byte, error) {
	if e.err != nil {
		return nil, e.err
	}
	return e.calls(dst), nil
}

func (e *testEncoder) calls(dst []byte) []byte {
	for _, m := range e.msgs {
		for _, c := range m.ToolCalls() {
			e.DropItemID(c)
			dst = append(dst, c.ID...)
		}
	}
	return dst
}

func TestEncode(t *testing.T) {
	calls := []llm.Message{llm.Assistant(llm.ToolCall{ID: "a", ItemID: "fc_1"}, llm.ToolCall{ID: "b"}, llm.ToolCall{ID: "c", ItemID: "fc_3"})}
	tests := []struct {
		name     string
		msgs     []llm.Message
		bare     bool
		err      error
		want     string
		warnings string
		wantErr  string
	}{
		{name: "body", msgs: []llm.Message{llm.User("hi")}, want: "", warnings: "[]"},
		{name: "item ids dropped", msgs: calls, want: "abc",
			warnings: "[2 OpenAI Responses item id(s) (ToolCall.ItemID) have no Dialect equivalent and were dropped]"},
		{name: "bare", msgs: calls, bare: true, want: "Babc",
			warnings: "[2 OpenAI Responses item id(s) (ToolCall.ItemID) have no Dialect equivalent and were dropped]"},
		{name: "body fails", msgs: calls, err: errors.New("d: encode: Fields[0]: bad"), wantErr: "d: encode: Fields[0]: bad"},
		{name: "messages checked first", msgs: []llm.Message{{Role: "robot"}}, wantErr: `d: encode: Messages[0]: unknown role "robot"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			made := false
			got, warns, err := Encode("d", "Dialect", tt.msgs, tt.bare, func() Encoder {
				made = true
				return &testEncoder{msgs: tt.msgs, err: tt.err}
			})
			if fmt.Sprint(err) != fmt.Sprint(errOrNil(tt.wantErr)) {
				t.Fatalf("Encode(%s) error = %v, want %v", tt.name, err, errOrNil(tt.wantErr))
			}
			if err != nil {
				if tt.err == nil && made {
					t.Errorf("Encode(%s) made an encoder for messages it cannot write", tt.name)
				}
				return
			}
			if string(got) != tt.want || fmt.Sprint(warns) != tt.warnings {
				t.Errorf("Encode(%s) = %q, %v, want %q, %s", tt.name, got, warns, tt.want, tt.warnings)
			}
		})
	}
}
