package openai

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/toolwire/toolwire/llm"
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
// not valid JSON. "developer" messages decode as system messages.
//
// Errors are [*DecodeError]s naming the exact path:
// "messages.3.tool_calls.0.function.arguments: want a string, got an object".
// A body that breaks an OpenAI rule is not a decode error: it decodes,
// transcript.Check reports the breaches the llm form can express, and Wire
// lists the others. Errors are for bodies that are not Chat Completions
// requests at all (wrong types, missing ids, invalid JSON).
func DecodeChat(body []byte) (*ChatRequest, error) {
	d := &chatDecoder{r: reader{b: body}, names: make(map[string]string)}
	req := &ChatRequest{}
	d.req = req
	switch c := d.r.peek(); c {
	case '[':
		req.Bare = true
		d.r.push("messages") // paths are the same as in a full body
		if err := d.messages(); err != nil {
			return nil, err
		}
		d.r.pop()
	case '{':
		hasMessages := false
		hasInput := false
		err := d.r.object(func(key []byte) error {
			switch string(key) {
			case "messages":
				hasMessages = true
				req.order = append(req.order, "messages")
				d.r.push("messages")
				defer d.r.pop()
				return d.messages()
			case "tools":
				req.order = append(req.order, "tools")
				if d.r.null() {
					return nil
				}
				d.r.push("tools")
				defer d.r.pop()
				return d.tools()
			}
			if string(key) == "input" {
				hasInput = true
			}
			k := string(key)
			req.order = append(req.order, k)
			d.r.push(k)
			defer d.r.pop()
			v, err := d.r.compact(nil)
			if err != nil {
				return err
			}
			req.Fields = append(req.Fields, Field{Key: k, Value: v})
			return nil
		})
		if err != nil {
			return nil, err
		}
		if !hasMessages {
			hint := ""
			if hasInput {
				hint = "; the body has \"input\": it looks like a Responses request (use DecodeResponses)"
			}
			return nil, &DecodeError{Path: "messages", Err: fmt.Errorf("missing: a Chat Completions request body needs a messages array%s", hint)}
		}
	case 0:
		return nil, &DecodeError{Err: fmt.Errorf("empty input: want a Chat Completions request body or a messages array")}
	default:
		if kindName(c) == "invalid JSON" {
			return nil, d.r.syntaxf("want a value, found %s", d.r.found())
		}
		return nil, &DecodeError{Err: fmt.Errorf("want a Chat Completions request body (an object) or a messages array, got %s", kindName(c))}
	}
	if err := d.r.end(); err != nil {
		return nil, err
	}
	if err := d.finish(); err != nil {
		return nil, err
	}
	return req, nil
}

type chatDecoder struct {
	r         reader
	req       *ChatRequest
	wires     []chatWire
	names     map[string]string // call id → tool name, for results
	sawSystem bool
}

// wireKind is what a decoded wire message maps to.
type wireKind uint8

const (
	wSystem wireKind = iota
	wUser
	wAssistant
	wTool
	wOpaque
)

// chatWire is one decoded wire message.
type chatWire struct {
	kind       wireKind
	parts      []llm.Part     // system, user, assistant
	result     llm.ToolResult // tool
	start, end int            // its bytes in the body
	keepRaw    bool           // the body says more than the llm form
	patch      []keyPatch     // fixes for Wire violations, applied to the kept original
	kept       []int          // body indices of the parts the llm form holds, when some were skipped
}

// chatPart is a content part before the message's role is known.
type chatPart struct {
	typ      string
	text     string
	hasText  bool
	textKind byte // first byte of a text value that is not a string
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

func (d *chatDecoder) messages() error {
	return d.r.array(func(i int) error {
		d.r.pushIdx(i)
		defer d.r.pop()
		return d.message(i)
	})
}

func (d *chatDecoder) message(i int) error {
	start := d.r.i
	var m chatMsg
	err := d.r.object(func(key []byte) error {
		switch string(key) {
		case "role":
			d.r.push("role")
			defer d.r.pop()
			s, err := d.r.str()
			m.role, m.hasRole = s, true
			return err
		case "content":
			d.r.push("content")
			defer d.r.pop()
			return d.content(&m)
		case "tool_calls":
			if d.r.null() {
				return nil
			}
			m.callsGiven = true
			d.r.push("tool_calls")
			defer d.r.pop()
			m.calls = []chatCall{}
			return d.r.array(func(n int) error {
				d.r.pushIdx(n)
				defer d.r.pop()
				c, err := d.toolCall()
				m.calls = append(m.calls, c)
				return err
			})
		case "tool_call_id":
			if d.r.null() {
				return nil
			}
			d.r.push("tool_call_id")
			defer d.r.pop()
			s, err := d.r.str()
			m.toolCallID, m.hasCallID = s, true
			return err
		}
		k := string(key)
		d.r.push(k)
		defer d.r.pop()
		noted, quiet, err := d.r.extra()
		if noted {
			m.extra = append(m.extra, k)
		}
		m.quiet = m.quiet || quiet
		return err
	})
	if err != nil {
		return err
	}
	end := d.r.i
	if !m.hasRole {
		return &DecodeError{Path: d.r.pathString() + ".role", Offset: start, Err: fmt.Errorf("missing (want system, developer, user, assistant or tool)")}
	}
	w := chatWire{start: start, end: end, keepRaw: m.quiet}
	path := "messages." + strconv.Itoa(i)
	for _, k := range m.extra {
		w.keepRaw = true
		d.note(path+"."+k, fmt.Sprintf("the %q field of %s message is not part of the llm form", k, an(m.role)))
	}
	switch m.role {
	case "system", "developer":
		w.kind = wSystem
		role := SystemRole(m.role)
		if !d.sawSystem {
			d.sawSystem = true
			d.req.SystemRole = role
		} else if role.wire() != d.req.SystemRole.wire() {
			w.keepRaw = true
			d.note(path+".role", fmt.Sprintf("this body mixes system and developer messages; the llm form has one system role, and this message is written back as %q only while unchanged", m.role))
		}
		if err := d.textContent(&w, &m, path, false); err != nil {
			return err
		}
	case "user":
		w.kind = wUser
		if err := d.textContent(&w, &m, path, true); err != nil {
			return err
		}
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

func (r *reader) errorAt(offset int, format string, args ...any) error {
	return &DecodeError{Path: r.pathString(), Offset: offset, Err: fmt.Errorf(format, args...)}
}

func (d *chatDecoder) note(path, msg string) {
	d.req.Unmodeled = append(d.req.Unmodeled, transcript.Warning{Path: path,
		Message: msg + "; kept when the message is re-encoded unchanged as Chat Completions, lost otherwise"})
}

func (d *chatDecoder) violation(rule, path, msg, providerErr string) {
	d.req.Wire = append(d.req.Wire, transcript.Violation{Rule: rule, Path: path, Message: msg, ProviderError: providerErr})
}

// content reads a message's content in any of its shapes.
func (d *chatDecoder) content(m *chatMsg) error {
	switch d.r.peek() {
	case 'n':
		if d.r.null() {
			m.content = contentNull
			return nil
		}
	case '"':
		s, err := d.r.str()
		m.content, m.str = contentString, s
		return err
	case '[':
		m.content = contentArray
		m.parts = []chatPart{}
		return d.r.array(func(j int) error {
			d.r.pushIdx(j)
			defer d.r.pop()
			p, err := d.part()
			m.parts = append(m.parts, p)
			return err
		})
	}
	return d.r.want("a string, an array of content parts or null")
}

// part reads one content part of any type.
func (d *chatDecoder) part() (chatPart, error) {
	var p chatPart
	hasType := false
	start := d.r.i
	err := d.r.object(func(key []byte) error {
		switch string(key) {
		case "type":
			d.r.push("type")
			defer d.r.pop()
			s, err := d.r.str()
			p.typ, hasType = s, true
			return err
		case "text":
			if d.r.peek() == '"' {
				s, err := d.r.str()
				p.text, p.hasText = s, true
				return err
			}
			p.textKind = d.r.peek()
		case "image_url":
			if d.r.peek() == '{' {
				d.r.push("image_url")
				defer d.r.pop()
				p.hasImage = true
				return d.r.object(func(k []byte) error {
					switch string(k) {
					case "url":
						d.r.push("url")
						defer d.r.pop()
						s, err := d.r.str()
						p.url = s
						return err
					case "detail":
						if d.r.null() {
							return nil
						}
						d.r.push("detail")
						defer d.r.pop()
						s, err := d.r.str()
						p.detail = s
						return err
					}
					k2 := "image_url." + string(k)
					if !d.r.null() {
						p.extra = append(p.extra, k2)
						return d.r.skip()
					}
					return nil
				})
			}
		}
		k := string(key)
		if d.r.null() {
			return nil
		}
		p.extra = append(p.extra, k)
		d.r.push(k)
		defer d.r.pop()
		return d.r.skip()
	})
	if err != nil {
		return p, err
	}
	if !hasType {
		return p, d.r.errorAt(start, "content part without a type (want text, image_url, ...)")
	}
	switch p.typ {
	case "text":
		if !p.hasText {
			return p, textError(d.r.pathString(), start, p.textKind)
		}
	case "image_url":
		if !p.hasImage {
			return p, d.r.errorAt(start, "image_url part without an image_url object")
		}
		if p.url == "" {
			return p, d.r.errorAt(start, "image_url part without a url")
		}
	}
	return p, nil
}

// textError reports a text part whose text is missing or not a string.
func textError(path string, offset int, kind byte) error {
	if kind == 0 {
		return &DecodeError{Path: path + ".text", Offset: offset, Err: fmt.Errorf("missing: a text part needs a text string")}
	}
	return &DecodeError{Path: path + ".text", Offset: offset, Err: fmt.Errorf("want a string, got %s", kindName(kind))}
}

// textContent maps the content of a system or user message.
func (d *chatDecoder) textContent(w *chatWire, m *chatMsg, path string, images bool) error {
	switch m.content {
	case contentAbsent, contentNull:
		d.nullContent(w, m, path)
	case contentString:
		if m.str != "" {
			w.parts = []llm.Part{llm.Text{Text: m.str}}
		}
	case contentArray:
		for j, p := range m.parts {
			pp := path + ".content." + strconv.Itoa(j)
			if part, ok := d.mapPart(w, p, pp, m.role, images); ok {
				w.parts = append(w.parts, part)
				w.kept = append(w.kept, j)
			}
		}
		if len(w.kept) == len(m.parts) {
			w.kept = nil
		}
	}
	return nil
}

func (d *chatDecoder) nullContent(w *chatWire, m *chatMsg, path string) {
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
func (d *chatDecoder) mapPart(w *chatWire, p chatPart, path, role string, images bool) (llm.Part, bool) {
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
func (d *chatDecoder) toolCall() (chatCall, error) {
	var c chatCall
	start := d.r.i
	fn := func(name, arg string) error {
		return d.r.object(func(k []byte) error {
			switch string(k) {
			case "name":
				d.r.push("name")
				defer d.r.pop()
				s, err := d.r.str()
				c.name, c.hasName = s, true
				return err
			case arg:
				d.r.push(arg)
				defer d.r.pop()
				s, err := d.r.str()
				c.args, c.hasArgs = s, true
				return err
			}
			k2 := name + "." + string(k)
			if !d.r.null() {
				c.extra = append(c.extra, k2)
				return d.r.skip()
			}
			return nil
		})
	}
	err := d.r.object(func(key []byte) error {
		switch string(key) {
		case "id":
			d.r.push("id")
			defer d.r.pop()
			s, err := d.r.str()
			c.id, c.hasID = s, true
			return err
		case "type":
			d.r.push("type")
			defer d.r.pop()
			s, err := d.r.str()
			c.typ = s
			return err
		case "function":
			d.r.push("function")
			defer d.r.pop()
			c.hasFunction = true
			return fn("function", "arguments")
		case "custom":
			d.r.push("custom")
			defer d.r.pop()
			c.hasCustom = true
			return fn("custom", "input")
		}
		k := string(key)
		if d.r.null() {
			return nil
		}
		c.extra = append(c.extra, k)
		d.r.push(k)
		defer d.r.pop()
		return d.r.skip()
	})
	if err != nil {
		return c, err
	}
	if c.typ == "" {
		c.typ = "function"
	}
	want := func(what string) error { return d.r.errorAt(start, "%s", what) }
	switch c.typ {
	case "function":
		if !c.hasFunction {
			return c, want("missing function (a function tool call needs {\"name\", \"arguments\"})")
		}
		if !c.hasArgs {
			return c, &DecodeError{Path: d.r.pathString() + ".function.arguments", Offset: start,
				Err: fmt.Errorf("missing (arguments is a JSON string; send \"{}\" for a call without arguments)")}
		}
	case "custom":
		if !c.hasCustom {
			return c, want("missing custom (a custom tool call needs {\"name\", \"input\"})")
		}
		if !c.hasArgs {
			return c, &DecodeError{Path: d.r.pathString() + ".custom.input", Offset: start, Err: fmt.Errorf("missing")}
		}
	default:
		return c, &DecodeError{Path: d.r.pathString() + ".type", Offset: start,
			Err: fmt.Errorf("unknown tool call type %q (want function or custom)", c.typ)}
	}
	if !c.hasID {
		return c, &DecodeError{Path: d.r.pathString() + ".id", Offset: start, Err: fmt.Errorf("missing: a tool call needs an id")}
	}
	if !c.hasName {
		return c, &DecodeError{Path: d.r.pathString() + "." + c.typ + ".name", Offset: start, Err: fmt.Errorf("missing: a tool call needs a name")}
	}
	return c, nil
}

func (d *chatDecoder) assistant(w *chatWire, m *chatMsg, path string, i int) error {
	switch m.content {
	case contentAbsent, contentNull:
		if len(m.calls) == 0 && !slices.Contains(m.extra, "function_call") {
			d.nullContent(w, m, path)
		}
	case contentString:
		if m.str != "" {
			w.parts = append(w.parts, llm.Text{Text: m.str})
		}
	case contentArray:
		for j, p := range m.parts {
			pp := path + ".content." + strconv.Itoa(j)
			if part, ok := d.mapPart(w, p, pp, m.role, false); ok {
				w.parts = append(w.parts, part)
				w.kept = append(w.kept, j)
			}
		}
		if len(w.kept) == len(m.parts) {
			w.kept = nil
		}
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
		input := []byte(c.args)
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

func (d *chatDecoder) tool(w *chatWire, m *chatMsg, path string, i int) error {
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
		for j, p := range m.parts {
			pp := path + ".content." + strconv.Itoa(j)
			if part, ok := d.mapPart(w, p, pp, m.role, true); ok {
				res.Content = append(res.Content, part)
				w.kept = append(w.kept, j)
			}
		}
		if len(w.kept) == len(m.parts) {
			w.kept = nil
		}
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

// tools reads the tools array: function tools become llm.ToolSpecs, others
// are kept.
func (d *chatDecoder) tools() error {
	var kb keepBuilder
	err := d.r.array(func(k int) error {
		d.r.pushIdx(k)
		defer d.r.pop()
		start := d.r.i
		spec, isFunc, extra, err := d.tool1(k)
		if err != nil {
			return err
		}
		raw := d.r.b[start:d.r.i]
		path := "tools." + strconv.Itoa(k)
		if !isFunc {
			c, err := compactJSON(raw)
			if err != nil {
				return err
			}
			kb.opaque(c)
			d.req.Unmodeled = append(d.req.Unmodeled, transcript.Warning{Path: path,
				Message: "a tool that is not a function tool is not part of the llm form; kept when re-encoding as Chat Completions, lost otherwise"})
			return nil
		}
		d.req.Tools = append(d.req.Tools, spec)
		canon := appendChatTool(nil, spec)
		var keepRaw []byte
		if len(extra) > 0 {
			for _, x := range extra {
				d.req.Unmodeled = append(d.req.Unmodeled, transcript.Warning{Path: path + "." + x,
					Message: fmt.Sprintf("the %q field of a tool is not part of the llm form; kept when the tool is re-encoded unchanged as Chat Completions, lost otherwise", x)})
			}
			keepRaw, _ = compactJSON(raw)
		}
		kb.add(canon, keepRaw)
		return nil
	})
	if err != nil {
		return err
	}
	d.req.toolKeep = kb.build()
	return nil
}

// tool1 reads one tool definition.
func (d *chatDecoder) tool1(k int) (spec llm.ToolSpec, isFunc bool, extra []string, err error) {
	start := d.r.i
	typ := ""
	hasFn := false
	hasName := false
	err = d.r.object(func(key []byte) error {
		switch string(key) {
		case "type":
			d.r.push("type")
			defer d.r.pop()
			s, err := d.r.str()
			typ = s
			return err
		case "function":
			hasFn = true
			d.r.push("function")
			defer d.r.pop()
			return d.r.object(func(fk []byte) error {
				switch string(fk) {
				case "name":
					d.r.push("name")
					defer d.r.pop()
					s, err := d.r.str()
					spec.Name, hasName = s, true
					return err
				case "description":
					if d.r.null() {
						return nil
					}
					d.r.push("description")
					defer d.r.pop()
					s, err := d.r.str()
					spec.Description = s
					return err
				case "parameters":
					if d.r.null() {
						return nil
					}
					d.r.push("parameters")
					defer d.r.pop()
					if d.r.peek() != '{' {
						return d.r.want("a JSON Schema object")
					}
					v, err := d.r.compact(nil)
					spec.Parameters = v
					return err
				case "strict":
					if d.r.null() {
						return nil
					}
					d.r.push("strict")
					defer d.r.pop()
					b, err := d.r.boolean()
					spec.Strict = b
					return err
				}
				if !d.r.null() {
					extra = append(extra, "function."+string(fk))
					return d.r.skip()
				}
				return nil
			})
		}
		if !d.r.null() {
			extra = append(extra, string(key))
			return d.r.skip()
		}
		return nil
	})
	if err != nil {
		return spec, false, nil, err
	}
	if typ == "" {
		return spec, false, nil, d.r.errorAt(start, "tool without a type (want \"function\")")
	}
	if typ != "function" {
		return spec, false, nil, nil
	}
	if !hasFn {
		return spec, false, nil, d.r.errorAt(start, "function tool without a function object")
	}
	if !hasName {
		return spec, false, nil, &DecodeError{Path: d.r.pathString() + ".function.name", Offset: start, Err: fmt.Errorf("missing: a function tool needs a name")}
	}
	return spec, true, extra, nil
}

// finish assembles the llm messages from the wire messages and files what
// must be kept.
func (d *chatDecoder) finish() error {
	req := d.req
	var kb keepBuilder
	needKeep := false
	for _, w := range d.wires {
		if w.keepRaw || w.kind == wOpaque {
			needKeep = true
			break
		}
	}
	var scratch []byte
	req.paths.array = "messages"
	for bi, w := range d.wires {
		if w.kind != wOpaque {
			req.paths.record(bi, w.kept, "content")
		}
		switch w.kind {
		case wOpaque:
			raw, err := compactJSON(d.r.b[w.start:w.end])
			if err != nil {
				return err
			}
			kb.opaque(raw)
			continue
		case wTool:
			if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == llm.RoleTool {
				req.Messages[n-1].Parts = append(req.Messages[n-1].Parts, w.result)
			} else {
				req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, Parts: []llm.Part{w.result}})
			}
		default:
			role := [...]llm.Role{wSystem: llm.RoleSystem, wUser: llm.RoleUser, wAssistant: llm.RoleAssistant}[w.kind]
			req.Messages = append(req.Messages, llm.Message{Role: role, Parts: w.parts})
		}
		if !needKeep {
			continue
		}
		scratch = scratch[:0]
		switch w.kind {
		case wSystem:
			scratch = appendChatText(scratch, req.SystemRole.wire(), w.parts)
		case wUser:
			scratch = appendChatText(scratch, "user", w.parts)
		case wAssistant:
			scratch = appendChatAssistant(scratch, w.parts)
		case wTool:
			res, _ := splitToolImages(w.result)
			scratch = appendChatToolMessage(scratch, res)
		}
		canon := append([]byte(nil), scratch...)
		var raw []byte
		if w.keepRaw {
			var err error
			if raw, err = compactPatched(d.r.b[w.start:w.end], w.patch); err != nil {
				return err
			}
		}
		kb.add(canon, raw)
	}
	req.msgKeep = kb.build()
	req.paths.done()
	return nil
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
// EncodeChat does not modify r: a request may be encoded any number of
// times, concurrently.
func EncodeChat(r *ChatRequest) ([]byte, []transcript.Warning, error) {
	if r == nil {
		return nil, nil, errors.New("openai: EncodeChat: nil request")
	}
	e := &chatEncoder{req: r}
	if r.Bare {
		if len(r.Tools) > 0 || r.toolKeep != nil {
			e.warn("tools", "a bare messages array has no place for tools; they are left out")
		}
		if len(r.Fields) > 0 {
			e.warn("", "a bare messages array has no place for the other fields (model, ...); they are left out")
		}
		dst, err := e.messages(make([]byte, 0, e.sizeHint()))
		if err != nil {
			return nil, nil, err
		}
		return dst, e.warnings, nil
	}
	order := r.order
	dst, err := appendTopLevel(make([]byte, 0, e.sizeHint()), order, r.Fields, []string{"messages", "tools"},
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
				return e.tools(dst)
			}
			return dst, nil
		})
	if err != nil {
		return nil, nil, err
	}
	return dst, e.warnings, nil
}

type chatEncoder struct {
	req      *ChatRequest
	warnings []transcript.Warning
	out      int // index of the next wire message
}

func (e *chatEncoder) warn(path, msg string) {
	e.warnings = append(e.warnings, transcript.Warning{Path: path, Message: msg})
}

func (e *chatEncoder) sizeHint() int {
	n := 256
	for _, m := range e.req.Messages {
		n += 48
		for _, p := range m.Parts {
			n += partSize(p)
		}
	}
	return n
}

func partSize(p llm.Part) int {
	switch p := p.(type) {
	case llm.Text:
		return 24 + len(p.Text) + len(p.Text)/8
	case llm.Image:
		return 64 + len(p.URL) + len(p.Data)*4/3
	case llm.ToolCall:
		return 96 + len(p.ID) + len(p.Name) + len(p.Input)*5/4
	case llm.ToolResult:
		n := 64 + len(p.CallID)
		for _, q := range p.Content {
			n += partSize(q)
		}
		return n
	case llm.Reasoning:
		return 64 + len(p.Data)
	}
	return 0
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

func (e *chatEncoder) outPath() string { return "messages." + strconv.Itoa(e.out) }

// placement returns the error for a part in a message whose role may not
// hold it.
func placement(i, j int, role llm.Role, p llm.Part) error {
	return fmt.Errorf("openai: messages[%d].parts[%d]: %s part cannot be in %s message (llm placement rules)", i, j, an(partName(p)), an(string(role)))
}

func partName(p llm.Part) string {
	switch p.(type) {
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
	case nil:
		return "nil"
	}
	return fmt.Sprintf("%T", p)
}

func (e *chatEncoder) message(w *arrayWriter, i int, m llm.Message) error {
	switch m.Role {
	case llm.RoleSystem, llm.RoleUser:
		var parts []llm.Part
		for j, p := range m.Parts {
			switch p := p.(type) {
			case llm.Text:
				parts = append(parts, p)
			case llm.Image:
				if m.Role == llm.RoleSystem {
					e.warn(e.outPath(), "a system message cannot hold an image; it is left out")
					continue
				}
				if why := imageProblem(p); why != "" {
					e.warn(e.outPath(), why+"; it is left out")
					continue
				}
				parts = append(parts, p)
			default:
				return placement(i, j, m.Role, p)
			}
		}
		role := "user"
		if m.Role == llm.RoleSystem {
			role = e.req.SystemRole.wire()
		}
		start := w.begin()
		w.dst = appendChatText(w.dst, role, parts)
		w.done(start)
		e.out++
	case llm.RoleAssistant:
		parts := make([]llm.Part, 0, len(m.Parts))
		sawCall := false
		for j, p := range m.Parts {
			switch p := p.(type) {
			case llm.Text:
				if sawCall {
					e.warn(e.outPath(), "Chat Completions puts an assistant's text before its tool calls; text that followed a call is moved before the calls")
				}
				parts = append(parts, p)
			case llm.ToolCall:
				sawCall = true
				parts = append(parts, p)
			case llm.Reasoning:
				e.warn(e.outPath(), fmt.Sprintf("Chat Completions has no reasoning blocks; %s reasoning is dropped", providerName(p.Provider)))
			case llm.Image:
				e.warn(e.outPath(), "an assistant message cannot hold an image in Chat Completions; it is left out")
			default:
				return placement(i, j, m.Role, p)
			}
		}
		start := w.begin()
		w.dst = appendChatAssistant(w.dst, parts)
		w.done(start)
		e.out++
	case llm.RoleTool:
		var trailing []llm.Part
		var moved []llm.Part
		for j, p := range m.Parts {
			switch p := p.(type) {
			case llm.ToolResult:
				res, imgs, err := e.splitResult(i, j, p)
				if err != nil {
					return err
				}
				if len(trailing) > 0 {
					e.warn(e.outPath(), "text or images between tool results are moved after the results")
				}
				if len(imgs) > 0 {
					e.warn(e.outPath(), fmt.Sprintf("a Chat Completions tool message cannot hold images (OAI-CC-TOOL-IMAGE); the %d image(s) of the result of call %q move into a user message after the tool messages", len(imgs), p.CallID))
					label := fmt.Sprintf("Image(s) returned by the call %s", p.CallID)
					if p.Name != "" {
						label += " (" + p.Name + ")"
					}
					moved = append(moved, llm.Text{Text: label + ":"})
					moved = append(moved, imgs...)
				}
				if wr := statusWarning(e.outPath(), res); wr != nil {
					e.warnings = append(e.warnings, *wr)
				}
				start := w.begin()
				w.dst = appendChatToolMessage(w.dst, res)
				w.done(start)
				e.out++
			case llm.Text:
				trailing = append(trailing, p)
			case llm.Image:
				if why := imageProblem(p); why != "" {
					e.warn(e.outPath(), why+"; it is left out")
					continue
				}
				trailing = append(trailing, p)
			default:
				return placement(i, j, m.Role, p)
			}
		}
		if extra := append(moved, trailing...); len(extra) > 0 {
			start := w.begin()
			w.dst = appendChatText(w.dst, "user", extra)
			w.done(start)
			e.out++
		}
	default:
		return fmt.Errorf("openai: messages[%d]: unknown role %q", i, m.Role)
	}
	return nil
}

// splitResult checks a result's content and separates its images.
func (e *chatEncoder) splitResult(i, j int, r llm.ToolResult) (llm.ToolResult, []llm.Part, error) {
	ok := make([]llm.Part, 0, len(r.Content))
	for k, p := range r.Content {
		switch p := p.(type) {
		case llm.Text:
			ok = append(ok, p)
		case llm.Image:
			if why := imageProblem(p); why != "" {
				e.warn(e.outPath(), why+"; it is left out")
				continue
			}
			ok = append(ok, p)
		default:
			return r, nil, fmt.Errorf("openai: messages[%d].parts[%d].content[%d]: a tool result can hold only text and images, not a %s", i, j, k, partName(p))
		}
	}
	r.Content = ok
	res, imgs := splitToolImages(r)
	return res, imgs, nil
}

func providerName(p string) string {
	if p == "" {
		return "unattributed"
	}
	return strconv.Quote(p)
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

func (e *chatEncoder) tools(dst []byte) ([]byte, error) {
	w := newArrayWriter(append(dst, '['), e.req.toolKeep)
	for k, t := range e.req.Tools {
		if err := checkParameters(t); err != nil {
			return nil, fmt.Errorf("openai: tools[%d]: %w", k, err)
		}
		start := w.begin()
		w.dst = appendChatTool(w.dst, t)
		w.done(start)
	}
	dst = w.finish(true)
	return append(dst, ']'), nil
}

func checkParameters(t llm.ToolSpec) error {
	if t.Parameters == nil {
		return nil
	}
	r := reader{b: t.Parameters}
	if r.peek() != '{' {
		return fmt.Errorf("tool %q: parameters must be a JSON Schema object, got %s", t.Name, kindName(r.peek()))
	}
	if _, err := compactJSON(t.Parameters); err != nil {
		return fmt.Errorf("tool %q: parameters are not valid JSON: %w", t.Name, err)
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
		r := reader{b: t.Parameters}
		dst, _ = r.compact(dst)
	}
	if t.Strict {
		dst = append(dst, `,"strict":true`...)
	}
	return append(dst, "}}"...)
}
