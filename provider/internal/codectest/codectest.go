// Package codectest holds the checks every provider codec passes, so that
// the codecs' own tests state only what is particular to their dialect:
// a body decodes and encodes back to itself, encode(decode(x)) is a fixed
// point after one cycle, every decode error is the codec's own error type
// and names its path, and decoding never panics (the fuzz target). It also
// holds the decode+encode benchmark and its encoding/json floor.
//
// A codec's test wraps its Decode and Encode in a [Codec] and calls the
// helpers here with its own test bodies.
package codectest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/transcript"
)

// Codec is a provider codec under test: the package's Decode and Encode for
// its request type R.
type Codec[R any] struct {
	Decode func(body []byte) (R, error)
	Encode func(r R) ([]byte, []provider.Warning, error)
}

// Compact returns b without white space outside strings.
func Compact(t testing.TB, b []byte) []byte {
	t.Helper()
	v := jsontext.Value(bytes.Clone(b))
	if err := v.Compact(); err != nil {
		t.Fatalf("Compact(%q): %v", b, err)
	}
	return v
}

// Input returns the input.json of the test case archive at path.
func Input(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	in, ok := golden.ParseArchive(data).Get("input.json")
	if !ok {
		t.Fatalf("%s has no input.json", path)
	}
	return in
}

// RoundTrip decodes the input.json of each test case archive that matches
// glob, wants the encoding to be that input compacted, without warnings,
// and checks render's account of the decoded request against the
// archive's golden file.
func RoundTrip[R any](t *testing.T, c Codec[R], glob string, render func(t *testing.T, r R, enc []byte, warns []provider.Warning) []byte) {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no test bodies match %s: %v", glob, err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		t.Run(name, func(t *testing.T) {
			in := Input(t, file)
			r, err := c.Decode(in)
			if err != nil {
				t.Fatalf("Decode(%s) error: %v", file, err)
			}
			enc, warns, err := c.Encode(r)
			if err != nil {
				t.Fatalf("Encode(Decode(%s)) error: %v", file, err)
			}
			if want := Compact(t, in); !bytes.Equal(enc, want) {
				t.Errorf("Encode(Decode(%s)) =\n%s\nwant\n%s", file, enc, want)
			}
			if len(warns) != 0 {
				t.Errorf("Encode(Decode(%s)) warnings = %v, want none", file, warns)
			}
			golden.CheckFile(t, file, "golden", render(t, r, enc, warns))
		})
	}
}

// An Account is what a golden file shows of a decoded request and of its
// encoding.
type Account struct {
	Messages  []llm.Message
	Tools     []string // one line per tool
	Flags     string   // such as "bare=false"
	Fields    []string // one "key: value" line per top-level field
	Wire      []transcript.Violation
	Unmodeled []provider.Warning
	Encoded   []byte
	Warnings  []provider.Warning
}

// Render writes a for a golden file: the messages as indented llm JSON,
// then each section under a "== " heading.
func Render(t testing.TB, a Account) []byte {
	t.Helper()
	var b bytes.Buffer
	raw, err := llm.Conversation{Messages: a.Messages}.MarshalJSON()
	if err != nil {
		t.Fatalf("Conversation.MarshalJSON: %v", err)
	}
	conv := jsontext.Value(raw)
	b.WriteString("== messages\n")
	if err := conv.Indent(jsontext.WithIndent("  ")); err != nil {
		t.Fatal(err)
	}
	b.Write(conv)
	b.WriteString("\n== tools\n")
	for _, s := range a.Tools {
		b.WriteString(s + "\n")
	}
	fmt.Fprintf(&b, "== %s\n== fields\n", a.Flags)
	for _, s := range a.Fields {
		b.WriteString(s + "\n")
	}
	b.WriteString("== wire\n")
	for _, v := range a.Wire {
		fmt.Fprintf(&b, "%s\n", v)
	}
	b.WriteString("== unmodeled\n")
	for _, w := range a.Unmodeled {
		fmt.Fprintf(&b, "%s\n", w)
	}
	b.WriteString("== encoded\n")
	b.Write(a.Encoded)
	b.WriteString("\n== warnings\n")
	for _, w := range a.Warnings {
		fmt.Fprintf(&b, "%s\n", w)
	}
	return b.Bytes()
}

// A Cycle is what one decode-encode-decode-encode cycle of a body gave.
type Cycle[R any] struct {
	First, Second R      // the decodings of the body and of its encoding
	Encoded       []byte // the first encoding
}

// Stable decodes body, encodes it, decodes and encodes that, and fails t
// unless the second encoding is the first one: encode(decode(x)) is a fixed
// point after one cycle. It returns false when body does not decode, or
// when t failed.
func Stable[R any](t testing.TB, c Codec[R], body []byte) (Cycle[R], bool) {
	t.Helper()
	var cy Cycle[R]
	r, err := c.Decode(body)
	if err != nil {
		return cy, false
	}
	once, _, err := c.Encode(r)
	if err != nil {
		t.Errorf("Encode(Decode(%q)) error: %v", body, err)
		return cy, false
	}
	r2, err := c.Decode(once)
	if err != nil {
		t.Errorf("Decode(%q) error: %v (it came from Encode(Decode(%q)))", once, err, body)
		return cy, false
	}
	twice, _, err := c.Encode(r2)
	if err != nil || !bytes.Equal(once, twice) {
		t.Errorf("Encode(Decode(%q)) = %s, %v, want %s", once, twice, err, once)
		return cy, false
	}
	return Cycle[R]{First: r, Second: r2, Encoded: once}, true
}

// StableBodies runs [Stable] on bodies that are not in the codec's own
// form, each of which must decode.
func StableBodies[R any](t *testing.T, c Codec[R], bodies ...string) {
	for _, body := range bodies {
		if _, err := c.Decode([]byte(body)); err != nil {
			t.Errorf("Decode(%q) error: %v", body, err)
			continue
		}
		Stable(t, c, []byte(body))
	}
}

// Seed adds every file that matches glob to the fuzz corpus, besides the
// committed corpus under testdata/fuzz/; of a test case archive (.txtar),
// its input.json.
func Seed(f *testing.F, glob string) {
	files, err := filepath.Glob(glob)
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if strings.HasSuffix(file, ".txtar") {
			in, ok := golden.ParseArchive(b).Get("input.json")
			if !ok {
				f.Fatalf("%s has no input.json", file)
			}
			b = in
		}
		f.Add(b)
	}
}

// Fuzz checks the codec contract on arbitrary bytes, seeded with the files
// that match glob: decoding never panics and fails only with an error of
// type E (the codec's *DecodeError); whatever decodes is [Stable]. more, if
// not nil, checks a stable cycle further.
func Fuzz[R any, E error](f *testing.F, c Codec[R], glob string, more func(t *testing.T, cy Cycle[R])) {
	Seed(f, glob)
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, err := c.Decode(body); err != nil {
			var target E
			if !errors.As(err, &target) {
				t.Fatalf("Decode(%q) error is %T (%v), want %T", body, err, err, target)
			}
			return
		}
		if cy, ok := Stable(t, c, body); ok && more != nil {
			more(t, cy)
		}
	})
}

// DecodeErrors checks that each body fails to decode with exactly the
// error text wanted (Want), as an error of type E (the codec's *DecodeError). The
// texts of bodies longer than 200 bytes are compared by their first and
// last 60 bytes.
func DecodeErrors[R any, E error](t *testing.T, c Codec[R], cases []struct{ Body, Want string }) {
	for _, tc := range cases {
		_, err := c.Decode([]byte(tc.Body))
		got, want := fmt.Sprint(err), tc.Want
		if len(tc.Body) > 200 && len(got) > 120 && len(want) > 120 {
			got, want = got[:60]+got[len(got)-60:], want[:60]+want[len(want)-60:]
		}
		if got != want {
			t.Errorf("Decode(%.80q) error = %s\nwant %s", tc.Body, got, want)
		}
		var target E
		if err != nil && !errors.As(err, &target) {
			t.Errorf("Decode(%.80q) error is %T, want %T", tc.Body, err, target)
		}
	}
}

// Convert encodes r, messages from another dialect, and checks the body
// and its warnings against the golden section of file; it returns the
// body.
func Convert[R any](t *testing.T, c Codec[R], r R, file string) []byte {
	t.Helper()
	enc, warns, err := c.Encode(r)
	if err != nil {
		t.Fatalf("Encode error: %v", err)
	}
	var b bytes.Buffer
	b.Write(enc)
	b.WriteString("\n== warnings\n")
	for _, w := range warns {
		fmt.Fprintf(&b, "%s\n", w)
	}
	golden.CheckFile(t, file, "golden", b.Bytes())
	return enc
}

// EncodeErrors checks the error Encode gives each request that cannot be
// written.
func EncodeErrors[R any](t *testing.T, c Codec[R], cases []struct {
	R    R
	Want string
}) {
	t.Helper()
	for _, tc := range cases {
		_, _, err := c.Encode(tc.R)
		if fmt.Sprint(err) != tc.Want {
			t.Errorf("Encode(%+v) error = %v, want %s", tc.R, err, tc.Want)
		}
	}
}

// Edited encodes r, a decoded request edited as a repair would, and
// checks that it encodes without a warning to a body holding each of
// wants (what the llm form does not hold, kept with its part).
func Edited[R any](t *testing.T, c Codec[R], r R, wants ...string) {
	t.Helper()
	enc, warns, err := c.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings = %v, want none", warns)
	}
	for _, want := range wants {
		if !bytes.Contains(enc, []byte(want)) {
			t.Errorf("Encode(edited) = %s\nwant it to contain %s", enc, want)
		}
	}
}

// FieldOrder checks that body, whose top-level fields come in another order
// than usual's (its system prompt after its messages), decodes to the same
// as usual, as account prints a request (its messages and notes), and that
// after edit it encodes as want: the fields in their order, and what edit
// did not change as it was.
func FieldOrder[R any](t *testing.T, c Codec[R], usual, body string, account func(R) string, edit func(R), want string) {
	t.Helper()
	u, err := c.Decode([]byte(usual))
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := account(r), account(u); got != want {
		t.Errorf("Decode(%s) =\n%s\nwant, as for %s,\n%s", body, got, usual, want)
	}
	edit(r)
	enc, _, err := c.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(enc) != want {
		t.Errorf("Encode(edited) =\n%s\nwant\n%s", enc, want)
	}
}

// BenchCodec encodes r and measures Decode+Encode of the body, as the
// sub-benchmark name, next to encoding/json unmarshalling the same bytes
// into any and marshalling them back (the floor, "encoding_json").
func BenchCodec[R any](b *testing.B, name string, c Codec[R], r R) {
	b.Helper()
	body, _, err := c.Encode(r)
	if err != nil {
		b.Fatal(err)
	}
	b.Run(name, func(b *testing.B) { BenchDecodeEncode(b, c, body) })
	b.Run("encoding_json", func(b *testing.B) { BenchFloor[any](b, body) })
}

// BenchDecodeEncode measures Decode followed by Encode of body.
func BenchDecodeEncode[R any](b *testing.B, c Codec[R], body []byte) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := c.Decode(body)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := c.Encode(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchTranscript returns a conversation for the decode+encode benchmark:
// a system prompt, then rounds of a question, an assistant turn with two
// parallel tool calls, their results and three follow-up exchanges, cut
// to n+1 messages; 10,000 messages hold 2,000 calls. Call ids are
// idPrefix, a six-digit round and "a" or "b"; named results carry their
// call's name, for a dialect that pairs results by name.
func BenchTranscript(n int, idPrefix string, named bool) []llm.Message {
	filler := strings.Repeat("Some ordinary prose about the task at hand, with <tags> & symbols. ", 3)
	var msgs []llm.Message
	msgs = append(msgs, llm.System("You are a careful assistant. "+filler))
	name := func(s string) string {
		if named {
			return s
		}
		return ""
	}
	for round := 0; len(msgs) < n+1; round++ {
		id1, id2 := fmt.Sprintf("%s%06da", idPrefix, round), fmt.Sprintf("%s%06db", idPrefix, round)
		msgs = append(msgs,
			llm.User("Question "+fmt.Sprint(round)+": "+filler),
			llm.Assistant(llm.Text{Text: "Let me look that up."},
				llm.ToolCall{ID: id1, Name: "search", Input: []byte(`{"query":"item ` + fmt.Sprint(round) + `","limit":10}`)},
				llm.ToolCall{ID: id2, Name: "fetch", Input: []byte(`{"url":"https://example.com/` + fmt.Sprint(round) + `"}`)}),
			llm.Tool(
				llm.ToolResult{CallID: id1, Name: name("search"), Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: `{"status":"success","summary":"3 results","data":[1,2,3]}`}}},
				llm.ToolResult{CallID: id2, Name: name("fetch"), Status: llm.StatusError, Content: []llm.Part{llm.Text{Text: "upstream returned 503"}}}),
			llm.Assistant(llm.Text{Text: "Here is what I found. " + filler}),
		)
		for k := 0; k < 3; k++ {
			msgs = append(msgs, llm.User("Follow-up. "+filler), llm.Assistant(llm.Text{Text: "Answer. " + filler}))
		}
	}
	return msgs[:n+1]
}
