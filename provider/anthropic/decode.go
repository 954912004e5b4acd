package anthropic

import (
	"encoding/base64"
	"errors"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// Decode reads a Messages API request body, or a bare array of messages.
// Errors are [*llm.DecodeError]s (Op "anthropic") that name the dotted path
// of the offending value, such as "messages.2.content.1.tool_use_id: want a
// string, got a number", and for a body that is not JSON the line, the
// column and the byte offset; in a bare array too, paths are those of a
// full body, as in Wire, Unmodeled and transcript's violations. Decode
// never panics, whatever the input. The Request does not alias body.
func Decode(body []byte) (*Request, error) { return DecodeShared(clone(body)) }

// DecodeShared is [Decode] for a caller that keeps body unchanged while the
// Request is in use: the Request aliases body rather than a copy of it,
// which saves the size of the body in memory.
func DecodeShared(body []byte) (*Request, error) { return decode(body, nil) }

// DecodeAfter decodes body, a request body (or a bare messages array)
// whose messages array holds only what follows the messages of prev's
// body: those stand before them, and the request holds all of them, with
// the paths (BodyPath, Wire, Unmodeled) of the array they are all in. It
// is [DecodeShared] for a body that repeats the messages of one decoded
// before and adds to them, as each request of a conversation does, at the
// cost of decoding what it adds: a caller that has seen the repeated bytes
// are the same (a gateway) cuts them out of the array (its first element
// is then the first new one, or it is empty). prev is read, not changed,
// and must be as a Decode function returned it; the request aliases prev,
// as it does body.
func DecodeAfter(prev *Request, body []byte) (*Request, error) {
	if prev == nil || prev.hist == nil {
		return nil, &llm.DecodeError{Op: "anthropic", Style: llm.Dotted, Offset: -1,
			Err: errors.New("DecodeAfter: the previous request was not decoded from a body with a messages array")}
	}
	return decode(body, prev.hist)
}

// decode decodes body; its messages array follows those of prev when prev
// is not nil.
func decode(body []byte, prev *history) (*Request, error) {
	r := &Request{src: &source{}}
	d := decoder{r: r, names: make(map[string]string), prev: prev}
	err := codec.Decode(codec.Dialect{Op: "anthropic", Name: "Anthropic", Bare: "messages", Notes: &r.Unmodeled,
		Want: "a request body (an object) or a messages array"}, body,
		func(rd *codec.Reader) error { r.Bare = true; return d.messages(rd) },
		d.body)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// clone returns a copy of b.
func clone(b []byte) []byte { return append([]byte(nil), b...) }

type decoder struct {
	r     *Request
	names map[string]string // tool_use id → tool name, for results
	prev  *history          // the messages the body's array follows, or nil
}

// extras returns the members of o whose keys are not in modeled, and notes
// each but a "type" in Unmodeled.
func extras(r *codec.Reader, o *codec.Object, modeled ...string) []codec.Member {
	var out []codec.Member
next:
	for _, m := range o.Members {
		for _, k := range modeled {
			if m.Key == k {
				continue next
			}
		}
		if m.Key == "type" {
			out = append(out, m.Kept())
			continue
		}
		out = append(out, r.Extra(m))
	}
	return out
}

// body reads the request body at rd member by member, messages as they
// come (the most of a body, read once), system and tools after them, in
// the order of the errors a body can have: a thinking that is not an
// object, no messages, then what is wrong in system, in messages and in
// tools, in that order, whatever the order of the fields.
func (d *decoder) body(rd *codec.Reader) error {
	r := d.r
	var system, tools, thinking []byte
	hasMessages, hasMaxTokens := false, false
	var messagesErr error
	err := rd.Object(func(key string) error {
		var err error
		switch key {
		case "system":
			system, err = rd.Value()
		case "messages":
			hasMessages = true
			if messagesErr = d.messages(rd); codec.IsSyntax(messagesErr) {
				err = messagesErr
			}
		case "tools":
			tools, err = rd.Value()
		default:
			v, err := rd.Raw()
			r.Fields = append(r.Fields, Field{Key: key, Value: v})
			switch key {
			case "thinking":
				thinking = v
			case "max_tokens":
				hasMaxTokens = true
			}
			return err
		}
		r.Fields = append(r.Fields, Field{Key: key})
		return err
	})
	if err != nil {
		return rd.WholeSyntax(err)
	}
	if thinking != nil {
		if codec.Kind(thinking) != '{' {
			return rd.WantAt("thinking", thinking, "an object")
		}
		if ty, _ := codec.String(codec.Get(thinking, "type")); ty == "enabled" {
			r.Thinking = true
		}
	}
	if !hasMessages {
		return rd.Missing("messages", `a Messages API request body has a "messages" array`)
	}
	if system != nil {
		at := codec.Decoded{Messages: len(r.Messages), Blocks: len(r.src.blocks), Notes: len(r.Unmodeled)}
		if err := d.system(rd.Enter("system", system)); err != nil {
			return err
		}
		codec.SystemFirst(at, &r.Messages, &r.src.msgs, &r.src.blocks, &r.Unmodeled)
	}
	if messagesErr != nil {
		return messagesErr
	}
	if tools != nil {
		if err := d.tools(rd.Enter("tools", tools)); err != nil {
			return err
		}
	}
	if !hasMaxTokens {
		r.Wire = append(r.Wire, transcript.Violation{Rule: "ANT-MAX-TOKENS", Path: "max_tokens",
			Message:       `the request body has no "max_tokens"; the Messages API requires it (the most tokens the reply may have): add one, such as "max_tokens": 4096`,
			ProviderError: "max_tokens: Field required"})
	}
	return nil
}

// system decodes the top-level system field into one system message.
func (d *decoder) system(rd *codec.Reader) error {
	src := d.r.src
	first := int32(len(src.blocks))
	var raw []byte
	switch rd.Kind() {
	case '"':
		v, err := rd.Raw()
		if err != nil {
			return err
		}
		s, _ := codec.String(v)
		src.blocks = append(src.blocks, block{part: llm.Text{Text: s}, raw: v, str: true})
		raw = v
	case '[':
		var err error
		err = rd.Array(func(int) error {
			b, err := d.block(rd, inSystemField)
			if err != nil {
				return err
			}
			src.blocks = append(src.blocks, b)
			return nil
		})
		raw = rd.Span()
		if err != nil {
			return err
		}
	default:
		return rd.Want("a string or an array of text blocks")
	}
	d.addMessage(llm.RoleSystem, raw, first)
	src.leadSys = 1
	return nil
}

// addMessage appends the llm message made of the blocks from first on;
// raw is the wire message.
func (d *decoder) addMessage(role llm.Role, raw []byte, first int32) {
	src := d.r.src
	blocks := src.blocks[first:]
	parts := make([]llm.Part, len(blocks))
	for j, b := range blocks {
		parts[j] = b.part
		if _, ok := b.part.(llm.ToolResult); ok && role == llm.RoleUser {
			role = llm.RoleTool
		}
	}
	d.r.Messages = append(d.r.Messages, llm.Message{Role: role, Parts: parts})
	src.msgs = append(src.msgs, codec.Msg{Raw: raw, First: first, Count: int32(len(blocks)), Role: role})
}

func (d *decoder) messages(rd *codec.Reader) error {
	if rd.Kind() != '[' {
		return rd.Want("an array of messages")
	}
	wire, notes := len(d.r.Wire), len(d.r.Unmodeled)
	leading, first := true, 0
	if h := d.prev; h != nil {
		leading, first = d.resume(h)
	}
	n := first
	err := rd.ArrayFrom(first, func(i int) error {
		n = i + 1
		msg, err := rd.ReadObjectOf("a message object")
		if err != nil {
			return err
		}
		var roleVal, content []byte
		for _, m := range msg.Members {
			switch m.Key {
			case "role":
				roleVal = m.Val
			case "content":
				content = m.Val
			default:
				return rd.ErrorAt(m.Key, "unknown field (a message has role and content)")
			}
		}
		if roleVal == nil {
			return rd.Missing("role", `"user" or "assistant"`)
		}
		name, err := rd.StrAt("role", roleVal)
		if err != nil {
			return err
		}
		var role llm.Role
		switch name {
		case "user":
			role = llm.RoleUser
		case "assistant":
			role = llm.RoleAssistant
		case "system":
			role = llm.RoleSystem
		default:
			return rd.ErrorAt("role", `unknown role %q (want "user" or "assistant")`, name)
		}
		if content == nil {
			return rd.Missing("content", "a string or an array of content blocks")
		}
		if role == llm.RoleSystem && leading {
			d.r.Wire = append(d.r.Wire, transcript.Violation{
				Rule: "ANT-SYSTEM-ROLE", Path: rd.PathString(),
				Message:       `a message with role "system" before the first user or assistant message; the Messages API takes the system prompt in the top-level "system" field`,
				ProviderError: "messages: Unexpected role \"system\". The Messages API accepts a top-level `system` parameter, not \"system\" as an input message role.",
			})
			d.r.src.roleSys++
		} else {
			leading = false
		}
		src := d.r.src
		first := int32(len(src.blocks))
		switch codec.Kind(content) {
		case '"':
			s, _ := codec.String(content)
			src.blocks = append(src.blocks, block{part: llm.Text{Text: s}, raw: content, str: true})
		case '[':
			cr := rd.Enter("content", content)
			err := cr.Array(func(int) error {
				blk, err := d.block(cr, roleWhere(role))
				if err != nil {
					return err
				}
				src.blocks = append(src.blocks, blk)
				return nil
			})
			if err != nil {
				return err
			}
		default:
			return rd.WantAt("content", content, "a string or an array of content blocks")
		}
		d.addMessage(role, msg.Raw(), first)
		return nil
	})
	if err == nil {
		d.r.hist = d.history(n, leading, wire, notes)
	}
	return err
}

// where says where a content block stands: in a message of a role, in the
// top-level system field, or in a tool_result's content.
type where uint8

const (
	inUser where = iota
	inAssistant
	inSystemMessage // a role "system" message in the messages array
	inSystemField   // the top-level system field: text blocks only
	inResult        // a tool_result's content
)

func roleWhere(role llm.Role) where {
	switch role {
	case llm.RoleAssistant:
		return inAssistant
	case llm.RoleSystem:
		return inSystemMessage
	}
	return inUser
}

func (w where) String() string {
	switch w {
	case inAssistant:
		return "assistant message"
	case inSystemMessage:
		return "system message"
	case inSystemField:
		return "system prompt"
	case inResult:
		return "tool_result"
	}
	return "user message"
}

// block decodes the content block at rd, which stands at w. A block the
// llm form has no place for (server tool blocks, search_result,
// tool_reference, container_upload, tool_addition, a document or image
// whose source is a file id or inline content blocks, a block type toolwire
// does not know) is an [llm.Opaque] that holds the block verbatim.
func (d *decoder) block(rd *codec.Reader, w where) (block, error) {
	o, err := rd.ReadObjectOf("a content block object")
	if err != nil {
		return block{}, err
	}
	ty := o.Get("type")
	if ty == nil {
		return block{}, rd.Missing("type", `"text", "image", "tool_use", "tool_result", ...`)
	}
	typ, err := rd.StrAt("type", ty)
	if err != nil {
		return block{}, err
	}
	b := block{raw: o.Raw()}
	placed := func(want where) error {
		if w == want {
			return nil
		}
		return rd.Errorf("a %s block belongs in a %s, not a %s", typ, want, w)
	}
	if w == inSystemField && typ != "text" {
		return block{}, rd.ErrorAt("type", "a system prompt holds text blocks only, not %q", typ)
	}
	// str reads the string member key; absent, it is "" unless hint says
	// what is missing.
	str := func(key, hint string) (string, error) {
		v := o.Get(key)
		if v == nil {
			if hint != "" {
				return "", rd.Missing(key, hint)
			}
			return "", nil
		}
		return rd.StrAt(key, v)
	}
	switch typ {
	case "text":
		s, err := str("text", "a string")
		if err != nil {
			return block{}, err
		}
		b.part = llm.Text{Text: s}
		b.extras = extras(rd, &o, "type", "text")
	case "image", "document":
		img, ok, err := d.media(rd, &o, typ == "document")
		if err != nil {
			return block{}, err
		}
		if !ok {
			b.part = opaque(typ, b.raw)
			break
		}
		b.part = img
		b.extras = extras(rd, &o, "type", "source")
	case "tool_use":
		if err := placed(inAssistant); err != nil {
			return block{}, err
		}
		var c llm.ToolCall
		if c.ID, err = str("id", "the tool call's id, a string"); err != nil {
			return block{}, err
		}
		if c.Name, err = str("name", "the tool's name, a string"); err != nil {
			return block{}, err
		}
		in := o.Member("input")
		switch {
		case in.Val == nil:
			return block{}, rd.Missing("input", "the arguments, an object")
		case codec.Kind(in.Val) != '{':
			return block{}, rd.WantAt("input", in.Val, "an object")
		}
		c.Input = in.Val
		d.names[c.ID] = c.Name
		b.part = c
		b.extras = extras(rd, &o, "type", "id", "name", "input")
	case "tool_result":
		if err := placed(inUser); err != nil {
			return block{}, err
		}
		if err := d.toolResult(rd, &o, &b); err != nil {
			return block{}, err
		}
		b.extras = extras(rd, &o, "type", "tool_use_id", "content", "is_error")
	case "thinking":
		if err := placed(inAssistant); err != nil {
			return block{}, err
		}
		r := llm.Reasoning{Provider: string(Dialect)}
		if r.Text, err = str("thinking", ""); err != nil {
			return block{}, err
		}
		if r.Signature, err = str("signature", ""); err != nil {
			return block{}, err
		}
		b.part = r
		b.extras = extras(rd, &o, "type", "thinking", "signature")
	case "redacted_thinking":
		if err := placed(inAssistant); err != nil {
			return block{}, err
		}
		if _, err := str("data", "the redacted thinking, a string"); err != nil {
			return block{}, err
		}
		b.part = llm.Reasoning{Provider: string(Dialect), Data: o.Get("data")}
		b.extras = extras(rd, &o, "type", "data")
	default:
		// Server tool blocks (server_tool_use, web_search_tool_result,
		// mcp_tool_use, ...), search_result, tool_reference,
		// container_upload, tool_addition and any block type toolwire does
		// not know: carried verbatim. A server tool use is answered by its
		// server's result in the same assistant content, never by a
		// tool_result, so it is no call the pairing rules look at.
		b.part = opaque(typ, b.raw)
	}
	return b, nil
}

// opaque returns the llm form of a block toolwire does not model: the
// block verbatim.
func opaque(typ string, raw []byte) llm.Opaque {
	return llm.Opaque{Provider: string(Dialect), Kind: typ, Data: raw}
}

func (d *decoder) toolResult(rd *codec.Reader, o *codec.Object, b *block) error {
	var r llm.ToolResult
	id := o.Get("tool_use_id")
	if id == nil {
		return rd.Missing("tool_use_id", "the id of the tool_use it answers, a string")
	}
	var err error
	if r.CallID, err = rd.StrAt("tool_use_id", id); err != nil {
		return err
	}
	r.Name = d.names[r.CallID]
	isErr := false
	if f := o.Get("is_error"); f != nil {
		var ok bool
		if isErr, ok = codec.Bool(f); !ok {
			return rd.WantAt("is_error", f, "a boolean")
		}
	}
	if f := o.Get("content"); f != nil {
		switch codec.Kind(f) {
		case '"':
			s, _ := codec.String(f)
			r.Content = []llm.Part{llm.Text{Text: s}}
		case '[':
			b.wasArr = true
			r.Content = []llm.Part{}
			cr := rd.Enter("content", f)
			err := cr.Array(func(int) error {
				inner, err := d.block(cr, inResult)
				if err != nil {
					return err
				}
				b.inner = append(b.inner, inner)
				r.Content = append(r.Content, inner.part)
				return nil
			})
			if err != nil {
				return err
			}
		case '{':
			// A tool's output as JSON, not as text or blocks: read as its
			// JSON text (ANT-JSON-TYPE), which FixWire writes as the
			// string content.
			r.Content = []llm.Part{llm.Text{Text: string(f)}}
			b.objContent = true
			d.r.Wire = append(d.r.Wire, transcript.Violation{Rule: "ANT-JSON-TYPE", Path: rd.At("content"),
				Message: "the content of this tool_result is an object; a tool_result's content is a string or an array of content blocks: --fix writes the object's JSON as the string"})
		default:
			return rd.WantAt("content", f, "a string or an array of content blocks")
		}
	}
	r.Status = resultStatus(isErr, r.Content)
	b.part = r
	return nil
}

// resultStatus is the status of a tool result: error if is_error is set,
// else the status of a toolwire envelope that is the whole content, else
// success.
func resultStatus(isErr bool, content []llm.Part) llm.Status {
	if isErr {
		return llm.StatusError
	}
	if len(content) == 1 {
		if tx, ok := content[0].(llm.Text); ok {
			if st, ok := codec.EnvelopeStatus(tx.Text); ok {
				return st
			}
		}
	}
	return llm.StatusSuccess
}

// media decodes an image or document block's source. It reports false,
// and no error, for a source the llm form has no place for: a file id
// (type "file", the Files API), a document's inline content blocks (type
// "content"), or a source type toolwire does not know; the block then
// travels as an [llm.Opaque].
func (d *decoder) media(rd *codec.Reader, o *codec.Object, doc bool) (llm.Image, bool, error) {
	var img llm.Image
	sv := o.Get("source")
	if sv == nil {
		return img, false, rd.Missing("source", "an object")
	}
	if codec.Kind(sv) != '{' {
		return img, false, rd.WantAt("source", sv, "an object")
	}
	sr := rd.Enter("source", sv)
	s, err := sr.ReadObject()
	if err != nil {
		return img, false, err
	}
	field := func(key, hint string) (string, error) {
		v := s.Get(key)
		if v == nil {
			return "", sr.Missing(key, hint)
		}
		return sr.StrAt(key, v)
	}
	tv := s.Get("type")
	if tv == nil {
		return img, false, sr.Missing("type", `"base64", "url", "file", ...`)
	}
	typ, err := sr.StrAt("type", tv)
	if err != nil {
		return img, false, err
	}
	switch typ {
	case "base64":
		if img.MediaType, err = field("media_type", `such as "image/png"`); err != nil {
			return img, false, err
		}
		data, err := field("data", "base64 bytes")
		if err != nil {
			return img, false, err
		}
		if img.Data, err = base64.StdEncoding.DecodeString(data); err != nil {
			return img, false, sr.ErrorAt("data", "invalid base64: %v", err)
		}
		if img.Data == nil {
			img.Data = []byte{}
		}
	case "url":
		if img.URL, err = field("url", "a URL"); err != nil {
			return img, false, err
		}
		if doc {
			img.MediaType = mediaPDF
		}
	case "text":
		if !doc {
			return img, false, sr.ErrorAt("type", `an image source cannot be "text"`)
		}
		data, err := field("data", "the document's text")
		if err != nil {
			return img, false, err
		}
		img.MediaType = mediaText
		if mt := s.Get("media_type"); mt != nil {
			if img.MediaType, err = sr.StrAt("media_type", mt); err != nil {
				return img, false, err
			}
		}
		img.Data = []byte(data)
	default:
		return img, false, nil
	}
	return img, true, nil
}

const (
	mediaPDF  = "application/pdf"
	mediaText = "text/plain"
)

// tools decodes the top-level tools array.
func (d *decoder) tools(rd *codec.Reader) error {
	if rd.Kind() != '[' {
		return rd.Want("an array of tools")
	}
	err := rd.Array(func(int) error {
		o, err := rd.ReadObjectOf("a tool object")
		if err != nil {
			return err
		}
		st := srcTool{raw: o.Raw()}
		if ty := o.Get("type"); ty != nil {
			typ, err := rd.StrAt("type", ty)
			if err != nil {
				return err
			}
			st.opaque = typ != "custom"
		}
		if st.opaque {
			rd.Note("a tool that is not a custom tool (a server tool) is not part of the llm form")
			d.r.src.tools = append(d.r.src.tools, st)
			return nil
		}
		f := o.Get("name")
		if f == nil {
			return rd.Missing("name", "the tool's name, a string")
		}
		if st.spec.Name, err = rd.StrAt("name", f); err != nil {
			return err
		}
		if f = o.Get("description"); f != nil && !codec.IsNull(f) {
			// null reads as no description; the tool is written back verbatim.
			if st.spec.Description, err = rd.StrAt("description", f); err != nil {
				return err
			}
		}
		if m := o.Member("input_schema"); m.Val != nil {
			if codec.Kind(m.Val) != '{' {
				return rd.WantAt("input_schema", m.Val, "a JSON Schema object")
			}
			st.spec.Parameters = m.Compact()
		}
		if f = o.Get("strict"); f != nil {
			var ok bool
			if st.spec.Strict, ok = codec.Bool(f); !ok {
				return rd.WantAt("strict", f, "a boolean")
			}
		}
		st.extras = extras(rd, &o, "name", "description", "input_schema", "strict")
		d.r.src.tools = append(d.r.src.tools, st)
		d.r.Tools = append(d.r.Tools, st.spec)
		return nil
	})
	return err
}
