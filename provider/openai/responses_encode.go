package openai

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/internal/callid"
	"github.com/toolwire/toolwire/provider"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// EncodeResponses writes r as a Responses request body (or a bare input
// array when r.Bare is set): compact, deterministic, without HTML escaping.
// The body's other fields come back in their original order.
//
// A request [DecodeResponses] made is written back as the body it came
// from, compacted, where its items did not change, as [EncodeChat] does;
// of what Wire lists, a repeated id or a repeated opaque item is left out,
// and so is a stored reasoning item followed by an item without an id.
//
// Messages from another dialect are converted as docs/dialect-mapping.md
// says. What Responses cannot express comes back as warnings, never a
// silent drop: reasoning and opaque parts from another provider, an image
// in an assistant or system message, a document given by URL, an error
// status not spelled out by the content. A document given inline (an
// llm.Image whose MediaType is not an image type) is written as an
// input_file part. Warning paths are paths in the encoded body. A message
// that breaks the llm placement rules is an error.
//
// A request that [DecodeResponses] did not make gets call_ids as
// [EncodeChat] makes them for calls and results without one, and a
// call_id longer than 64 characters (OAI-RS-CALLID-LEN) is shortened, the
// same way in the function_call and its function_call_output, with a hash
// that keeps it unique; each change comes with a warning. A decoded request
// is written back with its own ids.
//
// EncodeResponses does not modify r: a request may be encoded any number
// of times, concurrently.
func EncodeResponses(r *ResponsesRequest) ([]byte, []provider.Warning, error) {
	if r == nil {
		return nil, nil, errors.New("openai: EncodeResponses: nil request")
	}
	e := &rsEncoder{newEncoder(&responsesBody, request{
		messages: r.Messages, tools: r.Tools, fields: r.Fields, systemRole: r.SystemRole,
		order: r.order, src: r.src, decoded: r.decoded, bare: r.Bare,
		bareLoses: len(r.Fields) > 0 || r.Instructions != "" || r.PreviousResponseID != "",
	}), r}
	return e.encode(e)
}

// responsesBody is the format of a Responses body.
var responsesBody = format{
	name:       "Responses",
	provider:   ResponsesProvider,
	array:      "input",
	resultID:   "call_id",
	modeled:    []string{"instructions", "input", "tools", "previous_response_id"},
	others:     "model, instructions, ...",
	perMessage: 64,
	idRules:    rsIDRules,
}

// member writes a top-level member the request models: instructions and
// previous_response_id as they were when they say the same, the input as
// it was when it was a string (or null) that the messages still say, else
// the input array.
func (e *rsEncoder) member(dst []byte, key string, first *bool) ([]byte, error) {
	r := e.rs
	switch key {
	case "instructions", "previous_response_id":
		v, old := r.Instructions, r.instrNode
		if key == "previous_response_id" {
			v, old = r.PreviousResponseID, r.prevNode
		}
		switch {
		case old != nil && (e.mt.isNull(old) && v == "" || isString(old, v)):
			dst = appendKey(dst, first, key)
			return e.mt.raw(dst, old), nil
		case v != "":
			dst = appendKey(dst, first, key)
			dst = codec.AppendString(dst, v)
		}
		return dst, nil
	case "input":
		if len(r.Messages) == 0 && !slices.Contains(r.order, "input") {
			return dst, nil
		}
		dst = appendKey(dst, first, "input")
		if r.src != nil && r.inputNode != nil {
			if n, ok := e.inputAsIs(); ok {
				return e.mt.raw(dst, n), nil
			}
		}
		return e.elements(dst, e)
	}
	return dst, nil
}

// inputAsIs returns the body's input value when the body gave it as a
// string (or null) and the messages still say the same: one user message
// of that text (or none).
func (e *rsEncoder) inputAsIs() ([]byte, bool) {
	r := e.rs
	n := r.inputNode
	if e.mt.isNull(n) {
		return n, len(r.Messages) == 0
	}
	if len(r.Messages) != 1 || r.Messages[0].Role != llm.RoleUser || len(r.Messages[0].Parts) != 1 {
		return n, false
	}
	t, ok := r.Messages[0].Parts[0].(llm.Text)
	return n, ok && isString(n, t.Text)
}

// maxCallID is the longest call_id Responses accepts (OAI-RS-CALLID-LEN).
const maxCallID = 64

// rsIDRules returns the id rules of Responses: a call_id has 1 to 64
// characters (OAI-RS-CALLID-LEN).
func rsIDRules() codec.IDRules {
	return codec.IDRules{Prefix: "call_", Valid: func(id string) bool { return utf8.RuneCountInString(id) <= maxCallID }, Rewrite: shortenID,
		Invalid: fmt.Sprintf("is longer than %d characters (OAI-RS-CALLID-LEN)", maxCallID), Missing: "OAI-RS-CALLID-LEN",
		Call: "function_call", Result: "function_call_output"}
}

// shortenID returns an id of at most 61 bytes for one that is too long, by
// internal/callid's scheme: its start, cut at a character boundary, and a
// hash of the whole, leaving room for the suffix that keeps it unique.
func shortenID(id string) string { return callid.Shorten(id, maxCallID) }

type rsEncoder struct {
	encoder
	rs *ResponsesRequest
}

var _ writer = (*rsEncoder)(nil)

// The members of a Responses item the llm form models, in the order the
// encoder writes them.
var (
	rsMessageKeys = []string{"type", "role", "content", "id"}
	rsCallKeys    = []string{"type", "id", "call_id", "name", "arguments"}
	rsCustomKeys  = []string{"type", "id", "call_id", "name", "input"}
	rsOutputKeys  = []string{"type", "call_id", "output", "id"}
	rsToolKeys    = []string{"type", "name", "description", "parameters", "strict"}
)

// assistant writes assistant message i as items: each run of its text as
// a message item, each call a function_call, this dialect's reasoning and
// opaque items as they were; a message with none of them as an empty
// message item.
func (e *rsEncoder) assistant(i int, m llm.Message) error {
	var run []llm.Part
	var runJ []int
	flush := func() {
		if len(run) > 0 {
			e.textMessage(i, llm.RoleAssistant, "assistant", run, runJ)
			run, runJ = nil, nil
		}
	}
	wrote := false
	for j, part := range m.Parts {
		switch p := part.(type) {
		case llm.Text:
			run, runJ = append(run, part), append(runJ, j)
			wrote = true
		case llm.ToolCall:
			flush()
			e.callItem(i, j, p)
			wrote = true
		case llm.Reasoning:
			if p.Provider != ResponsesProvider {
				e.Warn(e.outPath(), fmt.Sprintf("%s reasoning cannot be replayed to OpenAI Responses; it is dropped", providerName(p.Provider)))
				continue
			}
			flush()
			if e.wholeItem(i, j, p) {
				wrote = true
				continue
			}
			data, ok := appendValidJSON(nil, p.Data)
			if !ok || data[0] != '{' {
				e.Warn(e.outPath(), "an openai-responses reasoning part without its reasoning item (Data) cannot be replayed; it is dropped")
				continue
			}
			if e.stores() && itemHasID(data) && !followedByItemID(m.Parts[j+1:]) {
				// OAI-RS-REASONING-FOLLOW: the server finds a stored
				// reasoning item's follower by its id, which the llm
				// form keeps only for calls.
				e.Warn(e.outPath(), `a stored reasoning item is left out (OAI-RS-REASONING-FOLLOW): what follows it is written without the item id the server knows it by; with "store": false it is kept`)
				continue
			}
			e.put(func(dst []byte) []byte { return append(dst, data...) })
			wrote = true
		case llm.Opaque:
			if !e.own(p) {
				continue
			}
			flush()
			if !e.wholeItem(i, j, p) {
				e.put(func(dst []byte) []byte { dst, _ = appendValidJSON(dst, p.Data); return dst })
			}
			wrote = true
		case llm.Image:
			e.Warn(e.outPath(), "an assistant message cannot hold an image in Responses; it is left out")
		default:
			return placement(i, j, m.Role, p)
		}
	}
	flush()
	if !wrote {
		e.textMessage(i, llm.RoleAssistant, "assistant", nil, nil)
	}
	return nil
}

// result writes function_call_output r.
func (e *rsEncoder) result(i, j int, orig llm.Part, r llm.ToolResult) []llm.Part {
	e.warnStatus(r)
	e.outputItem(i, j, orig, r)
	return nil
}

// wholeItem writes part j of message i, a reasoning or opaque item, from
// the item it was decoded from, and reports whether it found one (an item
// that the codec's Wire said to leave out is written as nothing).
func (e *rsEncoder) wholeItem(i, j int, p llm.Part) bool {
	k, exact := e.mt.match(i, j, p)
	b := e.mt.block(k)
	if !exact || b == nil || b.kind != bWhole || e.mt.used[b.elem] {
		return false
	}
	x := e.mt.elem(int(b.elem))
	e.hidden(e.mt.take(int(b.elem)))
	if x.fix&fixDrop == 0 {
		e.put(func(dst []byte) []byte { return e.mt.raw(dst, x.node) })
	}
	return true
}

// textMessage writes a message item of the given parts, the parts of llm
// message i at indices js (i < 0: parts made by the encoder).
func (e *rsEncoder) textMessage(i int, llmRole llm.Role, role string, parts []llm.Part, js []int) {
	tx, tmpl, done := e.from(e.origin(i, parts, js, func(x *elem) bool {
		return x.role == llmRole && codec.Kind(x.node) == '{' && !x.hidden && e.isMessage(x)
	}))
	if done {
		return
	}
	ks, exact := e.mt.ks, e.mt.exact
	textType := `{"type":"input_text","text":`
	if role == "assistant" {
		textType = `{"type":"output_text","text":`
	}
	e.put(func(dst []byte) []byte {
		return e.mt.object(dst, tmpl, rsMessageKeys, func(o *obj, key string, old []byte) {
			switch key {
			case "type":
				switch {
				case old != nil:
					o.key(key)
					o.dst = e.mt.raw(o.dst, old)
				case tmpl == nil:
					o.key(key)
					o.dst = append(o.dst, `"message"`...) // a new item; a decoded one without a type keeps none
				}
			case "role":
				o.key(key)
				if old != nil {
					o.dst = e.mt.raw(o.dst, old)
				} else {
					o.dst = codec.AppendString(o.dst, role)
				}
			case "content":
				o.key(key)
				o.dst = e.content(o.dst, parts, ks, exact, tx, old, textType)
			case "id":
				e.itemID(o, old, tx)
			}
		})
	})
}

// itemID writes the id of an item written from template tx, old, as it
// was; not one the codec found repeated (OAI-RS-DUP-ITEM).
func (e *rsEncoder) itemID(o *obj, old []byte, tx *elem) {
	if old != nil && tx.fix&fixID == 0 {
		o.key("id")
		o.dst = e.mt.raw(o.dst, old)
	}
}

// isMessage reports whether decoded element x is a message item (not a
// call, output, reasoning or opaque item).
func (e *rsEncoder) isMessage(x *elem) bool {
	if x.count == 0 {
		return true
	}
	b := &e.mt.src.blocks[x.first]
	return b.kind != bWhole
}

// content writes the content of a message item of template tx (its content
// member old): as it was when its parts did not change, else as
// [encoder.appendContent] writes it, a part that did not change keeping
// its JSON.
func (e *rsEncoder) content(dst []byte, parts []llm.Part, ks []int, exact []bool, tx *elem, old []byte, textType string) []byte {
	if old != nil && tx != nil && int(tx.count) == len(parts) {
		same := true
		for t := range parts {
			same = same && exact[t] && ks[t] == int(tx.first)+t
		}
		if same {
			return e.mt.raw(dst, old)
		}
	}
	return e.appendContent(dst, parts, nil, old, func(t int) []byte {
		if t < len(ks) && exact[t] {
			if b := e.mt.block(ks[t]); b != nil && !b.str && b.kind == bContent {
				return b.node
			}
		}
		return nil
	}, func(dst []byte, p llm.Part) []byte { return appendRsPart(dst, p, textType) })
}

// appendRsPart writes one content part: text, an image, a document given
// inline as an input_file, this dialect's opaque data as it was.
func appendRsPart(dst []byte, p llm.Part, textType string) []byte {
	switch p := p.(type) {
	case llm.Text:
		dst = append(dst, textType...)
		dst = codec.AppendString(dst, p.Text)
		return append(dst, '}')
	case llm.Image:
		if !isImageType(p) {
			dst = append(dst, `{"type":"input_file","filename":`...)
			dst = codec.AppendString(dst, fileName(p.MediaType))
			dst = append(dst, `,"file_data":`...)
			dst = appendDataURL(dst, p.MediaType, p.Data)
			return append(dst, '}')
		}
		dst = append(dst, `{"type":"input_image","image_url":`...)
		dst = appendImageURL(dst, p)
		return append(dst, `,"detail":"auto"}`...)
	case llm.Opaque:
		dst, _ = appendValidJSON(dst, p.Data)
	}
	return dst
}

// callItem writes function_call c, part j of message i.
func (e *rsEncoder) callItem(i, j int, c llm.ToolCall) {
	pk, _ := e.mt.single(i, j, c, true)
	c.ID = e.callID(i, j, c, e.outPath()+".call_id")
	tx, tmpl, done := e.from(pk)
	if done {
		return
	}
	keys := rsCallKeys
	if tx != nil && isString(e.mt.member(tmpl, "type"), "custom_tool_call") {
		keys = rsCustomKeys
	}
	e.put(func(dst []byte) []byte {
		return e.mt.object(dst, tmpl, keys, func(o *obj, key string, old []byte) {
			switch key {
			case "type":
				e.mt.fixed(o, key, old, `"function_call"`)
			case "id":
				if c.ItemID != "" {
					o.key(key)
					o.dst = e.mt.str(o.dst, c.ItemID, old)
				}
			case "call_id":
				o.key(key)
				o.dst = e.mt.str(o.dst, c.ID, old)
			case "name":
				o.key(key)
				o.dst = e.mt.str(o.dst, c.Name, old)
			case "arguments":
				o.key(key)
				o.dst = e.arguments(o.dst, c.Input, old)
			case "input":
				o.key(key)
				o.dst = e.mt.str(o.dst, customInput(c.Input), old)
			}
		})
	})
}

// outputItem writes function_call_output r, part j of message i (orig as
// the message holds it; r has the id to write).
func (e *rsEncoder) outputItem(i, j int, orig llm.Part, r llm.ToolResult) {
	pk, b := e.mt.single(i, j, orig, samePart(r, orig))
	tx, tmpl, done := e.from(pk)
	if done {
		return
	}
	var inner []block
	if tx != nil {
		inner = b.inner
	}
	e.put(func(dst []byte) []byte {
		return e.mt.object(dst, tmpl, rsOutputKeys, func(o *obj, key string, old []byte) {
			if key == "id" {
				e.itemID(o, old, tx)
				return
			}
			o.key(key)
			switch key {
			case "type":
				o.dst = e.mt.rawOr(o.dst, old, `"function_call_output"`)
			case "call_id":
				o.dst = e.mt.str(o.dst, r.CallID, old)
			case "output":
				same := tx != nil && len(inner) == len(r.Content)
				for q := 0; same && q < len(inner); q++ {
					same = samePart(inner[q].part, r.Content[q])
				}
				switch {
				case same && old != nil:
					o.dst = e.mt.raw(o.dst, old)
				case len(r.Content) == 0:
					o.dst = append(o.dst, `""`...)
				default:
					o.dst = e.appendContent(o.dst, r.Content, nil, old, func(q int) []byte {
						if q < len(inner) && !inner[q].str && samePart(inner[q].part, r.Content[q]) {
							return inner[q].node
						}
						return nil
					}, appendInputPart)
				}
			}
		})
	})
}

// appendInputPart writes a part of a function_call_output: text as
// input_text.
func appendInputPart(dst []byte, p llm.Part) []byte {
	return appendRsPart(dst, p, `{"type":"input_text","text":`)
}

// tool writes a flat function tool, merged into the decoded tool it came
// from when there is one; a new tool says strict either way, since
// Responses holds a tool that leaves it out to strict mode's rules when
// its schema allows.
func (e *rsEncoder) tool(dst []byte, t llm.ToolSpec, st srcTool) []byte {
	return e.mt.object(dst, st.node, rsToolKeys, func(o *obj, key string, old []byte) {
		if key == "type" {
			e.mt.fixed(o, key, old, `"function"`)
			return
		}
		e.toolField(o, key, old, t, st.spec, st.node == nil)
	})
}

// stores reports whether the request keeps its items on the server:
// "store" is true unless the body says false.
func (e *rsEncoder) stores() bool {
	for _, f := range e.rs.Fields {
		if f.Key == "store" {
			return string(f.Value) != "false"
		}
	}
	return true
}

// itemHasID reports whether item, a compact JSON object, has a non-empty
// top-level "id".
func itemHasID(item []byte) bool {
	var it struct {
		ID string `json:"id"`
	}
	return json.Unmarshal(item, &it) == nil && it.ID != ""
}

// followedByItemID reports whether the first of parts that becomes an
// item is a call with its item id, which a stored reasoning item before
// it may be followed by.
func followedByItemID(parts []llm.Part) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case llm.ToolCall:
			return p.ItemID != ""
		case llm.Text, llm.Reasoning, llm.Opaque:
			return false
		}
	}
	return false
}
