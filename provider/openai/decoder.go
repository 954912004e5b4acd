package openai

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// This file holds what the Chat Completions and Responses decoders share:
// reading a body (codec.Reader, which reads it in one pass and names the
// path of what it cannot read), the elements and blocks they record
// (source.go), the notes and violations, the system role, the tools array,
// and the assembly of the llm messages.

// op is the Op of the codecs' decode errors.
const op = "openai"

// dialect returns how codec.Decode reads a body of the dialect named name
// ("Chat Completions"), whose message array a bare array is (bare), into
// notes. Invalid UTF-8 in strings is read, as encoding/json (and so the
// OpenAI SDKs) reads it, and kept as it is.
func dialect(name, bare, want string, notes *[]provider.Warning) codec.Dialect {
	return codec.Dialect{Op: op, Name: name, Bare: bare, Want: want, Notes: notes,
		Options: []jsontext.Options{jsontext.AllowInvalidUTF8(true)}}
}

// decodeError returns an error of the body as a whole, or of the value at
// the dotted path.
func decodeError(path string, err error) error {
	return &llm.DecodeError{Op: op, Path: llm.ParsePath(path), Style: llm.Dotted, Offset: -1, Err: err}
}

// decoder is the part of a Chat or Responses decoder that does not depend
// on the dialect.
type decoder struct {
	src   *source
	msgs  *[]llm.Message
	paths *pathMap
	names map[string]string // call id → tool name, for results
	// The request's lists and system role.
	unmodeled  *[]provider.Warning
	violations *[]transcript.Violation
	systemRole *SystemRole
	sawSystem  bool
	dialect    string // as notes name it: "Chat Completions"
	elemName   string // what notes call a wire element: "message"
}

// note records something the llm form does not hold at path.
func (d *decoder) note(path, msg string) {
	*d.unmodeled = append(*d.unmodeled, provider.Warning{Path: path,
		Message: msg + "; kept when the " + d.elemName + " is re-encoded unchanged as " + d.dialect + ", lost otherwise"})
}

// violation records a breach of a provider rule that the llm form cannot
// show.
func (d *decoder) violation(rule, path, msg, providerErr string) {
	*d.violations = append(*d.violations, transcript.Violation{Rule: transcript.RuleID(rule), Path: path, Message: msg, ProviderError: providerErr})
}

// system reads the role of a system message ("system" or "developer").
// The first one sets the request's SystemRole; a later one with the other
// role is written back with its own while it is the template of what is
// written, since the llm form has one system role.
func (d *decoder) system(role, path string) {
	r := SystemRole(role)
	if !d.sawSystem {
		d.sawSystem = true
		*d.systemRole = r
	} else if r.wire() != d.systemRole.wire() {
		d.note(path+".role", fmt.Sprintf("this body mixes system and developer messages; the llm form has one system role, and this message is written back as %q only while unchanged", role))
	}
}

// begin starts element node, which belongs to an llm message of role, and
// returns its index.
func (d *decoder) begin(node []byte, role llm.Role) int32 {
	d.src.elems = append(d.src.elems, elem{node: node, first: int32(len(d.src.blocks)), role: role})
	return int32(len(d.src.elems) - 1)
}

// hide starts element node, which the llm form has no place for.
func (d *decoder) hide(node []byte) int32 {
	x := d.begin(node, "")
	d.src.elems[x].hidden = true
	return x
}

// add appends a block of element x.
func (d *decoder) add(x int32, b block) {
	b.elem = x
	d.src.blocks = append(d.src.blocks, b)
	d.src.elems[x].count++
}

// place puts the parts of element x, the element at index bi of the
// body's array, into the llm messages: into the last message when join is
// set and that message has the element's role, else into a new message.
// kept lists, for paths, the indices in the element's content array of the
// parts transcript counts there, when it does not count them all; str says
// that transcript indexes its string content (Responses).
func (d *decoder) place(x int32, bi int, join bool, kept []int, str bool) {
	e := &d.src.elems[x]
	if e.hidden {
		return
	}
	d.paths.record(bi, kept, str)
	parts := make([]llm.Part, e.count)
	for k := range parts {
		parts[k] = d.src.blocks[int(e.first)+k].part
	}
	msgs := *d.msgs
	if n := len(msgs); join && n > 0 && msgs[n-1].Role == e.role {
		msgs[n-1].Parts = append(msgs[n-1].Parts, parts...)
		d.src.msgs[n-1].Count += e.count
		return
	}
	*d.msgs = append(msgs, llm.Message{Role: e.role, Parts: parts})
	d.src.msgs = append(d.src.msgs, codec.Msg{First: e.first, Count: e.count, Role: e.role})
	d.src.msgElem = append(d.src.msgElem, x)
}

// callInput returns a call's arguments string as its llm Input: verbatim,
// but with invalid UTF-8 replaced as encoding replaces it, so that the
// llm form survives a cycle.
func callInput(args string) []byte { return []byte(jsonx.ValidUTF8(args)) }

// opaque returns the Opaque part of element or part node of kind.
func opaque(provider, kind string, node []byte) llm.Opaque {
	return llm.Opaque{Provider: provider, Kind: kind, Data: node}
}

// image returns the llm Image of an image URL: inline bytes for a base64
// data URL, else the URL.
func image(u string) llm.Image {
	if mt, data, ok := codec.DataURL(u); ok {
		return llm.Image{MediaType: mt, Data: data}
	}
	return llm.Image{URL: u}
}

// boolean reads the next value, which must be a boolean.
func boolean(rd *codec.Reader) (bool, error) {
	v, err := rd.Raw()
	if err != nil {
		return false, err
	}
	b, ok := codec.Bool(v)
	if !ok {
		return false, wantAt(rd, v, "a boolean")
	}
	return b, nil
}

// wantAt returns the error for v, the value at hand that rd has read, of
// the wrong kind.
func wantAt(rd *codec.Reader, v []byte, what string) error {
	return rd.Errorf("want %s, got %s", what, codec.Phrase(codec.Kind(v)))
}

// extra classifies v, the value of a key the codec does not model. noted:
// the value says something (it is neither null nor an empty array or
// object); quiet: it is an empty array or object, kept with its element
// but not worth a note.
func extra(v []byte) (noted, quiet bool) {
	switch {
	case codec.IsNull(v):
		return false, false
	case string(v) == "[]" || string(v) == "{}":
		return false, true
	}
	return true, false
}

// unmodeled reads the value of member key, which the codec does not model:
// the key goes to extra when the value says something, and quiet is set
// when the value is an empty array or object.
func unmodeled(rd *codec.Reader, key string, extras *[]string, quiet *bool) error {
	v, err := rd.Raw()
	if err != nil {
		return err
	}
	noted, q := extra(v)
	if noted {
		*extras = append(*extras, key)
	}
	*quiet = *quiet || q
	return nil
}

// notNull reads the value of member key that the codec does not model into
// extras unless it is null.
func notNull(rd *codec.Reader, key string, extras *[]string) error {
	v, err := rd.Raw()
	if err == nil && !codec.IsNull(v) {
		*extras = append(*extras, key)
	}
	return err
}

// canonicalJSON returns the canonical compact form of the JSON value src: no
// white space, strings re-encoded as the codecs write them (so <, > and &
// stay unescaped and invalid UTF-8 becomes U+FFFD), numbers and key order
// as they were. The canonical form of canonical output is the same bytes.
// The error, for src that is not one JSON value, is an *llm.DecodeError.
func canonicalJSON(dst, src []byte) ([]byte, error) {
	rd := codec.NewReader(op, src, "", jsontext.AllowInvalidUTF8(true))
	out, err := appendCanonical(dst, rd)
	if err == nil {
		err = rd.End()
	}
	return out, err
}

// appendCanonical appends the next value of rd in the canonical form.
func appendCanonical(dst []byte, rd *codec.Reader) ([]byte, error) {
	var err error
	switch rd.Kind() {
	case '{':
		dst = append(dst, '{')
		n := 0
		err = rd.Object(func(name string) error {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = codec.AppendString(dst, name)
			dst = append(dst, ':')
			var err error
			dst, err = appendCanonical(dst, rd)
			return err
		})
		return append(dst, '}'), err
	case '[':
		dst = append(dst, '[')
		err = rd.Array(func(i int) error {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			dst, err = appendCanonical(dst, rd)
			return err
		})
		return append(dst, ']'), err
	case '"':
		var s string
		s, err = rd.Str()
		return codec.AppendString(dst, s), err
	}
	v, err := rd.Raw() // a number, true, false or null
	return append(dst, v...), err
}

// toolField reads member key of a function tool definition into spec when
// it is one the llm form models: name, description, parameters or strict
// (a null description, parameters or strict is absent). modeled is false
// for any other key, whose value it leaves unread.
func toolField(rd *codec.Reader, spec *llm.ToolSpec, key string) (modeled bool, err error) {
	switch key {
	case "name":
		spec.Name, err = rd.Str()
	case "description":
		if rd.Kind() == 'n' {
			return true, rd.Skip()
		}
		spec.Description, err = rd.Str()
	case "parameters":
		switch rd.Kind() {
		case 'n':
			err = rd.Skip()
		case '{':
			spec.Parameters, err = appendCanonical(nil, rd)
		default:
			err = rd.Want("a JSON Schema object")
		}
	case "strict":
		if rd.Kind() == 'n' {
			return true, rd.Skip()
		}
		spec.Strict, err = boolean(rd)
	default:
		return false, nil
	}
	return true, err
}

// an returns s with the indefinite article it takes.
func an(s string) string {
	if s != "" && strings.ContainsRune("aeiouAEIOU", rune(s[0])) && !strings.HasPrefix(s, "us") {
		return "an " + s
	}
	return "a " + s
}

// appendParameters appends the canonical form of a tool's parameters, which
// are valid JSON (decoded, or accepted by checkParameters); anything else
// is appended as it is.
func appendParameters(dst, params []byte) []byte {
	out, err := canonicalJSON(dst, params)
	if err != nil {
		return append(dst, params...)
	}
	return out
}

// toolReader reads the tool definition at rd: its llm form, whether it is
// a function tool (the others are kept whole), and the keys of its fields
// the llm form does not hold; raw is the definition.
type toolReader func(rd *codec.Reader) (spec llm.ToolSpec, isFunc bool, extra []string, raw []byte, err error)

// tools reads the tools array at rd: function tools become llm.ToolSpecs,
// the others are kept.
func (d *decoder) tools(rd *codec.Reader, read toolReader) ([]llm.ToolSpec, error) {
	if rd.Kind() != '[' {
		return nil, rd.Want("an array")
	}
	var specs []llm.ToolSpec
	err := rd.Array(func(k int) error {
		spec, isFunc, extra, node, err := read(rd)
		if err != nil {
			return err
		}
		path := "tools." + strconv.Itoa(k)
		if !isFunc {
			d.src.tools = append(d.src.tools, srcTool{node: node, opaque: true})
			*d.unmodeled = append(*d.unmodeled, provider.Warning{Path: path,
				Message: "a tool that is not a function tool is not part of the llm form; kept when re-encoding as " + d.dialect + ", lost otherwise"})
			return nil
		}
		for _, x := range extra {
			*d.unmodeled = append(*d.unmodeled, provider.Warning{Path: path + "." + x,
				Message: fmt.Sprintf("the %q field of a tool is not part of the llm form; kept when the tool is re-encoded unchanged as %s, lost otherwise", x, d.dialect)})
		}
		d.src.tools = append(d.src.tools, srcTool{node: node, spec: spec})
		specs = append(specs, spec)
		return nil
	})
	raw := rd.Span()
	d.src.toolsNode = raw
	return specs, err
}
