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

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
)

// goInternals matches what a message must never show a user: Go type
// names, encoding/json and strconv wording, a bare EOF.
var goInternals = regexp.MustCompile(`json: |Go (value|struct)|strconv\.|\bEOF\b|map\[|\[\]byte|interface ?\{|reflect\.|%!|\*[a-z]+\.[A-Z][A-Za-z]*|runtime error|unexpected end of JSON input|invalid character|goroutine`)

// jsonxSyntax matches the start of a syntax error as internal/jsonx words
// it for every toolwire reader (the codecs, detection, tool arguments,
// spec files): where ("invalid JSON at line 3, column 20:"), then the
// problem in jsontext's words, which for a character out of place start
// "invalid character ',' at start of value". In that frame the words are
// the module's own and say where to look; without it, "invalid character"
// is encoding/json's ("invalid character 'x' looking for beginning of
// value") and a Go internal.
var jsonxSyntax = regexp.MustCompile(`invalid JSON at line \d+, column \d+: invalid character '(?:\\'|[^'])+'`)

// showsGoInternals reports whether line shows a user Go internals: the
// whole line is matched against goInternals, with only the character that
// a jsonx syntax error names taken out.
func showsGoInternals(line string) bool {
	return goInternals.MatchString(jsonxSyntax.ReplaceAllString(line, "invalid JSON at line N, column N: a character"))
}

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
			if code == exitcode.Internal || code > exitcode.Usage {
				t.Errorf("toolwire %q on %q: exit %d\n%s", args, in, code, stderr)
			}
			for _, line := range strings.Split(stderr, "\n") {
				if !strings.HasPrefix(line, "toolwire: ") {
					continue
				}
				if showsGoInternals(line) {
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
	if _, stderr, code := runCmd(t, "", "check", dir); code != exitcode.Usage || !strings.Contains(stderr, "is a directory") {
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

// TestShowsGoInternals holds the sweep's judge to what it must catch:
// encoding/json's syntax errors, and jsontext's bare ones that name an
// invalid character, are Go internals; the same problems as jsonx words
// them for a user are not.
func TestShowsGoInternals(t *testing.T) {
	for _, in := range []string{"x", "\x00", `{"a" 1}`, `[1 2]`, `{"a":tru}`, `{"a":"\x"}`, `[1.]`, `{} x`, `{"a":1,}`, `["'"x]`} {
		var v any
		stdErr := json.Unmarshal([]byte(in), &v)
		verr := jsonx.Valid([]byte(in))
		if stdErr == nil || verr == nil {
			t.Fatalf("%q: encoding/json says %v, jsonx says %v; want both to refuse it", in, stdErr, verr)
		}
		for _, tt := range []struct {
			msg  string
			want bool
		}{
			{stdErr.Error(), true},
			{verr.Error(), strings.Contains(verr.Error(), "invalid character")}, // out of the frame
			{jsonx.Error("", llm.Dotted, []byte(in), verr).Error(), false},
		} {
			if got := showsGoInternals("toolwire: standard input: " + tt.msg); got != tt.want {
				t.Errorf("showsGoInternals(%q) = %v, want %v", tt.msg, got, tt.want)
			}
		}
	}
}
