package codec

import (
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// A Field is a top-level field of a request body, as the Anthropic and
// Gemini codecs keep them: Value is nil for a field the codec writes from
// the request's own fields.
type Field struct {
	Key   string
	Value jsontext.Value
}

// Camel returns the lowerCamelCase spelling of a snake_case key, as
// protobuf's JSON reader, and so Gemini, reads both: max_output_tokens is
// maxOutputTokens. The underscores are dropped and a lowercase ASCII
// letter after one is upper-cased; every other byte stays as it is.
func Camel(k string) string {
	if !strings.Contains(k, "_") {
		return k
	}
	var b strings.Builder
	up := false
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '_':
			up = true
		case up && c >= 'a' && c <= 'z':
			b.WriteByte(c - 'a' + 'A')
			up = false
		default:
			b.WriteByte(c)
			up = false
		}
	}
	return b.String()
}

// A Body says how to write the top-level fields a codec models: the
// system prompt, the messages and the tools.
type Body struct {
	// Canon returns the spelling keys are compared in (Gemini accepts
	// snake_case and lowerCamelCase); nil compares keys as they are.
	Canon func(key string) string
	// System, Messages and Tools are the modeled keys, as Canon spells
	// them; a field is written with the body's own spelling of its key.
	System, Messages, Tools string
	// AppendSystem appends the system field's value; nil when there is no
	// system prompt to write.
	AppendSystem func(dst []byte) []byte
	// AppendMessages appends the messages.
	AppendMessages func(dst []byte) []byte
	// AppendTools appends the tools; HasTools says there are tools to
	// write even where the source body had no tools field.
	AppendTools func(dst []byte) []byte
	HasTools    bool
}

// AppendBody appends a request body: its fields in their order, the
// modeled ones written by b where they stood (a modeled field missing from
// fields is written next to the messages) and the others verbatim,
// compacted. It fails on a repeated key or a value that is not JSON, with
// an error that starts with prefix ("anthropic: encode").
func AppendBody[F ~struct {
	Key   string
	Value jsontext.Value
}](dst []byte, prefix string, fields []F, b *Body) ([]byte, error) {
	canon := b.Canon
	if canon == nil {
		canon = func(k string) string { return k }
	}
	has := func(k string) bool {
		for _, f := range fields {
			if canon(Field(f).Key) == k {
				return true
			}
		}
		return false
	}
	dst = append(dst, '{')
	first := true
	key := func(k string) {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = AppendString(dst, k)
		dst = append(dst, ':')
	}
	var systemDone, messagesDone, toolsDone bool
	system := func(k string) {
		if !systemDone && b.AppendSystem != nil {
			key(k)
			dst = b.AppendSystem(dst)
		}
		systemDone = true
	}
	messages := func(k string) {
		key(k)
		dst = b.AppendMessages(dst)
		messagesDone = true
	}
	tools := func(k string, always bool) {
		if !toolsDone && (always || b.HasTools) {
			key(k)
			dst = b.AppendTools(dst)
		}
		toolsDone = true
	}
	seen := make(map[string]bool, len(fields))
	for i, f := range fields {
		f := Field(f)
		ck := canon(f.Key)
		if seen[ck] {
			return nil, fmt.Errorf("%s: Fields[%d]: field %q repeats", prefix, i, f.Key)
		}
		seen[ck] = true
		switch ck {
		case b.System:
			system(f.Key)
		case b.Messages:
			if !has(b.System) {
				system(b.System)
			}
			messages(f.Key)
			if !has(b.Tools) {
				tools(b.Tools, false)
			}
		case b.Tools:
			tools(f.Key, true)
		default:
			key(f.Key)
			var ok bool
			if dst, ok = AppendCompact(dst, f.Value); !ok {
				return nil, fmt.Errorf("%s: Fields[%d] (%s): value is not valid JSON", prefix, i, f.Key)
			}
		}
	}
	if !messagesDone {
		system(b.System)
		messages(b.Messages)
		tools(b.Tools, false)
	}
	return append(dst, '}'), nil
}
