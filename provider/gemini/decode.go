package gemini

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// Decode reads a generateContent request body, or a bare array of
// contents. Field names are read in either spelling the API accepts
// (systemInstruction or system_instruction, functionCall or function_call,
// ...). Errors are [*llm.DecodeError]s (Op "gemini") that name the dotted
// path of the offending value, such as "contents.2.parts.0.functionCall.name:
// want a string, got a number", and for a body that is not JSON the line,
// the column and the byte offset; in a bare array too, paths are those of a
// full body, as in Wire, Unmodeled and transcript's violations. Decode
// never panics, whatever the input. The Request does not alias body.
func Decode(body []byte) (*Request, error) { return DecodeShared(append([]byte(nil), body...)) }

// DecodeShared is [Decode] for a caller that keeps body unchanged while the
// Request is in use: the Request aliases body rather than a copy of it,
// which saves the size of the body in memory.
func DecodeShared(body []byte) (*Request, error) { return decode(body, nil) }

// DecodeAfter decodes body, a request body (or a bare contents array)
// whose contents array holds only what follows the contents of prev's
// body: those stand before them, and the request holds all of them, with
// the paths (Wire, Unmodeled) of the array they are all in. It is
// [DecodeShared] for a body that repeats the contents of one decoded
// before and adds to them, as each request of a conversation does, at the
// cost of decoding what it adds: a caller that has seen the repeated bytes
// are the same (a gateway) cuts them out of the array (its first element
// is then the first new one, or it is empty). prev is read, not changed,
// and must be as a Decode function returned it, from a body whose contents
// is an array; the request aliases prev, as it does body.
func DecodeAfter(prev *Request, body []byte) (*Request, error) {
	if prev == nil || prev.hist == nil {
		return nil, errorIn(llm.Path{}, "DecodeAfter: the previous request was not decoded from a body with a contents array")
	}
	return decode(body, prev.hist)
}

// decode decodes body; its contents array follows those of prev when prev
// is not nil.
func decode(body []byte, prev *history) (*Request, error) {
	r := &Request{src: &source{}}
	d := decoder{r: r, names: make(map[string]string), prev: prev}
	err := codec.Decode(codec.Dialect{Op: "gemini", Name: "Gemini", Bare: "contents", Notes: &r.Unmodeled,
		Want: "a request body (an object) or a contents array"}, body,
		func(rd *codec.Reader) error { r.Bare = true; return d.contents(rd) },
		d.body)
	if err != nil {
		return nil, err
	}
	return r, nil
}

type decoder struct {
	r     *Request
	names map[string]string // functionCall id → name
	prev  *history          // the contents the body's array follows, or nil
	// firstCall and firstResp are the paths of the first functionCall and
	// functionResponse of the content being decoded.
	firstCall, firstResp llm.Path
	hasCall, hasResp     bool
}

// object reads the object at rd whole, and checks that it does not give a
// field twice in its two spellings ([checkSpellings]); what names the
// object wanted.
func object(rd *codec.Reader, what string) (codec.Object, error) {
	o, err := rd.ReadObjectOf(what)
	if err != nil {
		return o, err
	}
	return o, checkSpellings(rd, &o)
}

// snaked reports whether a member name in ms is snake_case.
func snaked(ms []codec.Member) bool {
	for _, m := range ms {
		if strings.Contains(m.Key, "_") {
			return true
		}
	}
	return false
}

// get returns the member of o named k (lowerCamelCase) in either spelling:
// the name it has, and its value, nil when there is none.
func get(o *codec.Object, k string) (string, []byte) {
	m := member(o, k)
	return m.Key, m.Val
}

// member returns the member of o named k (lowerCamelCase) in either
// spelling; its Val is nil when there is none.
func member(o *codec.Object, k string) codec.Member {
	for _, m := range o.Members {
		if m.Key == k || strings.Contains(m.Key, "_") && codec.Camel(m.Key) == k {
			return m
		}
	}
	return codec.Member{}
}

// extras returns the members of o whose keys (in either spelling) are not
// in modeled, and notes each in Unmodeled.
func extras(rd *codec.Reader, o *codec.Object, modeled ...string) []codec.Member {
	var out []codec.Member
next:
	for _, m := range o.Members {
		k := codec.Camel(m.Key)
		for _, mk := range modeled {
			if mk != "" && k == mk {
				continue next
			}
		}
		out = append(out, rd.Extra(m))
	}
	return out
}

// body reads the request body at rd member by member, contents as it
// comes (the most of a body, read once), systemInstruction and tools after
// it, in the order of the errors a body can have: a field given in both
// spellings, no contents, then what is wrong in systemInstruction, in
// contents and in tools, in that order, whatever the order of the fields.
func (d *decoder) body(rd *codec.Reader) error {
	r := d.r
	var names codec.Object // the members, by name only, for checkSpellings
	var system, tools []byte
	var systemKey, toolsKey string
	hasContents := false
	var contentsErr error
	err := rd.Object(func(key string) error {
		names.Members = append(names.Members, codec.Member{Key: key})
		var err error
		switch codec.Camel(key) {
		case "systemInstruction":
			system, err = rd.Value()
			systemKey = key
		case "contents":
			hasContents = true
			if contentsErr = d.contents(rd); codec.IsSyntax(contentsErr) {
				err = contentsErr
			}
		case "tools":
			tools, err = rd.Value()
			toolsKey = key
		default:
			v, err := rd.Raw()
			r.Fields = append(r.Fields, Field{Key: key, Value: v})
			return err
		}
		r.Fields = append(r.Fields, Field{Key: key})
		return err
	})
	if err != nil {
		return rd.WholeSyntax(err)
	}
	if err := checkSpellings(rd, &names); err != nil {
		return err
	}
	if !hasContents {
		return rd.Missing("contents", `a generateContent request body has a "contents" array`)
	}
	if system != nil {
		if err := d.systemFirst(rd.Enter(systemKey, system)); err != nil {
			return err
		}
	}
	if contentsErr != nil {
		return contentsErr
	}
	if tools != nil {
		return d.tools(rd.Enter(toolsKey, tools))
	}
	return nil
}

// systemFirst decodes systemInstruction, read after the contents, and puts
// its message, its parts and its notes before theirs, where they belong.
func (d *decoder) systemFirst(rd *codec.Reader) error {
	r, src := d.r, d.r.src
	at := codec.Decoded{Messages: len(r.Messages), Blocks: len(src.blocks), Notes: len(r.Unmodeled)}
	if err := d.system(rd); err != nil {
		return err
	}
	codec.SystemFirst(at, &r.Messages, &src.msgs, &src.blocks, &r.Unmodeled)
	if len(src.heads) > 0 {
		heads := make(map[int]head, len(src.heads))
		for i, h := range src.heads {
			heads[i+1] = h
		}
		src.heads = heads
	}
	return nil
}

// checkSpellings checks that o, the object at rd, does not give a field
// twice in its two spellings (a name given twice in one spelling is not
// JSON that the Reader reads).
func checkSpellings(rd *codec.Reader, o *codec.Object) error {
	if !snaked(o.Members) {
		return nil
	}
	for b := 1; b < len(o.Members); b++ {
		kb := codec.Camel(o.Members[b].Key)
		for _, a := range o.Members[:b] {
			if codec.Camel(a.Key) == kb {
				return rd.ErrorAt(o.Members[b].Key, "repeats a field of the same object")
			}
		}
	}
	return nil
}

// system decodes systemInstruction, a Content of text parts.
func (d *decoder) system(rd *codec.Reader) error {
	o, err := object(rd, "a content object with text parts")
	if err != nil {
		return err
	}
	src := d.r.src
	var parts []byte
	var partsKey string
	for _, m := range o.Members {
		switch codec.Camel(m.Key) {
		case "parts":
			parts, partsKey = m.Val, m.Key
		case "role":
			if _, _, err := optStr(rd, m.Key, m.Val); err != nil {
				return err
			}
		default:
			return rd.ErrorAt(m.Key, "unknown field (a content has role and parts)")
		}
	}
	if parts == nil {
		return rd.Missing("parts", "an array of text parts")
	}
	first := int32(len(src.blocks))
	err = elems(rd.Enter(partsKey, parts), "an array of text parts", func(pr *codec.Reader, one bool) error {
		p, err := object(pr, "a part object")
		if err != nil {
			return err
		}
		k, tx := get(&p, "text")
		if tx == nil {
			return pr.Errorf("systemInstruction holds text parts only")
		}
		s, err := pr.StrAt(k, tx)
		if err != nil {
			return err
		}
		src.blocks = append(src.blocks, block{part: llm.Text{Text: s}, raw: p.Raw(), extras: extras(pr, &p, "text"), one: one})
		return nil
	})
	if err != nil {
		return err
	}
	d.addMessage(llm.RoleSystem, o.Raw(), first)
	src.leadSys = 1
	return nil
}

// addMessage appends the llm message made of the blocks from first on;
// raw is the wire content.
func (d *decoder) addMessage(role llm.Role, raw []byte, first int32) {
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
	src.msgs = append(src.msgs, codec.Msg{Raw: raw, First: first, Count: int32(len(blocks)), Role: role})
}

func (d *decoder) contents(rd *codec.Reader) error {
	wire, notes := len(d.r.Wire), len(d.r.Unmodeled)
	first := 0
	if h := d.prev; h != nil {
		if rd.Kind() != '[' {
			return rd.Want("an array of contents, after those of the body before")
		}
		first = d.resume(h)
	}
	n := first
	err := elemsFrom(rd, first, "an array of contents", func(cr *codec.Reader, one bool) error {
		n++
		d.r.src.contentsOne = one
		c, err := object(cr, "a content object")
		if err != nil {
			return err
		}
		role := llm.RoleUser
		var parts []byte
		var partsKey string
		var h head
		for _, m := range c.Members {
			key := codec.Camel(m.Key)
			switch key {
			case "role":
				name, _, err := optStr(cr, m.Key, m.Val)
				if err != nil {
					return err
				}
				h.role, h.hasRole, h.roleLast = string(m.Val), true, parts != nil
				switch name {
				case "user", "function", "tool", "":
				case "model":
					role = llm.RoleAssistant
				case "assistant":
					// The other dialects' name for the model's turn:
					// Gemini rejects it (GEM-ROLE), and it can only mean
					// the model.
					role = llm.RoleAssistant
					h.badRole = true
					d.r.Wire = append(d.r.Wire, transcript.Violation{Rule: "GEM-ROLE", Path: cr.At(m.Key),
						Message:       `the content's role is "assistant", which is not a Gemini role ("user" and "model"): the model's turns have the role "model"`,
						ProviderError: "Please use a valid role: user, model."})
				default:
					return cr.ErrorAt(m.Key, `unknown role %q (want "user" or "model")`, name)
				}
			case "parts":
				parts, partsKey = m.Val, m.Key
			default:
				return cr.ErrorAt(m.Key, "unknown field (a content has role and parts)")
			}
		}
		if parts == nil {
			return cr.Missing("parts", "an array of parts")
		}
		src := d.r.src
		first := int32(len(src.blocks))
		d.hasCall, d.hasResp = false, false
		err = elems(cr.Enter(partsKey, parts), "an array of parts", func(pr *codec.Reader, one bool) error {
			b, err := d.part(pr, role)
			if err != nil {
				return err
			}
			b.one = one
			src.blocks = append(src.blocks, b)
			return nil
		})
		if err != nil {
			return err
		}
		// One content may mix function calls and responses: Gemini rejects
		// it (GEM-NO-MIX), which transcript reports. A call alone in a
		// user content, or a response alone in a model content, is no
		// such mix: the role is wrong.
		switch {
		case role == llm.RoleUser && d.hasCall && !d.hasResp:
			return errorIn(d.firstCall, "a functionCall belongs in a model content, not a user content")
		case role == llm.RoleAssistant && d.hasResp && !d.hasCall:
			return errorIn(d.firstResp, "a functionResponse belongs in a user content, not a model content (GEM-NO-MIX)")
		}
		if !h.hasRole || h.roleLast || (h.role != `"user"` && h.role != `"model"`) {
			if src.heads == nil {
				src.heads = make(map[int]head)
			}
			src.heads[len(src.msgs)] = h
		}
		if h.badRole {
			for k := first; k < int32(len(src.blocks)); k++ {
				src.blocks[k].badRole = true
			}
		}
		d.addMessage(role, c.Raw(), first)
		return nil
	})
	if err == nil && !d.r.src.contentsOne {
		d.r.hist = d.history(n, wire, notes)
	}
	return err
}

// errorIn returns a decode error of the value at path p.
func errorIn(p llm.Path, msg string) error {
	return &llm.DecodeError{Op: "gemini", Path: p, Style: llm.Dotted, Offset: -1, Err: fmt.Errorf("%s", msg)}
}

// elems reads the repeated field at rd, calling each for every element
// with the reader at it, and one set when the field is one object that
// stands for an array of one. Google's JSON parser takes a single value for
// a repeated field, and Google's own curl samples write "parts": {"text":
// ...}; Encode writes the field back in the form it had. what names the
// array wanted.
func elems(rd *codec.Reader, what string, each func(rd *codec.Reader, one bool) error) error {
	return elemsFrom(rd, 0, what, each)
}

// elemsFrom is elems for an array that holds the elements of another from
// its element first on (codec.Reader.ArrayFrom).
func elemsFrom(rd *codec.Reader, first int, what string, each func(rd *codec.Reader, one bool) error) error {
	switch rd.Kind() {
	case '[':
		return rd.ArrayFrom(first, func(int) error { return each(rd, false) })
	case '{':
		return each(rd, true)
	}
	return rd.Want(what)
}

// optStr reads v, the value of member key of the value at rd, an optional
// string field: null stands for an unset field, as protobuf's JSON form has
// it.
func optStr(rd *codec.Reader, key string, v []byte) (s string, null bool, err error) {
	if codec.IsNull(v) {
		return "", true, nil
	}
	s, err = rd.StrAt(key, v)
	return s, false, err
}

// partFields are the fields of a part that part looks up: the members of
// its data oneof that toolwire knows (dataFields), then thoughtSignature
// and thought.
var partFields = [...]string{"text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult", "thoughtSignature", "thought"}

// Where thoughtSignature and thought are in partFields, after the data
// fields.
const sigField, thoughtField = len(partFields) - 2, len(partFields) - 1

var dataFields = partFields[:sigField]

// lookup sets out[i] to the member of o named names[i] (lowerCamelCase) in
// either spelling, reading o's members once; a name o lacks leaves its
// Member unset (Val nil).
func lookup(o *codec.Object, names []string, out []codec.Member) {
	for _, m := range o.Members {
		k := codec.Camel(m.Key)
		for i, n := range names {
			if k == n {
				out[i] = m
				break
			}
		}
	}
}

// knownKinds are the part fields, besides the data fields, that make a
// part of a kind the llm form does not model: carried as an [llm.Opaque].
var knownKinds = [...]string{"executableCode", "codeExecutionResult", "toolCall", "toolResponse", "videoMetadata"}

// part decodes the part at rd, of a content with the given role (user or
// assistant). A part the llm form does not model (executableCode,
// codeExecutionResult, a built-in tool's toolCall and toolResponse, a
// videoMetadata of its own, an empty thought, a part of a kind toolwire
// does not know) becomes an [llm.Opaque] with the whole part, in either
// role: content Gemini accepts, never judged empty. Only a part with no
// field besides thought and thoughtSignature has no data
// (GEM-PARTS-NONEMPTY, listed in Wire).
func (d *decoder) part(rd *codec.Reader, role llm.Role) (block, error) {
	o, err := object(rd, "a part object")
	if err != nil {
		return block{}, err
	}
	b := block{raw: o.Raw()}
	var fields [len(partFields)]codec.Member
	lookup(&o, partFields[:], fields[:])
	var data []byte
	var dataKey, kind string
	for i, k := range dataFields {
		if m := fields[i]; m.Val != nil {
			if data != nil {
				return block{}, rd.ErrorAt(m.Key, "a part holds one of text, inlineData, fileData, functionCall, functionResponse, executableCode or codeExecutionResult, but this one also has %s", kind)
			}
			data, dataKey, kind = m.Val, m.Key, k
		}
	}
	var sig string
	if m := fields[sigField]; m.Val != nil {
		if sig, _, err = optStr(rd, m.Key, m.Val); err != nil {
			return block{}, err
		}
	}
	thought := false
	if m := fields[thoughtField]; m.Val != nil {
		var ok bool
		if thought, ok = codec.Bool(m.Val); !ok {
			return block{}, rd.WantAt(m.Key, m.Val, "a boolean")
		}
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
	case thought && kind == "text" && model && codec.Kind(data) == '"' && len(data) > 2:
		s, _ := codec.String(data)
		b.part = llm.Reasoning{Provider: string(Dialect), Text: s, Signature: sig}
		b.extras = extras(rd, &o, "text", "thought", sigKey)
		return b, nil
	case kind == "text" && !thought:
		s, err := rd.StrAt(dataKey, data)
		if err != nil {
			return block{}, err
		}
		b.part = llm.Text{Text: s}
		b.extras = extras(rd, &o, "text", sigKey)
	case kind == "inlineData" || kind == "fileData":
		img, err := media(rd.Enter(dataKey, data), kind == "fileData")
		if err != nil {
			return block{}, err
		}
		b.part = img
		b.extras = extras(rd, &o, kind, sigKey)
	case kind == "functionCall":
		c, err := d.call(rd.Enter(dataKey, data))
		if err != nil {
			return block{}, err
		}
		if !d.hasCall {
			d.firstCall, d.hasCall = rd.Path().Key(dataKey), true
		}
		b.part = c
		b.extras = extras(rd, &o, kind, sigKey)
	case kind == "functionResponse":
		if !d.hasResp {
			d.firstResp, d.hasResp = rd.Path().Key(dataKey), true
		}
		if err := d.response(rd.Enter(dataKey, data), &b); err != nil {
			return block{}, err
		}
		b.extras = extras(rd, &o, kind)
		return b, nil
	default:
		b.part, b.noData = d.opaque(rd, &o, kind, thought)
		return b, nil
	}
	if sigKey != "" {
		b.sig = sig
	}
	return b, nil
}

// opaque returns the part o at rd, which has no data field the llm form
// models (kind is its data field, or ""), as an [llm.Opaque]. It reports a
// part with no field besides thought and thoughtSignature (an empty
// thought aside), which it lists in Wire: Gemini wants one data field
// (GEM-PARTS-NONEMPTY).
func (d *decoder) opaque(rd *codec.Reader, o *codec.Object, kind string, thought bool) (llm.Opaque, bool) {
	op := llm.Opaque{Provider: string(Dialect), Kind: kind, Data: o.Raw()}
	if thought && (kind == "" || kind == "text") {
		op.Kind = "thought" // an empty thought, or one in a user content
		return op, false
	}
	if kind == "" {
		for _, m := range o.Members {
			if k := codec.Camel(m.Key); k != "thought" && k != "thoughtSignature" {
				op.Kind = k
				break
			}
		}
	}
	switch {
	case op.Kind == "":
		path := rd.PathString()
		d.r.Wire = append(d.r.Wire, transcript.Violation{Rule: "GEM-PARTS-NONEMPTY", Path: path,
			Message:       "the part has no data field (text, inlineData, fileData, functionCall, ...)",
			ProviderError: fmt.Sprintf("* GenerateContentRequest.%s.data: required oneof field 'data' must have one initialized field", bracketPath(rd.Path()))})
		return op, true
	case !known(op.Kind):
		rd.Note(fmt.Sprintf("a %s part is of a kind toolwire does not know", op.Kind))
	}
	return op, false
}

func known(kind string) bool {
	for _, k := range knownKinds {
		if k == kind {
			return true
		}
	}
	return false
}

// bracketPath writes the path contents.2.parts.0 as contents[2].parts[0],
// the way Gemini's errors name fields.
func bracketPath(p llm.Path) string { return p.Format(llm.Indexed) }

func (d *decoder) call(rd *codec.Reader) (llm.ToolCall, error) {
	var c llm.ToolCall
	o, err := object(rd, "an object")
	if err != nil {
		return c, err
	}
	if key, v := get(&o, "id"); v != nil {
		if c.ID, _, err = optStr(rd, key, v); err != nil {
			return c, err
		}
	}
	key, v := get(&o, "name")
	if v == nil {
		return c, rd.Missing("name", "the function's name, a string")
	}
	if c.Name, err = rd.StrAt(key, v); err != nil {
		return c, err
	}
	if m := member(&o, "args"); m.Val != nil {
		if codec.Kind(m.Val) != '{' {
			return c, rd.WantAt(m.Key, m.Val, "an object")
		}
		c.Input = m.Val
	}
	for _, m := range o.Members {
		switch codec.Camel(m.Key) {
		case "id", "name", "args":
		default:
			return c, rd.ErrorAt(m.Key, "unknown field (a functionCall has id, name and args)")
		}
	}
	if c.ID != "" {
		d.names[c.ID] = c.Name
	}
	return c, nil
}

// response decodes a functionResponse.
func (d *decoder) response(rd *codec.Reader, b *block) error {
	o, err := object(rd, "an object")
	if err != nil {
		return err
	}
	var r llm.ToolResult
	if key, v := get(&o, "id"); v != nil {
		if r.CallID, _, err = optStr(rd, key, v); err != nil {
			return err
		}
	}
	key, v := get(&o, "name")
	if v == nil {
		return rd.Missing("name", "the name of the function that was called, a string")
	}
	if r.Name, err = rd.StrAt(key, v); err != nil {
		return err
	}
	resp := member(&o, "response")
	key, v = resp.Key, resp.Compact()
	if v == nil {
		return rd.Missing("response", `the function's output, an object such as {"output": ...}`)
	}
	if codec.Kind(v) == '{' {
		r.Content, r.Status = decodeResponse(v)
	} else {
		d.r.Wire = append(d.r.Wire, transcript.Violation{Rule: "GEM-RESPONSE-OBJECT", Path: rd.At(key),
			Message:       fmt.Sprintf(`functionResponse.response must be a JSON object, not %s; wrap it as {"output": ...}`, codec.Phrase(codec.Kind(v))),
			ProviderError: fmt.Sprintf(`Invalid JSON payload received. Unknown name "response" at '%s': Proto field is not repeating, cannot start list.`, bracketPath(rd.Path()))})
		b.respVal = v
		r.Content, r.Status = []llm.Part{llm.Text{Text: string(v)}}, llm.StatusSuccess
	}
	if key, v := get(&o, "parts"); v != nil {
		err := elems(rd.Enter(key, v), "an array of parts", func(pr *codec.Reader, one bool) error {
			b.respOne = one
			p, err := object(pr, "a part object")
			if err != nil {
				return err
			}
			dk, data := get(&p, "inlineData")
			file := false
			if data == nil {
				dk, data = get(&p, "fileData")
				file = true
			}
			if data == nil {
				return pr.Errorf("a functionResponse part holds inlineData or fileData")
			}
			img, err := media(pr.Enter(dk, data), file)
			if err != nil {
				return err
			}
			r.Content = append(r.Content, img)
			return nil
		})
		if err != nil {
			return err
		}
	}
	b.resp = extras(rd, &o, "id", "name", "response", "parts")
	b.part = r
	return nil
}

// decodeResponse reads a functionResponse.response object, compact; see
// the package documentation.
func decodeResponse(obj []byte) ([]llm.Part, llm.Status) {
	ms := codec.Members(obj)
	switch len(ms) {
	case 0:
		return nil, llm.StatusSuccess
	case 1:
		c := ms[0]
		s, isStr := codec.String(c.Val)
		switch {
		case c.Key == "output" && isStr:
			if !objectText(s) {
				return []llm.Part{llm.Text{Text: s}}, llm.StatusSuccess
			}
		case c.Key == "error":
			if isStr && !objectText(s) {
				return []llm.Part{llm.Text{Text: s}}, llm.StatusError
			}
			return []llm.Part{llm.Text{Text: string(obj)}}, llm.StatusError
		}
	}
	text := string(obj)
	if st, ok := codec.EnvelopeStatus(text); ok {
		return []llm.Part{llm.Text{Text: text}}, st
	}
	return []llm.Part{llm.Text{Text: text}}, llm.StatusSuccess
}

// objectText reports whether s is exactly a compact JSON object, which
// Encode would send as the response itself.
func objectText(s string) bool {
	obj, ok := codec.ValidObject([]byte(s))
	if !ok || len(obj) != len(s) {
		return false
	}
	c, ok := codec.AppendCompact(nil, obj)
	return ok && bytes.Equal(c, obj)
}

// media decodes inlineData {mimeType, data} or fileData {mimeType,
// fileUri}.
func media(rd *codec.Reader, file bool) (llm.Image, error) {
	var img llm.Image
	o, err := object(rd, "an object")
	if err != nil {
		return img, err
	}
	if key, v := get(&o, "mimeType"); v != nil {
		if img.MediaType, _, err = optStr(rd, key, v); err != nil {
			return img, err
		}
	}
	if file {
		key, v := get(&o, "fileUri")
		if v == nil {
			return img, rd.Missing("fileUri", "the file's URI")
		}
		img.URL, err = rd.StrAt(key, v)
		return img, err
	}
	if img.MediaType == "" {
		return img, rd.Missing("mimeType", `such as "image/png"`)
	}
	key, v := get(&o, "data")
	if v == nil {
		return img, rd.Missing("data", "base64 bytes")
	}
	s, err := rd.StrAt(key, v)
	if err != nil {
		return img, err
	}
	if img.Data, err = base64.StdEncoding.DecodeString(s); err != nil {
		if img.Data, err = base64.URLEncoding.DecodeString(s); err != nil {
			return img, rd.ErrorAt(key, "invalid base64: %v", err)
		}
	}
	if img.Data == nil {
		img.Data = []byte{}
	}
	return img, nil
}

// tools decodes the tools array: Tool objects, each with function
// declarations or another kind of tool.
func (d *decoder) tools(rd *codec.Reader) error {
	return elems(rd, "an array of tools", func(tr *codec.Reader, one bool) error {
		d.r.src.toolsOne = one
		o, err := object(tr, "a tool object")
		if err != nil {
			return err
		}
		st := srcTool{raw: o.Raw()}
		fdKey, fd := get(&o, "functionDeclarations")
		if fd == nil {
			tr.Note("a tool without function declarations (googleSearch, codeExecution, ...) is not part of the llm form")
			st.opaque = true
			d.r.src.tools = append(d.r.src.tools, st)
			return nil
		}
		st.key = fdKey
		st.extras = extras(tr, &o, "functionDeclarations")
		err = elems(tr.Enter(fdKey, fd), "an array of function declarations", func(fr *codec.Reader, one bool) error {
			st.declOne = one
			decl, err := d.decl(fr)
			if err != nil {
				return err
			}
			st.decls = append(st.decls, decl)
			d.r.Tools = append(d.r.Tools, decl.spec)
			return nil
		})
		if err != nil {
			return err
		}
		d.r.src.tools = append(d.r.src.tools, st)
		return nil
	})
}

func (d *decoder) decl(rd *codec.Reader) (srcDecl, error) {
	o, err := object(rd, "a function declaration object")
	if err != nil {
		return srcDecl{}, err
	}
	sd := srcDecl{raw: o.Raw()}
	key, v := get(&o, "name")
	if v == nil {
		return sd, rd.Missing("name", "the function's name, a string")
	}
	if sd.spec.Name, err = rd.StrAt(key, v); err != nil {
		return sd, err
	}
	describe := "description"
	if key, v := get(&o, "description"); v != nil {
		var null bool
		if sd.spec.Description, null, err = optStr(rd, key, v); err != nil {
			return sd, err
		}
		if null {
			describe = "" // "description": null stays as it is, an extra field
		}
	}
	pm, jsm := member(&o, "parameters"), member(&o, "parametersJsonSchema")
	pKey, p := pm.Key, pm.Compact()
	jsKey, js := jsm.Key, jsm.Compact()
	if p != nil && js != nil {
		return sd, rd.ErrorAt(jsKey, "parameters and parametersJsonSchema cannot both be set")
	}
	if js != nil {
		p, pKey = js, jsKey
	}
	if p != nil {
		if codec.Kind(p) != '{' {
			return sd, rd.WantAt(pKey, p, "a schema object")
		}
		sd.paramKey = pKey
		if js != nil {
			sd.spec.Parameters = p
		} else {
			sd.spec.Parameters = appendJSONSchema(nil, p)
		}
	}
	sd.extras = extras(rd, &o, "name", describe, "parameters", "parametersJsonSchema")
	return sd, nil
}

// appendJSONSchema appends v, the compact OpenAPI 3.0 schema that Gemini's
// parameters field takes, as JSON Schema, the form of
// [llm.ToolSpec].Parameters: upper-case type names become lower case
// ("OBJECT" → "object"), and nullable: true becomes a "null" type. It
// follows properties, items, anyOf and the other subschema keywords, and
// copies everything else as it is.
func appendJSONSchema(dst, v []byte) []byte {
	if codec.Kind(v) != '{' {
		return append(dst, v...)
	}
	ms := codec.Members(v)
	nullable := false
	for _, m := range ms {
		if b, ok := codec.Bool(m.Val); m.Key == "nullable" && ok && b {
			nullable = true
		}
	}
	dst = append(dst, '{')
	first := true
	for _, m := range ms {
		var typ string
		if m.Key == "type" && codec.Kind(m.Val) == '"' {
			typ, _ = codec.String(m.Val)
			switch typ {
			case "TYPE_UNSPECIFIED":
				continue
			case "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL":
				typ = strings.ToLower(typ)
			}
		}
		if _, ok := codec.Bool(m.Val); m.Key == "nullable" && ok {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = codec.AppendString(dst, m.Key)
		dst = append(dst, ':')
		switch {
		case typ != "":
			if nullable && typ != "null" {
				dst = append(dst, '[')
				dst = codec.AppendString(dst, typ)
				dst = append(dst, `,"null"]`...)
			} else {
				dst = codec.AppendString(dst, typ)
			}
		case (m.Key == "properties" || m.Key == "$defs" || m.Key == "definitions") && codec.Kind(m.Val) == '{':
			dst = append(dst, '{')
			for i, p := range codec.Members(m.Val) {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = codec.AppendString(dst, p.Key)
				dst = append(dst, ':')
				dst = appendJSONSchema(dst, p.Val)
			}
			dst = append(dst, '}')
		case m.Key == "items" || m.Key == "additionalProperties" || m.Key == "not":
			dst = appendJSONSchema(dst, m.Val)
		case (m.Key == "anyOf" || m.Key == "oneOf" || m.Key == "allOf" || m.Key == "prefixItems") && codec.Kind(m.Val) == '[':
			dst = append(dst, '[')
			for i, e := range codec.Elems(m.Val) {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = appendJSONSchema(dst, e)
			}
			dst = append(dst, ']')
		default:
			dst = append(dst, m.Val...)
		}
	}
	return append(dst, '}')
}
