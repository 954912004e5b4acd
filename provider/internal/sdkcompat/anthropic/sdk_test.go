package anthropic

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	tw "github.com/toolwire/toolwire/provider/anthropic"
	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// testdata is provider/anthropic's test data.
var testdata = filepath.Join("..", "..", "..", "anthropic", "testdata")

// normalize rewrites what the SDK writes in another, equivalent form: a
// string content (of the system field, a message or a tool_result) as one
// text block.
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = normalize(x)
		}
		_, isMsg := v["role"]
		if s, ok := v["content"].(string); ok && (isMsg || v["type"] == "tool_result") {
			v["content"] = []any{map[string]any{"type": "text", "text": s}}
		}
		if s, ok := v["system"].(string); ok {
			v["system"] = []any{map[string]any{"type": "text", "text": s}}
		}
	case []any:
		for i, x := range v {
			v[i] = normalize(x)
		}
	}
	return v
}

// TestSDKCompatible checks that the bodies Encode writes unmarshal into the
// official SDK's request type, anthropic.MessageNewParams, and marshal back
// to the same JSON (compared as values, since the SDK orders keys its own
// way).
func TestSDKCompatible(t *testing.T) {
	bodies := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(testdata, "roundtrip", "*.txtar"))
	if len(files) == 0 {
		t.Fatalf("no test bodies in %s", testdata)
	}
	for _, file := range files {
		r, err := tw.Decode(codectest.Input(t, file))
		if err != nil {
			t.Fatal(err)
		}
		if r.Bare {
			continue
		}
		enc, _, err := tw.Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		bodies[filepath.Base(file)] = enc
	}
	msgs, tools := codectest.FromOpenAI()
	conv := &tw.Request{Messages: msgs, Tools: tools,
		Fields: []tw.Field{{Key: "model", Value: []byte(`"claude-sonnet-4-5"`)}, {Key: "max_tokens", Value: []byte(`1024`)}}}
	enc, _, err := tw.Encode(conv)
	if err != nil {
		t.Fatal(err)
	}
	bodies["converted from openai"] = enc
	// What FixWire writes for a body that opens its messages with a role
	// "system" message (ANT-SYSTEM-ROLE): a system field of text blocks.
	fix, err := tw.Decode([]byte(`{"model":"claude-sonnet-4-5","max_tokens":9,"system":"a","messages":[{"role":"system","content":[{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}]},{"role":"user","content":"q"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	fix.FixWire = true
	if bodies["FixWire"], _, err = tw.Encode(fix); err != nil {
		t.Fatal(err)
	}

	for name, body := range bodies {
		var p anthropic.MessageNewParams
		if err := json.Unmarshal(body, &p); err != nil {
			t.Errorf("%s: json.Unmarshal into MessageNewParams: %v", name, err)
			continue
		}
		back, err := json.Marshal(p)
		if err != nil {
			t.Errorf("%s: json.Marshal(MessageNewParams): %v", name, err)
			continue
		}
		var want, got any
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(back, &got); err != nil {
			t.Fatal(err)
		}
		// MessageNewParams in v2.15 has no temperature field: the SDK
		// drops it, the API still takes it.
		delete(want.(map[string]any), "temperature")
		want, got = normalize(want), normalize(got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: SDK round trip =\n%s\nwant\n%s", name, back, body)
		}
	}
}
