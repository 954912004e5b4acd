// Package codec holds what the provider codecs share: reading a body in one
// pass with the module's JSON layer ([Reader]: values as their compact
// bytes, decode errors with dotted paths, notes of what the llm form does
// not hold), finding the decoded blocks that parts being encoded came from,
// writing a body's top-level fields back in their order, and the small
// conversions every dialect makes the same way.
//
// Each codec keeps its own public API (its Request and Field types) and its
// dialect's rules; this package is the machinery under them.
package codec

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/toolresult"
)

// PartKind names the kind of a part in warnings: "text", "tool call", ...
func PartKind(p llm.Part) string {
	switch p := p.(type) {
	case llm.Text:
		return "text"
	case llm.Image:
		return "image"
	case llm.ToolCall:
		return "tool call"
	case llm.ToolResult:
		return "tool result"
	case llm.Reasoning:
		return "reasoning"
	case llm.Opaque:
		if p.Kind != "" {
			return p.Kind
		}
		return "opaque data"
	}
	return "unknown part"
}

// CheckMessages returns an error, prefixed with prefix, for a message an
// encoder cannot write at all: an unknown role, a nil or foreign part.
func CheckMessages(prefix string, msgs []llm.Message) error {
	for i, m := range msgs {
		if !m.Role.Valid() {
			return fmt.Errorf("%s: Messages[%d]: unknown role %q", prefix, i, m.Role)
		}
		for j, p := range m.Parts {
			switch p.(type) {
			case llm.Text, llm.Image, llm.ToolCall, llm.ToolResult, llm.Reasoning, llm.Opaque:
			case nil:
				return fmt.Errorf("%s: Messages[%d].Parts[%d]: a nil part cannot be encoded", prefix, i, j)
			default:
				return fmt.Errorf("%s: Messages[%d].Parts[%d]: cannot encode a part of type %T", prefix, i, j, p)
			}
		}
	}
	return nil
}

// LeadingSystem returns how many of the leading system messages an encoder
// writes to the body's top-level system field: none in a bare array; for a
// decoded body, no more than it had there (decoded, the number of system
// messages that came from that field); all of them otherwise (decoded <
// 0).
func LeadingSystem(msgs []llm.Message, bare bool, decoded int) int {
	if bare {
		return 0
	}
	n := 0
	for n < len(msgs) && msgs[n].Role == llm.RoleSystem {
		n++
	}
	if decoded >= 0 {
		return min(n, decoded)
	}
	return n
}

// EnvelopeStatus returns the status of the toolwire envelope that text is
// (toolresult.Parse accepts it), and false when text is not one.
func EnvelopeStatus(text string) (llm.Status, bool) {
	s := strings.TrimLeft(text, " \t\r\n")
	if !strings.HasPrefix(s, "{") || !strings.Contains(s, `"status"`) || !strings.Contains(s, `"summary"`) {
		return "", false
	}
	env, err := toolresult.Parse([]byte(text))
	if err != nil {
		return "", false
	}
	return env.Status, true
}

// SamePart reports whether a and b are written the same: equal fields, and
// for tool results, sameResult of the two (which fields of a result the
// dialect writes) and the same content, part by part.
func SamePart(a, b llm.Part, sameResult func(a, b llm.ToolResult) bool) bool {
	switch a := a.(type) {
	case llm.Text:
		b, ok := b.(llm.Text)
		return ok && a == b
	case llm.Image:
		b, ok := b.(llm.Image)
		return ok && a.MediaType == b.MediaType && a.URL == b.URL && bytes.Equal(a.Data, b.Data)
	case llm.ToolCall:
		b, ok := b.(llm.ToolCall)
		return ok && a.ID == b.ID && a.Name == b.Name && bytes.Equal(a.Input, b.Input)
	case llm.ToolResult:
		b, ok := b.(llm.ToolResult)
		if !ok || !sameResult(a, b) || len(a.Content) != len(b.Content) {
			return false
		}
		for k := range a.Content {
			if !SamePart(a.Content[k], b.Content[k], sameResult) {
				return false
			}
		}
		return true
	case llm.Reasoning:
		b, ok := b.(llm.Reasoning)
		return ok && a.Provider == b.Provider && a.Text == b.Text && a.Signature == b.Signature && bytes.Equal(a.Data, b.Data)
	case llm.Opaque:
		b, ok := b.(llm.Opaque)
		return ok && a.Provider == b.Provider && a.Kind == b.Kind && a.CallID == b.CallID && bytes.Equal(a.Data, b.Data)
	}
	return false
}

// SameSpec reports whether two tool definitions are the same.
func SameSpec(a, b llm.ToolSpec) bool {
	return a.Name == b.Name && a.Description == b.Description && a.Strict == b.Strict && bytes.Equal(a.Parameters, b.Parameters)
}

// DataURL reads "data:<media type>;base64,<data>" with at least one byte of
// data.
func DataURL(u string) (mediaType string, data []byte, ok bool) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return "", nil, false
	}
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return "", nil, false
	}
	mt, isB64 := strings.CutSuffix(meta, ";base64")
	if !isB64 {
		return "", nil, false
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil || len(data) == 0 {
		return "", nil, false
	}
	return mt, data, true
}

// RawInput is the warning for a tool call input that [AppendInput]
// wrapped.
const RawInput = `tool call input is not a JSON object; wrapped as {"_raw": <the text>}`

// AppendInput appends a tool call's input, which in must not be empty, as
// the JSON object that the Anthropic and Gemini formats need: compacted
// when it is one, else wrapped as {"_raw": text}, and then wrapped reports
// true.
func AppendInput(dst, in []byte) (_ []byte, wrapped bool) {
	if out, ok := AppendObject(dst, in); ok {
		return out, false
	}
	dst = append(dst, `{"_raw":`...)
	dst = AppendString(dst, string(in))
	return append(dst, '}'), true
}

// AppendObject appends v compact ([AppendCompact]) when it is one JSON
// object ([ValidObject]), and otherwise reports false, appending nothing.
func AppendObject(dst, v []byte) ([]byte, bool) {
	if obj, ok := ValidObject(v); ok {
		return AppendCompact(dst, obj)
	}
	return dst, false
}

// AppendString appends s as a JSON string, as every codec writes one
// ([jsonx.AppendString]): <, >, &, U+2028 and U+2029 as they are, invalid
// UTF-8 as U+FFFD.
func AppendString(dst []byte, s string) []byte {
	dst, _ = jsonx.AppendString(dst, s)
	return dst
}

// AppendMembers appends ms as the last fields of an object, and the
// object's closing brace.
func AppendMembers(dst []byte, ms []Member) []byte {
	for _, m := range ms {
		dst = append(dst, ',')
		dst = AppendString(dst, m.Key)
		dst = append(dst, ':')
		dst = append(dst, m.Val...)
	}
	return append(dst, '}')
}

// Warner collects an encoder's warnings: what it could not carry over
// exactly, with dotted paths into the encoded body.
type Warner struct {
	Warnings []provider.Warning
}

// Warn records msg at path.
func (w *Warner) Warn(path, msg string) {
	w.Warnings = append(w.Warnings, provider.Warning{Path: path, Message: msg})
}

// Warnf records a formatted message at path.
func (w *Warner) Warnf(path, format string, args ...any) {
	w.Warn(path, fmt.Sprintf(format, args...))
}

// AppendInput is [AppendInput] that warns at path, with [RawInput], when it
// wrapped the input.
func (w *Warner) AppendInput(dst, in []byte, path string) []byte {
	dst, wrapped := AppendInput(dst, in)
	if wrapped {
		w.Warn(path, RawInput)
	}
	return dst
}

// Media returns the media type and the inline bytes of img: its Data, or
// those of a data URL given as its URL. A malformed data URL is dropped
// with a warning at path: ok is false.
func (w *Warner) Media(img llm.Image, path string) (mediaType string, data []byte, ok bool) {
	mediaType, data = img.MediaType, img.Data
	if len(data) == 0 && strings.HasPrefix(img.URL, "data:") {
		if mediaType, data, ok = DataURL(img.URL); !ok {
			w.Warnf(path, "image data URL is malformed; dropped")
			return "", nil, false
		}
	}
	return mediaType, data, true
}

// NoMedia drops, with a warning at path, an image that has neither data
// nor a URL.
func (w *Warner) NoMedia(path string) {
	w.Warnf(path, "an image with neither data nor a URL cannot be expressed; dropped")
}

// AppendBase64 appends mediaType as a JSON string, then
// `,"data":"<data in base64>"}`: the end of an inline source.
func AppendBase64(dst []byte, mediaType string, data []byte) []byte {
	dst = AppendString(dst, mediaType)
	dst = append(dst, `,"data":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, data)
	return append(dst, `"}`...)
}

// A List writes the elements of a JSON array, leaving out an element that
// writes nothing (a part dropped with a warning) together with its comma:
//
//	dst, at := list.Begin(dst)
//	dst = appendElement(dst)
//	dst = list.End(dst, at)
type List struct{ n int }

// Len returns the number of elements written.
func (l *List) Len() int { return l.n }

// Begin appends the comma before the next element, and returns where the
// element starts.
func (l *List) Begin(dst []byte) ([]byte, int) {
	if l.n > 0 {
		dst = append(dst, ',')
	}
	return dst, len(dst)
}

// End counts the element begun at start, or takes its comma back when it
// wrote nothing.
func (l *List) End(dst []byte, start int) []byte {
	switch {
	case len(dst) > start:
		l.n++
	case l.n > 0:
		dst = dst[:start-1]
	}
	return dst
}
