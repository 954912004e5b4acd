package gemini

import (
	"testing"

	"github.com/toolwire/toolwire/transcript"
)

// TestFixWire checks that FixWire writes what Wire lists (GEM-PARTS-NONEMPTY,
// GEM-RESPONSE-OBJECT) in a form Gemini accepts, keeping everything else,
// and that without it the body comes back as it was.
func TestFixWire(t *testing.T) {
	tests := []struct {
		name, body, want string
		rules            []string // the Wire rules of body
	}{
		{name: "a model part without data is left out",
			body:  `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"text":"a"},{"thoughtSignature":"c2ln"},{"text":"b","videoMetadata":{"fps":1}}]}],"generationConfig":{"temperature":0}}`,
			want:  `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"text":"a"},{"text":"b","videoMetadata":{"fps":1}}]}],"generationConfig":{"temperature":0}}`,
			rules: []string{"GEM-PARTS-NONEMPTY"}},
		{name: "a model content left without parts is left out",
			body:  `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{}]},{"role":"user","parts":[{"text":"again"}]},{"role":"model","parts":[{"text":"a"}]}]}`,
			want:  `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"user","parts":[{"text":"again"}]},{"role":"model","parts":[{"text":"a"}]}]}`,
			rules: []string{"GEM-PARTS-NONEMPTY"}},
		{name: "a user part without data is left out; a part of a kind the llm form does not model stays",
			body:  `{"contents":{"parts":[{"thought":false},{"videoMetadata":{"fps":2}},{"text":"q"}]}}`,
			want:  `{"contents":{"parts":[{"videoMetadata":{"fps":2}},{"text":"q"}]}}`,
			rules: []string{"GEM-PARTS-NONEMPTY"}},
		{name: "responses that are not objects are wrapped as they were",
			body: `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":{}}},{"functionCall":{"name":"g","args":{}}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":"ok","willContinue":false}},{"function_response":{"name":"g","response":[1,"<2>"]}}]}]}`,
			want: `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":{}}},{"functionCall":{"name":"g","args":{}}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{"output":"ok"},"willContinue":false}},{"functionResponse":{"name":"g","response":{"output":[1,"<2>"]}}}]}]}`,
			rules: []string{"GEM-RESPONSE-OBJECT", "GEM-RESPONSE-OBJECT"}},
		{name: "the role assistant is written as model",
			body:  `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"assistant","parts":[{"text":"a"}]},{"parts":[{"text":"again"}],"role":"user"}]}`,
			want:  `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"text":"a"}]},{"parts":[{"text":"again"}],"role":"user"}]}`,
			rules: []string{"GEM-ROLE"}},
		{name: "the role assistant after the parts stays after them",
			body:  `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"parts":[{"functionCall":{"name":"f","args":{}}}],"role":"assistant"},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`,
			want:  `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"parts":[{"functionCall":{"name":"f","args":{}}}],"role":"model"},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`,
			rules: []string{"GEM-ROLE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Decode([]byte(tt.body))
			if err != nil {
				t.Fatalf("Decode(%s) error: %v", tt.body, err)
			}
			var rules []string
			for _, v := range r.Wire {
				rules = append(rules, string(v.Rule))
			}
			if len(rules) != len(tt.rules) || len(rules) > 0 && rules[0] != tt.rules[0] {
				t.Fatalf("Decode(%s) Wire = %v, want %v", tt.body, r.Wire, tt.rules)
			}
			if got, _, err := Encode(r); err != nil || string(got) != tt.body {
				t.Errorf("Encode(Decode(%s)) = %s, %v; want it unchanged without FixWire", tt.body, got, err)
			}
			r.FixWire = true
			got, warns, err := Encode(r)
			if err != nil || string(got) != tt.want || len(warns) != 0 {
				t.Errorf("Encode(%s) with FixWire = %s, %v, %v; want\n%s", tt.body, got, warns, err, tt.want)
			}
			back, err := Decode(got)
			if err != nil {
				t.Fatalf("Decode(%s) error: %v", got, err)
			}
			vs := append(back.Wire, transcript.Check(back.Messages, Dialect)...)
			if !transcript.Accepted(vs) {
				t.Errorf("check of %s = %v, want accepted", got, vs)
			}
		})
	}
}
