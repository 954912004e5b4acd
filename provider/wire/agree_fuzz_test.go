package wire

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/lint"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/anthropic"
	"github.com/toolwire/toolwire/provider/gemini"
	"github.com/toolwire/toolwire/provider/openai"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/transcript"
)

// A decoder under agreement: read reports whether it takes v, a JSON
// value, as JSON. Each places v where it reads any JSON value (a
// tool call's input, an extra member of a body, a schema), so that what
// it rejects besides is never v's fault.
type agreeDecoder struct {
	name string
	read func(v []byte) bool
	// lenientUTF8 marks the OpenAI codecs, which read invalid UTF-8 (and
	// lone surrogate escapes) in strings as encoding/json and the OpenAI
	// SDKs do (provider/openai, dialect): for them the seeds "\xff" and
	// "\ud800" are JSON. Every other decoder refuses them.
	lenientUTF8 bool
}

var agreeSchema = func() *tool.Schema {
	s, err := tool.CompileSchema("any", jsontext.Value(`{}`))
	if err != nil {
		panic(err)
	}
	return s
}()

var agreeDecoders = []agreeDecoder{
	{"jsonx", func(v []byte) bool { return jsonx.Valid(v) == nil }, false},
	{"llm persistence", func(v []byte) bool {
		var c llm.Conversation
		err := c.UnmarshalJSON(join(`{"version":1,"messages":[{"role":"assistant","parts":[{"type":"tool_call","id":"c","name":"f","input":`, v, `}]}]}`))
		return err == nil
	}, false},
	{"tool arguments", func(v []byte) bool {
		_, err := agreeSchema.Validate(v)
		return err == nil
	}, false},
	{"lint", func(v []byte) bool {
		r := lint.Tool(tool.Spec{Name: "f", Description: "Does f.", Returns: v})
		for _, f := range r.Findings {
			if f.Rule == lint.SchemaInvalid && bytes.Contains([]byte(f.Message), []byte("cannot be read")) {
				return false
			}
		}
		return true
	}, false},
	{"transcript strict schema", func(v []byte) bool {
		for _, vi := range transcript.CheckStrictSchema("f", v, "tools.0") {
			if bytes.Contains([]byte(vi.Message), []byte("not valid JSON")) {
				return false
			}
		}
		return true
	}, false},
	{"toolresult envelope", func(v []byte) bool {
		_, err := toolresult.Parse(join(`{"status":"success","summary":"f: done","data":`, v, `}`))
		return err == nil
	}, false},
	{"anthropic", func(v []byte) bool {
		_, err := anthropic.Decode(join(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"q"}],"x_extra":`, v, `}`))
		return err == nil
	}, false},
	{"gemini", func(v []byte) bool {
		_, err := gemini.Decode(join(`{"contents":[{"role":"user","parts":[{"text":"q"}]}],"x_extra":`, v, `}`))
		return err == nil
	}, false},
	{"openai chat", func(v []byte) bool {
		_, err := openai.DecodeChat(join(`{"model":"m","messages":[{"role":"user","content":"q"}],"x_extra":`, v, `}`))
		return err == nil
	}, true},
	{"openai responses", func(v []byte) bool {
		_, err := openai.DecodeResponses(join(`{"model":"m","input":"q","x_extra":`, v, `}`))
		return err == nil
	}, true},
}

func join(before string, v []byte, after string) []byte {
	return append(append([]byte(before), v...), after...)
}

// FuzzAgree feeds the same bytes to every decoder of the module and
// checks that they agree on whether they are JSON: duplicate names, key
// case, numbers, invalid UTF-8, depth and trailing data get one verdict.
// Bytes that could close the value they are placed in and go on (a '}'
// or ']' outside a string) are only checked for being refused by all or
// none where jsonx accepts them.
func FuzzAgree(f *testing.F) {
	// The seeds are in testdata/fuzz/FuzzAgree, one per rule the decoders
	// must agree on.
	f.Fuzz(func(t *testing.T, v []byte) {
		want := jsonx.Valid(v) == nil
		if !want && bytes.ContainsAny(v, "}]") {
			return // might close the surrounding document: not v alone
		}
		if len(bytes.TrimSpace(v)) == 0 {
			return // an empty value is a different question for each
		}
		onlyUTF8 := !want && jsontext.Value(v).IsValid(append(jsonx.Strict(), jsontext.AllowInvalidUTF8(true))...)
		for _, d := range agreeDecoders {
			if got := d.read(v); got != want && !(d.lenientUTF8 && onlyUTF8) {
				t.Errorf("%s reads %q as JSON = %v, jsonx.Valid says %v", d.name, v, got, want)
			}
		}
	})
}
