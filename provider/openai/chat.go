package openai

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/internal/jsontree"
	"github.com/toolwire/toolwire/llm"
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
	Unmodeled []transcript.Warning

	decoded bool     // made by DecodeChat: its ids are written as they are
	order   []string // the body's top-level keys, in order
	src     *source
	paths   pathMap
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
// Errors are [*DecodeError]s naming the exact path:
// "messages.3.tool_calls.0.function.arguments: want a string, got an object".
// A body that breaks an OpenAI rule is not a decode error: it decodes,
// transcript.Check reports the breaches the llm form can express, and Wire
// lists the others. Errors are for bodies that are not Chat Completions
// requests at all (wrong types, missing ids, invalid JSON). The request
// does not alias body.
func DecodeChat(body []byte) (*ChatRequest, error) {
	if len(bytes.TrimLeft(body, " \t\r\n")) == 0 {
		return nil, &DecodeError{Err: fmt.Errorf("empty input: want a Chat Completions request body or a messages array")}
	}
	b, err := parseBody(bytes.Clone(body), "messages") // a bare array's paths are those of a full body
	if err != nil {
		return nil, err
	}
	req := &ChatRequest{decoded: true, src: &source{t: b.t, toolsNode: jsontree.None}}
	d := &chatDecoder{decoder: decoder{b: b, src: req.src, msgs: &req.Messages, paths: &req.paths, names: make(map[string]string),
		unmodeled: &req.Unmodeled, violations: &req.Wire, systemRole: &req.SystemRole, dialect: "Chat Completions", elemName: "message"}, req: req}
	t := b.t
	req.paths.array = "messages"
	switch root := t.Root(); t.Kind(root) {
	case jsontree.Array:
		req.Bare = true
		if err := d.messages(root); err != nil {
			return nil, err
		}
	case jsontree.Object:
		hasMessages := false
		hasInput := false
		for f := t.First(root); f != jsontree.None; f = t.Next(f) {
			key := string(b.key(f))
			req.order = append(req.order, key)
			switch key {
			case "messages":
				hasMessages = true
				if err := d.messages(f); err != nil {
					return nil, err
				}
				continue
			case "tools":
				req.src.toolsNode = f
				if !b.isNull(f) {
					if req.Tools, err = d.tools(f, chatTool); err != nil {
						return nil, err
					}
				}
				continue
			case "input":
				hasInput = true
			}
			req.Fields = append(req.Fields, Field{Key: key, Value: t.Compact(f)})
		}
		if !hasMessages {
			hint := ""
			if hasInput {
				hint = "; the body has \"input\": it looks like a Responses request (use DecodeResponses)"
			}
			return nil, &DecodeError{Path: "messages", Err: fmt.Errorf("missing: a Chat Completions request body needs a messages array%s", hint)}
		}
	default:
		return nil, &DecodeError{Err: fmt.Errorf("want a Chat Completions request body (an object) or a messages array, got %s", t.Kind(root).Phrase())}
	}
	req.paths.done()
	return req, nil
}

type chatDecoder struct {
	decoder
	req *ChatRequest
}

// chatPart is a content part before the message's role is known.
type chatPart struct {
	node     jsontree.Node
	typ      string
	hasType  bool
	text     string
	hasText  bool
	textKind jsontree.Kind // the kind of a text value that is not a string
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
	node        jsontree.Node
	id, typ     string
	name, args  string
	hasID       bool
	hasName     bool
	hasArgs     bool
	hasFunction bool
	hasCustom   bool
	extra       []string
}

// contentKind says how a message's content was given.
type contentKind uint8

const (
	contentAbsent contentKind = iota
	contentNull
	contentString
	contentArray
)

type chatMsg struct {
	role       string
	hasRole    bool
	content    contentKind
	contentAt  jsontree.Node
	str        string
	parts      []chatPart
	calls      []chatCall
	callsGiven bool          // tool_calls present and not null
	audio, fn  jsontree.Node // an assistant's audio and function_call, when not null
	toolCallID string
	hasCallID  bool
	extra      []string // unmodeled keys with values that say something
}

func (d *chatDecoder) messages(n jsontree.Node) error {
	t := d.b.t
	if t.Kind(n) != jsontree.Array {
		return d.b.want(n, "an array")
	}
	for i, m := 0, t.First(n); m != jsontree.None; i, m = i+1, t.Next(m) {
		if err := d.message(i, m); err != nil {
			return err
		}
	}
	return nil
}

func (d *chatDecoder) message(i int, n jsontree.Node) error {
	b, t := d.b, d.b.t
	if t.Kind(n) != jsontree.Object {
		return b.want(n, "an object")
	}
	m := chatMsg{audio: jsontree.None, fn: jsontree.None, contentAt: jsontree.None}
	var quiet bool
	for f := t.First(n); f != jsontree.None; f = t.Next(f) {
		key := b.key(f)
		var err error
		switch string(key) {
		case "role":
			m.role, err = b.str(f)
			m.hasRole = true
		case "content":
			m.contentAt = f
			err = d.content(&m, f)
		case "tool_calls":
			if b.isNull(f) {
				continue
			}
			m.callsGiven = true
			if t.Kind(f) != jsontree.Array {
				return b.want(f, "an array")
			}
			m.calls = make([]chatCall, 0, t.Len(f))
			for c := t.First(f); c != jsontree.None; c = t.Next(c) {
				call, err := d.toolCall(c)
				if err != nil {
					return err
				}
				m.calls = append(m.calls, call)
			}
		case "tool_call_id":
			if b.isNull(f) {
				continue
			}
			m.toolCallID, err = b.str(f)
			m.hasCallID = true
		case "audio", "function_call":
			if t.Kind(f) == jsontree.Object {
				if string(key) == "audio" {
					m.audio = f
				} else {
					m.fn = f
				}
				continue
			}
			b.unmodeled(f, key, &m.extra, &quiet)
		default:
			b.unmodeled(f, key, &m.extra, &quiet)
		}
		if err != nil {
			return err
		}
	}
	start := t.Offset(n)
	if !m.hasRole {
		return b.missing(n, "role", fmt.Errorf("missing (want system, developer, user, assistant or tool)"))
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
		return &DecodeError{Path: path + ".role", Offset: start, Err: fmt.Errorf("unknown role %q (want system, developer, user, assistant or tool)", m.role)}
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
		for _, f := range []jsontree.Node{m.audio, m.fn} {
			if f >= 0 {
				d.note(path+"."+t.Key(f), fmt.Sprintf("the %q field of %s message is not part of the llm form", t.Key(f), an(m.role)))
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
func (d *chatDecoder) content(m *chatMsg, n jsontree.Node) error {
	b, t := d.b, d.b.t
	switch t.Kind(n) {
	case jsontree.Null:
		m.content = contentNull
		return nil
	case jsontree.String:
		m.content, m.str = contentString, t.Str(n)
		return nil
	case jsontree.Array:
		m.content = contentArray
		m.parts = make([]chatPart, 0, t.Len(n))
		for c := t.First(n); c != jsontree.None; c = t.Next(c) {
			p, err := d.part(c)
			if err != nil {
				return err
			}
			m.parts = append(m.parts, p)
		}
		return nil
	}
	return b.want(n, "a string, an array of content parts or null")
}

// part reads one content part of any type.
func (d *chatDecoder) part(n jsontree.Node) (chatPart, error) {
	b, t := d.b, d.b.t
	p := chatPart{node: n}
	if t.Kind(n) != jsontree.Object {
		return p, b.want(n, "an object")
	}
	for f := t.First(n); f != jsontree.None; f = t.Next(f) {
		key := b.key(f)
		switch string(key) {
		case "type":
			var err error
			if p.typ, err = b.str(f); err != nil {
				return p, err
			}
			p.hasType = true
			continue
		case "text":
			if t.Kind(f) == jsontree.String {
				p.text, p.hasText = t.Str(f), true
				continue
			}
			p.textKind = t.Kind(f)
		case "content":
			if t.Kind(f) == jsontree.String {
				p.content, p.hasStr = t.Str(f), true
			}
		case "image_url":
			if t.Kind(f) == jsontree.Object {
				p.hasImage = true
				if err := d.imageURL(&p, f); err != nil {
					return p, err
				}
				continue
			}
		case "file":
			if t.Kind(f) == jsontree.Object {
				if fd := t.Get(f, "file_data"); fd >= 0 && t.Kind(fd) == jsontree.String {
					p.fileData, p.hasFile = t.Str(fd), true
				}
				for c := t.First(f); c != jsontree.None; c = t.Next(c) {
					if !t.KeyIs(c, "file_data") && !b.isNull(c) {
						p.extra = append(p.extra, "file."+t.Key(c))
					}
				}
				continue
			}
		}
		if !b.isNull(f) {
			p.extra = append(p.extra, string(key))
		}
	}
	if !p.hasType {
		return p, nil // OAI-CC-PART-TYPE, reported with its message
	}
	switch p.typ {
	case "text":
		if !p.hasText {
			return p, textError(b, n, p.textKind)
		}
	case "image_url":
		if !p.hasImage {
			return p, b.errorf(n, "image_url part without an image_url object")
		}
		if p.url == "" {
			return p, b.errorf(n, "image_url part without a url")
		}
	}
	return p, nil
}

// imageURL reads the image_url object of a part.
func (d *chatDecoder) imageURL(p *chatPart, n jsontree.Node) error {
	b, t := d.b, d.b.t
	for f := t.First(n); f != jsontree.None; f = t.Next(f) {
		var err error
		key := b.key(f)
		switch string(key) {
		case "url":
			p.url, err = b.str(f)
		case "detail":
			if !b.isNull(f) {
				p.detail, err = b.str(f)
			}
		default:
			if !b.isNull(f) {
				p.extra = append(p.extra, "image_url."+string(key))
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// textError reports a text part whose text is missing or has the given
// kind, not a string.
func textError(b *body, part jsontree.Node, kind jsontree.Kind) error {
	if kind == 0 {
		return b.missing(part, "text", fmt.Errorf("missing: a text part needs a text string"))
	}
	return b.missing(part, "text", fmt.Errorf("want a string, got %s", kind.Phrase()))
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
		return d.opaque(ChatProvider, "", p.node)
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
	return d.opaque(ChatProvider, p.typ, p.node)
}

// toolCall reads one entry of tool_calls.
func (d *chatDecoder) toolCall(n jsontree.Node) (chatCall, error) {
	b, t := d.b, d.b.t
	c := chatCall{node: n}
	if t.Kind(n) != jsontree.Object {
		return c, b.want(n, "an object")
	}
	fn := func(obj jsontree.Node, name, arg string) error {
		if t.Kind(obj) != jsontree.Object {
			return b.want(obj, "an object")
		}
		for f := t.First(obj); f != jsontree.None; f = t.Next(f) {
			var err error
			key := b.key(f)
			switch string(key) {
			case "name":
				c.name, err = b.str(f)
				c.hasName = true
			case arg:
				c.args, err = b.str(f)
				c.hasArgs = true
			default:
				if !b.isNull(f) {
					c.extra = append(c.extra, name+"."+string(key))
				}
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	for f := t.First(n); f != jsontree.None; f = t.Next(f) {
		var err error
		key := b.key(f)
		switch string(key) {
		case "id":
			c.id, err = b.str(f)
			c.hasID = true
		case "type":
			c.typ, err = b.str(f)
		case "function":
			c.hasFunction = true
			err = fn(f, "function", "arguments")
		case "custom":
			c.hasCustom = true
			err = fn(f, "custom", "input")
		default:
			if !b.isNull(f) {
				c.extra = append(c.extra, string(key))
			}
		}
		if err != nil {
			return c, err
		}
	}
	if c.typ == "" {
		c.typ = "function"
	}
	switch c.typ {
	case "function":
		if !c.hasFunction {
			return c, b.errorf(n, "missing function (a function tool call needs {\"name\", \"arguments\"})")
		}
		if !c.hasArgs {
			return c, b.missing(n, "function.arguments", fmt.Errorf("missing (arguments is a JSON string; send \"{}\" for a call without arguments)"))
		}
	case "custom":
		if !c.hasCustom {
			return c, b.errorf(n, "missing custom (a custom tool call needs {\"name\", \"input\"})")
		}
		if !c.hasArgs {
			return c, b.missing(n, "custom.input", fmt.Errorf("missing"))
		}
	default:
		return c, b.missing(n, "type", fmt.Errorf("unknown tool call type %q (want function or custom)", c.typ))
	}
	if !c.hasID {
		return c, b.missing(n, "id", fmt.Errorf("missing: a tool call needs an id"))
	}
	if !c.hasName {
		return c, b.missing(n, c.typ+".name", fmt.Errorf("missing: a tool call needs a name"))
	}
	return c, nil
}

// assistant maps an assistant message: its content parts, its audio and
// legacy function_call (opaque), then its tool calls.
func (d *chatDecoder) assistant(x int32, m *chatMsg, path string, i int) {
	// "" beside calls says no more than null: no text part, so that a
	// conversion writes no empty text block.
	if emptyBeside := m.content == contentString && m.str == "" && (len(m.calls) > 0 || m.fn >= 0 || m.audio >= 0); !emptyBeside {
		d.textContent(x, m, path, false)
	}
	if (m.content == contentAbsent || m.content == contentNull) && len(m.calls) == 0 && m.fn < 0 && m.audio < 0 {
		// Content may be left out when there are calls, a legacy
		// function_call, or audio (the audio of an earlier answer).
		d.nullContent(x, m, path)
	}
	if m.audio >= 0 {
		d.add(x, block{part: d.opaque(ChatProvider, "audio", m.audio), node: m.audio, kind: bMember})
	}
	if m.fn >= 0 {
		d.add(x, block{part: d.opaque(ChatProvider, "function_call", m.fn), node: m.fn, kind: bMember})
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
			input, _ = llm.AppendJSONString(nil, c.args)
		}
		d.add(x, block{part: llm.ToolCall{ID: c.id, Name: c.name, Input: input}, node: c.node, kind: bCall})
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
func chatTool(b *body, n jsontree.Node) (spec llm.ToolSpec, isFunc bool, extra []string, err error) {
	t := b.t
	if t.Kind(n) != jsontree.Object {
		return spec, false, nil, b.want(n, "an object")
	}
	typ := ""
	hasFn := false
	hasName := false
	function := func(obj jsontree.Node) error {
		if t.Kind(obj) != jsontree.Object {
			return b.want(obj, "an object")
		}
		for f := t.First(obj); f != jsontree.None; f = t.Next(f) {
			key := b.key(f)
			modeled, err := b.toolField(&spec, key, f)
			if err != nil {
				return err
			}
			hasName = hasName || string(key) == "name"
			if !modeled && !b.isNull(f) {
				extra = append(extra, "function."+string(key))
			}
		}
		return nil
	}
	for f := t.First(n); f != jsontree.None; f = t.Next(f) {
		key := b.key(f)
		switch string(key) {
		case "type":
			if typ, err = b.str(f); err != nil {
				return spec, false, nil, err
			}
		case "function":
			hasFn = true
			if err := function(f); err != nil {
				return spec, false, nil, err
			}
		default:
			if !b.isNull(f) {
				extra = append(extra, string(key))
			}
		}
	}
	if typ == "" {
		return spec, false, nil, b.errorf(n, "tool without a type (want \"function\")")
	}
	if typ != "function" {
		return spec, false, nil, nil
	}
	if !hasFn {
		return spec, false, nil, b.errorf(n, "function tool without a function object")
	}
	if !hasName {
		return spec, false, nil, b.missing(n, "function.name", fmt.Errorf("missing: a function tool needs a name"))
	}
	return spec, true, extra, nil
}
