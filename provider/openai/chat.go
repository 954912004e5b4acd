package openai

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/toolwire/toolwire/internal/jsontree"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// ChatRequest is an OpenAI Chat Completions request body in llm form.
//
// [DecodeChat] fills it from a body; [EncodeChat] writes it back. A request
// decoded from a body re-encodes to the same body up to formatting, key
// order of the modeled fields and equivalent spellings (a one-part text
// array becomes a string); see [DecodeChat] for the details.
type ChatRequest struct {
	// Messages is the conversation, mapped as docs/dialect-mapping.md says:
	// a run of consecutive tool messages becomes one llm tool message.
	Messages []llm.Message
	// Tools are the function tools, in order. Other tools (custom tools)
	// are kept and written back after the function tool they preceded.
	Tools []llm.ToolSpec
	// Bare is set when the input was a bare messages array; EncodeChat then
	// writes a bare array.
	Bare bool
	// SystemRole is the role system messages are written with; decoding
	// sets it from the first system or developer message.
	SystemRole SystemRole
	// Fields are the other top-level fields (model, temperature,
	// tool_choice, ...), in body order, kept verbatim.
	Fields []Field
	// Wire holds the violations found while decoding that the llm form
	// cannot express (OAI-CC-EMPTY-TOOLCALLS, OAI-CC-NULL-CONTENT,
	// OAI-CC-EMPTY-TOOL-CONTENT), with dotted paths into the body. Encoding
	// does not reproduce them.
	Wire []transcript.Violation
	// Unmodeled lists what the body holds that the llm form does not (a
	// message name, an audio part, an image detail, a legacy function
	// message, ...). It is kept and written back when its message is
	// re-encoded unchanged in this dialect; converting to another dialect,
	// or changing the message, loses it.
	Unmodeled []transcript.Warning

	decoded  bool     // made by DecodeChat: its ids are written as they are
	order    []string // the body's top-level keys, in order
	msgKeep  *keep
	toolKeep *keep
	paths    pathMap
}

// BodyPath translates a dotted path computed from r's llm form, as
// transcript.Layout and transcript.Check compute it, into the path of the
// same value in the body r was decoded from: "messages.3.content.1" may be
// "messages.4.content.2" in a body with a legacy function message before it
// and an input_audio part in it. Paths outside the messages come back
// unchanged. The translation holds for the messages as decoded: the paths
// of a changed transcript (after transcript.Repair, say) are paths in its
// own encoding, not in this body.
func (r *ChatRequest) BodyPath(path string) string { return r.paths.bodyPath(path) }

// DecodeChat decodes a Chat Completions request body, or a bare array of
// messages, into llm form.
//
// The mapping follows docs/dialect-mapping.md. A tool result's status is
// that of the toolwire envelope it holds (OpenAI has no error flag), else
// success; its Name is recovered from the call it answers, "" for an orphan.
// A call's arguments are kept verbatim as ToolCall.Input, even when they are
// not valid JSON (invalid UTF-8 in them becomes U+FFFD, as when encoding).
// "developer" messages decode as system messages.
//
// Errors are [*DecodeError]s naming the exact path:
// "messages.3.tool_calls.0.function.arguments: want a string, got an object".
// A body that breaks an OpenAI rule is not a decode error: it decodes,
// transcript.Check reports the breaches the llm form can express, and Wire
// lists the others. Errors are for bodies that are not Chat Completions
// requests at all (wrong types, missing ids, invalid JSON).
func DecodeChat(body []byte) (*ChatRequest, error) {
	if len(bytes.TrimLeft(body, " \t\r\n")) == 0 {
		return nil, &DecodeError{Err: fmt.Errorf("empty input: want a Chat Completions request body or a messages array")}
	}
	b, err := parseBody(body, "messages") // a bare array's paths are those of a full body
	if err != nil {
		return nil, err
	}
	req := &ChatRequest{decoded: true}
	d := &chatDecoder{decoder: decoder{b: b, names: make(map[string]string), unmodeled: &req.Unmodeled, violations: &req.Wire,
		systemRole: &req.SystemRole, dialect: "Chat Completions", elem: "message"}, req: req}
	t := b.t
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
			key := b.key(f)
			switch string(key) {
			case "messages":
				hasMessages = true
				req.order = append(req.order, "messages")
				if err := d.messages(f); err != nil {
					return nil, err
				}
				continue
			case "tools":
				req.order = append(req.order, "tools")
				if b.isNull(f) {
					continue
				}
				if req.Tools, req.toolKeep, err = d.tools(f, chatTool, appendChatTool); err != nil {
					return nil, err
				}
				continue
			case "input":
				hasInput = true
			}
			k := string(key)
			req.order = append(req.order, k)
			req.Fields = append(req.Fields, Field{Key: k, Value: b.canon(nil, f)})
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
	req.msgKeep = d.finish("messages", &req.Messages, &req.paths, d.canon)
	return req, nil
}

type chatDecoder struct {
	decoder
	req *ChatRequest
}

// chatPart is a content part before the message's role is known.
type chatPart struct {
	typ      string
	text     string
	hasText  bool
	textKind jsontree.Kind // the kind of a text value that is not a string
	url      string
	detail   string
	hasImage bool
	extra    []string // unmodeled keys
}

// chatCall is a tool call as read.
type chatCall struct {
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
	str        string
	parts      []chatPart
	calls      []chatCall
	callsGiven bool // tool_calls present and not null
	toolCallID string
	hasCallID  bool
	extra      []string // unmodeled keys with values that say something
	quiet      bool     // unmodeled keys with empty values ([] or {})
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
	var m chatMsg
	for f := t.First(n); f != jsontree.None; f = t.Next(f) {
		key := b.key(f)
		var err error
		switch string(key) {
		case "role":
			m.role, err = b.str(f)
			m.hasRole = true
		case "content":
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
		default:
			b.unmodeled(f, key, &m.extra, &m.quiet)
		}
		if err != nil {
			return err
		}
	}
	start := t.Offset(n)
	if !m.hasRole {
		return b.missing(n, "role", fmt.Errorf("missing (want system, developer, user, assistant or tool)"))
	}
	w := wire{node: n, keepRaw: m.quiet}
	path := "messages." + strconv.Itoa(i)
	for _, k := range m.extra {
		w.keepRaw = true
		d.note(path+"."+k, fmt.Sprintf("the %q field of %s message is not part of the llm form", k, an(m.role)))
	}
	switch m.role {
	case "system", "developer":
		d.system(&w, m.role, path)
		d.textContent(&w, &m, path, false)
	case "user":
		w.kind = wUser
		d.textContent(&w, &m, path, true)
	case "assistant":
		w.kind = wAssistant
		if err := d.assistant(&w, &m, path, i); err != nil {
			return err
		}
	case "tool":
		w.kind = wTool
		if err := d.tool(&w, &m, path, i); err != nil {
			return err
		}
	case "function":
		w.kind = wOpaque
		d.note(path, "a legacy \"function\" message (the deprecated function-calling API) is not part of the llm form")
	default:
		return &DecodeError{Path: path + ".role", Offset: start, Err: fmt.Errorf("unknown role %q (want system, developer, user, assistant or tool)", m.role)}
	}
	if w.kind != wTool && m.hasCallID {
		w.keepRaw = true
		d.note(path+".tool_call_id", "tool_call_id on "+an(m.role)+" message is not part of the llm form")
	}
	if w.kind != wAssistant && m.callsGiven {
		w.keepRaw = true
		d.note(path+".tool_calls", "tool_calls on "+an(m.role)+" message are not part of the llm form")
	}
	d.wires = append(d.wires, w)
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
	var p chatPart
	if t.Kind(n) != jsontree.Object {
		return p, b.want(n, "an object")
	}
	hasType := false
	for f := t.First(n); f != jsontree.None; f = t.Next(f) {
		key := b.key(f)
		switch string(key) {
		case "type":
			var err error
			if p.typ, err = b.str(f); err != nil {
				return p, err
			}
			hasType = true
			continue
		case "text":
			if t.Kind(f) == jsontree.String {
				p.text, p.hasText = t.Str(f), true
				continue
			}
			p.textKind = t.Kind(f)
		case "image_url":
			if t.Kind(f) == jsontree.Object {
				p.hasImage = true
				if err := d.imageURL(&p, f); err != nil {
					return p, err
				}
				continue
			}
		}
		if !b.isNull(f) {
			p.extra = append(p.extra, string(key))
		}
	}
	if !hasType {
		return p, b.errorf(n, "content part without a type (want text, image_url, ...)")
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
func (d *chatDecoder) textContent(w *wire, m *chatMsg, path string, images bool) {
	switch m.content {
	case contentAbsent, contentNull:
		d.nullContent(w, m, path)
	case contentString:
		if m.str != "" {
			w.parts = []llm.Part{llm.Text{Text: m.str}}
		}
	case contentArray:
		w.parts = mapParts(w, m.parts, path+".content", func(p chatPart, path string) (llm.Part, bool) {
			return d.mapPart(w, p, path, m.role, images)
		})
	}
}

func (d *chatDecoder) nullContent(w *wire, m *chatMsg, path string) {
	w.patch = append(w.patch, keyPatch{"content", []byte(`""`)})
	what := "null"
	if m.content == contentAbsent {
		what = "missing"
	}
	d.violation("OAI-CC-NULL-CONTENT", path+".content",
		fmt.Sprintf("the content of this %s message is %s; only an assistant message with tool_calls may omit it (send \"\" or text)", m.role, what),
		"Invalid value for 'content': expected a string, got null.")
}

// mapPart maps one content part; ok is false for a part the llm form does
// not hold (it is then kept with its message).
func (d *chatDecoder) mapPart(w *wire, p chatPart, path, role string, images bool) (llm.Part, bool) {
	extras := func() {
		for _, k := range p.extra {
			w.keepRaw = true
			d.note(path+"."+k, fmt.Sprintf("the %q field of this %s part is not part of the llm form", k, p.typ))
		}
	}
	switch {
	case p.typ == "text":
		extras()
		return llm.Text{Text: p.text}, true
	case p.typ == "image_url" && images:
		extras()
		if p.detail != "" && p.detail != "auto" {
			w.keepRaw = true
			d.note(path+".image_url.detail", fmt.Sprintf("the image detail %q is not part of the llm form", p.detail))
		}
		if mt, data, ok := parseDataURL(p.url); ok {
			return llm.Image{MediaType: mt, Data: data}, true
		}
		return llm.Image{URL: p.url}, true
	}
	w.keepRaw = true
	d.note(path, fmt.Sprintf("a part of type %q in %s message is not part of the llm form", p.typ, an(role)))
	return nil, false
}

// toolCall reads one entry of tool_calls.
func (d *chatDecoder) toolCall(n jsontree.Node) (chatCall, error) {
	b, t := d.b, d.b.t
	var c chatCall
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

func (d *chatDecoder) assistant(w *wire, m *chatMsg, path string, i int) error {
	if m.content == contentAbsent || m.content == contentNull {
		// Content may be left out when there are calls.
		if len(m.calls) == 0 && !slices.Contains(m.extra, "function_call") {
			d.nullContent(w, m, path)
		}
	} else {
		d.textContent(w, m, path, false)
	}
	if m.callsGiven && len(m.calls) == 0 {
		w.patch = append(w.patch, keyPatch{"tool_calls", nil})
		d.violation("OAI-CC-EMPTY-TOOLCALLS", path+".tool_calls",
			"tool_calls is an empty array; leave the field out when the assistant made no call",
			fmt.Sprintf("Invalid 'messages[%d].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.", i))
	}
	for n, c := range m.calls {
		cp := path + ".tool_calls." + strconv.Itoa(n)
		for _, k := range c.extra {
			w.keepRaw = true
			d.note(cp+"."+k, fmt.Sprintf("the %q field of a tool call is not part of the llm form", k))
		}
		input := callInput(c.args)
		if c.typ == "custom" {
			w.keepRaw = true
			d.note(cp, "a custom tool call is read as a call whose input is its text as a JSON string")
			input, _ = llm.AppendJSONString(nil, c.args)
		}
		w.parts = append(w.parts, llm.ToolCall{ID: c.id, Name: c.name, Input: input})
		d.names[c.id] = c.name
	}
	return nil
}

func (d *chatDecoder) tool(w *wire, m *chatMsg, path string, i int) error {
	res := llm.ToolResult{CallID: m.toolCallID}
	switch m.content {
	case contentAbsent, contentNull:
		d.nullContent(w, m, path)
	case contentString:
		if m.str != "" {
			res.Content = []llm.Part{llm.Text{Text: m.str}}
		}
	case contentArray:
		if len(m.parts) == 0 {
			w.patch = append(w.patch, keyPatch{"content", []byte(`""`)})
			d.violation("OAI-CC-EMPTY-TOOL-CONTENT", path+".content",
				"the content of this tool message is an empty array; send a string (it may be \"\") or at least one text part", "")
		}
		res.Content = mapParts(w, m.parts, path+".content", func(p chatPart, path string) (llm.Part, bool) {
			return d.mapPart(w, p, path, m.role, true)
		})
	}
	res.Name = d.names[res.CallID]
	res.Status = resultStatus(res.Content)
	w.result = res
	if _, imgs := splitToolImages(res); imgs != nil && w.keepRaw {
		// Encoding moves the images out (OAI-CC-TOOL-IMAGE), so this
		// message is always rewritten and cannot be kept as it was.
		w.keepRaw = false
		d.req.Unmodeled = append(d.req.Unmodeled, transcript.Warning{Path: path,
			Message: "this tool message holds images, which encoding moves into a user message (OAI-CC-TOOL-IMAGE); it is rewritten, so what the llm form does not hold in it is lost"})
	}
	return nil
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

// canon appends the canonical form of a decoded message: what EncodeChat
// writes for its llm form.
func (d *chatDecoder) canon(dst []byte, w *wire) []byte {
	switch w.kind {
	case wSystem:
		return appendChatText(dst, d.req.SystemRole.wire(), w.parts)
	case wUser:
		return appendChatText(dst, "user", w.parts)
	case wAssistant:
		return appendChatAssistant(dst, w.parts)
	}
	res, _ := splitToolImages(w.result)
	return appendChatToolMessage(dst, res)
}

// EncodeChat writes r as a Chat Completions request body (or a bare
// messages array when r.Bare is set): compact, deterministic, without HTML
// escaping. The body's other fields come back in their original order.
//
// Messages from another dialect are converted as docs/dialect-mapping.md
// says. What Chat Completions cannot express comes back as warnings, never
// a silent drop: images in tool results move into a following user message
// (OAI-CC-TOOL-IMAGE), reasoning is dropped, text after a tool call moves
// before the calls, an error status not spelled out by the content cannot
// be marked. Warning paths are paths in the encoded body. A message that
// breaks the llm placement rules (a tool call in a user message) is an
// error.
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
func EncodeChat(r *ChatRequest) ([]byte, []transcript.Warning, error) {
	if r == nil {
		return nil, nil, errors.New("openai: EncodeChat: nil request")
	}
	e := &chatEncoder{encoder: encoder{array: "messages"}, req: r}
	if !r.decoded {
		e.planIDs(r.Messages, chatIDRules())
	}
	hint := sizeHint(r.Messages, 48)
	if r.Bare {
		if len(r.Tools) > 0 || r.toolKeep != nil {
			e.Warn("tools", "a bare messages array has no place for tools; they are left out")
		}
		if len(r.Fields) > 0 {
			e.Warn("", "a bare messages array has no place for the other fields (model, ...); they are left out")
		}
		dst, err := e.messages(make([]byte, 0, hint))
		if err != nil {
			return nil, nil, err
		}
		return dst, e.Warnings, nil
	}
	dst, err := appendTopLevel(make([]byte, 0, hint), r.order, r.Fields, []string{"messages", "tools"},
		func(dst []byte, key string, first *bool) ([]byte, error) {
			switch key {
			case "messages":
				dst = appendKey(dst, first, "messages")
				return e.messages(dst)
			case "tools":
				if len(r.Tools) == 0 && r.toolKeep == nil {
					return dst, nil
				}
				dst = appendKey(dst, first, "tools")
				return appendTools(dst, r.Tools, r.toolKeep, appendChatTool)
			}
			return dst, nil
		})
	if err != nil {
		return nil, nil, err
	}
	return dst, e.Warnings, nil
}

// chatIDRules returns the id rules of Chat Completions: any id but "" (a
// tool message names its call by it, OAI-CC-RESULT-ID-REQUIRED).
func chatIDRules() codec.IDRules {
	return codec.IDRules{Prefix: "call_", Missing: "OAI-CC-RESULT-ID-REQUIRED", Call: "tool call", Result: "tool message"}
}

type chatEncoder struct {
	encoder
	req *ChatRequest
}

func (e *chatEncoder) messages(dst []byte) ([]byte, error) {
	w := newArrayWriter(append(dst, '['), e.req.msgKeep)
	for i, m := range e.req.Messages {
		if err := e.message(w, i, m); err != nil {
			return nil, err
		}
	}
	dst = w.finish(false)
	return append(dst, ']'), nil
}

func (e *chatEncoder) message(w *arrayWriter, i int, m llm.Message) error {
	switch m.Role {
	case llm.RoleSystem, llm.RoleUser:
		parts, err := e.userParts(i, m)
		if err != nil {
			return err
		}
		role := "user"
		if m.Role == llm.RoleSystem {
			role = e.req.SystemRole.wire()
		}
		e.emit(w, func(dst []byte) []byte { return appendChatText(dst, role, parts) })
	case llm.RoleAssistant:
		parts := make([]llm.Part, 0, len(m.Parts))
		sawCall, ncalls := false, 0
		for j, p := range m.Parts {
			switch q := p.(type) {
			case llm.Text:
				if sawCall {
					e.Warn(e.outPath(), "Chat Completions puts an assistant's text before its tool calls; text that followed a call is moved before the calls")
				}
				parts = append(parts, p)
			case llm.ToolCall:
				q.ID = e.callID(i, j, q, e.outPath()+".tool_calls."+strconv.Itoa(ncalls))
				sawCall = true
				ncalls++
				parts = append(parts, q)
			case llm.Reasoning:
				e.Warn(e.outPath(), fmt.Sprintf("Chat Completions has no reasoning blocks; %s reasoning is dropped", providerName(q.Provider)))
			case llm.Image:
				e.Warn(e.outPath(), "an assistant message cannot hold an image in Chat Completions; it is left out")
			default:
				return placement(i, j, m.Role, p)
			}
		}
		e.emit(w, func(dst []byte) []byte { return appendChatAssistant(dst, parts) })
	case llm.RoleTool:
		var moved []llm.Part
		trailing, err := e.toolParts(i, m, func(j int, r llm.ToolResult) {
			r = e.resultID(i, j, r, e.outPath()+".tool_call_id")
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
			if wr := statusWarning(e.outPath(), res); wr != nil {
				e.Warnings = append(e.Warnings, *wr)
			}
			e.emit(w, func(dst []byte) []byte { return appendChatToolMessage(dst, res) })
		})
		if err != nil {
			return err
		}
		if extra := append(moved, trailing...); len(extra) > 0 {
			e.emit(w, func(dst []byte) []byte { return appendChatText(dst, "user", extra) })
		}
	default:
		return fmt.Errorf("openai: messages[%d]: unknown role %q", i, m.Role)
	}
	return nil
}

// appendChatText writes a system, developer or user message: content is a
// string for one text part (or none), else an array of parts.
func appendChatText(dst []byte, role string, parts []llm.Part) []byte {
	dst = append(dst, `{"role":`...)
	dst, _ = llm.AppendJSONString(dst, role)
	dst = append(dst, `,"content":`...)
	dst = appendChatContent(dst, parts)
	return append(dst, '}')
}

// appendChatContent writes text and image parts as Chat content.
func appendChatContent(dst []byte, parts []llm.Part) []byte {
	switch len(parts) {
	case 0:
		return append(dst, `""`...)
	case 1:
		// One text part is a string; an empty one stays an array, so that
		// it does not read back as no content.
		if t, ok := parts[0].(llm.Text); ok && t.Text != "" {
			dst, _ = llm.AppendJSONString(dst, t.Text)
			return dst
		}
	}
	dst = append(dst, '[')
	for j, p := range parts {
		if j > 0 {
			dst = append(dst, ',')
		}
		switch p := p.(type) {
		case llm.Text:
			dst = append(dst, `{"type":"text","text":`...)
			dst, _ = llm.AppendJSONString(dst, p.Text)
			dst = append(dst, '}')
		case llm.Image:
			dst = append(dst, `{"type":"image_url","image_url":{"url":`...)
			dst = appendImageURL(dst, p)
			dst = append(dst, "}}"...)
		}
	}
	return append(dst, ']')
}

// appendChatAssistant writes an assistant message from its text parts and
// tool calls.
func appendChatAssistant(dst []byte, parts []llm.Part) []byte {
	dst = append(dst, `{"role":"assistant"`...)
	var texts []llm.Part
	ncalls := 0
	for _, p := range parts {
		switch p.(type) {
		case llm.Text:
			texts = append(texts, p)
		case llm.ToolCall:
			ncalls++
		}
	}
	if len(texts) > 0 || ncalls == 0 {
		dst = append(dst, `,"content":`...)
		dst = appendChatContent(dst, texts)
	}
	if ncalls > 0 {
		dst = append(dst, `,"tool_calls":[`...)
		n := 0
		for _, p := range parts {
			c, ok := p.(llm.ToolCall)
			if !ok {
				continue
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = append(dst, `{"id":`...)
			dst, _ = llm.AppendJSONString(dst, c.ID)
			dst = append(dst, `,"type":"function","function":{"name":`...)
			dst, _ = llm.AppendJSONString(dst, c.Name)
			dst = append(dst, `,"arguments":`...)
			dst = appendArguments(dst, c.Input)
			dst = append(dst, "}}"...)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendArguments writes a call's input as the arguments string: verbatim,
// "{}" when there is none.
func appendArguments(dst []byte, input []byte) []byte {
	if input == nil {
		return append(dst, `"{}"`...)
	}
	dst, _ = llm.AppendJSONString(dst, string(input))
	return dst
}

// appendChatToolMessage writes one tool message; the result holds only
// text by now.
func appendChatToolMessage(dst []byte, r llm.ToolResult) []byte {
	dst = append(dst, `{"role":"tool"`...)
	if r.CallID != "" {
		dst = append(dst, `,"tool_call_id":`...)
		dst, _ = llm.AppendJSONString(dst, r.CallID)
	}
	dst = append(dst, `,"content":`...)
	var texts []llm.Part
	for _, p := range r.Content {
		if t, ok := p.(llm.Text); ok {
			texts = append(texts, t)
		}
	}
	dst = appendChatContent(dst, texts)
	return append(dst, '}')
}

func checkParameters(t llm.ToolSpec) error {
	if t.Parameters == nil {
		return nil
	}
	b, err := parseBody(t.Parameters, "")
	if err != nil {
		return fmt.Errorf("tool %q: parameters are not valid JSON: %w", t.Name, err)
	}
	if k := b.t.Kind(b.t.Root()); k != jsontree.Object {
		return fmt.Errorf("tool %q: parameters must be a JSON Schema object, got %s", t.Name, k.Phrase())
	}
	return nil
}

// appendChatTool writes a function tool definition.
func appendChatTool(dst []byte, t llm.ToolSpec) []byte {
	dst = append(dst, `{"type":"function","function":{"name":`...)
	dst, _ = llm.AppendJSONString(dst, t.Name)
	if t.Description != "" {
		dst = append(dst, `,"description":`...)
		dst, _ = llm.AppendJSONString(dst, t.Description)
	}
	if t.Parameters != nil {
		dst = append(dst, `,"parameters":`...)
		dst = appendParameters(dst, t.Parameters)
	}
	if t.Strict {
		dst = append(dst, `,"strict":true`...)
	}
	return append(dst, "}}"...)
}
