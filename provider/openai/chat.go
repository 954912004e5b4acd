package openai

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// ChatProvider is the provider name of the llm.Opaque parts the Chat
// Completions codec decodes.
const ChatProvider = string(transcript.OpenAIChat)

// ChatRequest is an OpenAI Chat Completions request body in llm form.
//
// [DecodeChat] fills it from a body; [EncodeChat] writes it back. A request
// decoded from a body encodes back to that body, compacted: every message
// the messages still hold unchanged is written as it was, and a changed
// one keeps its members in their order with the values the llm form does
// not hold; see [DecodeChat].
type ChatRequest struct {
	// Messages is the conversation, mapped as docs/dialect-mapping.md says:
	// a run of consecutive tool messages becomes one llm tool message.
	Messages []llm.Message
	// Tools are the function tools, in order. Other tools (custom tools)
	// are kept and written back where they stood.
	Tools []llm.ToolSpec
	// Bare is set when the input was a bare messages array; EncodeChat then
	// writes a bare array.
	Bare bool
	// SystemRole is the role system messages are written with; decoding
	// sets it from the first system or developer message.
	SystemRole SystemRole
	// Fields are the other top-level fields (model, temperature,
	// tool_choice, ...), in body order, kept verbatim (compacted).
	Fields []Field
	// Wire holds the violations found while decoding that the llm form
	// cannot express (OAI-CC-EMPTY-TOOLCALLS, OAI-CC-NULL-CONTENT,
	// OAI-CC-EMPTY-TOOL-CONTENT), with dotted paths into the body. Encoding
	// writes them in the form the provider accepts.
	Wire []transcript.Violation
	// Unmodeled lists what the body holds that the llm form does not (a
	// message name, an image detail, a legacy function message, ...). It is
	// kept and written back when its message is re-encoded in this dialect
	// (unchanged, or changed but still holding a call or result it held);
	// converting to another dialect loses it. Content parts of types the
	// llm form does not model (input_audio, refusal, a file by id) and an
	// assistant's audio and legacy function_call are not listed: they
	// travel as llm.Opaque parts, which other dialects drop with a warning.
	Unmodeled []provider.Warning

	decoded bool     // made by DecodeChat: its ids are written as they are
	order   []string // the body's top-level keys, in order
	src     *source
	paths   pathMap
	hist    *history // what its messages array left, for DecodeChatAfter
}

// BodyPath translates a dotted path computed from r's llm form, as
// transcript.Layout and transcript.Check compute it, into the path of the
// same value in the body r was decoded from: "messages.3.tool_calls.0" may
// be "messages.4.tool_calls.0" in a body with a legacy function message
// before it, and "messages.2.content.1" (the second text of an assistant
// message) "messages.2.content.2" when a refusal part precedes it. Paths
// outside the messages come back unchanged. The translation holds for the
// messages as decoded: the paths of a changed transcript (after
// transcript.Repair, say) are paths in its own encoding, not in this body.
func (r *ChatRequest) BodyPath(path string) string { return r.paths.bodyPath(path) }

// DecodeChat decodes a Chat Completions request body, or a bare array of
// messages, into llm form.
//
// The mapping follows docs/dialect-mapping.md. A string content is one text
// part, "" included (but for an assistant with calls, where "" is no text). A tool result's status is that of the toolwire
// envelope it holds (OpenAI has no error flag), else success; its Name is
// recovered from the call it answers, "" for an orphan. A call's arguments
// are kept verbatim as ToolCall.Input, even when they are not valid JSON
// (invalid UTF-8 in them becomes U+FFFD, as when encoding). "developer"
// messages decode as system messages. A file part with inline data is an
// llm.Image whose MediaType may be a document type (application/pdf).
// Content parts of other types, an assistant's audio and its legacy
// function_call are llm.Opaque parts (Provider "openai-chat", Kind the
// part type or the field name); a legacy "function" message has no llm
// form and is written back before the message that followed it.
//
// Errors are [*llm.DecodeError]s (Op "openai") naming the exact path:
// "messages.3.tool_calls.0.function.arguments: want a string, got an object",
// and for a body that is not JSON the line, the column and the byte offset.
// A body that breaks an OpenAI rule is not a decode error: it decodes,
// transcript.Check reports the breaches the llm form can express, and Wire
// lists the others. Errors are for bodies that are not Chat Completions
// requests at all (wrong types, missing ids, invalid JSON). The request
// does not alias body.
func DecodeChat(body []byte) (*ChatRequest, error) { return DecodeChatShared(bytes.Clone(body)) }

// DecodeChatShared is [DecodeChat] for a caller that keeps body unchanged
// while the request is in use: the request aliases body rather than a
// copy of it, which saves the size of the body in memory.
func DecodeChatShared(body []byte) (*ChatRequest, error) { return decodeChat(body, nil) }

// DecodeChatAfter decodes body, a Chat Completions request body (or a bare
// messages array) whose messages array holds only what follows the
// messages of prev's body: those stand before them, and the request holds
// all of them, with the paths (BodyPath, Wire, Unmodeled) of the array
// they are all in. It is [DecodeChatShared] for a body that repeats the
// messages of one decoded before and adds to them, as each request of a
// conversation does, at the cost of decoding what it adds: a caller that
// has seen the repeated bytes are the same (a gateway) cuts them out of
// the array (its first element is then the first new one, or it is empty).
// prev is read, not changed, and must be as a DecodeChat function
// returned it; the request aliases prev, as it does body.
func DecodeChatAfter(prev *ChatRequest, body []byte) (*ChatRequest, error) {
	if prev == nil || prev.hist == nil {
		return nil, decodeError("", errors.New("DecodeChatAfter: the previous request was not decoded from a body with a messages array"))
	}
	return decodeChat(body, prev.hist)
}

// decodeChat decodes body; its messages array follows those of prev when
// prev is not nil.
func decodeChat(body []byte, prev *history) (*ChatRequest, error) {
	if len(bytes.TrimLeft(body, " \t\r\n")) == 0 {
		return nil, decodeError("", errors.New("empty input: want a Chat Completions request body or a messages array"))
	}
	req := &ChatRequest{decoded: true, src: &source{size: len(body)}}
	d := &chatDecoder{decoder: decoder{src: req.src, msgs: &req.Messages, paths: &req.paths, names: make(map[string]string),
		unmodeled: &req.Unmodeled, violations: &req.Wire, systemRole: &req.SystemRole, dialect: "Chat Completions", elemName: "message"}, req: req, prev: prev}
	req.paths.array = "messages"
	err := codec.Decode(dialect("Chat Completions", "messages", "a Chat Completions request body (an object) or a messages array", &req.Unmodeled), body,
		func(rd *codec.Reader) error { req.Bare = true; return d.messages(rd) },
		d.body)
	if err != nil {
		return nil, err
	}
	req.paths.done()
	return req, nil
}

// body reads a Chat Completions request body at rd.
func (d *chatDecoder) body(rd *codec.Reader) error {
	req := d.req
	hasMessages, hasInput := false, false
	err := rd.Object(func(key string) error {
		req.order = append(req.order, key)
		switch key {
		case "messages":
			hasMessages = true
			return d.messages(rd)
		case "tools":
			if rd.Kind() == 'n' {
				var err error
				req.src.toolsNode, err = rd.Raw()
				return err
			}
			var err error
			req.Tools, err = d.tools(rd, chatTool)
			return err
		case "input":
			hasInput = true
		}
		v, err := rd.Raw()
		req.Fields = append(req.Fields, Field{Key: key, Value: v})
		return err
	})
	if err != nil {
		return err
	}
	if !hasMessages {
		hint := ""
		if hasInput {
			hint = "; the body has \"input\": it looks like a Responses request (use DecodeResponses)"
		}
		return decodeError("messages", fmt.Errorf("missing: a Chat Completions request body needs a messages array%s", hint))
	}
	return nil
}

type chatDecoder struct {
	decoder
	req  *ChatRequest
	prev *history // the messages the body's array follows, or nil
}

// chatPart is a content part before the message's role is known.
type chatPart struct {
	node     []byte
	typ      string
	hasType  bool
	text     string
	hasText  bool
	textKind jsontext.Kind // the kind of a text value that is not a string
	url      string
	detail   string
	hasImage bool
	fileData string // a file part's file_data
	hasFile  bool
	content  string // a string "content" member, which only a part without a type may have
	hasStr   bool
	extra    []string // unmodeled keys
}

// asText returns the text of a part without a type whose only content is
// text: a "text" string beside nothing else, or the "content" string of a
// message written where a content part belongs (a {"role", "content"}
// object). OpenAI rejects such a part (OAI-CC-PART-TYPE), and a text part
// holding that text is what it can only have meant.
func (p chatPart) asText() (string, bool) {
	if p.hasType {
		return "", false
	}
	switch {
	case p.hasText && len(p.extra) == 0:
		return p.text, true
	case p.hasStr && !p.hasText && !p.hasImage && !p.hasFile:
		for _, k := range p.extra {
			if k != "content" && k != "role" {
				return "", false
			}
		}
		return p.content, true
	}
	return "", false
}

// chatCall is a tool call as read.
type chatCall struct {
	node        []byte
	id, typ     string
	name, args  string
	hasID       bool
	hasName     bool
	hasArgs     bool
	hasFunction bool
	hasCustom   bool
	// argsKind is the kind of arguments given as JSON rather than as the
	// string that holds it (OAI-CC-JSON-TYPE), else 0.
	argsKind jsontext.Kind
	extra    []string
}

// contentKind says how a message's content was given.
type contentKind uint8

const (
	contentAbsent contentKind = iota
	contentNull
	contentString
	contentArray
	// contentObject: a JSON object where a string or an array belongs,
	// which a tool message's content may be read as (its JSON as text:
	// OAI-CC-JSON-TYPE, OAI-RS-JSON-TYPE).
	contentObject
)

type chatMsg struct {
	role       string
	hasRole    bool
	content    contentKind
	contentAt  []byte
	str        string
	parts      []chatPart
	calls      []chatCall
	callsGiven bool   // tool_calls present and not null
	audio, fn  []byte // an assistant's audio and function_call, when not null
	toolCallID string
	hasCallID  bool
	extra      []string // unmodeled keys with values that say something
}

func (d *chatDecoder) messages(rd *codec.Reader) error {
	if rd.Kind() != '[' {
		return rd.Want("an array")
	}
	wire, notes := len(*d.violations), len(*d.unmodeled)
	first := 0
	if d.prev != nil {
		first = d.resume(d.prev)
	}
	n := first
	err := rd.ArrayFrom(first, func(i int) error { n = i + 1; return d.message(rd, i) })
	if err == nil {
		d.req.hist = d.history(n, wire, notes)
	}
	return err
}

func (d *chatDecoder) message(rd *codec.Reader, i int) error {
	if rd.Kind() != '{' {
		return rd.Want("an object")
	}
	var m chatMsg
	var quiet bool
	err := rd.Object(func(key string) error {
		var err error
		switch key {
		case "role":
			m.role, err = rd.Str()
			m.hasRole = true
		case "content":
			err = d.content(rd, &m)
		case "tool_calls":
			if rd.Kind() == 'n' {
				return rd.Skip()
			}
			m.callsGiven = true
			if rd.Kind() != '[' {
				return rd.Want("an array")
			}
			err = rd.Array(func(int) error {
				call, err := d.toolCall(rd)
				m.calls = append(m.calls, call)
				return err
			})
		case "tool_call_id":
			if rd.Kind() == 'n' {
				return rd.Skip()
			}
			m.toolCallID, err = rd.Str()
			m.hasCallID = true
		case "audio", "function_call":
			if rd.Kind() == '{' {
				v, err := rd.Raw()
				if key == "audio" {
					m.audio = v
				} else {
					m.fn = v
				}
				return err
			}
			return unmodeled(rd, key, &m.extra, &quiet)
		default:
			return unmodeled(rd, key, &m.extra, &quiet)
		}
		return err
	})
	n := rd.Span()
	if err != nil {
		return err
	}
	if !m.hasRole {
		return rd.ErrorAt("role", "missing (want system, developer, user, assistant or tool)")
	}
	if m.content == contentObject && m.role != "tool" {
		return rd.ErrorAt("content", "want a string, an array of content parts or null, got an object")
	}
	path := "messages." + strconv.Itoa(i)
	var x int32
	switch m.role {
	case "system", "developer":
		x = d.begin(n, llm.RoleSystem)
		d.system(m.role, path)
		d.textContent(x, &m, path, false)
	case "user":
		x = d.begin(n, llm.RoleUser)
		d.textContent(x, &m, path, true)
	case "assistant":
		x = d.begin(n, llm.RoleAssistant)
		d.assistant(x, &m, path, i)
	case "tool":
		x = d.begin(n, llm.RoleTool)
		d.tool(x, &m, path)
	case "function":
		x = d.hide(n)
		d.note(path, "a legacy \"function\" message (the deprecated function-calling API) is not part of the llm form")
	default:
		return rd.ErrorAt("role", "unknown role %q (want system, developer, user, assistant or tool)", m.role)
	}
	for _, k := range m.extra {
		d.note(path+"."+k, fmt.Sprintf("the %q field of %s message is not part of the llm form", k, an(m.role)))
	}
	role := d.src.elems[x].role
	if role != llm.RoleTool && m.hasCallID {
		d.note(path+".tool_call_id", "tool_call_id on "+an(m.role)+" message is not part of the llm form")
	}
	if role != llm.RoleAssistant && m.callsGiven {
		d.note(path+".tool_calls", "tool_calls on "+an(m.role)+" message are not part of the llm form")
	}
	if role != llm.RoleAssistant {
		for _, f := range [...]struct {
			key string
			v   []byte
		}{{"audio", m.audio}, {"function_call", m.fn}} {
			if f.v != nil {
				d.note(path+"."+f.key, fmt.Sprintf("the %q field of %s message is not part of the llm form", f.key, an(m.role)))
			}
		}
	}
	var kept []int
	if role == llm.RoleAssistant && m.content == contentArray {
		// transcript counts an assistant's text parts only.
		for j, p := range m.parts {
			if p.hasType && p.typ == "text" {
				kept = append(kept, j)
			}
		}
		if len(kept) == len(m.parts) {
			kept = nil
		}
	}
	d.place(x, i, role == llm.RoleTool, kept, false)
	return nil
}

// content reads a message's content in any of its shapes.
func (d *chatDecoder) content(rd *codec.Reader, m *chatMsg) error {
	var err error
	switch rd.Kind() {
	case 'n':
		m.content = contentNull
		m.contentAt, err = rd.Raw()
		return err
	case '"':
		m.content = contentString
		if m.contentAt, err = rd.Raw(); err == nil {
			m.str, _ = codec.String(m.contentAt)
		}
		return err
	case '[':
		m.content = contentArray
		err = rd.Array(func(int) error {
			p, err := d.part(rd)
			m.parts = append(m.parts, p)
			return err
		})
		m.contentAt = rd.Span()
		return err
	case '{':
		m.content = contentObject
		m.contentAt, err = rd.Raw()
		return err
	}
	return rd.Want("a string, an array of content parts or null")
}

// part reads one content part of any type.
func (d *chatDecoder) part(rd *codec.Reader) (chatPart, error) {
	var p chatPart
	if rd.Kind() != '{' {
		return p, rd.Want("an object")
	}
	err := rd.Object(func(key string) error {
		switch key {
		case "type":
			var err error
			p.typ, err = rd.Str()
			p.hasType = true
			return err
		case "text":
			if rd.Kind() == '"' {
				var err error
				p.text, err = rd.Str()
				p.hasText = true
				return err
			}
			p.textKind = rd.Kind()
		case "content":
			if rd.Kind() == '"' {
				var err error
				p.content, err = rd.Str()
				p.hasStr = true
				p.extra = append(p.extra, key)
				return err
			}
		case "image_url":
			if rd.Kind() == '{' {
				p.hasImage = true
				return d.imageURL(rd, &p)
			}
		case "file":
			if rd.Kind() == '{' {
				err := rd.Object(func(key string) error {
					if key == "file_data" && rd.Kind() == '"' {
						var err error
						p.fileData, err = rd.Str()
						p.hasFile = true
						return err
					}
					if key == "file_data" {
						return rd.Skip()
					}
					return notNull(rd, "file."+key, &p.extra)
				})
				return err
			}
		}
		return notNull(rd, key, &p.extra)
	})
	p.node = rd.Span()
	if err != nil {
		return p, err
	}
	if !p.hasType {
		return p, nil // OAI-CC-PART-TYPE, reported with its message
	}
	switch p.typ {
	case "text":
		if !p.hasText {
			return p, textError(rd, p.textKind)
		}
	case "image_url":
		if !p.hasImage {
			return p, rd.Errorf("image_url part without an image_url object")
		}
		if p.url == "" {
			return p, rd.Errorf("image_url part without a url")
		}
	}
	return p, nil
}

// imageURL reads the image_url object of a part.
func (d *chatDecoder) imageURL(rd *codec.Reader, p *chatPart) error {
	err := rd.Object(func(key string) error {
		switch key {
		case "url":
			var err error
			p.url, err = rd.Str()
			return err
		case "detail":
			if rd.Kind() == 'n' {
				return rd.Skip()
			}
			var err error
			p.detail, err = rd.Str()
			return err
		}
		return notNull(rd, "image_url."+key, &p.extra)
	})
	return err
}

// textError reports, at the part at rd, a text part whose text is missing
// or has the given kind, not a string.
func textError(rd *codec.Reader, kind jsontext.Kind) error {
	if kind == 0 {
		return rd.ErrorAt("text", "missing: a text part needs a text string")
	}
	return rd.ErrorAt("text", "want a string, got %s", codec.Phrase(kind))
}

// textContent maps the content of a system, user or assistant message;
// images only for a user message.
func (d *chatDecoder) textContent(x int32, m *chatMsg, path string, images bool) {
	switch m.content {
	case contentAbsent, contentNull:
		if m.role != "assistant" {
			d.nullContent(x, m, path)
		}
	case contentString:
		d.add(x, block{part: llm.Text{Text: m.str}, node: m.contentAt, str: true})
	case contentArray:
		for j, p := range m.parts {
			ppath := path + ".content." + strconv.Itoa(j)
			if blk, ok := d.typedText(x, p, ppath); ok {
				d.add(x, blk)
				continue
			}
			d.add(x, block{part: d.mapPart(p, ppath, m.role, images), node: p.node})
		}
	}
}

func (d *chatDecoder) nullContent(x int32, m *chatMsg, path string) {
	d.src.elems[x].fix |= fixContent
	what := "null"
	if m.content == contentAbsent {
		what = "missing"
	}
	d.violation("OAI-CC-NULL-CONTENT", path+".content",
		fmt.Sprintf("the content of this %s message is %s; only an assistant message with tool_calls may omit it (send \"\" or text)", m.role, what),
		"Invalid value for 'content': expected a string, got null.")
}

// typedText returns the block of p, a content part at path of element x,
// when it is a part without a type whose only content is text
// (chatPart.asText): a text part, written back as one, and the
// OAI-CC-PART-TYPE violation that says so.
func (d *chatDecoder) typedText(x int32, p chatPart, path string) (block, bool) {
	text, ok := p.asText()
	if !ok {
		return block{}, false
	}
	d.src.elems[x].fix |= fixPartType
	i, j := wireIndices(path)
	d.violation("OAI-CC-PART-TYPE", path+".type",
		"this content part has no \"type\"; its only content is text, so it can only be a text part: --fix writes it as {\"type\":\"text\",\"text\":...}",
		"Missing required parameter: 'messages["+i+"].content["+j+"].type'.")
	return block{part: llm.Text{Text: text}, node: p.node, typeless: true}, true
}

// wireIndices returns the message and part indices of a content part's
// path, "messages.I.content.J" (a bare array's paths are those of a full
// body).
func wireIndices(path string) (i, j string) {
	parts := strings.Split(path, ".")
	if len(parts) >= 4 {
		return parts[1], parts[3]
	}
	return "?", "?"
}

// mapPart maps one content part: text, an image
// (a user's, or a file with inline data), else an Opaque part.
func (d *chatDecoder) mapPart(p chatPart, path, role string, images bool) llm.Part {
	extras := func() {
		for _, k := range p.extra {
			d.note(path+"."+k, fmt.Sprintf("the %q field of this %s part is not part of the llm form", k, p.typ))
		}
	}
	switch {
	case !p.hasType:
		// OAI-CC-PART-TYPE: transcript reports an opaque part of this
		// dialect without a kind.
		return opaque(ChatProvider, "", p.node)
	case p.typ == "text":
		extras()
		return llm.Text{Text: p.text}
	case p.typ == "image_url" && images:
		extras()
		if p.detail != "" && p.detail != "auto" {
			d.note(path+".image_url.detail", fmt.Sprintf("the image detail %q is not part of the llm form", p.detail))
		}
		return image(p.url)
	case p.typ == "file" && images && p.hasFile:
		if img := image(p.fileData); img.Data != nil {
			extras()
			return img
		}
	}
	return opaque(ChatProvider, p.typ, p.node)
}

// toolCall reads one entry of tool_calls.
func (d *chatDecoder) toolCall(rd *codec.Reader) (chatCall, error) {
	var c chatCall
	if rd.Kind() != '{' {
		return c, rd.Want("an object")
	}
	fn := func(name, arg string) error {
		if rd.Kind() != '{' {
			return rd.Want("an object")
		}
		err := rd.Object(func(key string) error {
			var err error
			switch key {
			case "name":
				c.name, err = rd.Str()
				c.hasName = true
			case arg:
				c.hasArgs = true
				if k := rd.Kind(); arg == "arguments" && (k == '{' || k == '[') {
					// The arguments as JSON, not as the string that
					// holds it: a rejection (OAI-CC-JSON-TYPE) whose
					// meaning is plain.
					var v []byte
					v, err = rd.Raw()
					c.args, c.argsKind = string(v), k
					return err
				}
				c.args, err = rd.Str()
			default:
				err = notNull(rd, name+"."+key, &c.extra)
			}
			return err
		})
		return err
	}
	err := rd.Object(func(key string) error {
		var err error
		switch key {
		case "id":
			c.id, err = rd.Str()
			c.hasID = true
		case "type":
			c.typ, err = rd.Str()
		case "function":
			c.hasFunction = true
			err = fn("function", "arguments")
		case "custom":
			c.hasCustom = true
			err = fn("custom", "input")
		default:
			err = notNull(rd, key, &c.extra)
		}
		return err
	})
	c.node = rd.Span()
	if err != nil {
		return c, err
	}
	if c.typ == "" {
		c.typ = "function"
	}
	switch c.typ {
	case "function":
		if !c.hasFunction {
			return c, rd.Errorf("missing function (a function tool call needs {\"name\", \"arguments\"})")
		}
		if !c.hasArgs {
			return c, decodeError(rd.At("function")+".arguments", errors.New("missing (arguments is a JSON string; send \"{}\" for a call without arguments)"))
		}
	case "custom":
		if !c.hasCustom {
			return c, rd.Errorf("missing custom (a custom tool call needs {\"name\", \"input\"})")
		}
		if !c.hasArgs {
			return c, decodeError(rd.At("custom")+".input", errors.New("missing"))
		}
	default:
		return c, rd.ErrorAt("type", "unknown tool call type %q (want function or custom)", c.typ)
	}
	if !c.hasID {
		return c, rd.ErrorAt("id", "missing: a tool call needs an id")
	}
	if !c.hasName {
		return c, decodeError(rd.At(c.typ)+".name", errors.New("missing: a tool call needs a name"))
	}
	return c, nil
}

// assistant maps an assistant message: its content parts, its audio and
// legacy function_call (opaque), then its tool calls.
func (d *chatDecoder) assistant(x int32, m *chatMsg, path string, i int) {
	// "" beside calls says no more than null: no text part, so that a
	// conversion writes no empty text block.
	if emptyBeside := m.content == contentString && m.str == "" && (len(m.calls) > 0 || m.fn != nil || m.audio != nil); !emptyBeside {
		d.textContent(x, m, path, false)
	}
	if (m.content == contentAbsent || m.content == contentNull) && len(m.calls) == 0 && m.fn == nil && m.audio == nil {
		// Content may be left out when there are calls, a legacy
		// function_call, or audio (the audio of an earlier answer).
		d.nullContent(x, m, path)
	}
	if m.audio != nil {
		d.add(x, block{part: opaque(ChatProvider, "audio", m.audio), node: m.audio, kind: bMember})
	}
	if m.fn != nil {
		d.add(x, block{part: opaque(ChatProvider, "function_call", m.fn), node: m.fn, kind: bMember})
	}
	if m.callsGiven && len(m.calls) == 0 {
		d.src.elems[x].fix |= fixToolCalls
		d.violation("OAI-CC-EMPTY-TOOLCALLS", path+".tool_calls",
			"tool_calls is an empty array; leave the field out when the assistant made no call",
			fmt.Sprintf("Invalid 'messages[%d].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.", i))
	}
	for n, c := range m.calls {
		cp := path + ".tool_calls." + strconv.Itoa(n)
		for _, k := range c.extra {
			d.note(cp+"."+k, fmt.Sprintf("the %q field of a tool call is not part of the llm form", k))
		}
		input := callInput(c.args)
		if c.typ == "custom" {
			d.note(cp, "a custom tool call is read as a call whose input is its text as a JSON string")
			input = codec.AppendString(nil, c.args)
		}
		if c.argsKind != 0 {
			d.src.elems[x].fix |= fixType
			d.violation("OAI-CC-JSON-TYPE", cp+".function.arguments",
				fmt.Sprintf("function.arguments is %s; Chat Completions takes the arguments as a string that holds their JSON: --fix writes it so", codec.Phrase(c.argsKind)),
				fmt.Sprintf("Invalid type for 'messages[%d].tool_calls[%d].function.arguments': expected a string, but got %s instead.", i, n, codec.Phrase(c.argsKind)))
		}
		d.add(x, block{part: llm.ToolCall{ID: c.id, Name: c.name, Input: input}, node: c.node, kind: bCall, retype: c.argsKind != 0})
		d.names[c.id] = c.name
	}
}

// tool maps a tool message to one result.
func (d *chatDecoder) tool(x int32, m *chatMsg, path string) {
	res := llm.ToolResult{CallID: m.toolCallID}
	blk := block{node: d.src.elems[x].node, kind: bWhole}
	switch m.content {
	case contentAbsent, contentNull:
		d.nullContent(x, m, path)
	case contentString:
		if m.str != "" {
			res.Content = []llm.Part{llm.Text{Text: m.str}}
			blk.inner = []block{{part: res.Content[0], node: m.contentAt, str: true}}
		}
	case contentObject:
		// A tool's output as JSON, not as text: read as its JSON text,
		// which --fix writes as the string content.
		d.src.elems[x].fix |= fixType
		res.Content = []llm.Part{llm.Text{Text: string(m.contentAt)}}
		d.violation("OAI-CC-JSON-TYPE", path+".content",
			"the content of this tool message is an object; a tool message's content is a string or an array of text parts: --fix writes the object's JSON as the string",
			fmt.Sprintf("Invalid type for 'messages[%s].content': expected one of a string or array of objects, but got an object instead.", strings.TrimPrefix(path, "messages.")))
	case contentArray:
		if len(m.parts) == 0 {
			d.src.elems[x].fix |= fixContent
			d.violation("OAI-CC-EMPTY-TOOL-CONTENT", path+".content",
				"the content of this tool message is an empty array; send a string (it may be \"\") or at least one text part", "")
		}
		for j, p := range m.parts {
			ppath := path + ".content." + strconv.Itoa(j)
			inner, ok := d.typedText(x, p, ppath)
			if !ok {
				inner = block{part: d.mapPart(p, ppath, m.role, true), node: p.node}
			}
			res.Content = append(res.Content, inner.part)
			blk.inner = append(blk.inner, inner)
		}
	}
	res.Name = d.names[res.CallID]
	res.Status = resultStatus(res.Content)
	blk.part = res
	d.add(x, blk)
}

// splitToolImages separates a result's text from its images, which a tool
// message cannot hold; a result left without text gets a line that says
// where its images went.
func splitToolImages(r llm.ToolResult) (llm.ToolResult, []llm.Part) {
	n := 0
	for _, p := range r.Content {
		if _, ok := p.(llm.Image); ok {
			n++
		}
	}
	if n == 0 {
		return r, nil
	}
	imgs := make([]llm.Part, 0, n)
	text := make([]llm.Part, 0, len(r.Content)-n)
	for _, p := range r.Content {
		if img, ok := p.(llm.Image); ok {
			imgs = append(imgs, img)
		} else {
			text = append(text, p)
		}
	}
	if len(text) == 0 {
		text = append(text, llm.Text{Text: "The result is an image; it follows in the next message."})
	}
	r.Content = text
	return r, imgs
}

// chatTool reads one tool definition; a function tool's fields are under
// "function".
func chatTool(rd *codec.Reader) (spec llm.ToolSpec, isFunc bool, extra []string, raw []byte, err error) {
	if rd.Kind() != '{' {
		return spec, false, nil, nil, rd.Want("an object")
	}
	typ := ""
	hasFn := false
	hasName := false
	function := func() error {
		if rd.Kind() != '{' {
			return rd.Want("an object")
		}
		err := rd.Object(func(key string) error {
			modeled, err := toolField(rd, &spec, key)
			if err != nil {
				return err
			}
			hasName = hasName || key == "name"
			if !modeled {
				return notNull(rd, "function."+key, &extra)
			}
			return nil
		})
		return err
	}
	err = rd.Object(func(key string) error {
		switch key {
		case "type":
			var err error
			typ, err = rd.Str()
			return err
		case "function":
			hasFn = true
			return function()
		}
		return notNull(rd, key, &extra)
	})
	raw = rd.Span()
	switch {
	case err != nil:
		return spec, false, nil, nil, err
	case typ == "":
		return spec, false, nil, nil, rd.Errorf("tool without a type (want \"function\")")
	case typ != "function":
		return spec, false, nil, raw, nil
	case !hasFn:
		return spec, false, nil, nil, rd.Errorf("function tool without a function object")
	case !hasName:
		return spec, false, nil, nil, decodeError(rd.At("function")+".name", errors.New("missing: a function tool needs a name"))
	}
	return spec, true, extra, raw, nil
}
