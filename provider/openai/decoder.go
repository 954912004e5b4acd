package openai

import (
	"fmt"
	"strconv"

	"github.com/toolwire/toolwire/internal/jsontree"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/transcript"
)

// This file holds what the Chat Completions and Responses decoders share:
// the decoded wire elements, the notes and violations they record, the
// system role, the tools array, and the assembly of the llm messages with
// what re-encoding must keep.

// wireKind is what a decoded wire element maps to.
type wireKind uint8

const (
	wSystem wireKind = iota
	wUser
	wAssistant
	wTool
	wOpaque
)

// wire is one decoded wire element: a Chat message or a Responses input
// item.
type wire struct {
	parts  []llm.Part     // system, user, assistant
	result llm.ToolResult // tool
	patch  []keyPatch     // fixes for Wire violations, applied to the kept original
	kept   []int          // body indices of the parts the llm form holds, when some were skipped
	node   jsontree.Node  // the element in the body
	kind   wireKind
	// keepRaw: the body says more than the llm form.
	keepRaw bool
	// The rest is for Responses items.
	keepID   bool // keep the original for its item id alone
	violated bool // a duplicate opaque item: left out
	joins    bool // an assistant-side item, which joins an assistant message before it
	msgItem  bool // an assistant "message" item (not a call or reasoning)
	output   bool // the parts are under "output", not "content"
}

// decoder is the part of a Chat or Responses decoder that does not depend
// on the dialect.
type decoder struct {
	b     *body
	wires []wire
	names map[string]string // call id → tool name, for results
	// The request's lists and system role.
	unmodeled  *[]transcript.Warning
	violations *[]transcript.Violation
	systemRole *SystemRole
	sawSystem  bool
	dialect    string // as notes name it: "Chat Completions"
	elem       string // what notes call a wire element: "message"
}

// note records something the llm form does not hold at path.
func (d *decoder) note(path, msg string) {
	*d.unmodeled = append(*d.unmodeled, transcript.Warning{Path: path,
		Message: msg + "; kept when the " + d.elem + " is re-encoded unchanged as " + d.dialect + ", lost otherwise"})
}

// violation records a breach of a provider rule that the llm form cannot
// show.
func (d *decoder) violation(rule, path, msg, providerErr string) {
	*d.violations = append(*d.violations, transcript.Violation{Rule: rule, Path: path, Message: msg, ProviderError: providerErr})
}

// system makes w a system message with the given wire role ("system" or
// "developer"). The first one sets the request's SystemRole; a later one
// with the other role is kept as it was, since the llm form has one.
func (d *decoder) system(w *wire, role, path string) {
	w.kind = wSystem
	r := SystemRole(role)
	if !d.sawSystem {
		d.sawSystem = true
		*d.systemRole = r
	} else if r.wire() != d.systemRole.wire() {
		w.keepRaw = true
		d.note(path+".role", fmt.Sprintf("this body mixes system and developer messages; the llm form has one system role, and this message is written back as %q only while unchanged", role))
	}
}

// callInput returns a call's arguments string as its llm Input: verbatim,
// but with invalid UTF-8 replaced as encoding replaces it, so that the
// llm form survives a cycle.
func callInput(args string) []byte { return []byte(jsontree.ValidUTF8(args)) }

// mapParts maps the parts of a content array at path with mapPart, which
// reports false for a part the llm form does not hold, and sets w.kept to
// the body indices of the parts it holds when it skips some.
func mapParts[P any](w *wire, parts []P, path string, mapPart func(p P, path string) (llm.Part, bool)) []llm.Part {
	var out []llm.Part
	for j, p := range parts {
		if part, ok := mapPart(p, path+"."+strconv.Itoa(j)); ok {
			out = append(out, part)
			w.kept = append(w.kept, j)
		}
	}
	if len(w.kept) == len(parts) {
		w.kept = nil
	}
	return out
}

// toolReader reads one tool definition: its llm form, whether it is a
// function tool (the others are kept whole), and the keys of its fields
// the llm form does not hold.
type toolReader func(b *body, n jsontree.Node) (spec llm.ToolSpec, isFunc bool, extra []string, err error)

// tools reads the tools array: function tools become llm.ToolSpecs, the
// others are kept. canon writes a function tool's canonical form.
func (d *decoder) tools(n jsontree.Node, read toolReader, canon func(dst []byte, t llm.ToolSpec) []byte) ([]llm.ToolSpec, *keep, error) {
	b, t := d.b, d.b.t
	if t.Kind(n) != jsontree.Array {
		return nil, nil, b.want(n, "an array")
	}
	var specs []llm.ToolSpec
	var kb keepBuilder
	for k, c := 0, t.First(n); c != jsontree.None; k, c = k+1, t.Next(c) {
		spec, isFunc, extra, err := read(b, c)
		if err != nil {
			return nil, nil, err
		}
		path := "tools." + strconv.Itoa(k)
		if !isFunc {
			kb.opaque(b.canon(nil, c))
			*d.unmodeled = append(*d.unmodeled, transcript.Warning{Path: path,
				Message: "a tool that is not a function tool is not part of the llm form; kept when re-encoding as " + d.dialect + ", lost otherwise"})
			continue
		}
		specs = append(specs, spec)
		var keepRaw []byte
		if len(extra) > 0 {
			for _, x := range extra {
				*d.unmodeled = append(*d.unmodeled, transcript.Warning{Path: path + "." + x,
					Message: fmt.Sprintf("the %q field of a tool is not part of the llm form; kept when the tool is re-encoded unchanged as %s, lost otherwise", x, d.dialect)})
			}
			keepRaw = b.canon(nil, c)
		}
		kb.add(canon(nil, spec), keepRaw)
	}
	return specs, kb.build(), nil
}

// finish assembles the llm messages from the decoded wire elements into
// msgs: a run of tool results is one tool message, and assistant-side
// items that join (Responses) one assistant message. It records in paths
// where each element sits in the body's array, and returns what encoding
// must keep; canon appends an element's canonical form.
func (d *decoder) finish(array string, msgs *[]llm.Message, paths *pathMap, canon func(dst []byte, w *wire) []byte) *keep {
	var kb keepBuilder
	needKeep := false
	for i := range d.wires {
		if w := &d.wires[i]; w.keepRaw || w.keepID || w.kind == wOpaque {
			needKeep = true
			break
		}
	}
	var scratch []byte
	paths.array = array
	for bi := range d.wires {
		w := &d.wires[bi]
		if w.kind != wOpaque {
			key := "content"
			if w.output {
				key = "output"
			}
			paths.record(bi, w.kept, key)
		}
		n := len(*msgs)
		switch w.kind {
		case wOpaque:
			if !w.violated {
				kb.opaque(d.b.canon(nil, w.node))
			}
			// A violated item duplicates one the server already has:
			// leaving it out is what OAI-RS-DUP-ITEM asks for.
			continue
		case wTool:
			if n > 0 && (*msgs)[n-1].Role == llm.RoleTool {
				(*msgs)[n-1].Parts = append((*msgs)[n-1].Parts, w.result)
			} else {
				*msgs = append(*msgs, llm.Message{Role: llm.RoleTool, Parts: []llm.Part{w.result}})
			}
		case wAssistant:
			switch {
			case !w.joins:
				*msgs = append(*msgs, llm.Message{Role: llm.RoleAssistant, Parts: w.parts})
			case n > 0 && (*msgs)[n-1].Role == llm.RoleAssistant && !(w.msgItem && endsInText((*msgs)[n-1])):
				(*msgs)[n-1].Parts = append((*msgs)[n-1].Parts, w.parts...)
			default:
				// Two message items in a row stay two messages.
				*msgs = append(*msgs, llm.Message{Role: llm.RoleAssistant, Parts: append([]llm.Part(nil), w.parts...)})
			}
		case wSystem:
			*msgs = append(*msgs, llm.Message{Role: llm.RoleSystem, Parts: w.parts})
		default:
			*msgs = append(*msgs, llm.Message{Role: llm.RoleUser, Parts: w.parts})
		}
		if !needKeep {
			continue
		}
		scratch = canon(scratch[:0], w)
		var raw []byte
		if w.keepRaw || w.keepID {
			raw = d.b.canonPatched(w.node, w.patch)
		}
		kb.add(append([]byte(nil), scratch...), raw)
	}
	paths.done()
	return kb.build()
}

// endsInText reports whether m's last part is text.
func endsInText(m llm.Message) bool {
	if len(m.Parts) == 0 {
		return false
	}
	_, ok := m.Parts[len(m.Parts)-1].(llm.Text)
	return ok
}
