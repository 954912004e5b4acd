package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// goInternals matches what a message must never show a user: Go type
// names, encoding/json and strconv wording, a bare EOF.
var goInternals = regexp.MustCompile(`json: |Go (value|struct)|strconv\.|\bEOF\b|map\[|\[\]byte|interface ?\{|reflect\.|%!|\*[a-z]+\.[A-Z][A-Za-z]*|runtime error|unexpected end of JSON input|invalid character|goroutine`)

// TestMalformedInputs runs check, check --fix and convert on bodies broken
// in every way a sweep can make them: each value of the example bodies
// replaced by a value of each other JSON type, each body cut short at
// many points, and inputs that are not JSON at all. Every run must end
// with exit 0, 1 or 2, never an internal error, and every message must be
// free of Go internals. With -v it lists the distinct messages, to read.
func TestMalformedInputs(t *testing.T) {
	seeds := sweepSeeds(t)
	var inputs []string
	for _, s := range seeds {
		inputs = append(inputs, mutations(t, s)...)
		for n := 0; n < len(s); n += max(1, len(s)/40) {
			inputs = append(inputs, s[:n])
		}
	}
	inputs = append(inputs, "", "   \n", "\x00\x01\x02\xff binary", "\xef\xbb\xbf{}", "null", "42", `"text"`, "[[]]", "[{}]", "{}", `{"messages":{}}`)
	seen := map[string]int{}
	digits := regexp.MustCompile(`\d+`)
	for _, in := range inputs {
		for _, args := range [][]string{{"check"}, {"check", "--fix"}, {"convert", "--to", "gemini"}} {
			_, stderr, code := runCmd(t, in, args...)
			if code == exitInternal || code > exitUsage {
				t.Errorf("toolwire %q on %q: exit %d\n%s", args, in, code, stderr)
			}
			for _, line := range strings.Split(stderr, "\n") {
				if !strings.HasPrefix(line, "toolwire: ") {
					continue
				}
				if goInternals.MatchString(line) {
					t.Errorf("toolwire %q on %q: a message shows Go internals:\n%s", args, in, line)
				}
				seen[digits.ReplaceAllString(line, "N")]++
			}
		}
	}
	if testing.Verbose() {
		var lines []string
		for l, n := range seen {
			lines = append(lines, strconv.Itoa(n)+"\t"+l)
		}
		sort.Strings(lines)
		t.Logf("%d inputs, %d distinct messages:\n%s", len(inputs), len(seen), strings.Join(lines, "\n"))
	}
	dir := t.TempDir()
	if _, stderr, code := runCmd(t, "", "check", dir); code != exitUsage || !strings.Contains(stderr, "is a directory") {
		t.Errorf("check DIR: exit %d, %q; want 2 saying it is a directory", code, stderr)
	}
}

// sweepSeeds returns the example bodies and the test bodies of every
// dialect.
func sweepSeeds(t *testing.T) []string {
	var seeds []string
	files, _ := filepath.Glob("../../examples/transcripts/*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, string(b))
	}
	for _, c := range wireCases {
		seeds = append(seeds, c.body)
	}
	return append(seeds,
		`{"model":"gpt-5","input":[{"role":"user","content":[{"type":"input_text","text":"q"},{"type":"input_image","image_url":"https://e.x/a.png"}]},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"}],"tools":[{"type":"function","name":"f","parameters":{"type":"object"}}]}`,
		`{"model":"claude-x","max_tokens":9,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERg=="}}]}]}`)
}

// mutations returns body with each of its values, one at a time, replaced
// by a value of every other JSON type.
func mutations(t *testing.T, body string) []string {
	var doc any
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("seed is not JSON: %v\n%s", err, body)
	}
	repl := []any{5.0, "x", nil, []any{5.0}, map[string]any{"x": 1.0}}
	var out []string
	var walk func(v any, set func(any))
	walk = func(v any, set func(any)) {
		for _, r := range repl {
			set(r)
			b, _ := json.Marshal(doc)
			out = append(out, string(b))
		}
		set(v)
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(c, func(n any) { x[k] = n })
			}
		case []any:
			for i, c := range x {
				walk(c, func(n any) { x[i] = n })
			}
		}
	}
	walk(doc, func(n any) { doc = n })
	return out
}
