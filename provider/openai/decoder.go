package openai

import (
	"fmt"
	"strconv"

	"github.com/toolwire/toolwire/internal/jsontree"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// This file holds what the Chat Completions and Responses decoders share:
// the elements and blocks they record (source.go), the notes and
// violations, the system role, the tools array, and the assembly of the
// llm messages.

// decoder is the part of a Chat or Responses decoder that does not depend
// on the dialect.
type decoder struct {
	b     *body
	src   *source
	msgs  *[]llm.Message
	paths *pathMap
	names map[string]string // call id → tool name, for results
	// The request's lists and system role.
	unmodeled  *[]transcript.Warning
	violations *[]transcript.Violation
	systemRole *SystemRole
	sawSystem  bool
	dialect    string // as notes name it: "Chat Completions"
	elemName   string // what notes call a wire element: "message"
}

// note records something the llm form does not hold at path.
func (d *decoder) note(path, msg string) {
	*d.unmodeled = append(*d.unmodeled, transcript.Warning{Path: path,
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

// begin starts element n, which belongs to an llm message of role, and
// returns its index.
func (d *decoder) begin(n jsontree.Node, role llm.Role) int32 {
	d.src.elems = append(d.src.elems, elem{node: n, first: int32(len(d.src.blocks)), role: role})
	return int32(len(d.src.elems) - 1)
}

// hide starts element n, which the llm form has no place for.
func (d *decoder) hide(n jsontree.Node) int32 {
	x := d.begin(n, "")
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
func callInput(args string) []byte { return []byte(jsontree.ValidUTF8(args)) }

// opaque returns the Opaque part of element or part n of kind.
func (d *decoder) opaque(provider, kind string, n jsontree.Node) llm.Opaque {
	return llm.Opaque{Provider: provider, Kind: kind, Data: d.b.t.Compact(n)}
}

// image returns the llm Image of an image URL: inline bytes for a base64
// data URL, else the URL.
func image(u string) llm.Image {
	if mt, data, ok := codec.DataURL(u); ok {
		return llm.Image{MediaType: mt, Data: data}
	}
	return llm.Image{URL: u}
}

// toolReader reads one tool definition: its llm form, whether it is a
// function tool (the others are kept whole), and the keys of its fields
// the llm form does not hold.
type toolReader func(b *body, n jsontree.Node) (spec llm.ToolSpec, isFunc bool, extra []string, err error)

// tools reads the tools array: function tools become llm.ToolSpecs, the
// others are kept.
func (d *decoder) tools(n jsontree.Node, read toolReader) ([]llm.ToolSpec, error) {
	b, t := d.b, d.b.t
	if t.Kind(n) != jsontree.Array {
		return nil, b.want(n, "an array")
	}
	var specs []llm.ToolSpec
	for k, c := 0, t.First(n); c != jsontree.None; k, c = k+1, t.Next(c) {
		spec, isFunc, extra, err := read(b, c)
		if err != nil {
			return nil, err
		}
		path := "tools." + strconv.Itoa(k)
		if !isFunc {
			d.src.tools = append(d.src.tools, srcTool{node: c, opaque: true})
			*d.unmodeled = append(*d.unmodeled, transcript.Warning{Path: path,
				Message: "a tool that is not a function tool is not part of the llm form; kept when re-encoding as " + d.dialect + ", lost otherwise"})
			continue
		}
		for _, x := range extra {
			*d.unmodeled = append(*d.unmodeled, transcript.Warning{Path: path + "." + x,
				Message: fmt.Sprintf("the %q field of a tool is not part of the llm form; kept when the tool is re-encoded unchanged as %s, lost otherwise", x, d.dialect)})
		}
		d.src.tools = append(d.src.tools, srcTool{node: c, spec: spec})
		specs = append(specs, spec)
	}
	return specs, nil
}
