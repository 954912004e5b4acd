package wire

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/provider"
	pcodec "github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// A topField is a top-level field of a body that its codec does not model
// (model, temperature, ...), with its JSON.
type topField struct {
	Key   string
	Value []byte
}

// An option is a generation setting that several dialects have, each
// under its own name: where each dialect keeps it, as a dotted path into
// the body ("generationConfig.topP": the member topP of the top-level
// object generationConfig). The first path is the one written; the
// others are also read (Chat's older max_tokens). A dialect missing from
// at has no such option.
type option struct {
	at map[transcript.Dialect][]string
	// list is set when the value is a list a dialect may write as one
	// string (Chat's "stop"): it is written as a list everywhere.
	list bool
	// lacks says, for a dialect that has no such option, what it has
	// instead, when it has something.
	lacks map[transcript.Dialect]string
}

// options are the generation options a conversion carries from one
// dialect to another, in the order they are written. Fields not listed
// (model, tool_choice, metadata, ...) are named in a warning.
var options = []option{
	{at: map[transcript.Dialect][]string{
		transcript.OpenAIChat:      {"max_completion_tokens", "max_tokens"},
		transcript.OpenAIResponses: {"max_output_tokens"},
		transcript.Anthropic:       {"max_tokens"},
		transcript.Gemini:          {"generationConfig.maxOutputTokens"},
	}},
	{at: map[transcript.Dialect][]string{
		transcript.OpenAIChat:      {"temperature"},
		transcript.OpenAIResponses: {"temperature"},
		transcript.Anthropic:       {"temperature"},
		transcript.Gemini:          {"generationConfig.temperature"},
	}},
	{at: map[transcript.Dialect][]string{
		transcript.OpenAIChat:      {"top_p"},
		transcript.OpenAIResponses: {"top_p"},
		transcript.Anthropic:       {"top_p"},
		transcript.Gemini:          {"generationConfig.topP"},
	}},
	{at: map[transcript.Dialect][]string{
		transcript.Anthropic: {"top_k"},
		transcript.Gemini:    {"generationConfig.topK"},
	}},
	{list: true, at: map[transcript.Dialect][]string{
		transcript.OpenAIChat: {"stop"},
		transcript.Anthropic:  {"stop_sequences"},
		transcript.Gemini:     {"generationConfig.stopSequences"},
	}},
	{at: map[transcript.Dialect][]string{
		transcript.OpenAIChat: {"seed"},
		transcript.Gemini:     {"generationConfig.seed"},
	}},
	{at: map[transcript.Dialect][]string{
		transcript.OpenAIChat: {"presence_penalty"},
		transcript.Gemini:     {"generationConfig.presencePenalty"},
	}},
	{at: map[transcript.Dialect][]string{
		transcript.OpenAIChat: {"frequency_penalty"},
		transcript.Gemini:     {"generationConfig.frequencyPenalty"},
	}},
	{at: map[transcript.Dialect][]string{
		transcript.OpenAIChat:      {"reasoning_effort"},
		transcript.OpenAIResponses: {"reasoning.effort"},
	}, lacks: map[transcript.Dialect]string{
		transcript.Anthropic: "extended thinking (thinking.budget_tokens) is set in tokens",
		transcript.Gemini:    "thinking is set in generationConfig.thinkingConfig",
	}},
	{at: map[transcript.Dialect][]string{
		transcript.OpenAIChat:      {"stream"},
		transcript.OpenAIResponses: {"stream"},
		transcript.Anthropic:       {"stream"},
	}, lacks: map[transcript.Dialect]string{
		transcript.Gemini: "a request streams when it is sent to :streamGenerateContent",
	}},
}

// convertOptions carries the generation options among fields, a body of
// dialect from's other top-level fields, to dialect to: it returns them
// as fields of to, a warning for each that to has no place for, and the
// names of the fields that are not options (model, tool_choice, ...,
// and the members of an option object that are not options themselves,
// as "generationConfig.candidateCount").
func convertOptions(fields []topField, from, to transcript.Dialect) (out []topField, warns []provider.Warning, rest []string) {
	canon := canonOf(from)
	// containers are the objects that hold options in from.
	containers := map[string]bool{}
	for _, o := range options {
		for _, p := range o.at[from] {
			if c, _, ok := strings.Cut(p, "."); ok {
				containers[c] = true
			}
		}
	}
	var flat []topField
	for _, f := range fields {
		k := canon(f.Key)
		if !containers[k] {
			flat = append(flat, topField{k, f.Value})
			continue
		}
		ms, ok := objectMembers(f.Value)
		if !ok {
			rest = append(rest, f.Key)
			continue
		}
		for _, m := range ms {
			flat = append(flat, topField{k + "." + canon(m.Key), m.Value})
		}
	}
	values := make([][]byte, len(options))
	for _, f := range flat {
		i := optionAt(from, f.Key)
		if i < 0 {
			rest = append(rest, f.Key)
			continue
		}
		o := options[i]
		switch {
		case values[i] != nil:
			warns = append(warns, provider.Warning{Path: f.Key, Message: "sets the same option again; the first one is carried over"})
		case len(o.at[to]) == 0:
			msg := fmt.Sprintf("%s has no such option; it is not carried over", to)
			if instead := o.lacks[to]; instead != "" {
				msg += " (" + instead + ")"
			}
			warns = append(warns, provider.Warning{Path: f.Key, Message: msg})
			values[i] = []byte{} // seen
		default:
			v := f.Value
			if o.list && bytes.HasPrefix(bytes.TrimSpace(v), []byte(`"`)) {
				v = append(append([]byte("["), bytes.TrimSpace(v)...), ']')
			}
			values[i] = v
		}
	}
	// Write them in the order of options, the members of one object
	// together where its first member stands.
	objects := map[string]int{} // the object's index in out
	for i, o := range options {
		v := values[i]
		if len(v) == 0 || len(o.at[to]) == 0 {
			continue
		}
		obj, key, nested := strings.Cut(o.at[to][0], ".")
		if !nested {
			out = append(out, topField{obj, v})
			continue
		}
		at, ok := objects[obj]
		if !ok {
			at = len(out)
			objects[obj] = at
			out = append(out, topField{Key: obj})
		}
		out[at].Value = appendMember(out[at].Value, key, v)
	}
	for _, at := range objects {
		out[at].Value = append(out[at].Value, '}')
	}
	return out, warns, rest
}

// optionAt returns the index in options of the option dialect d keeps at
// path, or -1.
func optionAt(d transcript.Dialect, path string) int {
	for i, o := range options {
		for _, p := range o.at[d] {
			if p == path {
				return i
			}
		}
	}
	return -1
}

// appendMember appends "key":v to the object being written in obj,
// opening it when it is empty.
func appendMember(obj []byte, key string, v []byte) []byte {
	if len(obj) == 0 {
		obj = append(obj, '{')
	} else {
		obj = append(obj, ',')
	}
	k, _ := jsontext.AppendQuote(nil, key)
	obj = append(obj, k...)
	obj = append(obj, ':')
	return append(obj, v...)
}

// objectMembers returns the members of the JSON object v, in order, and false
// when v is not an object.
func objectMembers(v []byte) ([]topField, bool) {
	d := newDecoder(v)
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, false
	}
	var out []topField
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return nil, false
		}
		key := tok.String() // before the next read voids tok
		val, err := d.ReadValue()
		if err != nil {
			return nil, false
		}
		out = append(out, topField{key, bytes.Clone(val)})
	}
	return out, true
}

// canonOf returns the spelling the top-level keys of a body of dialect d
// are compared in: Gemini reads snake_case keys as lowerCamelCase, the
// others read keys as they are.
func canonOf(d transcript.Dialect) func(key string) string {
	if d == transcript.Gemini {
		return pcodec.Camel
	}
	return func(k string) string { return k }
}
