package tool_test

import (
	"context"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// TestGenericSummary checks the summary the executor writes for a result
// without one, from the result parsed once: what it holds, counted
// without decoding it, whatever form the tool gave it in.
func TestGenericSummary(t *testing.T) {
	parsed := func(s string) any {
		v, err := toolresult.ParseJSON([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name    string
		returns string
		data    any
		want    string
	}{
		{"nil", "", nil, "t(): done"},
		{"empty array", "", jsontext.Value(`[]`), "t(): nothing found"},
		{"empty object", "", jsontext.Value(` {} `), "t(): nothing found"},
		{"null", "", jsontext.Value(`null`), "t(): nothing found"},
		{"array", "", jsontext.Value(`[1, {"a": [2, 3]}, "x"]`), "t(): 3 items"},
		{"array validated", `{"type":"array"}`, jsontext.Value(`[1,2]`), "t(): 2 items"},
		{"array parsed by the tool", "", parsed(`[{"a":1},{"a":2}]`), "t(): 2 items"},
		{"Go slice", "", []string{"a", "b"}, "t(): 2 items"},
		{"Go slice validated", `{"type":"array"}`, []int{1, 2, 3, 4}, "t(): 4 items"},
		{"object", "", jsontext.Value(`{"a":[1,2]}`), "t(): done"},
		// The data is shown with U+FFFD in place of the bad bytes; its
		// items are counted like any array's (before the parse was
		// shared, the strict counter refused it: "done").
		{"array with invalid UTF-8", "", jsontext.Value("[\"a\xff\",\"b\"]"), "t(): 2 items"},
		{"array with a name twice", "", jsontext.Value(`[{"a":1,"a":2}]`), "t(): done"},
	}
	for _, tt := range tests {
		f := newFake("t", tool.Level2, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
			return toolresult.Success("", tt.data), nil
		})
		f.spec.Returns = jsontext.Value(tt.returns)
		ex := executor(t, nil, f)
		o := ex.Call(context.Background(), llm.ToolCall{ID: "c", Name: "t", Input: jsontext.Value(`{}`)})
		if o.Envelope.Summary != tt.want {
			t.Errorf("%s: summary = %q, want %q (%s)", tt.name, o.Envelope.Summary, tt.want, text(o.Result))
		}
		// The outcome holds JSON data as a jsontext.Value of the bytes
		// the tool gave, parsed or not.
		if v, ok := tt.data.(*toolresult.JSON); ok {
			if got, ok := o.Envelope.Data.(jsontext.Value); !ok || string(got) != string(v.Bytes()) {
				t.Errorf("%s: outcome data = %#v, want jsontext.Value(%s)", tt.name, o.Envelope.Data, v.Bytes())
			}
		}
	}
}
