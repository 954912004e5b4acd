package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/codectest"
	"github.com/toolwire/toolwire/transcript"
)

// testCodec is one of the two dialects, for shared tests.
type testCodec struct {
	name string
	codectest.Codec[decoded]
}

// decoded is what both request types have in common.
type decoded struct {
	messages  []llm.Message
	tools     []llm.ToolSpec
	wire      []transcript.Violation
	unmodeled []provider.Warning
	encode    func() ([]byte, []provider.Warning, error)
}

func encodeDecoded(d decoded) ([]byte, []provider.Warning, error) { return d.encode() }

var codecs = []testCodec{
	{"chat", codectest.Codec[decoded]{Encode: encodeDecoded, Decode: func(b []byte) (decoded, error) {
		r, err := DecodeChat(b)
		if err != nil {
			return decoded{}, err
		}
		return decoded{r.Messages, r.Tools, r.Wire, r.Unmodeled, func() ([]byte, []provider.Warning, error) { return EncodeChat(r) }}, nil
	}}},
	{"responses", codectest.Codec[decoded]{Encode: encodeDecoded, Decode: func(b []byte) (decoded, error) {
		r, err := DecodeResponses(b)
		if err != nil {
			return decoded{}, err
		}
		return decoded{r.Messages, r.Tools, r.Wire, r.Unmodeled, func() ([]byte, []provider.Warning, error) { return EncodeResponses(r) }}, nil
	}}},
}

// dump renders a decoded request and its re-encoding for a golden file.
func dump(t *testing.T, d decoded) []byte {
	t.Helper()
	var b bytes.Buffer
	conv, err := llm.Conversation{Messages: d.messages}.MarshalJSON()
	if err != nil {
		t.Fatalf("marshal llm form: %v", err)
	}
	b.WriteString("== llm messages\n")
	if err := json.Indent(&b, conv, "", "  "); err != nil {
		t.Fatalf("indent: %v", err)
	}
	b.WriteString("\n== tools\n")
	for _, tool := range d.tools {
		fmt.Fprintf(&b, "%s strict=%v description=%q parameters=%s\n", tool.Name, tool.Strict, tool.Description, string(tool.Parameters))
	}
	b.WriteString("== wire violations\n")
	for _, v := range d.wire {
		fmt.Fprintf(&b, "%s %s: %s\n  provider: %s\n", v.Rule, v.Path, v.Message, v.ProviderError)
	}
	b.WriteString("== unmodeled\n")
	for _, w := range d.unmodeled {
		fmt.Fprintf(&b, "%s\n", w)
	}
	out, warnings, err := d.encode()
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	b.WriteString("== encoded\n")
	b.Write(out)
	b.WriteString("\n== encode warnings\n")
	for _, w := range warnings {
		fmt.Fprintf(&b, "%s\n", w)
	}
	return b.Bytes()
}

// TestGolden decodes every body under testdata/<dialect>/, dumps the llm
// form and the re-encoded body, and checks that a second cycle changes
// nothing.
func TestGolden(t *testing.T) {
	for _, c := range codecs {
		files, err := filepath.Glob(filepath.Join("testdata", c.name, "*.txtar"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no test bodies for %s: %v", c.name, err)
		}
		for _, file := range files {
			name := c.name + "/" + strings.TrimSuffix(filepath.Base(file), ".txtar")
			t.Run(name, func(t *testing.T) {
				body := testBody(t, name)
				d, err := c.Decode(body)
				if err != nil {
					t.Fatalf("decode(%s) error: %v", file, err)
				}
				golden.CheckFile(t, file, "golden", dump(t, d))
				checkStable(t, c, body)
			})
		}
	}
}

// checkStable checks that encode(decode(x)) is a fixed point: decoding it
// gives the same llm form, and encoding that gives the same bytes.
func checkStable(t *testing.T, c testCodec, body []byte) {
	t.Helper()
	if cy, ok := codectest.Stable(t, c.Codec, body); ok {
		checkCycle(t, c.name, cy)
	}
}

// checkCycle checks what a stable cycle must also keep: the llm form
// survives whenever the dialect can express it, the tools survive, and the
// re-encoded body is valid JSON without wire violations.
func checkCycle(t *testing.T, dialect string, cy codectest.Cycle[decoded]) {
	t.Helper()
	d1, d2, out1 := cy.First, cy.Second, cy.Encoded
	// A Chat tool message with an image cannot survive
	// (OAI-CC-TOOL-IMAGE): encoding moves the image into a user message.
	if expressible(dialect, d1.messages) && !rewrites(d1.wire) && !reflect.DeepEqual(normalize(d1.messages), normalize(d2.messages)) {
		t.Fatalf("%s: llm form changed over a cycle for %s\nfirst:  %#v\nsecond: %#v", dialect, out1, d1.messages, d2.messages)
	}
	if !reflect.DeepEqual(d1.tools, d2.tools) {
		t.Fatalf("%s: tools changed over a cycle for %s\nfirst:  %#v\nsecond: %#v", dialect, out1, d1.tools, d2.tools)
	}
	if !transcript.Accepted(d2.wire) {
		t.Fatalf("%s: re-encoded body still has wire violations %v\nencoded: %s", dialect, d2.wire, out1)
	}
	if !json.Valid(out1) {
		t.Fatalf("%s: encoded body is not valid JSON: %s", dialect, out1)
	}
}

// normalize makes llm messages comparable across a cycle: invalid UTF-8 in
// text becomes U+FFFD there, which JSON cannot carry.
func normalize(msgs []llm.Message) []byte {
	b, err := llm.Conversation{Messages: msgs}.MarshalJSON()
	if err != nil {
		return []byte(err.Error())
	}
	return b
}

// rewrites reports whether the encoder writes a violation of wire in a
// form that decodes to another llm form: a null content becomes "" (one
// empty text part), a reasoning item or an opaque item is left out.
func rewrites(wire []transcript.Violation) bool {
	for _, v := range wire {
		switch {
		case v.Warning:
		case v.Rule == "OAI-CC-NULL-CONTENT", v.Rule == "OAI-RS-REASONING-FOLLOW", v.Rule == "OAI-RS-DUP-ITEM":
			return true
		}
	}
	return false
}

// expressible reports whether msgs hold nothing the dialect's encoder must
// rewrite: a message without parts is written with the content "", which
// is one empty text part.
func expressible(dialect string, msgs []llm.Message) bool {
	for _, m := range msgs {
		if len(m.Parts) == 0 && m.Role != llm.RoleTool {
			return false
		}
	}
	if dialect != "chat" {
		return true
	}
	for _, m := range msgs {
		for _, r := range m.ToolResults() {
			for _, p := range r.Content {
				if _, ok := p.(llm.Image); ok {
					return false
				}
			}
		}
	}
	return true
}

// testBody returns the input body of the test case archive
// testdata/NAME.txtar ("chat/bare").
func testBody(t testing.TB, name string) []byte {
	t.Helper()
	return codectest.Input(t, filepath.Join("testdata", name+".txtar"))
}
