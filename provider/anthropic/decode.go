package anthropic

import (
	"bytes"
	"encoding/base64"

	"github.com/toolwire/toolwire/internal/jsontree"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// Decode reads a Messages API request body, or a bare array of messages.
// Errors are [*DecodeError]s that name the dotted path of the offending
// value, such as "messages.2.content.1.tool_use_id: want a string, got a
// number"; in a bare array too, paths are those of a full body, as in
// Wire, Unmodeled and transcript's violations. Decode never panics,
// whatever the input. The Request does not alias body.
func Decode(body []byte) (*Request, error) { return decode(bytes.Clone(body)) }

// DecodeShared is [Decode] for a caller that keeps body unchanged while the
// Request is in use: the Request aliases body rather than a copy of it,
// which saves the size of the body in memory.
func DecodeShared(body []byte) (*Request, error) { return decode(body) }

func decode(body []byte) (*Request, error) {
	t, err := codec.Parse(body, ErrSyntax, "messages")
	if err != nil {
		return nil, decodeError(err)
	}
	r := &Request{src: &source{}}
	d := decoder{Reader: codec.NewReader(t, "Anthropic", "messages", &r.Unmodeled), r: r, names: make(map[string]string)}
	root := t.Root()
	switch t.Kind(root) {
	case jsontree.Array:
		r.Bare = true
		err = d.messages(root)
	case jsontree.Object:
		err = d.body(root)
	default:
		err = d.Errorf(root, "want a request body (an object) or a messages array, got %s", t.Kind(root).Phrase())
	}
	if err != nil {
		return nil, decodeError(err)
	}
	return r, nil
}

type decoder struct {
	codec.Reader
	r     *Request
	names map[string]string // tool_use id → tool name, for results
}

// extras returns the members of obj whose keys are not in modeled, and
// notes each but a "type" in Unmodeled.
func (d *decoder) extras(obj jsontree.Node, modeled ...string) []codec.Member {
	var out []codec.Member
next:
	for c := d.T.First(obj); c >= 0; c = d.T.Next(c) {
		for _, k := range modeled {
			if d.T.KeyIs(c, k) {
				continue next
			}
		}
		if d.T.KeyIs(c, "type") {
			out = append(out, codec.Member{Key: "type", Val: d.T.Compact(c)})
			continue
		}
		out = append(out, d.Member(c))
	}
	return out
}

func (d *decoder) body(root jsontree.Node) error {
	if err := d.Object(root, "an object"); err != nil {
		return err
	}
	r, t := d.r, d.T
	var system, messages, tools jsontree.Node = -1, -1, -1
	for c := t.First(root); c >= 0; c = t.Next(c) {
		key := t.Key(c)
		switch key {
		case "system":
			system = c
		case "messages":
			messages = c
		case "tools":
			tools = c
		default:
			r.Fields = append(r.Fields, Field{Key: key, Value: t.Compact(c)})
			if key == "thinking" {
				if t.Kind(c) != jsontree.Object {
					return d.Want(c, "an object")
				}
				if ty := d.T.Get(c, "type"); ty >= 0 && t.Kind(ty) == jsontree.String && t.Str(ty) == "enabled" {
					r.Thinking = true
				}
			}
			continue
		}
		r.Fields = append(r.Fields, Field{Key: key})
	}
	if messages < 0 {
		return d.Missing(root, "messages", `a Messages API request body has a "messages" array`)
	}
	if system >= 0 {
		if err := d.system(system); err != nil {
			return err
		}
	}
	if err := d.messages(messages); err != nil {
		return err
	}
	if tools >= 0 {
		if err := d.tools(tools); err != nil {
			return err
		}
	}
	if d.T.Get(root, "max_tokens") < 0 {
		r.Wire = append(r.Wire, transcript.Violation{Rule: "ANT-MAX-TOKENS", Path: "max_tokens",
			Message:       `the request body has no "max_tokens"; the Messages API requires it (the most tokens the reply may have): add one, such as "max_tokens": 4096`,
			ProviderError: "max_tokens: Field required"})
	}
	return nil
}

// system decodes the top-level system field into one system message.
func (d *decoder) system(idx jsontree.Node) error {
	src, t := d.r.src, d.T
	first := int32(len(src.blocks))
	switch t.Kind(idx) {
	case jsontree.String:
		src.blocks = append(src.blocks, block{part: llm.Text{Text: t.Str(idx)}, raw: t.Compact(idx), str: true})
	case jsontree.Array:
		for c := t.First(idx); c >= 0; c = t.Next(c) {
			b, err := d.block(c, inSystemField)
			if err != nil {
				return err
			}
			src.blocks = append(src.blocks, b)
		}
	default:
		return d.Want(idx, "a string or an array of text blocks")
	}
	d.addMessage(llm.RoleSystem, idx, first)
	src.leadSys = 1
	return nil
}

// addMessage appends the llm message made of the blocks from first on.
func (d *decoder) addMessage(role llm.Role, idx jsontree.Node, first int32) {
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
	src.msgs = append(src.msgs, codec.Msg{Raw: d.T.Compact(idx), First: first, Count: int32(len(blocks)), Role: role})
}

func (d *decoder) messages(idx jsontree.Node) error {
	t := d.T
	if t.Kind(idx) != jsontree.Array {
		return d.Want(idx, "an array of messages")
	}
	leading := true
	for c := t.First(idx); c >= 0; c = t.Next(c) {
		if err := d.Object(c, "a message object"); err != nil {
			return err
		}
		var roleIdx, content jsontree.Node = -1, -1
		for f := t.First(c); f >= 0; f = t.Next(f) {
			switch {
			case t.KeyIs(f, "role"):
				roleIdx = f
			case t.KeyIs(f, "content"):
				content = f
			default:
				return d.Errorf(f, "unknown field (a message has role and content)")
			}
		}
		if roleIdx < 0 {
			return d.Missing(c, "role", `"user" or "assistant"`)
		}
		name, err := d.Str(roleIdx)
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
			return d.Errorf(roleIdx, `unknown role %q (want "user" or "assistant")`, name)
		}
		if content < 0 {
			return d.Missing(c, "content", "a string or an array of content blocks")
		}
		if role == llm.RoleSystem && leading {
			path := d.Path(c)
			d.r.Wire = append(d.r.Wire, transcript.Violation{
				Rule: "ANT-SYSTEM-ROLE", Path: path,
				Message:       `a message with role "system" before the first user or assistant message; the Messages API takes the system prompt in the top-level "system" field`,
				ProviderError: "messages: Unexpected role \"system\". The Messages API accepts a top-level `system` parameter, not \"system\" as an input message role.",
			})
			d.r.src.roleSys++
		} else {
			leading = false
		}
		src := d.r.src
		first := int32(len(src.blocks))
		switch t.Kind(content) {
		case jsontree.String:
			src.blocks = append(src.blocks, block{part: llm.Text{Text: t.Str(content)}, raw: t.Compact(content), str: true})
		case jsontree.Array:
			for b := t.First(content); b >= 0; b = t.Next(b) {
				blk, err := d.block(b, roleWhere(role))
				if err != nil {
					return err
				}
				src.blocks = append(src.blocks, blk)
			}
		default:
			return d.Want(content, "a string or an array of content blocks")
		}
		d.addMessage(role, c, first)
	}
	return nil
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

// block decodes a content block that stands at w. A block the llm form has
// no place for (server tool blocks, search_result, tool_reference,
// container_upload, tool_addition, a document or image whose source is a
// file id or inline content blocks, a block type toolwire does not know)
// is an [llm.Opaque] that holds the block verbatim.
func (d *decoder) block(idx jsontree.Node, w where) (block, error) {
	t := d.T
	if err := d.Object(idx, "a content block object"); err != nil {
		return block{}, err
	}
	ty := d.T.Get(idx, "type")
	if ty < 0 {
		return block{}, d.Missing(idx, "type", `"text", "image", "tool_use", "tool_result", ...`)
	}
	typ, err := d.Str(ty)
	if err != nil {
		return block{}, err
	}
	b := block{raw: t.Compact(idx)}
	placed := func(want where) error {
		if w == want {
			return nil
		}
		return d.Errorf(idx, "a %s block belongs in a %s, not a %s", typ, want, w)
	}
	if w == inSystemField && typ != "text" {
		return block{}, d.Errorf(ty, "a system prompt holds text blocks only, not %q", typ)
	}
	switch typ {
	case "text":
		tx := d.T.Get(idx, "text")
		if tx < 0 {
			return block{}, d.Missing(idx, "text", "a string")
		}
		s, err := d.Str(tx)
		if err != nil {
			return block{}, err
		}
		b.part = llm.Text{Text: s}
		b.extras = d.extras(idx, "type", "text")
	case "image", "document":
		img, ok, err := d.media(idx, typ == "document")
		if err != nil {
			return block{}, err
		}
		if !ok {
			b.part = opaque(typ, b.raw)
			break
		}
		b.part = img
		b.extras = d.extras(idx, "type", "source")
	case "tool_use":
		if err := placed(inAssistant); err != nil {
			return block{}, err
		}
		c, err := d.toolUse(idx)
		if err != nil {
			return block{}, err
		}
		b.part = c
		b.extras = d.extras(idx, "type", "id", "name", "input")
	case "tool_result":
		if err := placed(inUser); err != nil {
			return block{}, err
		}
		if err := d.toolResult(idx, &b); err != nil {
			return block{}, err
		}
		b.extras = d.extras(idx, "type", "tool_use_id", "content", "is_error")
	case "thinking":
		if err := placed(inAssistant); err != nil {
			return block{}, err
		}
		r := llm.Reasoning{Provider: string(Dialect)}
		if f := d.T.Get(idx, "thinking"); f >= 0 {
			if r.Text, err = d.Str(f); err != nil {
				return block{}, err
			}
		}
		if f := d.T.Get(idx, "signature"); f >= 0 {
			if r.Signature, err = d.Str(f); err != nil {
				return block{}, err
			}
		}
		b.part = r
		b.extras = d.extras(idx, "type", "thinking", "signature")
	case "redacted_thinking":
		if err := placed(inAssistant); err != nil {
			return block{}, err
		}
		f := d.T.Get(idx, "data")
		if f < 0 {
			return block{}, d.Missing(idx, "data", "the redacted thinking, a string")
		}
		if _, err := d.Str(f); err != nil {
			return block{}, err
		}
		b.part = llm.Reasoning{Provider: string(Dialect), Data: t.Compact(f)}
		b.extras = d.extras(idx, "type", "data")
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

func (d *decoder) toolUse(idx jsontree.Node) (llm.ToolCall, error) {
	var c llm.ToolCall
	f := d.T.Get(idx, "id")
	if f < 0 {
		return c, d.Missing(idx, "id", "the tool call's id, a string")
	}
	var err error
	if c.ID, err = d.Str(f); err != nil {
		return c, err
	}
	if f = d.T.Get(idx, "name"); f < 0 {
		return c, d.Missing(idx, "name", "the tool's name, a string")
	}
	if c.Name, err = d.Str(f); err != nil {
		return c, err
	}
	if f = d.T.Get(idx, "input"); f < 0 {
		return c, d.Missing(idx, "input", "the arguments, an object")
	}
	if d.T.Kind(f) != jsontree.Object {
		return c, d.Want(f, "an object")
	}
	c.Input = d.T.Raw(f)
	d.names[c.ID] = c.Name
	return c, nil
}

func (d *decoder) toolResult(idx jsontree.Node, b *block) error {
	t := d.T
	var r llm.ToolResult
	f := d.T.Get(idx, "tool_use_id")
	if f < 0 {
		return d.Missing(idx, "tool_use_id", "the id of the tool_use it answers, a string")
	}
	var err error
	if r.CallID, err = d.Str(f); err != nil {
		return err
	}
	r.Name = d.names[r.CallID]
	isErr := false
	if f = d.T.Get(idx, "is_error"); f >= 0 {
		if t.Kind(f) != jsontree.Bool {
			return d.Want(f, "a boolean")
		}
		isErr = t.IsTrue(f)
	}
	if f = d.T.Get(idx, "content"); f >= 0 {
		switch t.Kind(f) {
		case jsontree.String:
			r.Content = []llm.Part{llm.Text{Text: t.Str(f)}}
		case jsontree.Array:
			b.wasArr = true
			r.Content = make([]llm.Part, 0, t.Len(f))
			for c := t.First(f); c >= 0; c = t.Next(c) {
				inner, err := d.resultBlock(c)
				if err != nil {
					return err
				}
				b.inner = append(b.inner, inner)
				r.Content = append(r.Content, inner.part)
			}
		default:
			return d.Want(f, "a string or an array of content blocks")
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

// resultBlock decodes a block of a tool_result's content: text, image,
// document, or (as an [llm.Opaque]) search_result, tool_reference or a
// block type toolwire does not know.
func (d *decoder) resultBlock(idx jsontree.Node) (block, error) {
	return d.block(idx, inResult)
}

// media decodes an image or document block's source. It reports false,
// and no error, for a source the llm form has no place for: a file id
// (type "file", the Files API), a document's inline content blocks (type
// "content"), or a source type toolwire does not know; the block then
// travels as an [llm.Opaque].
func (d *decoder) media(idx jsontree.Node, doc bool) (llm.Image, bool, error) {
	var img llm.Image
	s := d.T.Get(idx, "source")
	if s < 0 {
		return img, false, d.Missing(idx, "source", "an object")
	}
	if err := d.Object(s, "an object"); err != nil {
		return img, false, err
	}
	f := d.T.Get(s, "type")
	if f < 0 {
		return img, false, d.Missing(s, "type", `"base64", "url", "file", ...`)
	}
	typ, err := d.Str(f)
	if err != nil {
		return img, false, err
	}
	field := func(key, hint string) (string, error) {
		f := d.T.Get(s, key)
		if f < 0 {
			return "", d.Missing(s, key, hint)
		}
		return d.Str(f)
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
			return img, false, d.Errorf(d.T.Get(s, "data"), "invalid base64: %v", err)
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
			return img, false, d.Errorf(f, `an image source cannot be "text"`)
		}
		data, err := field("data", "the document's text")
		if err != nil {
			return img, false, err
		}
		img.MediaType = mediaText
		if mt := d.T.Get(s, "media_type"); mt >= 0 {
			if img.MediaType, err = d.Str(mt); err != nil {
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
func (d *decoder) tools(idx jsontree.Node) error {
	t := d.T
	if t.Kind(idx) != jsontree.Array {
		return d.Want(idx, "an array of tools")
	}
	for c := t.First(idx); c >= 0; c = t.Next(c) {
		if err := d.Object(c, "a tool object"); err != nil {
			return err
		}
		st := srcTool{raw: t.Compact(c)}
		if ty := d.T.Get(c, "type"); ty >= 0 {
			typ, err := d.Str(ty)
			if err != nil {
				return err
			}
			st.opaque = typ != "custom"
		}
		if st.opaque {
			d.Note(c, "a tool that is not a custom tool (a server tool) is not part of the llm form")
			d.r.src.tools = append(d.r.src.tools, st)
			continue
		}
		f := d.T.Get(c, "name")
		if f < 0 {
			return d.Missing(c, "name", "the tool's name, a string")
		}
		var err error
		if st.spec.Name, err = d.Str(f); err != nil {
			return err
		}
		if f = d.T.Get(c, "description"); f >= 0 && t.Kind(f) != jsontree.Null {
			// null reads as no description; the tool is written back verbatim.
			if st.spec.Description, err = d.Str(f); err != nil {
				return err
			}
		}
		if f = d.T.Get(c, "input_schema"); f >= 0 {
			if t.Kind(f) != jsontree.Object {
				return d.Want(f, "a JSON Schema object")
			}
			st.spec.Parameters = t.Compact(f)
		}
		if f = d.T.Get(c, "strict"); f >= 0 {
			if t.Kind(f) != jsontree.Bool {
				return d.Want(f, "a boolean")
			}
			st.spec.Strict = t.IsTrue(f)
		}
		st.extras = d.extras(c, "name", "description", "input_schema", "strict")
		d.r.src.tools = append(d.r.src.tools, st)
		d.r.Tools = append(d.r.Tools, st.spec)
	}
	return nil
}
