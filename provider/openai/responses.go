package openai

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// ResponsesProvider is the provider name of the llm.Reasoning and
// llm.Opaque parts the Responses codec decodes.
const ResponsesProvider = string(transcript.OpenAIResponses)

// ResponsesRequest is an OpenAI Responses request body in llm form.
//
// [DecodeResponses] fills it from a body; [EncodeResponses] writes it back.
// A request decoded from a body encodes back to that body, compacted, as
// [ChatRequest] does.
type ResponsesRequest struct {
	// Messages is the conversation, mapped as docs/dialect-mapping.md says:
	// consecutive assistant-side items (function_call, reasoning, assistant
	// message, and the model's items the llm form does not model, such as
	// web_search_call) form one llm assistant message, and consecutive
	// function_call_output items one llm tool message. A reasoning item is
	// an llm.Reasoning{Provider: "openai-responses"} whose Data is the
	// whole item and whose Text is its summary; another model item is an
	// llm.Opaque{Provider: "openai-responses"}, with CallID set when it is
	// a call an output may answer (a tool_search_call, say).
	Messages []llm.Message
	// Tools are the function tools, in order. Other tools (web_search,
	// file_search, mcp, custom, ...) are kept and written back where they
	// stood. A function tool is Strict only when the body says
	// "strict": true: OpenAI does not hold a tool that leaves strict out to
	// the strict-mode rules (it fills in what strict mode needs).
	Tools []llm.ToolSpec
	// Bare is set when the input was a bare input array; EncodeResponses
	// then writes a bare array.
	Bare bool
	// Instructions is the top-level system prompt, "" when absent. It is not
	// a message.
	Instructions string
	// PreviousResponseID is the stored response this request continues, ""
	// when absent. With it (or a conversation, in Fields) the server already
	// holds earlier items: a function_call_output may answer a call that is
	// not in Messages.
	PreviousResponseID string
	// SystemRole is the role system messages are written with; decoding
	// sets it from the first system or developer message.
	SystemRole SystemRole
	// Fields are the other top-level fields (model, store, reasoning,
	// conversation, tool_choice, ...), in body order, kept verbatim
	// (compacted).
	Fields []Field
	// Wire holds the violations found while decoding that the llm form
	// cannot express (OAI-RS-DUP-ITEM for items whose id it does not hold,
	// and as a warning for items with ids in a request that continues a
	// stored response; OAI-RS-REASONING-FOLLOW for a stored reasoning item
	// followed by an item without an id), with dotted paths into the body.
	// Encoding leaves out a repeated id, a repeated opaque item and such a
	// reasoning item.
	Wire []transcript.Violation
	// Unmodeled lists what the body holds that the llm form does not (an
	// item_reference, an image detail, annotations, ...). It is kept and
	// written back when its item is re-encoded in this dialect; converting
	// to another dialect loses it. Items and parts the llm form carries as
	// llm.Opaque are not listed: other dialects drop them with a warning.
	Unmodeled []provider.Warning

	decoded     bool // made by DecodeResponses: its ids are written as they are
	order       []string
	inputNode   []byte // the input value, when it is a string or null
	instrNode   []byte // the instructions value, or nil
	prevNode    []byte // the previous_response_id value, or nil
	src         *source
	paths       pathMap
	continuesAt bool     // the body has a conversation
	hist        *history // what its input array left, for DecodeResponsesAfter
}

// BodyPath translates a dotted path computed from r's llm form, as
// transcript.Layout and transcript.Check compute it, into the path of the
// same value in the body r was decoded from: "input.2" may be "input.3" in
// a body with an item_reference before it. Paths outside the input come
// back unchanged. The translation holds for the messages as decoded: the
// paths of a changed transcript (after transcript.Repair, say) are paths in
// its own encoding, not in this body.
func (r *ResponsesRequest) BodyPath(path string) string { return r.paths.bodyPath(path) }

// Continues reports whether the request continues a conversation the
// server holds: it names a previous_response_id or a conversation. Its
// function_call_output items may then answer calls it does not hold.
func (r *ResponsesRequest) Continues() bool { return r.PreviousResponseID != "" || r.continuesAt }

// ReasoningEffort returns the reasoning.effort the request sets ("low",
// "none", ...), or "" when it sets none.
func (r *ResponsesRequest) ReasoningEffort() string {
	for _, f := range r.Fields {
		if f.Key != "reasoning" {
			continue
		}
		if e, ok := codec.String(codec.Get(f.Value, "effort")); ok {
			return e
		}
	}
	return ""
}

// DecodeResponses decodes a Responses request body (whose input may be a
// string or an array of items), or a bare input array, into llm form.
//
// A string content or input is one text part, "" included. A tool
// result's status is that of the toolwire envelope it holds (OpenAI has no
// error flag), else success; its Name is recovered from the call it
// answers, "" when there is none. A call's arguments are kept verbatim
// (invalid UTF-8 in them becomes U+FFFD, as when encoding), and its item id
// ("fc_…") is ToolCall.ItemID. An input_file with inline data is an
// llm.Image whose MediaType may be a document type (application/pdf).
// Parts and model items of types the llm form does not model are llm.Opaque
// parts; items the client sends that it does not model (an item_reference,
// a computer_call_output, ...) have no llm form and are written back
// before the item that followed them. Nothing is dropped.
//
// Errors are [*llm.DecodeError]s (Op "openai") naming the exact path:
// "input.3.arguments: want a string, got an object", and for a body that
// is not JSON the line, the column and the byte offset. The request does
// not alias body.
func DecodeResponses(body []byte) (*ResponsesRequest, error) {
	return DecodeResponsesShared(bytes.Clone(body))
}

// DecodeResponsesShared is [DecodeResponses] for a caller that keeps body unchanged
// while the request is in use: the request aliases body rather than a
// copy of it, which saves the size of the body in memory.
func DecodeResponsesShared(body []byte) (*ResponsesRequest, error) { return decodeResponses(body, nil) }

// DecodeResponsesAfter decodes body, a Responses request body (or a bare
// input array) whose input array holds only what follows the items of
// prev's body, as [DecodeChatAfter] does for Chat Completions: the
// request holds all the items, with the paths of the array they are all
// in, and the checks that look at an item's neighbours (a reasoning item
// and the one after it) run on all of them. prev must be as a
// DecodeResponses function returned it, from a body whose input is an
// array; the request aliases prev, as it does body.
func DecodeResponsesAfter(prev *ResponsesRequest, body []byte) (*ResponsesRequest, error) {
	if prev == nil || prev.hist == nil {
		return nil, decodeError("", errors.New("DecodeResponsesAfter: the previous request was not decoded from a body with an input array"))
	}
	return decodeResponses(body, prev.hist)
}

// decodeResponses decodes body; its input array follows the items of
// prev when prev is not nil.
func decodeResponses(body []byte, prev *history) (*ResponsesRequest, error) {
	if len(bytes.TrimLeft(body, " \t\r\n")) == 0 {
		return nil, decodeError("", errors.New("empty input: want a Responses request body or an input array"))
	}
	req := &ResponsesRequest{decoded: true, src: &source{size: len(body)}}
	d := &rsDecoder{decoder: decoder{src: req.src, msgs: &req.Messages, paths: &req.paths, names: make(map[string]string),
		unmodeled: &req.Unmodeled, violations: &req.Wire, systemRole: &req.SystemRole, dialect: "Responses", elemName: "item"},
		req: req, ids: make(map[string]int), prev: prev}
	req.paths.array = "input"
	store := true
	err := codec.Decode(dialect("Responses", "input", "a Responses request body (an object) or an input array", &req.Unmodeled), body,
		func(rd *codec.Reader) error { req.Bare = true; return d.items(rd) },
		func(rd *codec.Reader) error { return d.body(rd, &store) })
	if err != nil {
		return nil, err
	}
	d.afterItems(store)
	req.paths.done()
	return req, nil
}

// body reads a Responses request body at rd; store is set false when the
// body says "store": false.
func (d *rsDecoder) body(rd *codec.Reader, store *bool) error {
	req := d.req
	hasMessages, hasInput := false, false
	err := rd.Object(func(k string) error {
		req.order = append(req.order, k)
		var err error
		switch k {
		case "input":
			hasInput = true
			switch rd.Kind() {
			case '"':
				if d.prev != nil {
					return rd.Want("an array of input items, after those of the body before")
				}
				req.inputNode, err = rd.Raw()
				text, _ := codec.String(req.inputNode)
				x := d.begin(req.inputNode, llm.RoleUser)
				d.src.elems[x].input = true
				d.add(x, block{part: llm.Text{Text: text}, node: req.inputNode, str: true})
				d.place(x, 0, false, nil, false)
			case 'n':
				req.inputNode, err = rd.Raw()
			case '[':
				err = d.items(rd)
			default:
				err = rd.Want("a string or an array of input items")
			}
		case "tools":
			if rd.Kind() == 'n' {
				req.src.toolsNode, err = rd.Raw()
			} else {
				req.Tools, err = d.tools(rd, rsTool)
			}
		case "instructions", "previous_response_id":
			v, err := rd.Raw()
			if err != nil {
				return err
			}
			dst, node := &req.Instructions, &req.instrNode
			if k == "previous_response_id" {
				dst, node = &req.PreviousResponseID, &req.prevNode
			}
			*node = v
			if !codec.IsNull(v) {
				var ok bool
				if *dst, ok = codec.String(v); !ok {
					return wantAt(rd, v, "a string")
				}
			}
		default:
			if k == "messages" {
				hasMessages = true
			}
			v, err := rd.Raw()
			if err != nil {
				return err
			}
			if k == "conversation" && !codec.IsNull(v) {
				req.continuesAt = true
			}
			if b, ok := codec.Bool(v); k == "store" && ok && !b {
				*store = false
			}
			req.Fields = append(req.Fields, Field{Key: k, Value: v})
		}
		return err
	})
	if err != nil {
		return err
	}
	if hasMessages && !hasInput {
		return decodeError("messages", errors.New("a Responses request has no messages field; this looks like a Chat Completions request (use DecodeChat)"))
	}
	return nil
}

type rsDecoder struct {
	decoder
	req  *ResponsesRequest
	ids  map[string]int // item id → index, for OAI-RS-DUP-ITEM
	seen []rsSeen       // every item, for the checks that look at neighbours
	prev *history       // the items the body's array follows, or nil
}

// rsSeen is what the checks after decoding need of an item.
type rsSeen struct {
	x     int32 // its element
	typ   string
	id    string
	model bool // an item the model outputs
}

// rsPart is a content part before the item's type is known.
type rsPart struct {
	node     []byte
	typ      string
	text     string
	hasText  bool
	textKind jsontext.Kind
	imageURL string
	hasURL   bool
	detail   string
	fileData string
	hasFile  bool
	extra    []string
	quiet    bool
}

// rsItem is an input item before its type is known. Shape errors are
// deferred until then: an item of a type the codec does not model is kept
// whole, whatever its fields look like.
type rsItem struct {
	typ, role, id, callID, name, args string
	hasType, hasRole, hasID           bool
	hasCallID, hasName, hasArgs       bool
	argsKey                           string        // "arguments" or "input"
	argsKind                          jsontext.Kind // arguments given as JSON, not a string (OAI-RS-JSON-TYPE); else 0
	content                           contentKind
	contentAt                         []byte
	str                               string
	parts                             []rsPart
	output                            contentKind
	outputAt                          []byte
	outStr                            string
	outParts                          []rsPart
	summary                           []rsPart
	extra                             []string
	quiet                             bool
	deferred                          error
}

func (d *rsDecoder) items(rd *codec.Reader) error {
	wire, notes := len(*d.violations), len(*d.unmodeled)
	first := 0
	if h := d.prev; h != nil {
		first = d.resume(h)
		d.ids, d.seen = maps.Clone(h.ids), slices.Clone(h.seen)
	}
	n := first
	err := rd.ArrayFrom(first, func(i int) error { n = i + 1; return d.item(rd, i) })
	if err == nil {
		h := d.history(n, wire, notes)
		// afterItems marks the elements: the history keeps them as the
		// array leaves them.
		h.src.elems = slices.Clone(h.src.elems)
		h.ids, h.seen = d.ids, slices.Clip(d.seen)
		d.req.hist = h
	}
	return err
}

// shape keeps the first error of a field's parse step: such errors are
// deferred until the item's type is known, since an item of a type the
// codec does not model is kept whatever its fields look like.
func (it *rsItem) shape(err error) {
	if err != nil && it.deferred == nil {
		it.deferred = err
	}
}

// modelItem reports whether items of type typ are ones the model outputs
// (calls, and the few other output item types), which belong to the
// assistant side of the conversation.
func modelItem(typ string) bool {
	switch typ {
	case "mcp_list_tools", "mcp_approval_request", "compaction":
		return true
	}
	return strings.HasSuffix(typ, "_call")
}

func (d *rsDecoder) item(rd *codec.Reader, i int) error {
	if rd.Kind() != '{' {
		return rd.Want("an object")
	}
	var it rsItem
	str := func(dst *string, has *bool) error {
		if k := rd.Kind(); k != '"' {
			it.shape(rd.Want("a string"))
			return rd.Skip()
		}
		s, err := rd.Str()
		*dst, *has = s, err == nil
		return err
	}
	err := rd.Object(func(key string) error {
		switch key {
		case "type":
			return str(&it.typ, &it.hasType)
		case "role":
			return str(&it.role, &it.hasRole)
		case "id":
			if rd.Kind() == 'n' {
				return rd.Skip()
			}
			return str(&it.id, &it.hasID)
		case "call_id":
			return str(&it.callID, &it.hasCallID)
		case "name":
			return str(&it.name, &it.hasName)
		case "arguments", "input":
			it.argsKey = key
			if k := rd.Kind(); key == "arguments" && (k == '{' || k == '[') {
				// The arguments as JSON, not as the string that holds
				// it: a rejection (OAI-RS-JSON-TYPE) whose meaning is
				// plain.
				v, err := rd.Raw()
				it.args, it.argsKind, it.hasArgs = string(v), k, true
				return err
			}
			return str(&it.args, &it.hasArgs)
		case "content":
			var err error
			it.content, it.str, it.parts, it.contentAt, err = d.content(rd, &it)
			return err
		case "output":
			if rd.Kind() == '{' {
				// A function's output as JSON, not as text: read as its
				// JSON text (OAI-RS-JSON-TYPE); an item of another type
				// keeps it whole.
				var err error
				it.output = contentObject
				it.outputAt, err = rd.Raw()
				return err
			}
			var err error
			it.output, it.outStr, it.outParts, it.outputAt, err = d.content(rd, &it)
			return err
		case "summary":
			var err error
			_, _, it.summary, _, err = d.content(rd, &it)
			return err
		case "status", "phase":
			return rd.Skip()
		}
		return unmodeled(rd, key, &it.extra, &it.quiet)
	})
	n := rd.Span()
	if err != nil {
		return err
	}
	path := "input." + strconv.Itoa(i)
	if !it.hasType {
		if !it.hasRole {
			if it.deferred != nil {
				return it.deferred
			}
			return rd.Errorf("an input item needs a type (message, function_call, function_call_output, reasoning, ...) or a role")
		}
		it.typ = "message"
	}
	seen := rsSeen{typ: it.typ, id: it.id, model: modelItem(it.typ)}
	var x int32
	join := true
	modeledID := false
	switch it.typ {
	case "message":
		if it.deferred != nil {
			return it.deferred
		}
		var err error
		if x, join, err = d.message(rd, n, &it, path); err != nil {
			return err
		}
		seen.model = it.role == "assistant"
	case "function_call", "custom_tool_call":
		if it.deferred != nil {
			return it.deferred
		}
		var err error
		if x, err = d.call(rd, n, &it, path); err != nil {
			return err
		}
		modeledID = true
	case "function_call_output", "custom_tool_call_output":
		if it.deferred != nil {
			return it.deferred
		}
		var err error
		if x, err = d.output(rd, n, &it, path); err != nil {
			return err
		}
	case "reasoning":
		var texts []string
		for _, p := range it.summary {
			if p.hasText {
				texts = append(texts, p.text)
			}
		}
		x = d.begin(n, llm.RoleAssistant)
		d.add(x, block{part: llm.Reasoning{Provider: ResponsesProvider, Text: strings.Join(texts, "\n\n"), Data: n}, node: n, kind: bWhole})
		modeledID = true
	default:
		if seen.model {
			o := opaque(ResponsesProvider, it.typ, n)
			if it.hasCallID {
				o.CallID = it.callID
			}
			x = d.begin(n, llm.RoleAssistant)
			d.add(x, block{part: o, node: n, kind: bWhole})
		} else {
			x = d.hide(n)
			d.note(path, fmt.Sprintf("an item of type %q is not part of the llm form", it.typ))
		}
	}
	e := &d.src.elems[x]
	opaqueElem := e.hidden || (e.count == 1 && d.src.blocks[e.first].kind == bWhole && isOpaque(d.src.blocks[e.first].part))
	if !opaqueElem && it.typ != "reasoning" {
		for _, k := range it.extra {
			d.note(path+"."+k, fmt.Sprintf("the %q field of %s item is not part of the llm form", k, an(it.typ)))
		}
	}
	if it.hasID {
		if prev, dup := d.ids[it.id]; dup && !modeledID {
			if opaqueElem {
				e.fix |= fixDrop
			} else {
				e.fix |= fixID
			}
			d.violation("OAI-RS-DUP-ITEM", path+".id",
				fmt.Sprintf("the item id %q appears twice, in input.%d and input.%d; send each item once", it.id, prev, i),
				fmt.Sprintf("Duplicate item found with id %s. Remove duplicate items from your input and try again.", it.id))
		} else if !dup {
			d.ids[it.id] = i
		}
	}
	seen.x = x
	d.seen = append(d.seen, seen)
	role := d.src.elems[x].role
	d.place(x, i, join && (role == llm.RoleAssistant || role == llm.RoleTool), nil, it.typ == "message" && it.content == contentString)
	return nil
}

func isOpaque(p llm.Part) bool {
	_, ok := p.(llm.Opaque)
	return ok
}

// content reads a content or output value: a string, or an array of
// parts. An error in its shape is kept in it (see [rsItem.shape]), the
// parts after a part in error left out; raw is the value.
func (d *rsDecoder) content(rd *codec.Reader, it *rsItem) (kind contentKind, str string, parts []rsPart, raw []byte, err error) {
	switch rd.Kind() {
	case '"':
		raw, err = rd.Raw()
		str, _ = codec.String(raw)
		return contentString, str, nil, raw, err
	case '[':
		var bad error
		err = rd.Array(func(int) error {
			if bad != nil {
				return rd.Skip()
			}
			p, shapeErr, err := d.part(rd)
			if bad = shapeErr; bad == nil {
				parts = append(parts, p)
			}
			return err
		})
		raw = rd.Span()
		it.shape(bad)
		return contentArray, "", parts, raw, err
	case 'n':
		raw, err = rd.Raw()
		return contentNull, "", nil, raw, err
	}
	it.shape(rd.Want("a string or an array of content parts"))
	raw, err = rd.Raw()
	return contentAbsent, "", nil, raw, err
}

// part reads a content part. shapeErr says what makes it no part; err is
// an error of reading the body.
func (d *rsDecoder) part(rd *codec.Reader) (p rsPart, shapeErr, err error) {
	if rd.Kind() != '{' {
		return p, rd.Want("an object"), rd.Skip()
	}
	hasType := false
	err = rd.Object(func(key string) error {
		if shapeErr != nil {
			return rd.Skip()
		}
		isStr := rd.Kind() == '"'
		switch key {
		case "type":
			if !isStr {
				shapeErr = rd.Want("a string")
				return rd.Skip()
			}
			var err error
			p.typ, err = rd.Str()
			hasType = true
			return err
		case "text":
			if isStr {
				var err error
				p.text, err = rd.Str()
				p.hasText = true
				return err
			}
			p.textKind = rd.Kind()
		case "image_url":
			if isStr {
				var err error
				p.imageURL, err = rd.Str()
				p.hasURL = true
				return err
			}
		case "file_data":
			if isStr {
				var err error
				p.fileData, err = rd.Str()
				p.hasFile = true
				return err
			}
		case "detail":
			if isStr {
				var err error
				if p.detail, err = rd.Str(); p.detail != "auto" {
					p.extra = append(p.extra, "detail")
				}
				return err
			}
		}
		return unmodeled(rd, key, &p.extra, &p.quiet)
	})
	p.node = rd.Span()
	switch {
	case err != nil || shapeErr != nil:
	case !hasType:
		shapeErr = rd.Errorf("content part without a type (want input_text, input_image, output_text, ...)")
	case (p.typ == "input_text" || p.typ == "output_text") && !p.hasText:
		shapeErr = textError(rd, p.textKind)
	}
	return p, shapeErr, err
}

// mapPart maps one content part of a message item or a tool output: text,
// an image (or an inline document), else an Opaque part.
func (d *rsDecoder) mapPart(p rsPart, path string, role string) llm.Part {
	switch {
	case p.typ == "input_text" || p.typ == "output_text":
		d.partExtras(p, path)
		return llm.Text{Text: p.text}
	case p.typ == "input_image" && role != "assistant" && role != "system" && p.hasURL && p.imageURL != "":
		d.partExtras(p, path)
		return image(p.imageURL)
	case p.typ == "input_file" && role != "assistant" && role != "system" && p.hasFile:
		if img := image(p.fileData); img.Data != nil {
			d.partExtras(p, path)
			return img
		}
	}
	return opaque(ResponsesProvider, p.typ, p.node)
}

func (d *rsDecoder) partExtras(p rsPart, path string) {
	for _, k := range p.extra {
		what := fmt.Sprintf("the %q field of this %s part", k, p.typ)
		switch k {
		case "detail":
			what = fmt.Sprintf("the image detail %q", p.detail)
		case "annotations":
			what = "the annotations of this output_text part"
		}
		verb := " is"
		if k == "annotations" {
			verb = " are"
		}
		d.note(path+"."+k, what+verb+" not part of the llm form")
	}
}

// message maps a message item; join reports whether it may join the
// assistant message before it.
func (d *rsDecoder) message(rd *codec.Reader, n []byte, it *rsItem, path string) (int32, bool, error) {
	var role llm.Role
	switch it.role {
	case "system", "developer":
		role = llm.RoleSystem
		d.system(it.role, path)
	case "user":
		role = llm.RoleUser
	case "assistant":
		role = llm.RoleAssistant
	case "":
		return 0, false, rd.ErrorAt("role", "missing: a message needs a role (user, assistant, system or developer)")
	default:
		return 0, false, rd.ErrorAt("role", "unknown role %q (want user, assistant, system or developer)", it.role)
	}
	wireRole := it.role
	if role == llm.RoleSystem {
		wireRole = "system"
	}
	switch it.content {
	case contentAbsent, contentNull:
		return 0, false, rd.ErrorAt("content", "missing: a message needs content (a string or an array of parts)")
	}
	x := d.begin(n, role)
	if role == llm.RoleAssistant {
		// An assistant message of text parts joins the assistant message
		// before it (two message items in a row stay two messages); one
		// with anything else (a refusal, no part at all) is opaque.
		text := it.content == contentString || len(it.parts) > 0
		for _, p := range it.parts {
			text = text && (p.typ == "output_text" || p.typ == "input_text")
		}
		if !text {
			d.add(x, block{part: opaque(ResponsesProvider, "message", n), node: n, kind: bWhole})
			return x, true, nil
		}
		msgs := *d.msgs
		join := len(msgs) == 0 || !endsInText(msgs[len(msgs)-1])
		d.textParts(x, it, path, wireRole)
		return x, join, nil
	}
	d.textParts(x, it, path, wireRole)
	return x, false, nil
}

// textParts adds the blocks of a message item's content.
func (d *rsDecoder) textParts(x int32, it *rsItem, path, role string) {
	if it.content == contentString {
		d.add(x, block{part: llm.Text{Text: it.str}, node: it.contentAt, str: true})
		return
	}
	for j, p := range it.parts {
		d.add(x, block{part: d.mapPart(p, path+".content."+strconv.Itoa(j), role), node: p.node})
	}
}

// endsInText reports whether m's last part is text.
func endsInText(m llm.Message) bool {
	if len(m.Parts) == 0 {
		return false
	}
	_, ok := m.Parts[len(m.Parts)-1].(llm.Text)
	return ok
}

func (d *rsDecoder) call(rd *codec.Reader, n []byte, it *rsItem, path string) (int32, error) {
	argsKey := "arguments"
	if it.typ == "custom_tool_call" {
		argsKey = "input"
	}
	switch {
	case !it.hasCallID:
		return 0, rd.ErrorAt("call_id", "missing: a %s item needs a call_id", it.typ)
	case !it.hasName:
		return 0, rd.ErrorAt("name", "missing: a %s item needs a name", it.typ)
	case !it.hasArgs || it.argsKey != argsKey:
		hint := ""
		if argsKey == "arguments" {
			hint = " (a JSON string; send \"{}\" for a call without arguments)"
		}
		return 0, rd.ErrorAt(argsKey, "missing%s", hint)
	}
	input := callInput(it.args)
	if it.typ == "custom_tool_call" {
		d.note(path, "a custom tool call is read as a call whose input is its text as a JSON string")
		input = codec.AppendString(nil, it.args)
	}
	x := d.begin(n, llm.RoleAssistant)
	if it.argsKind != 0 {
		d.src.elems[x].fix |= fixType
		d.violation("OAI-RS-JSON-TYPE", path+".arguments",
			fmt.Sprintf("arguments is %s; Responses takes the arguments as a string that holds their JSON: --fix writes it so", codec.Phrase(it.argsKind)),
			fmt.Sprintf("Invalid type for 'input[%s].arguments': expected a string, but got %s instead.", strings.TrimPrefix(path, "input."), codec.Phrase(it.argsKind)))
	}
	d.add(x, block{part: llm.ToolCall{ID: it.callID, Name: it.name, Input: input, ItemID: it.id}, node: n, kind: bWhole})
	d.names[it.callID] = it.name
	return x, nil
}

func (d *rsDecoder) output(rd *codec.Reader, n []byte, it *rsItem, path string) (int32, error) {
	if !it.hasCallID {
		return 0, rd.ErrorAt("call_id", "missing: a %s item needs the call_id of the call it answers", it.typ)
	}
	res := llm.ToolResult{CallID: it.callID}
	blk := block{node: n, kind: bWhole}
	retype := false
	switch it.output {
	case contentAbsent, contentNull:
		return 0, rd.ErrorAt("output", "missing: want a string or an array of input_text/input_image parts")
	case contentObject:
		res.Content, retype = []llm.Part{llm.Text{Text: string(it.outputAt)}}, true
		d.violation("OAI-RS-JSON-TYPE", path+".output",
			"output is an object; a function_call_output's output is a string or an array of input parts: --fix writes the object's JSON as the string",
			fmt.Sprintf("Invalid type for 'input[%s].output': expected one of a string or array of objects, but got an object instead.", strings.TrimPrefix(path, "input.")))
	case contentString:
		if it.outStr != "" {
			res.Content = []llm.Part{llm.Text{Text: it.outStr}}
			blk.inner = []block{{part: res.Content[0], node: it.outputAt, str: true}}
		}
	case contentArray:
		for j, p := range it.outParts {
			part := d.mapPart(p, path+".output."+strconv.Itoa(j), "tool")
			res.Content = append(res.Content, part)
			blk.inner = append(blk.inner, block{part: part, node: p.node})
		}
	}
	if it.typ == "custom_tool_call_output" {
		d.note(path, "a custom tool call output is read as a function call output")
	}
	res.Name = d.names[res.CallID]
	res.Status = resultStatus(res.Content)
	blk.part = res
	x := d.begin(n, llm.RoleTool)
	if retype {
		d.src.elems[x].fix |= fixType
	}
	d.add(x, blk)
	return x, nil
}

// afterItems checks what depends on an item's neighbours or on the
// request's other fields, once every item is read: a stored reasoning item
// followed by an item that is not the one it belongs to
// (OAI-RS-REASONING-FOLLOW), and items a continued conversation may
// already hold (OAI-RS-DUP-ITEM, a warning).
func (d *rsDecoder) afterItems(store bool) {
	path := func(k int) string { return "input." + strconv.Itoa(k) }
	// From the end: an item left out is no follower.
	for k := len(d.seen) - 1; k >= 0 && store; k-- {
		it := d.seen[k]
		if it.typ != "reasoning" || it.id == "" {
			continue
		}
		j := k + 1
		for j < len(d.seen) && d.src.elems[d.seen[j].x].fix&fixDrop != 0 {
			j++
		}
		if j >= len(d.seen) {
			continue
		}
		next := d.seen[j]
		if !next.model || (next.id != "" && d.src.elems[next.x].fix&fixID == 0) || next.typ == "reasoning" {
			continue
		}
		d.src.elems[it.x].fix |= fixDrop
		d.violation("OAI-RS-REASONING-FOLLOW", path(k),
			fmt.Sprintf("the reasoning item %s (%s) is followed by %s item without an id; the server stores a reasoning item with the item the model produced after it, which it finds by its id: replay that item with its id, or leave the reasoning out (or send \"store\": false)", path(k), it.id, an(next.typ)),
			fmt.Sprintf("Item '%s' of type 'reasoning' was provided without its required following item.", it.id))
	}
	if !d.req.Continues() {
		return
	}
	for k, it := range d.seen {
		if it.id == "" || d.src.elems[it.x].fix&(fixDrop|fixID) != 0 {
			continue
		}
		d.req.Wire = append(d.req.Wire, transcript.Violation{Rule: "OAI-RS-DUP-ITEM", Path: path(k) + ".id", Warning: true,
			Message:       fmt.Sprintf("%s has the item id %s, and the request continues a stored conversation (previous_response_id or conversation): if the server already holds this item, it rejects the request; send only new items (or an item_reference to an item outside that conversation)", path(k), it.id),
			ProviderError: fmt.Sprintf("Duplicate item found with id %s. Remove duplicate items from your input and try again.", it.id)})
	}
}

// rsTool reads one tool definition; a function tool is flat.
func rsTool(rd *codec.Reader) (spec llm.ToolSpec, isFunc bool, extraKeys []string, raw []byte, err error) {
	if rd.Kind() != '{' {
		return spec, false, nil, nil, rd.Want("an object")
	}
	typ := ""
	hasName := false
	var shapeErr error // only a function tool's fields must have these shapes
	err = rd.Object(func(key string) error {
		if key == "type" {
			var err error
			typ, err = rd.Str()
			return err
		}
		modeled, err := toolField(rd, &spec, key)
		if !modeled {
			v, err := rd.Raw()
			if noted, _ := extra(v); noted {
				extraKeys = append(extraKeys, key)
			}
			return err
		}
		if key == "name" {
			hasName = err == nil
		}
		if err != nil && shapeErr == nil {
			shapeErr = err
		}
		if de := (*llm.DecodeError)(nil); errors.As(err, &de) && de.Offset >= 0 {
			return err // not JSON
		}
		return nil
	})
	raw = rd.Span()
	switch {
	case err != nil:
		return spec, false, nil, nil, err
	case typ == "":
		return spec, false, nil, nil, rd.Errorf("tool without a type (want \"function\", \"web_search\", ...)")
	case typ != "function":
		return spec, false, nil, raw, nil
	case shapeErr != nil:
		return spec, false, nil, nil, shapeErr
	case !hasName:
		return spec, false, nil, nil, rd.ErrorAt("name", "missing: a function tool needs a name")
	}
	return spec, true, extraKeys, raw, nil
}
