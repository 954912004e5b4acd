package gemini

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/internal/jsontree"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// Decode reads a generateContent request body, or a bare array of
// contents. Field names are read in either spelling the API accepts
// (systemInstruction or system_instruction, functionCall or function_call,
// ...). Errors are [*DecodeError]s that name the dotted path of the
// offending value, such as "contents.2.parts.0.functionCall.name: want a
// string, got a number"; in a bare array too, paths are those of a full
// body, as in Wire, Unmodeled and transcript's violations. Decode never
// panics, whatever the input. The Request does not alias body.
func Decode(body []byte) (*Request, error) { return decode(bytes.Clone(body)) }

// DecodeShared is [Decode] for a caller that keeps body unchanged while the
// Request is in use: the Request aliases body rather than a copy of it,
// which saves the size of the body in memory.
func DecodeShared(body []byte) (*Request, error) { return decode(body) }

func decode(body []byte) (*Request, error) {
	t, err := codec.Parse(body, ErrSyntax, "contents")
	if err != nil {
		return nil, decodeError(err)
	}
	r := &Request{src: &source{}}
	d := decoder{Reader: codec.NewReader(t, "Gemini", "contents", &r.Unmodeled), r: r, names: make(map[string]string)}
	root := t.Root()
	switch t.Kind(root) {
	case jsontree.Array:
		r.Bare = true
		err = d.contents(root)
	case jsontree.Object:
		err = d.body(root)
	default:
		err = d.Errorf(root, "want a request body (an object) or a contents array, got %s", t.Kind(root).Phrase())
	}
	if err != nil {
		return nil, decodeError(err)
	}
	return r, nil
}

type decoder struct {
	codec.Reader
	r     *Request
	names map[string]string // functionCall id → name
	// firstCall and firstResp are the first functionCall and
	// functionResponse of the content being decoded, or None.
	firstCall, firstResp jsontree.Node
}

// object checks that idx is an object without repeated keys, counting the
// two spellings of a field as one.
func (d *decoder) object(idx jsontree.Node, what string) error {
	t := d.T
	if t.Kind(idx) != jsontree.Object {
		return d.Want(idx, what)
	}
	plain := true
	for a := t.First(idx); a >= 0; a = t.Next(a) {
		if k, esc := t.RawKey(a); esc || bytes.IndexByte(k, '_') >= 0 {
			plain = false
			break
		}
	}
	if plain {
		return d.Object(idx, what)
	}
	for b := t.Next(t.First(idx)); b >= 0; b = t.Next(b) {
		kb := camel(t.Key(b))
		for a := t.First(idx); a != b; a = t.Next(a) {
			if camel(t.Key(a)) == kb {
				return d.Errorf(b, "repeats a field of the same object")
			}
		}
	}
	return nil
}

// camel returns the lowerCamelCase spelling of a snake_case field name.
func camel(k string) string {
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

// get returns the member of object obj named k (lowerCamelCase) in either
// spelling, or -1.
func (d *decoder) get(obj jsontree.Node, k string) jsontree.Node {
	for c := d.T.First(obj); c >= 0; c = d.T.Next(c) {
		if d.T.KeyIs(c, k) {
			return c
		}
		if raw, _ := d.T.RawKey(c); bytes.IndexByte(raw, '_') >= 0 && camel(d.T.Key(c)) == k {
			return c
		}
	}
	return jsontree.None
}

// extras returns the members of obj whose keys (in either spelling) are
// not in modeled, and notes each in Unmodeled.
func (d *decoder) extras(obj jsontree.Node, modeled ...string) []codec.Member {
	var out []codec.Member
next:
	for c := d.T.First(obj); c >= 0; c = d.T.Next(c) {
		raw, esc := d.T.RawKey(c)
		plain := !esc && bytes.IndexByte(raw, '_') < 0
		for _, m := range modeled {
			if plain && m != "" && string(raw) == m {
				continue next
			}
		}
		if !plain {
			ck := camel(d.T.Key(c))
			for _, m := range modeled {
				if m != "" && ck == m {
					continue next
				}
			}
		}
		out = append(out, d.Member(c))
	}
	return out
}

func (d *decoder) body(root jsontree.Node) error {
	if err := d.object(root, "an object"); err != nil {
		return err
	}
	r, t := d.r, d.T
	var system, contents, tools jsontree.Node = -1, -1, -1
	for c := t.First(root); c >= 0; c = t.Next(c) {
		key := t.Key(c)
		switch camel(key) {
		case "systemInstruction":
			system = c
		case "contents":
			contents = c
		case "tools":
			tools = c
		default:
			r.Fields = append(r.Fields, Field{Key: key, Value: t.Compact(c)})
			continue
		}
		r.Fields = append(r.Fields, Field{Key: key})
	}
	if contents < 0 {
		return d.Missing(root, "contents", `a generateContent request body has a "contents" array`)
	}
	if system >= 0 {
		if err := d.system(system); err != nil {
			return err
		}
	}
	if err := d.contents(contents); err != nil {
		return err
	}
	if tools >= 0 {
		return d.tools(tools)
	}
	return nil
}

// system decodes systemInstruction, a Content of text parts.
func (d *decoder) system(idx jsontree.Node) error {
	if err := d.object(idx, "a content object with text parts"); err != nil {
		return err
	}
	t, src := d.T, d.r.src
	parts := jsontree.None
	for c := t.First(idx); c >= 0; c = t.Next(c) {
		switch camel(t.Key(c)) {
		case "parts":
			parts = c
		case "role":
			if _, _, err := d.optStr(c); err != nil {
				return err
			}
		default:
			return d.Errorf(c, "unknown field (a content has role and parts)")
		}
	}
	if parts < 0 {
		return d.Missing(idx, "parts", "an array of text parts")
	}
	p0, one, err := d.elems(parts, "an array of text parts")
	if err != nil {
		return err
	}
	first := int32(len(src.blocks))
	for c := p0; c >= 0; c = d.next(c, one) {
		if err := d.object(c, "a part object"); err != nil {
			return err
		}
		tx := d.get(c, "text")
		if tx < 0 {
			return d.Errorf(c, "systemInstruction holds text parts only")
		}
		s, err := d.Str(tx)
		if err != nil {
			return err
		}
		src.blocks = append(src.blocks, block{part: llm.Text{Text: s}, raw: t.Compact(c), extras: d.extras(c, "text"), one: one})
	}
	d.addMessage(llm.RoleSystem, idx, first)
	src.leadSys = 1
	return nil
}

// addMessage appends the llm message made of the blocks from first on.
func (d *decoder) addMessage(role llm.Role, idx jsontree.Node, first int32) {
	src := d.r.src
	blocks := src.blocks[first:]
	parts := make([]llm.Part, 0, len(blocks))
	for _, b := range blocks {
		if b.sig != "" {
			parts = append(parts, llm.Reasoning{Provider: string(Dialect), Signature: b.sig})
		}
		parts = append(parts, b.part)
		if _, ok := b.part.(llm.ToolResult); ok && role == llm.RoleUser {
			role = llm.RoleTool
		}
	}
	d.r.Messages = append(d.r.Messages, llm.Message{Role: role, Parts: parts})
	src.msgs = append(src.msgs, codec.Msg{Raw: d.T.Compact(idx), First: first, Count: int32(len(blocks)), Role: role})
}

func (d *decoder) contents(idx jsontree.Node) error {
	t := d.T
	c0, one, err := d.elems(idx, "an array of contents")
	if err != nil {
		return err
	}
	d.r.src.contentsOne = one
	for c := c0; c >= 0; c = d.next(c, one) {
		if err := d.object(c, "a content object"); err != nil {
			return err
		}
		role := llm.RoleUser
		parts := jsontree.None
		var h head
		for f := t.First(c); f >= 0; f = t.Next(f) {
			key := "parts"
			if !t.KeyIs(f, "parts") {
				key = camel(t.Key(f))
			}
			switch key {
			case "role":
				name, _, err := d.optStr(f)
				if err != nil {
					return err
				}
				h.role, h.hasRole, h.roleLast = string(t.Compact(f)), true, parts >= 0
				switch name {
				case "user", "function", "tool", "":
				case "model":
					role = llm.RoleAssistant
				default:
					return d.Errorf(f, `unknown role %q (want "user" or "model")`, name)
				}
			case "parts":
				parts = f
			default:
				return d.Errorf(f, "unknown field (a content has role and parts)")
			}
		}
		if parts < 0 {
			return d.Missing(c, "parts", "an array of parts")
		}
		p0, pone, err := d.elems(parts, "an array of parts")
		if err != nil {
			return err
		}
		src := d.r.src
		first := int32(len(src.blocks))
		d.firstCall, d.firstResp = jsontree.None, jsontree.None
		for p := p0; p >= 0; p = d.next(p, pone) {
			b, err := d.part(p, role)
			if err != nil {
				return err
			}
			b.one = pone
			src.blocks = append(src.blocks, b)
		}
		// One content may mix function calls and responses: Gemini rejects
		// it (GEM-NO-MIX), which transcript reports. A call alone in a
		// user content, or a response alone in a model content, is no
		// such mix: the role is wrong.
		switch {
		case role == llm.RoleUser && d.firstCall >= 0 && d.firstResp < 0:
			return d.Errorf(d.firstCall, "a functionCall belongs in a model content, not a user content")
		case role == llm.RoleAssistant && d.firstResp >= 0 && d.firstCall < 0:
			return d.Errorf(d.firstResp, "a functionResponse belongs in a user content, not a model content (GEM-NO-MIX)")
		}
		if !h.hasRole || h.roleLast || (h.role != `"user"` && h.role != `"model"`) {
			if src.heads == nil {
				src.heads = make(map[int]head)
			}
			src.heads[len(src.msgs)] = h
		}
		d.addMessage(role, c, first)
	}
	return nil
}

// elems returns the first element of the repeated field n, and whether n
// is one object that stands for an array of one. Google's JSON parser
// takes a single value for a repeated field, and Google's own curl samples
// write "parts": {"text": ...}; Encode writes the field back in the form it
// had. what names the array wanted.
func (d *decoder) elems(n jsontree.Node, what string) (first jsontree.Node, one bool, err error) {
	switch d.T.Kind(n) {
	case jsontree.Array:
		return d.T.First(n), false, nil
	case jsontree.Object:
		return n, true, nil
	}
	return jsontree.None, false, d.Want(n, what)
}

// next returns the element after c of a repeated field that elems read.
func (d *decoder) next(c jsontree.Node, one bool) jsontree.Node {
	if one {
		return jsontree.None
	}
	return d.T.Next(c)
}

// optStr reads an optional string field: null stands for an unset field,
// as protobuf's JSON form has it.
func (d *decoder) optStr(n jsontree.Node) (s string, null bool, err error) {
	if d.T.Kind(n) == jsontree.Null {
		return "", true, nil
	}
	s, err = d.Str(n)
	return s, false, err
}

// dataFields are the members of a part's data oneof that toolwire knows.
var dataFields = [...]string{"text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult"}

// knownKinds are the part fields, besides the data fields, that make a
// part of a kind the llm form does not model: carried as an [llm.Opaque].
var knownKinds = [...]string{"executableCode", "codeExecutionResult", "toolCall", "toolResponse", "videoMetadata"}

// part decodes one part of a content with the given role (user or
// assistant). A part the llm form does not model (executableCode,
// codeExecutionResult, a built-in tool's toolCall and toolResponse, a
// videoMetadata of its own, an empty thought, a part of a kind toolwire
// does not know) becomes an [llm.Opaque] with the whole part, in either
// role: content Gemini accepts, never judged empty. Only a part with no
// field besides thought and thoughtSignature has no data
// (GEM-PARTS-NONEMPTY, listed in Wire).
func (d *decoder) part(idx jsontree.Node, role llm.Role) (block, error) {
	t := d.T
	if err := d.object(idx, "a part object"); err != nil {
		return block{}, err
	}
	b := block{raw: t.Compact(idx)}
	data, kind := jsontree.None, ""
	for _, k := range dataFields {
		if f := d.get(idx, k); f >= 0 {
			if data >= 0 {
				return block{}, d.Errorf(f, "a part holds one of text, inlineData, fileData, functionCall, functionResponse, executableCode or codeExecutionResult, but this one also has %s", kind)
			}
			data, kind = f, k
		}
	}
	var sig string
	if f := d.get(idx, "thoughtSignature"); f >= 0 {
		var err error
		if sig, _, err = d.optStr(f); err != nil {
			return block{}, err
		}
	}
	thought := false
	if f := d.get(idx, "thought"); f >= 0 {
		if t.Kind(f) != jsontree.Bool {
			return block{}, d.Want(f, "a boolean")
		}
		thought = t.IsTrue(f)
	}
	model := role == llm.RoleAssistant
	// A signature has an llm form (a Reasoning before the part) on a model
	// part and on a call; elsewhere it stays with the part as an extra
	// field.
	sigKey := ""
	if model || kind == "functionCall" {
		sigKey = "thoughtSignature"
	}
	switch {
	case thought && kind == "text" && model && t.Kind(data) == jsontree.String && len(t.Raw(data)) > 2:
		b.part = llm.Reasoning{Provider: string(Dialect), Text: t.Str(data), Signature: sig}
		b.extras = d.extras(idx, "text", "thought", sigKey)
		return b, nil
	case kind == "text" && !thought:
		s, err := d.Str(data)
		if err != nil {
			return block{}, err
		}
		b.part = llm.Text{Text: s}
		b.extras = d.extras(idx, "text", sigKey)
	case kind == "inlineData" || kind == "fileData":
		img, err := d.media(data, kind == "fileData")
		if err != nil {
			return block{}, err
		}
		b.part = img
		b.extras = d.extras(idx, kind, sigKey)
	case kind == "functionCall":
		c, err := d.call(data)
		if err != nil {
			return block{}, err
		}
		if d.firstCall < 0 {
			d.firstCall = data
		}
		b.part = c
		b.extras = d.extras(idx, kind, sigKey)
	case kind == "functionResponse":
		if d.firstResp < 0 {
			d.firstResp = data
		}
		if err := d.response(data, &b); err != nil {
			return block{}, err
		}
		b.extras = d.extras(idx, kind)
		return b, nil
	default:
		b.part, b.noData = d.opaque(idx, kind, thought)
		return b, nil
	}
	if sigKey != "" {
		b.sig = sig
	}
	return b, nil
}

// opaque returns the part at idx, which has no data field the llm form
// models (kind is its data field, or ""), as an [llm.Opaque]. It reports
// a part with no field besides thought and thoughtSignature (an empty
// thought aside), which it lists in Wire: Gemini wants one data field
// (GEM-PARTS-NONEMPTY).
func (d *decoder) opaque(idx jsontree.Node, kind string, thought bool) (llm.Opaque, bool) {
	t := d.T
	o := llm.Opaque{Provider: string(Dialect), Kind: kind, Data: t.Compact(idx)}
	if thought && (kind == "" || kind == "text") {
		o.Kind = "thought" // an empty thought, or one in a user content
		return o, false
	}
	if kind == "" {
		for c := t.First(idx); c >= 0; c = t.Next(c) {
			if k := camel(t.Key(c)); k != "thought" && k != "thoughtSignature" {
				o.Kind = k
				break
			}
		}
	}
	switch {
	case o.Kind == "":
		d.r.Wire = append(d.r.Wire, transcript.Violation{Rule: "GEM-PARTS-NONEMPTY", Path: d.Path(idx),
			Message:       "the part has no data field (text, inlineData, fileData, functionCall, ...)",
			ProviderError: fmt.Sprintf("* GenerateContentRequest.%s.data: required oneof field 'data' must have one initialized field", bracketPath(d.Path(idx)))})
		return o, true
	case !known(o.Kind):
		d.Note(idx, fmt.Sprintf("a %s part is of a kind toolwire does not know", o.Kind))
	}
	return o, false
}

func known(kind string) bool {
	for _, k := range knownKinds {
		if k == kind {
			return true
		}
	}
	return false
}

// bracketPath writes contents.2.parts.0 as contents[2].parts[0], the way
// Gemini's errors name fields.
func bracketPath(p string) string {
	segs := strings.Split(p, ".")
	var b strings.Builder
	for i, s := range segs {
		if s != "" && s[0] >= '0' && s[0] <= '9' {
			b.WriteString("[" + s + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

func (d *decoder) call(idx jsontree.Node) (llm.ToolCall, error) {
	var c llm.ToolCall
	if err := d.object(idx, "an object"); err != nil {
		return c, err
	}
	var err error
	if f := d.get(idx, "id"); f >= 0 {
		if c.ID, _, err = d.optStr(f); err != nil {
			return c, err
		}
	}
	f := d.get(idx, "name")
	if f < 0 {
		return c, d.Missing(idx, "name", "the function's name, a string")
	}
	if c.Name, err = d.Str(f); err != nil {
		return c, err
	}
	if f = d.get(idx, "args"); f >= 0 {
		if d.T.Kind(f) != jsontree.Object {
			return c, d.Want(f, "an object")
		}
		c.Input = d.T.Raw(f)
	}
	for m := d.T.First(idx); m >= 0; m = d.T.Next(m) {
		switch camel(d.T.Key(m)) {
		case "id", "name", "args":
		default:
			return c, d.Errorf(m, "unknown field (a functionCall has id, name and args)")
		}
	}
	if c.ID != "" {
		d.names[c.ID] = c.Name
	}
	return c, nil
}

// response decodes a functionResponse.
func (d *decoder) response(idx jsontree.Node, b *block) error {
	t := d.T
	if err := d.object(idx, "an object"); err != nil {
		return err
	}
	var r llm.ToolResult
	var err error
	if f := d.get(idx, "id"); f >= 0 {
		if r.CallID, _, err = d.optStr(f); err != nil {
			return err
		}
	}
	f := d.get(idx, "name")
	if f < 0 {
		return d.Missing(idx, "name", "the name of the function that was called, a string")
	}
	if r.Name, err = d.Str(f); err != nil {
		return err
	}
	f = d.get(idx, "response")
	if f < 0 {
		return d.Missing(idx, "response", `the function's output, an object such as {"output": ...}`)
	}
	if t.Kind(f) == jsontree.Object {
		r.Content, r.Status = decodeResponse(t, f)
	} else {
		d.r.Wire = append(d.r.Wire, transcript.Violation{Rule: "GEM-RESPONSE-OBJECT", Path: d.Path(f),
			Message:       fmt.Sprintf(`functionResponse.response must be a JSON object, not %s; wrap it as {"output": ...}`, t.Kind(f).Phrase()),
			ProviderError: fmt.Sprintf(`Invalid JSON payload received. Unknown name "response" at '%s': Proto field is not repeating, cannot start list.`, bracketPath(d.Path(idx)))})
		b.respVal = t.Compact(f)
		r.Content, r.Status = []llm.Part{llm.Text{Text: string(b.respVal)}}, llm.StatusSuccess
	}
	if f = d.get(idx, "parts"); f >= 0 {
		p0, one, err := d.elems(f, "an array of parts")
		if err != nil {
			return err
		}
		b.respOne = one
		for p := p0; p >= 0; p = d.next(p, one) {
			if err := d.object(p, "a part object"); err != nil {
				return err
			}
			data, file := d.get(p, "inlineData"), false
			if data < 0 {
				data, file = d.get(p, "fileData"), true
			}
			if data < 0 {
				return d.Errorf(p, "a functionResponse part holds inlineData or fileData")
			}
			img, err := d.media(data, file)
			if err != nil {
				return err
			}
			r.Content = append(r.Content, img)
		}
	}
	b.resp = d.extras(idx, "id", "name", "response", "parts")
	b.part = r
	return nil
}

// decodeResponse reads a functionResponse.response object; see the package
// documentation.
func decodeResponse(t *jsontree.Tree, obj jsontree.Node) ([]llm.Part, llm.Status) {
	switch t.Len(obj) {
	case 0:
		return nil, llm.StatusSuccess
	case 1:
		c := t.First(obj)
		isStr := t.Kind(c) == jsontree.String
		switch {
		case t.KeyIs(c, "output") && isStr:
			if s := t.Str(c); !objectText(s) {
				return []llm.Part{llm.Text{Text: s}}, llm.StatusSuccess
			}
		case t.KeyIs(c, "error"):
			if isStr {
				if s := t.Str(c); !objectText(s) {
					return []llm.Part{llm.Text{Text: s}}, llm.StatusError
				}
			}
			return []llm.Part{llm.Text{Text: string(t.Compact(obj))}}, llm.StatusError
		}
	}
	text := string(t.Compact(obj))
	if st, ok := codec.EnvelopeStatus(text); ok {
		return []llm.Part{llm.Text{Text: text}}, st
	}
	return []llm.Part{llm.Text{Text: text}}, llm.StatusSuccess
}

// objectText reports whether s is exactly a compact JSON object, which
// Encode would send as the response itself.
func objectText(s string) bool {
	obj, ok := jsontree.ValidObject([]byte(s))
	return ok && len(obj) == len(s) && bytes.Equal(jsontree.AppendCompact(nil, obj), obj)
}

// media decodes inlineData {mimeType, data} or fileData {mimeType,
// fileUri}.
func (d *decoder) media(idx jsontree.Node, file bool) (llm.Image, error) {
	var img llm.Image
	if err := d.object(idx, "an object"); err != nil {
		return img, err
	}
	var err error
	if f := d.get(idx, "mimeType"); f >= 0 {
		if img.MediaType, _, err = d.optStr(f); err != nil {
			return img, err
		}
	}
	if file {
		f := d.get(idx, "fileUri")
		if f < 0 {
			return img, d.Missing(idx, "fileUri", "the file's URI")
		}
		img.URL, err = d.Str(f)
		return img, err
	}
	if img.MediaType == "" {
		return img, d.Missing(idx, "mimeType", `such as "image/png"`)
	}
	f := d.get(idx, "data")
	if f < 0 {
		return img, d.Missing(idx, "data", "base64 bytes")
	}
	s, err := d.Str(f)
	if err != nil {
		return img, err
	}
	if img.Data, err = base64.StdEncoding.DecodeString(s); err != nil {
		if img.Data, err = base64.URLEncoding.DecodeString(s); err != nil {
			return img, d.Errorf(f, "invalid base64: %v", err)
		}
	}
	if img.Data == nil {
		img.Data = []byte{}
	}
	return img, nil
}

// tools decodes the tools array: Tool objects, each with function
// declarations or another kind of tool.
func (d *decoder) tools(idx jsontree.Node) error {
	t := d.T
	c0, one, err := d.elems(idx, "an array of tools")
	if err != nil {
		return err
	}
	d.r.src.toolsOne = one
	for c := c0; c >= 0; c = d.next(c, one) {
		if err := d.object(c, "a tool object"); err != nil {
			return err
		}
		st := srcTool{raw: t.Compact(c)}
		fd := d.get(c, "functionDeclarations")
		if fd < 0 {
			d.Note(c, "a tool without function declarations (googleSearch, codeExecution, ...) is not part of the llm form")
			st.opaque = true
			d.r.src.tools = append(d.r.src.tools, st)
			continue
		}
		st.key = t.Key(fd)
		st.extras = d.extras(c, "functionDeclarations")
		f0, fone, err := d.elems(fd, "an array of function declarations")
		if err != nil {
			return err
		}
		st.declOne = fone
		for f := f0; f >= 0; f = d.next(f, fone) {
			decl, err := d.decl(f)
			if err != nil {
				return err
			}
			st.decls = append(st.decls, decl)
			d.r.Tools = append(d.r.Tools, decl.spec)
		}
		d.r.src.tools = append(d.r.src.tools, st)
	}
	return nil
}

func (d *decoder) decl(idx jsontree.Node) (srcDecl, error) {
	t := d.T
	if err := d.object(idx, "a function declaration object"); err != nil {
		return srcDecl{}, err
	}
	sd := srcDecl{raw: t.Compact(idx)}
	f := d.get(idx, "name")
	if f < 0 {
		return sd, d.Missing(idx, "name", "the function's name, a string")
	}
	var err error
	if sd.spec.Name, err = d.Str(f); err != nil {
		return sd, err
	}
	describe := "description"
	if f = d.get(idx, "description"); f >= 0 {
		var null bool
		if sd.spec.Description, null, err = d.optStr(f); err != nil {
			return sd, err
		}
		if null {
			describe = "" // "description": null stays as it is, an extra field
		}
	}
	p, js := d.get(idx, "parameters"), d.get(idx, "parametersJsonSchema")
	if p >= 0 && js >= 0 {
		return sd, d.Errorf(js, "parameters and parametersJsonSchema cannot both be set")
	}
	if js >= 0 {
		p = js
	}
	if p >= 0 {
		if t.Kind(p) != jsontree.Object {
			return sd, d.Want(p, "a schema object")
		}
		sd.paramKey = t.Key(p)
		if p == js {
			sd.spec.Parameters = t.Compact(p)
		} else {
			sd.spec.Parameters = appendJSONSchema(nil, t, p)
		}
	}
	sd.extras = d.extras(idx, "name", describe, "parameters", "parametersJsonSchema")
	return sd, nil
}

// appendJSONSchema appends the OpenAPI 3.0 schema at node idx (what
// Gemini's parameters field takes) as JSON Schema, the form of
// [llm.ToolSpec].Parameters: upper-case type names become lower case
// ("OBJECT" → "object"), and nullable: true becomes a "null" type. It
// follows properties, items, anyOf and the other subschema keywords, and
// copies everything else as it is.
func appendJSONSchema(dst []byte, t *jsontree.Tree, idx jsontree.Node) []byte {
	if t.Kind(idx) != jsontree.Object {
		return t.AppendCompact(dst, idx)
	}
	nullable := false
	for c := t.First(idx); c >= 0; c = t.Next(c) {
		if t.KeyIs(c, "nullable") && t.Kind(c) == jsontree.Bool && t.IsTrue(c) {
			nullable = true
		}
	}
	dst = append(dst, '{')
	first := true
	for c := t.First(idx); c >= 0; c = t.Next(c) {
		key := t.Key(c)
		var typ string
		if key == "type" && t.Kind(c) == jsontree.String {
			typ = t.Str(c)
			switch typ {
			case "TYPE_UNSPECIFIED":
				continue
			case "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL":
				typ = strings.ToLower(typ)
			}
		}
		if key == "nullable" && t.Kind(c) == jsontree.Bool {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst, _ = llm.AppendJSONString(dst, key)
		dst = append(dst, ':')
		switch {
		case typ != "":
			if nullable && typ != "null" {
				dst = append(dst, '[')
				dst, _ = llm.AppendJSONString(dst, typ)
				dst = append(dst, `,"null"]`...)
			} else {
				dst, _ = llm.AppendJSONString(dst, typ)
			}
		case (key == "properties" || key == "$defs" || key == "definitions") && t.Kind(c) == jsontree.Object:
			dst = append(dst, '{')
			for p := t.First(c); p >= 0; p = t.Next(p) {
				if p != t.First(c) {
					dst = append(dst, ',')
				}
				dst, _ = llm.AppendJSONString(dst, t.Key(p))
				dst = append(dst, ':')
				dst = appendJSONSchema(dst, t, p)
			}
			dst = append(dst, '}')
		case key == "items" || key == "additionalProperties" || key == "not":
			dst = appendJSONSchema(dst, t, c)
		case (key == "anyOf" || key == "oneOf" || key == "allOf" || key == "prefixItems") && t.Kind(c) == jsontree.Array:
			dst = append(dst, '[')
			for p := t.First(c); p >= 0; p = t.Next(p) {
				if p != t.First(c) {
					dst = append(dst, ',')
				}
				dst = appendJSONSchema(dst, t, p)
			}
			dst = append(dst, ']')
		default:
			dst = t.AppendCompact(dst, c)
		}
	}
	return append(dst, '}')
}
