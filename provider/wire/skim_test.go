package wire

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/realtraffic"
	"github.com/toolwire/toolwire/transcript"
)

func TestSkim(t *testing.T) {
	long := strings.Repeat("abc ", 10)
	for _, c := range []struct {
		name string
		d    transcript.Dialect
		in   string
		want string // "" when the skim must refuse the body
	}{
		{"chat string content", transcript.OpenAIChat,
			`{"messages":[{"role":"tool","tool_call_id":"c","content":"` + long + `."}]}`,
			`{"messages":[{"role":"tool","tool_call_id":"c","content":"x."}]}`},
		{"chat text part, bare", transcript.OpenAIChat,
			`[{"role":"user","content":[{"type":"text","text":"` + long + `"}]}]`,
			`[{"role":"user","content":[{"type":"text","text":"x "}]}]`},
		{"white space between tokens", transcript.OpenAIChat,
			"{ \"messages\" : [ { \"content\" :\n \"" + long + "!\" } ] }",
			"{ \"messages\" : [ { \"content\" :\n \"x!\" } ] }"},
		{"ends in an escape", transcript.OpenAIChat,
			`[{"content":"` + long + `\n"},{"content":"` + long + `\u00e9"},{"content":"` + long + `\""}]`,
			`[{"content":"x\n"},{"content":"x\u00e9"},{"content":"x\""}]`},
		{"ends in a rune", transcript.Anthropic,
			`{"messages":[{"role":"assistant","content":"` + long + `\u3000` + "\u3000" + `"}]}`,
			`{"messages":[{"role":"assistant","content":"x` + "\u3000" + `"}]}`},
		{"kept: may be blank", transcript.OpenAIChat,
			`[{"content":" ` + long + `"},{"content":"\n` + long + `"},{"content":"` + "\u3000" + long + `"}]`,
			`[{"content":" ` + long + `"},{"content":"\n` + long + `"},{"content":"` + "\u3000" + long + `"}]`},
		{"kept: ends in a surrogate escape", transcript.OpenAIChat,
			`[{"content":"` + long + `\ud83d\ude00"}]`,
			`[{"content":"` + long + `\ud83d\ude00"}]`},
		{"kept: a lone surrogate before the end", transcript.Anthropic,
			`{"messages":[{"role":"user","content":"` + long + `\ud800\n` + long + `"}]}`,
			`{"messages":[{"role":"user","content":"` + long + `\ud800\n` + long + `"}]}`},
		{"kept: invalid UTF-8", transcript.OpenAIChat,
			`[{"content":"` + long + "\xff" + `z"}]`,
			`[{"content":"` + long + "\xff" + `z"}]`},
		{"kept: short", transcript.OpenAIChat,
			`[{"content":"abc"}]`, `[{"content":"abc"}]`},
		{"kept: not a text", transcript.OpenAIChat,
			`{"model":"` + long + `","messages":[{"name":"` + long + `","tool_calls":[{"function":{"arguments":"` + long + `"}}]}]}`,
			`{"model":"` + long + `","messages":[{"name":"` + long + `","tool_calls":[{"function":{"arguments":"` + long + `"}}]}]}`},
		{"kept: another dialect's array", transcript.OpenAIChat,
			`{"input":[{"content":"` + long + `"}]}`,
			`{"input":[{"content":"` + long + `"}]}`},
		{"responses output", transcript.OpenAIResponses,
			`{"input":[{"type":"function_call_output","call_id":"c","output":"` + long + `"}]}`,
			`{"input":[{"type":"function_call_output","call_id":"c","output":"x "}]}`},
		{"anthropic tool_result content and its text", transcript.Anthropic,
			`{"messages":[{"role":"user","content":[{"type":"tool_result","content":"` + long + `z"},{"type":"tool_result","content":[{"type":"text","text":"` + long + `y"}]}]}]}`,
			`{"messages":[{"role":"user","content":[{"type":"tool_result","content":"xz"},{"type":"tool_result","content":[{"type":"text","text":"xy"}]}]}]}`},
		{"kept: a tool input's text", transcript.Anthropic,
			`{"messages":[{"role":"assistant","content":[{"type":"tool_use","input":{"text":"` + long + `"}}]}]}`,
			`{"messages":[{"role":"assistant","content":[{"type":"tool_use","input":{"text":"` + long + `"}}]}]}`},
		{"gemini text", transcript.Gemini,
			`{"contents":[{"role":"model","parts":[{"text":"` + long + `q"},{"functionCall":{"name":"f","args":{"text":"` + long + `"}}}]}]}`,
			`{"contents":[{"role":"model","parts":[{"text":"xq"},{"functionCall":{"name":"f","args":{"text":"` + long + `"}}}]}]}`},
		{"gemini function response", transcript.Gemini,
			`{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"` + long + `o"}}},{"functionResponse":{"name":"f","response":{"error":"` + long + `e"}}},{"functionResponse":{"name":"f","response":{"result":"` + long + `"}}}]}]}`,
			`{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"xo"}}},{"functionResponse":{"name":"f","response":{"error":"xe"}}},{"functionResponse":{"name":"f","response":{"result":"` + long + `"}}}]}]}`},
		{"control character", transcript.OpenAIChat, "[{\"content\":\"a\x01b\"}]", ""},
		{"bad escape", transcript.OpenAIChat, `[{"content":"a\qb"}]`, ""},
		{"bad unicode escape", transcript.OpenAIChat, `[{"content":"a\u12g4"}]`, ""},
		{"unterminated", transcript.OpenAIChat, `[{"content":"` + long, ""},
		{"unbalanced", transcript.OpenAIChat, `]`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tp := textPaths[c.d]
			got, ok := skim([]byte(c.in), &tp, 8, nil)
			if c.want == "" {
				if ok {
					t.Fatalf("skimmed a body that is not JSON: %s", got)
				}
				return
			}
			if !ok {
				t.Fatal("refused")
			}
			if string(got) != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// skimCorpus returns the request bodies the package's other tests read:
// the real traffic, the example transcripts and the CLI's check inputs.
func skimCorpus(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	globs := []string{"../../examples/transcripts/*.json", "../../cmd/toolwire/testdata/check_*.json", "testdata/fuzz/FuzzFix/*"}
	if dir, ok := realtraffic.Lookup(); ok {
		globs = append(globs, filepath.Join(dir, "*", "*", "*.json"))
	}
	for _, g := range globs {
		files, _ := filepath.Glob(g)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(f, "FuzzFix") {
				data = corpusValue(t, f, data)
			}
			out[f] = data
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d bodies found", len(out))
	}
	return out
}

// TestViolationsAgree checks that Violations, skimming every text it may,
// finds exactly what decoding and checking the whole body finds, on every
// body of the corpus in every dialect.
func TestViolationsAgree(t *testing.T) {
	bodies, skimmed := skimCorpus(t), 0
	for name, data := range bodies {
		for _, d := range transcript.Dialects() {
			agree(t, name, data, d)
			tp := textPaths[d]
			if short, ok := skim(data, &tp, 0, nil); ok && len(short) < len(data) {
				skimmed++
			}
		}
	}
	// Most bodies are read in one dialect, their own; most of those
	// have a text to skim.
	if skimmed < len(bodies)/2 {
		t.Fatalf("only %d of %d bodies had a text skimmed: the test does not test the skim", skimmed, len(bodies))
	}
	t.Logf("%d bodies, %d skimmed in some dialect", len(bodies), skimmed)
}

// FuzzViolations: for any body, in every dialect, Violations with every
// text skimmed gives what decoding the body gives.
func FuzzViolations(f *testing.F) {
	for _, data := range skimCorpus(f) {
		f.Add(data)
	}
	// A body of each dialect with a text at each of its paths, some of
	// them breaking a rule that reads texts.
	for _, seed := range []string{
		`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"{\"a\":1}"}}},{"functionResponse":{"name":"f","response":{"error":" "}}}]},{"role":"model","parts":[{"text":"ok "}]}]}`,
		`{"max_tokens":9,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"tool_use","id":"t","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":""}]}]},{"role":"assistant","content":"prefill "}]}`,
		`{"input":[{"role":"user","content":"q"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"done."},{"role":"assistant","content":[{"type":"output_text","text":""}]}]}`,
		`{"max_tokens":9,"messages":[{"role":"user","content":"a\ud800\nb"}]}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"\u3000"}]},{"role":"assistant","content":"","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"r\n"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range transcript.Dialects() {
			agree(t, "", data, d)
		}
	})
}

func agree(t *testing.T, name string, data []byte, d transcript.Dialect) {
	t.Helper()
	var want []transcript.Violation
	b, wantErr := Decode(data, d)
	if wantErr == nil {
		want = b.Check()
	}
	got, err := violations(data, d, 0, "")
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("%s as %s: error %v, want %v", name, d, err, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s as %s: skimmed\n%v\nwhole\n%v", name, d, got, want)
	}
}

// corpusValue reads a fuzz corpus file of one []byte value.
func corpusValue(t testing.TB, name string, file []byte) []byte {
	_, v, _ := strings.Cut(string(file), "\n[]byte(")
	s, err := strconv.Unquote(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), ")")))
	if err != nil {
		t.Fatalf("%s: not a corpus file of one []byte: %v", name, err)
	}
	return []byte(s)
}

// BenchmarkViolations compares, on a Chat Completions body of 1 MB of
// tool results (2 KB each, as an agent's history grows), the verdict by
// decoding the body and by skimming it.
func BenchmarkViolations(b *testing.B) {
	rec := `{\"id\":\"o-%05d\",\"status\":\"refunded\",\"items\":[{\"sku\":\"CO-0042\",\"qty\":2}],\"note\":\"` + strings.Repeat("customer asked for a refund; ", 60) + `\"}`
	var sb strings.Builder
	sb.WriteString(`{"model":"gpt-4.1","messages":[{"role":"user","content":"Which orders were refunded?"}`)
	for n := 0; sb.Len() < 1<<20; n++ {
		fmt.Fprintf(&sb, `,{"role":"assistant","tool_calls":[{"id":"call_%d","type":"function","function":{"name":"search_orders","arguments":"{\"page\":%d}"}}]}`, n, n)
		fmt.Fprintf(&sb, `,{"role":"tool","tool_call_id":"call_%d","content":"`+rec+`"}`, n, n)
	}
	sb.WriteString(`,{"role":"user","content":"Summarize."}]}`)
	data := []byte(sb.String())
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			body, err := Decode(data, transcript.OpenAIChat)
			if err != nil || !transcript.Accepted(body.Check()) {
				b.Fatal(err)
			}
		}
	})
	b.Run("skim", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			vs, err := Violations(data, transcript.OpenAIChat)
			if err != nil || !transcript.Accepted(vs) {
				b.Fatal(err)
			}
		}
	})
}
