package anthropic

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/internal/jsontree"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/observe"
	"github.com/toolwire/toolwire/transcript"
)

// Decode reads a Messages API request body, or a bare array of messages.
// Errors are [*DecodeError]s that name the dotted path of the offending
// value, such as "messages.2.content.1.tool_use_id: want a string, got a
// number". Decode never panics, whatever the input. The Request does not
// alias body.
func Decode(body []byte) (*Request, error) {
	t, err := parse(bytes.Clone(body))
	if err != nil {
		return nil, err
	}
	d := decoder{t: t, r: &Request{src: &source{}}, names: make(map[string]string)}
	root := t.Root()
	switch t.Kind(root) {
	case jsontree.Array:
		d.r.Bare = true
		err = d.messages(root)
	case jsontree.Object:
		err = d.body(root)
	default:
		err = &DecodeError{Offset: -1, Err: fmt.Errorf("want a request body (an object) or a messages array, got %s", t.Kind(root).Phrase())}
	}
	if err != nil {
		return nil, err
	}
	return d.r, nil
}

type decoder struct {
	t     *jsontree.Tree
	r     *Request
	names map[string]string // tool_use id → tool name, for results
}

func (d *decoder) errf(idx jsontree.Node, format string, args ...any) error {
	return &DecodeError{Path: d.t.Path(idx), Offset: -1, Err: fmt.Errorf(format, args...)}
}

// want reports that node idx has the wrong kind.
func (d *decoder) want(idx jsontree.Node, what string) error {
	return d.errf(idx, "want %s, got %s", what, d.t.Kind(idx).Phrase())
}

func (d *decoder) missing(obj jsontree.Node, key, hint string) error {
	p := d.t.Path(obj)
	if p != "" {
		p += "."
	}
	return &DecodeError{Path: p + key, Offset: -1, Err: fmt.Errorf("missing (%s)", hint)}
}

// object checks that idx is an object without repeated keys.
func (d *decoder) object(idx jsontree.Node, what string) error {
	if d.t.Kind(idx) != jsontree.Object {
		return d.want(idx, what)
	}
	if dup := d.t.Duplicate(idx); dup >= 0 {
		return d.errf(dup, "repeats a field of the same object")
	}
	return nil
}

func (d *decoder) str(idx jsontree.Node) (string, error) {
	if d.t.Kind(idx) != jsontree.String {
		return "", d.want(idx, "a string")
	}
	return d.t.Str(idx), nil
}

// extras returns the members of obj whose keys are not in modeled, and
// notes each in Unmodeled.
func (d *decoder) extras(obj jsontree.Node, modeled ...string) []member {
	var out []member
next:
	for c := d.t.First(obj); c >= 0; c = d.t.Next(c) {
		for _, k := range modeled {
			if d.t.KeyIs(c, k) {
				continue next
			}
		}
		key := d.t.Key(c)
		out = append(out, member{key: key, val: d.t.Compact(c)})
		if key != "type" {
			d.note(c, fmt.Sprintf("the %q field is not part of the llm form", key))
		}
	}
	return out
}

// note records something the llm form does not hold.
func (d *decoder) note(idx jsontree.Node, what string) {
	d.r.Unmodeled = append(d.r.Unmodeled, transcript.Warning{Path: d.t.Path(idx),
		Message: what + "; kept when re-encoding as Anthropic, lost when converting to another dialect"})
}

func (d *decoder) body(root jsontree.Node) error {
	if err := d.object(root, "an object"); err != nil {
		return err
	}
	r, t := d.r, d.t
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
					return d.want(c, "an object")
				}
				if ty := d.t.Get(c, "type"); ty >= 0 && t.Kind(ty) == jsontree.String && t.Str(ty) == "enabled" {
					r.Thinking = true
				}
			}
			continue
		}
		r.Fields = append(r.Fields, Field{Key: key})
	}
	if messages < 0 {
		return &DecodeError{Path: "messages", Offset: -1, Err: fmt.Errorf(`missing (a Messages API request body has a "messages" array)`)}
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
		return d.tools(tools)
	}
	return nil
}

// system decodes the top-level system field into one system message.
func (d *decoder) system(idx jsontree.Node) error {
	src, t := d.r.src, d.t
	first := int32(len(src.blocks))
	switch t.Kind(idx) {
	case jsontree.String:
		src.blocks = append(src.blocks, block{part: llm.Text{Text: t.Str(idx)}, raw: t.Compact(idx), str: true})
	case jsontree.Array:
		for c := t.First(idx); c >= 0; c = t.Next(c) {
			b, err := d.block(c, llm.RoleSystem)
			if err != nil {
				return err
			}
			src.blocks = append(src.blocks, b)
		}
	default:
		return d.want(idx, "a string or an array of text blocks")
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
	src.msgs = append(src.msgs, srcMsg{raw: d.t.Compact(idx), first: first, count: int32(len(blocks)), role: role})
}

func (d *decoder) messages(idx jsontree.Node) error {
	t := d.t
	if t.Kind(idx) != jsontree.Array {
		return d.want(idx, "an array of messages")
	}
	leading := true
	for c := t.First(idx); c >= 0; c = t.Next(c) {
		if err := d.object(c, "a message object"); err != nil {
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
				return d.errf(f, "unknown field (a message has role and content)")
			}
		}
		if roleIdx < 0 {
			return d.missing(c, "role", `"user" or "assistant"`)
		}
		name, err := d.str(roleIdx)
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
			return d.errf(roleIdx, `unknown role %q (want "user" or "assistant")`, name)
		}
		if content < 0 {
			return d.missing(c, "content", "a string or an array of content blocks")
		}
		if role == llm.RoleSystem && leading {
			path := t.Path(c)
			d.r.Wire = append(d.r.Wire, transcript.Violation{
				Rule: "ANT-SYSTEM-ROLE", Path: path,
				Message:       `a message with role "system" before the first user or assistant message; the Messages API takes the system prompt in the top-level "system" field`,
				ProviderError: "messages: Unexpected role \"system\". The Messages API accepts a top-level `system` parameter, not \"system\" as an input message role.",
			})
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
				blk, err := d.block(b, role)
				if err != nil {
					return err
				}
				src.blocks = append(src.blocks, blk)
			}
		default:
			return d.want(content, "a string or an array of content blocks")
		}
		d.addMessage(role, c, first)
	}
	return nil
}

// block decodes a content block of a message with the given role.
func (d *decoder) block(idx jsontree.Node, role llm.Role) (block, error) {
	t := d.t
	if err := d.object(idx, "a content block object"); err != nil {
		return block{}, err
	}
	ty := d.t.Get(idx, "type")
	if ty < 0 {
		return block{}, d.missing(idx, "type", `"text", "image", "tool_use", "tool_result", ...`)
	}
	typ, err := d.str(ty)
	if err != nil {
		return block{}, err
	}
	b := block{raw: t.Compact(idx)}
	placed := func(want llm.Role) error {
		if role == want || (want == llm.RoleUser && role == llm.RoleTool) {
			return nil
		}
		return d.errf(idx, "a %s block belongs in a %s message, not a %s message", typ, want, role)
	}
	if role == llm.RoleSystem && typ != "text" {
		return block{}, d.errf(ty, "a system prompt holds text blocks only, not %q", typ)
	}
	switch typ {
	case "text":
		tx := d.t.Get(idx, "text")
		if tx < 0 {
			return block{}, d.missing(idx, "text", "a string")
		}
		s, err := d.str(tx)
		if err != nil {
			return block{}, err
		}
		b.part = llm.Text{Text: s}
		b.extras = d.extras(idx, "type", "text")
	case "image", "document":
		img, err := d.media(idx, typ == "document")
		if err != nil {
			return block{}, err
		}
		b.part = img
		b.extras = d.extras(idx, "type", "source")
	case "tool_use":
		if err := placed(llm.RoleAssistant); err != nil {
			return block{}, err
		}
		c, err := d.toolUse(idx)
		if err != nil {
			return block{}, err
		}
		b.part = c
		b.extras = d.extras(idx, "type", "id", "name", "input")
	case "tool_result":
		if err := placed(llm.RoleUser); err != nil {
			return block{}, err
		}
		if err := d.toolResult(idx, &b); err != nil {
			return block{}, err
		}
		b.extras = d.extras(idx, "type", "tool_use_id", "content", "is_error")
	case "thinking":
		if err := placed(llm.RoleAssistant); err != nil {
			return block{}, err
		}
		r := llm.Reasoning{Provider: string(Dialect)}
		if f := d.t.Get(idx, "thinking"); f >= 0 {
			if r.Text, err = d.str(f); err != nil {
				return block{}, err
			}
		}
		if f := d.t.Get(idx, "signature"); f >= 0 {
			if r.Signature, err = d.str(f); err != nil {
				return block{}, err
			}
		}
		b.part = r
		b.extras = d.extras(idx, "type", "thinking", "signature")
	case "redacted_thinking":
		if err := placed(llm.RoleAssistant); err != nil {
			return block{}, err
		}
		f := d.t.Get(idx, "data")
		if f < 0 {
			return block{}, d.missing(idx, "data", "the redacted thinking, a string")
		}
		if _, err := d.str(f); err != nil {
			return block{}, err
		}
		b.part = llm.Reasoning{Provider: string(Dialect), Data: t.Compact(f)}
		b.extras = d.extras(idx, "type", "data")
	default:
		if role != llm.RoleAssistant {
			return block{}, d.errf(ty, "block type %q is not supported in a %s message (toolwire reads text, image, document and tool_result blocks there)", typ, role)
		}
		// Server tool blocks and any other assistant block: opaque.
		b.part = llm.Reasoning{Provider: string(Dialect), Data: b.raw}
	}
	return b, nil
}

func (d *decoder) toolUse(idx jsontree.Node) (llm.ToolCall, error) {
	var c llm.ToolCall
	f := d.t.Get(idx, "id")
	if f < 0 {
		return c, d.missing(idx, "id", "the tool call's id, a string")
	}
	var err error
	if c.ID, err = d.str(f); err != nil {
		return c, err
	}
	if f = d.t.Get(idx, "name"); f < 0 {
		return c, d.missing(idx, "name", "the tool's name, a string")
	}
	if c.Name, err = d.str(f); err != nil {
		return c, err
	}
	if f = d.t.Get(idx, "input"); f < 0 {
		return c, d.missing(idx, "input", "the arguments, an object")
	}
	if d.t.Kind(f) != jsontree.Object {
		return c, d.want(f, "an object")
	}
	c.Input = d.t.Raw(f)
	d.names[c.ID] = c.Name
	return c, nil
}

func (d *decoder) toolResult(idx jsontree.Node, b *block) error {
	t := d.t
	var r llm.ToolResult
	f := d.t.Get(idx, "tool_use_id")
	if f < 0 {
		return d.missing(idx, "tool_use_id", "the id of the tool_use it answers, a string")
	}
	var err error
	if r.CallID, err = d.str(f); err != nil {
		return err
	}
	r.Name = d.names[r.CallID]
	isErr := false
	if f = d.t.Get(idx, "is_error"); f >= 0 {
		if t.Kind(f) != jsontree.Bool {
			return d.want(f, "a boolean")
		}
		isErr = t.IsTrue(f)
	}
	if f = d.t.Get(idx, "content"); f >= 0 {
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
			return d.want(f, "a string or an array of content blocks")
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
		if tx, ok := content[0].(llm.Text); ok && looksLikeEnvelope(tx.Text) {
			if env, err := observe.Parse([]byte(tx.Text)); err == nil {
				return env.Status
			}
		}
	}
	return llm.StatusSuccess
}

func looksLikeEnvelope(s string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	return strings.HasPrefix(s, "{") && strings.Contains(s, `"status"`) && strings.Contains(s, `"summary"`)
}

// resultBlock decodes a block of a tool_result's content.
func (d *decoder) resultBlock(idx jsontree.Node) (block, error) {
	if err := d.object(idx, "a content block object"); err != nil {
		return block{}, err
	}
	ty := d.t.Get(idx, "type")
	if ty < 0 {
		return block{}, d.missing(idx, "type", `"text", "image" or "document"`)
	}
	typ, err := d.str(ty)
	if err != nil {
		return block{}, err
	}
	switch typ {
	case "text", "image", "document":
		return d.block(idx, llm.RoleUser)
	}
	return block{}, d.errf(ty, "block type %q is not supported in a tool_result (toolwire reads text, image and document blocks there)", typ)
}

// media decodes an image or document block's source.
func (d *decoder) media(idx jsontree.Node, doc bool) (llm.Image, error) {
	var img llm.Image
	s := d.t.Get(idx, "source")
	if s < 0 {
		return img, d.missing(idx, "source", "an object")
	}
	if err := d.object(s, "an object"); err != nil {
		return img, err
	}
	f := d.t.Get(s, "type")
	if f < 0 {
		return img, d.missing(s, "type", `"base64" or "url"`)
	}
	typ, err := d.str(f)
	if err != nil {
		return img, err
	}
	field := func(key, hint string) (string, error) {
		f := d.t.Get(s, key)
		if f < 0 {
			return "", d.missing(s, key, hint)
		}
		return d.str(f)
	}
	switch typ {
	case "base64":
		if img.MediaType, err = field("media_type", `such as "image/png"`); err != nil {
			return img, err
		}
		data, err := field("data", "base64 bytes")
		if err != nil {
			return img, err
		}
		if img.Data, err = base64.StdEncoding.DecodeString(data); err != nil {
			return img, d.errf(d.t.Get(s, "data"), "invalid base64: %v", err)
		}
		if img.Data == nil {
			img.Data = []byte{}
		}
	case "url":
		if img.URL, err = field("url", "a URL"); err != nil {
			return img, err
		}
		if doc {
			img.MediaType = mediaPDF
		}
	case "text":
		if !doc {
			return img, d.errf(f, `an image source cannot be "text"`)
		}
		data, err := field("data", "the document's text")
		if err != nil {
			return img, err
		}
		img.MediaType = mediaText
		if mt := d.t.Get(s, "media_type"); mt >= 0 {
			if img.MediaType, err = d.str(mt); err != nil {
				return img, err
			}
		}
		img.Data = []byte(data)
	default:
		return img, d.errf(f, "source type %q is not supported (toolwire reads base64 and url sources, and text sources of documents)", typ)
	}
	return img, nil
}

const (
	mediaPDF  = "application/pdf"
	mediaText = "text/plain"
)

// tools decodes the top-level tools array.
func (d *decoder) tools(idx jsontree.Node) error {
	t := d.t
	if t.Kind(idx) != jsontree.Array {
		return d.want(idx, "an array of tools")
	}
	for c := t.First(idx); c >= 0; c = t.Next(c) {
		if err := d.object(c, "a tool object"); err != nil {
			return err
		}
		st := srcTool{raw: t.Compact(c)}
		if ty := d.t.Get(c, "type"); ty >= 0 {
			typ, err := d.str(ty)
			if err != nil {
				return err
			}
			st.opaque = typ != "custom"
		}
		if st.opaque {
			d.note(c, "a tool that is not a custom tool (a server tool) is not part of the llm form")
			d.r.src.tools = append(d.r.src.tools, st)
			continue
		}
		f := d.t.Get(c, "name")
		if f < 0 {
			return d.missing(c, "name", "the tool's name, a string")
		}
		var err error
		if st.spec.Name, err = d.str(f); err != nil {
			return err
		}
		if f = d.t.Get(c, "description"); f >= 0 {
			if st.spec.Description, err = d.str(f); err != nil {
				return err
			}
		}
		if f = d.t.Get(c, "input_schema"); f >= 0 {
			if t.Kind(f) != jsontree.Object {
				return d.want(f, "a JSON Schema object")
			}
			st.spec.Parameters = t.Compact(f)
		}
		if f = d.t.Get(c, "strict"); f >= 0 {
			if t.Kind(f) != jsontree.Bool {
				return d.want(f, "a boolean")
			}
			st.spec.Strict = t.IsTrue(f)
		}
		st.extras = d.extras(c, "name", "description", "input_schema", "strict")
		d.r.src.tools = append(d.r.src.tools, st)
		d.r.Tools = append(d.r.Tools, st.spec)
	}
	return nil
}
