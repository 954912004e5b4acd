package openai

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// EncodeChat writes r as a Chat Completions request body (or a bare
// messages array when r.Bare is set): compact, deterministic, without HTML
// escaping. The body's other fields come back in their original order.
//
// A request [DecodeChat] made is written back as the body it came from,
// compacted, where its messages did not change, and a changed message
// keeps the members the llm form does not hold (a name, a refusal, ...)
// when its parts still name the message they came from: a call or result
// with the same id, text or an image that is the same. What Wire lists is
// written in the form the provider accepts (an empty tool_calls left out,
// a null content as ""); a content part without a type (OAI-CC-PART-TYPE,
// which transcript reports) is written back as it was, since what it was
// cannot be told.
//
// Messages from another dialect are converted as docs/dialect-mapping.md
// says. What Chat Completions cannot express comes back as warnings, never
// a silent drop: images in tool results move into a following user message
// (OAI-CC-TOOL-IMAGE), reasoning and other dialects' opaque parts are
// dropped, text after a tool call moves before the calls, an error status
// not spelled out by the content cannot be marked, a document given by URL
// has no file part, a call's Responses item id has no place. A document
// given inline (an llm.Image whose MediaType is not an image type, such as
// application/pdf) is written as a file part. Warning paths are paths in the encoded body. A message that breaks
// the llm placement rules (a tool call in a user message) is an error.
//
// Ids are made only for a request that [DecodeChat] did not make (one
// decoded is written back with its own ids): a call without an id (Gemini's
// functionCall.id is optional) gets "call_<message>_<part>", unique in the
// request, and a result without a call id takes the id of the call it
// answers, an id-less call of the assistant message before it with the
// same name, in order (or the first, for a result without a name). Each
// made id comes with a warning. The ids depend only on the messages, so
// the same input encodes the same.
//
// EncodeChat does not modify r: a request may be encoded any number of
// times, concurrently.
func EncodeChat(r *ChatRequest) ([]byte, []provider.Warning, error) {
	if r == nil {
		return nil, nil, errors.New("openai: EncodeChat: nil request")
	}
	e := &chatEncoder{newEncoder(&chatBody, request{
		messages: r.Messages, tools: r.Tools, fields: r.Fields, systemRole: r.SystemRole,
		order: r.order, src: r.src, decoded: r.decoded, bare: r.Bare, bareLoses: len(r.Fields) > 0,
	})}
	body, warns, err := e.encode(e)
	if n := itemIDs(r.Messages); err == nil && n > 0 {
		warns = append(warns, provider.Warning{Message: fmt.Sprintf("%d OpenAI Responses item id(s) (ToolCall.ItemID) have no Chat Completions equivalent and were dropped", n)})
	}
	return body, warns, err
}

// itemIDs counts the calls in msgs that carry a Responses item id, which a
// Chat Completions body has no place for.
func itemIDs(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		for _, p := range m.Parts {
			if c, ok := p.(llm.ToolCall); ok && c.ItemID != "" {
				n++
			}
		}
	}
	return n
}

// chatBody is the format of a Chat Completions body.
var chatBody = format{
	name:       "Chat Completions",
	provider:   ChatProvider,
	array:      "messages",
	resultID:   "tool_call_id",
	modeled:    []string{"messages", "tools"},
	others:     "model, ...",
	perMessage: 48,
	idRules:    chatIDRules,
}

// chatIDRules returns the id rules of Chat Completions: any id but "" (a
// tool message names its call by it, OAI-CC-RESULT-ID-REQUIRED).
func chatIDRules() codec.IDRules {
	return codec.IDRules{Prefix: "call_", Missing: "OAI-CC-RESULT-ID-REQUIRED", Call: "tool call", Result: "tool message"}
}

type chatEncoder struct {
	encoder
}

var _ writer = (*chatEncoder)(nil)

// The members of a Chat message the llm form models, in the order the
// encoder writes them.
var (
	chatTextKeys      = []string{"role", "content"}
	chatAssistantKeys = []string{"role", "content", "tool_calls", "function_call", "audio"}
	chatToolKeys      = []string{"role", "tool_call_id", "content"}
	chatCallKeys      = []string{"id", "type", "function"}
	chatCustomKeys    = []string{"id", "type", "custom"}
	chatFunctionKeys  = []string{"name", "arguments"}
	chatInputKeys     = []string{"name", "input"}
	chatToolDefKeys   = []string{"type", "function"}
	chatFuncDefKeys   = []string{"name", "description", "parameters", "strict"}
)

// member writes the messages array, the one top-level member besides the
// tools that the request models.
func (e *chatEncoder) member(dst []byte, key string, first *bool) ([]byte, error) {
	dst = appendKey(dst, first, key)
	return e.elements(dst, e)
}

// result writes a tool message for r; its images, which a tool message
// cannot hold, are returned to go into the user message after the tool
// messages.
func (e *chatEncoder) result(i, j int, orig llm.Part, r llm.ToolResult) (moved []llm.Part) {
	res, imgs := splitToolImages(r)
	if len(imgs) > 0 {
		e.Warn(e.outPath(), fmt.Sprintf("a Chat Completions tool message cannot hold images (OAI-CC-TOOL-IMAGE); the %d image(s) of the result of call %q move into a user message after the tool messages", len(imgs), r.CallID))
		label := fmt.Sprintf("Image(s) returned by the call %s", r.CallID)
		if r.Name != "" {
			label += " (" + r.Name + ")"
		}
		moved = append(moved, llm.Text{Text: label + ":"})
		moved = append(moved, imgs...)
	}
	e.warnStatus(res)
	e.toolMessage(i, j, orig, res)
	return moved
}

// roleIs returns the template test for elements of an llm role.
func roleIs(r llm.Role) func(x *elem) bool { return func(x *elem) bool { return x.role == r } }

// textMessage writes a system, developer or user message of the given
// parts, the parts of llm message i at indices js (i < 0: parts made by the
// encoder).
func (e *chatEncoder) textMessage(i int, llmRole llm.Role, role string, parts []llm.Part, js []int) {
	tx, tmpl, done := e.from(e.origin(i, parts, js, roleIs(llmRole)))
	if done {
		return
	}
	ks, exact := e.mt.ks, e.mt.exact
	e.put(func(dst []byte) []byte {
		return e.mt.object(dst, tmpl, chatTextKeys, func(o *obj, key string, old []byte) {
			o.key(key)
			switch key {
			case "role":
				if old != nil {
					o.dst = e.mt.raw(o.dst, old) // the template's role: system or developer
				} else {
					o.dst = codec.AppendString(o.dst, role)
				}
			case "content":
				o.dst = e.content(o.dst, parts, ks, exact, tx, old)
			}
		})
	})
}

// sameContent reports whether parts (with their blocks ks and exact) are
// the content blocks of template tx, unchanged and in order.
func (e *chatEncoder) sameContent(tx *elem, ks []int, exact []bool, idx []int) bool {
	if tx == nil {
		return false
	}
	n := 0
	for k := tx.first; k < tx.first+tx.count && e.mt.src.blocks[k].kind == bContent; k++ {
		n++
	}
	if n != len(idx) {
		return false
	}
	for q, t := range idx {
		if !exact[t] || ks[t] != int(tx.first)+q || e.mt.src.blocks[ks[t]].typeless {
			return false
		}
	}
	return true
}

// indices returns 0, 1, ..., n-1.
func indices(n int) []int {
	idx := make([]int, n)
	for k := range idx {
		idx[k] = k
	}
	return idx
}

// content writes the content of a message of template tx (its content
// member old): as it was when its parts did not change, else a string for
// one text part (unless the template had an array), an array otherwise.
func (e *chatEncoder) content(dst []byte, parts []llm.Part, ks []int, exact []bool, tx *elem, old []byte) []byte {
	if old != nil && e.sameContent(tx, ks, exact, indices(len(parts))) {
		if tx.fix&fixContent != 0 && e.mt.isNull(old) {
			return append(dst, `""`...) // OAI-CC-NULL-CONTENT
		}
		return e.mt.raw(dst, old)
	}
	return e.contentValue(dst, parts, ks, exact, nil, old)
}

// contentValue writes parts (those at idx, when not nil) as Chat content,
// by [encoder.appendContent]: a part that did not change keeps its JSON.
func (e *chatEncoder) contentValue(dst []byte, parts []llm.Part, ks []int, exact []bool, idx []int, old []byte) []byte {
	return e.appendContent(dst, parts, idx, old, func(t int) []byte {
		if t < len(ks) && exact[t] {
			if b := e.mt.block(ks[t]); b != nil && !b.str && !b.typeless {
				return b.node
			}
		}
		return nil
	}, appendChatPart)
}

// appendChatPart writes a part of a content array: text, an image as
// image_url, a document given inline as a file part, this dialect's
// opaque data as it was.
func appendChatPart(dst []byte, p llm.Part) []byte {
	switch p := p.(type) {
	case llm.Text:
		dst = append(dst, `{"type":"text","text":`...)
		dst = codec.AppendString(dst, p.Text)
		return append(dst, '}')
	case llm.Image:
		if !isImageType(p) {
			dst = append(dst, `{"type":"file","file":{"file_data":`...)
			dst = appendDataURL(dst, p.MediaType, p.Data)
			dst = append(dst, `,"filename":`...)
			dst = codec.AppendString(dst, fileName(p.MediaType))
			return append(dst, "}}"...)
		}
		dst = append(dst, `{"type":"image_url","image_url":{"url":`...)
		dst = appendImageURL(dst, p)
		return append(dst, "}}"...)
	case llm.Opaque:
		dst, _ = appendValidJSON(dst, p.Data)
	}
	return dst
}

// assistant writes assistant message i: its text (and this dialect's
// opaque content parts) as content, its audio and legacy function_call,
// its tool calls.
func (e *chatEncoder) assistant(i int, m llm.Message) error {
	var parts []llm.Part
	var js []int
	var texts, calls []int // indices in parts
	var members [2]int     // function_call, audio
	members[0], members[1] = -1, -1
	sawCall := false
	for j, p := range m.Parts {
		switch q := p.(type) {
		case llm.Text:
			if sawCall {
				e.Warn(e.outPath(), "Chat Completions puts an assistant's text before its tool calls; text that followed a call is moved before the calls")
			}
			texts = append(texts, len(parts))
		case llm.ToolCall:
			sawCall = true
			calls = append(calls, len(parts))
		case llm.Reasoning:
			e.Warn(e.outPath(), fmt.Sprintf("Chat Completions has no reasoning blocks; %s reasoning is dropped", providerName(q.Provider)))
			continue
		case llm.Image:
			e.Warn(e.outPath(), "an assistant message cannot hold an image in Chat Completions; it is left out")
			continue
		case llm.Opaque:
			if !e.own(q) {
				continue
			}
			switch q.Kind {
			case "function_call":
				members[0] = len(parts)
			case "audio":
				members[1] = len(parts)
			default:
				texts = append(texts, len(parts))
			}
		default:
			return placement(i, j, m.Role, p)
		}
		parts = append(parts, p)
		js = append(js, j)
	}
	tx, tmpl, done := e.from(e.mt.pick(i, parts, js, roleIs(llm.RoleAssistant)))
	if done {
		return nil
	}
	ks, exact := e.mt.ks, e.mt.exact
	var fix elemFix
	if tx != nil {
		fix = tx.fix
	}
	path := e.outPath()
	e.put(func(dst []byte) []byte {
		return e.mt.object(dst, tmpl, chatAssistantKeys, func(o *obj, key string, old []byte) {
			switch key {
			case "role":
				e.mt.fixed(o, key, old, `"assistant"`)
			case "content":
				same := e.sameContent(tx, ks, exact, texts)
				switch {
				case same && old != nil:
					o.key(key)
					if fix&fixContent != 0 && e.mt.isNull(old) {
						o.dst = append(o.dst, `""`...) // OAI-CC-NULL-CONTENT
					} else {
						o.dst = e.mt.raw(o.dst, old)
					}
				case same && fix&fixContent != 0:
					o.key(key)
					o.dst = append(o.dst, `""`...)
				case len(texts) == 0 && (len(calls) > 0 || members[0] >= 0 || members[1] >= 0):
					// No text, and something else to say: no content.
				default:
					o.key(key)
					o.dst = e.contentValue(o.dst, parts, ks, exact, texts, old)
				}
			case "tool_calls":
				switch {
				case len(calls) > 0:
					o.key(key)
					o.dst = append(o.dst, '[')
					for n, t := range calls {
						if n > 0 {
							o.dst = append(o.dst, ',')
						}
						c := parts[t].(llm.ToolCall)
						c.ID = e.callID(i, js[t], c, path+".tool_calls."+strconv.Itoa(n))
						o.dst = e.call(o.dst, c, ks[t], exact[t])
					}
					o.dst = append(o.dst, ']')
				case old != nil && (e.mt.isNull(old) || fix&fixToolCalls == 0):
					o.key(key)
					o.dst = e.mt.raw(o.dst, old)
				}
			case "function_call", "audio":
				t := members[0]
				if key == "audio" {
					t = members[1]
				}
				switch {
				case t >= 0:
					o.key(key)
					o.dst, _ = appendValidJSON(o.dst, parts[t].(llm.Opaque).Data)
				case e.mt.isNull(old):
					o.key(key)
					o.dst = e.mt.raw(o.dst, old)
				}
			}
		})
	})
	return nil
}

// call writes one entry of tool_calls: as it was when unchanged, else
// with the members of the call it came from (k), else canonical.
func (e *chatEncoder) call(dst []byte, c llm.ToolCall, k int, exact bool) []byte {
	b := e.mt.block(k)
	if exact && b != nil && !b.retype {
		return e.mt.raw(dst, b.node)
	}
	var tmpl []byte
	if b != nil && b.kind == bCall {
		tmpl = b.node
	}
	keys, inner, innerKeys := chatCallKeys, "function", chatFunctionKeys
	if ty, _ := codec.String(e.mt.member(tmpl, "type")); ty == "custom" {
		keys, inner, innerKeys = chatCustomKeys, "custom", chatInputKeys
	}
	return e.mt.object(dst, tmpl, keys, func(o *obj, key string, old []byte) {
		o.key(key)
		switch key {
		case "id":
			o.dst = e.mt.str(o.dst, c.ID, old)
		case "type":
			o.dst = e.mt.rawOr(o.dst, old, `"function"`)
		case inner:
			o.dst = e.mt.object(o.dst, old, innerKeys, func(o *obj, key string, old []byte) {
				o.key(key)
				switch key {
				case "name":
					o.dst = e.mt.str(o.dst, c.Name, old)
				case "arguments":
					o.dst = e.arguments(o.dst, c.Input, old)
				case "input":
					o.dst = e.mt.str(o.dst, customInput(c.Input), old)
				}
			})
		}
	})
}

// customInput returns the text of a custom call: its input, which decoding
// made a JSON string.
func customInput(in []byte) string {
	if s, ok := codec.String(in); ok && validJSON(in) {
		return s
	}
	return string(in)
}

// arguments writes a call's input as the arguments string: verbatim, "{}"
// when there is none; old, the arguments it came from, as it was when it
// says the same.
func (e *encoder) arguments(dst []byte, input []byte, old []byte) []byte {
	if s, ok := codec.String(old); ok && jsonx.ValidUTF8(s) == string(input) {
		return e.mt.raw(dst, old)
	}
	return appendArguments(dst, input)
}

// appendArguments writes a call's input as the arguments string: verbatim,
// "{}" when there is none.
func appendArguments(dst []byte, input []byte) []byte {
	if input == nil {
		return append(dst, `"{}"`...)
	}
	dst = codec.AppendString(dst, string(input))
	return dst
}

// toolMessage writes one tool message for result res (part j of message
// i, orig as the message holds it; res has the id to write and no
// images).
func (e *chatEncoder) toolMessage(i, j int, orig llm.Part, res llm.ToolResult) {
	pk, b := e.mt.single(i, j, orig, samePart(res, orig))
	tx, tmpl, done := e.from(pk)
	if done {
		return
	}
	var inner []block
	var fix elemFix
	if tx != nil {
		inner, fix = b.inner, tx.fix
	}
	e.put(func(dst []byte) []byte {
		return e.mt.object(dst, tmpl, chatToolKeys, func(o *obj, key string, old []byte) {
			switch key {
			case "role":
				e.mt.fixed(o, key, old, `"tool"`)
			case "tool_call_id":
				if res.CallID != "" || e.mt.isNull(old) {
					o.key(key)
					o.dst = e.mt.str(o.dst, res.CallID, old)
				}
			case "content":
				o.key(key)
				same := tx != nil && len(inner) == len(res.Content)
				for q := 0; same && q < len(inner); q++ {
					same = samePart(inner[q].part, res.Content[q]) && !inner[q].typeless
				}
				switch {
				case same && old != nil && fix&(fixContent|fixType) == 0:
					o.dst = e.mt.raw(o.dst, old)
				case same && len(inner) == 0:
					o.dst = append(o.dst, `""`...) // OAI-CC-NULL-CONTENT, OAI-CC-EMPTY-TOOL-CONTENT
				default:
					o.dst = e.resultValue(o.dst, res.Content, inner, old)
				}
			}
		})
	})
}

// resultValue writes a result's content (text and opaque parts; images
// were moved out): "" for none, else as [encoder.appendContent] writes it,
// each part decoded at the same place keeping its JSON.
func (e *chatEncoder) resultValue(dst []byte, content []llm.Part, inner []block, old []byte) []byte {
	if len(content) == 0 {
		return append(dst, `""`...)
	}
	return e.appendContent(dst, content, nil, old, func(q int) []byte {
		if q < len(inner) && !inner[q].str && !inner[q].typeless && samePart(inner[q].part, content[q]) {
			return inner[q].node
		}
		return nil
	}, appendChatPart)
}

// tool writes a function tool definition, merged into the decoded tool it
// came from when there is one.
func (e *chatEncoder) tool(dst []byte, t llm.ToolSpec, st srcTool) []byte {
	return e.mt.object(dst, st.node, chatToolDefKeys, func(o *obj, key string, old []byte) {
		o.key(key)
		switch key {
		case "type":
			o.dst = e.mt.rawOr(o.dst, old, `"function"`)
		case "function":
			o.dst = e.mt.object(o.dst, old, chatFuncDefKeys, func(o *obj, key string, old []byte) {
				e.toolField(o, key, old, t, st.spec, false)
			})
		}
	})
}

func checkParameters(t llm.ToolSpec) error {
	if t.Parameters == nil {
		return nil
	}
	if _, err := canonicalJSON(nil, t.Parameters); err != nil {
		return fmt.Errorf("tool %q: parameters are not valid JSON: %w", t.Name, err)
	}
	if k := jsontext.Value(bytes.TrimSpace(t.Parameters)).Kind(); k != '{' {
		return fmt.Errorf("tool %q: parameters must be a JSON Schema object, got %s", t.Name, codec.Phrase(k))
	}
	return nil
}
