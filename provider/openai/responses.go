package openai

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/internal/jsontree"
	"github.com/toolwire/toolwire/llm"
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
	Unmodeled []transcript.Warning

	decoded     bool // made by DecodeResponses: its ids are written as they are
	order       []string
	inputNode   jsontree.Node // the input value, when it is a string or null
	instrNode   jsontree.Node // the instructions value, or None
	prevNode    jsontree.Node // the previous_response_id value, or None
	src         *source
	paths       pathMap
	continuesAt bool // the body has a conversation
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
		b, err := parseBody(f.Value, "")
		if err != nil {
			return ""
		}
		if e := b.t.Get(b.t.Root(), "effort"); e >= 0 && b.t.Kind(e) == jsontree.String {
			return b.t.Str(e)
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
// Errors are [*DecodeError]s naming the exact path:
// "input.3.arguments: want a string, got an object". The request does not
// alias body.
func DecodeResponses(body []byte) (*ResponsesRequest, error) {
	if len(bytes.TrimLeft(body, " \t\r\n")) == 0 {
		return nil, &DecodeError{Err: errors.New("empty input: want a Responses request body or an input array")}
	}
	b, err := parseBody(bytes.Clone(body), "input") // a bare array's paths are those of a full body
	if err != nil {
		return nil, err
	}
	req := &ResponsesRequest{decoded: true, src: &source{t: b.t, toolsNode: jsontree.None},
		inputNode: jsontree.None, instrNode: jsontree.None, prevNode: jsontree.None}
	d := &rsDecoder{decoder: decoder{b: b, src: req.src, msgs: &req.Messages, paths: &req.paths, names: make(map[string]string),
		unmodeled: &req.Unmodeled, violations: &req.Wire, systemRole: &req.SystemRole, dialect: "Responses", elemName: "item"},
		req: req, ids: make(map[string]int)}
	req.paths.array = "input"
	t := b.t
	store := true
	switch root := t.Root(); t.Kind(root) {
	case jsontree.Array:
		req.Bare = true
		if err := d.items(root); err != nil {
			return nil, err
		}
	case jsontree.Object:
		hasMessages, hasInput := false, false
		for f := t.First(root); f != jsontree.None; f = t.Next(f) {
			k := string(b.key(f))
			req.order = append(req.order, k)
			var err error
			switch k {
			case "input":
				hasInput = true
				switch t.Kind(f) {
				case jsontree.String:
					req.inputNode = f
					x := d.begin(f, llm.RoleUser)
					d.src.elems[x].input = true
					d.add(x, block{part: llm.Text{Text: t.Str(f)}, node: f, str: true})
					d.place(x, 0, false, nil, false)
				case jsontree.Null:
					req.inputNode = f
				case jsontree.Array:
					err = d.items(f)
				default:
					err = b.want(f, "a string or an array of input items")
				}
			case "tools":
				req.src.toolsNode = f
				if !b.isNull(f) {
					req.Tools, err = d.tools(f, rsTool)
				}
			case "instructions":
				req.instrNode = f
				if !b.isNull(f) {
					req.Instructions, err = b.str(f)
				}
			case "previous_response_id":
				req.prevNode = f
				if !b.isNull(f) {
					req.PreviousResponseID, err = b.str(f)
				}
			case "messages":
				hasMessages = true
				fallthrough
			default:
				switch {
				case k == "conversation" && !b.isNull(f):
					req.continuesAt = true
				case k == "store" && t.Kind(f) == jsontree.Bool && !t.IsTrue(f):
					store = false
				}
				req.Fields = append(req.Fields, Field{Key: k, Value: t.Compact(f)})
			}
			if err != nil {
				return nil, err
			}
		}
		if hasMessages && !hasInput {
			return nil, &DecodeError{Path: "messages", Err: errors.New("a Responses request has no messages field; this looks like a Chat Completions request (use DecodeChat)")}
		}
	default:
		return nil, &DecodeError{Err: fmt.Errorf("want a Responses request body (an object) or an input array, got %s", t.Kind(root).Phrase())}
	}
	d.afterItems(store)
	req.paths.done()
	return req, nil
}

type rsDecoder struct {
	decoder
	req  *ResponsesRequest
	ids  map[string]int // item id → index, for OAI-RS-DUP-ITEM
	seen []rsSeen       // every item, for the checks that look at neighbours
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
	node     jsontree.Node
	typ      string
	text     string
	hasText  bool
	textKind jsontree.Kind
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
	argsKey                           string // "arguments" or "input"
	content                           contentKind
	contentAt                         jsontree.Node
	str                               string
	parts                             []rsPart
	output                            contentKind
	outputAt                          jsontree.Node
	outStr                            string
	outParts                          []rsPart
	summary                           []rsPart
	extra                             []string
	quiet                             bool
	deferred                          error
}

func (d *rsDecoder) items(n jsontree.Node) error {
	t := d.b.t
	for i, c := 0, t.First(n); c != jsontree.None; i, c = i+1, t.Next(c) {
		if err := d.item(i, c); err != nil {
			return err
		}
	}
	return nil
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

func (d *rsDecoder) item(i int, n jsontree.Node) error {
	b, t := d.b, d.b.t
	if t.Kind(n) != jsontree.Object {
		return b.want(n, "an object")
	}
	start := t.Offset(n)
	it := rsItem{contentAt: jsontree.None, outputAt: jsontree.None}
	str := func(f jsontree.Node, dst *string, has *bool) {
		s, err := b.str(f)
		*dst, *has = s, err == nil
		it.shape(err)
	}
	for f := t.First(n); f != jsontree.None; f = t.Next(f) {
		key := b.key(f)
		switch string(key) {
		case "type":
			str(f, &it.typ, &it.hasType)
		case "role":
			str(f, &it.role, &it.hasRole)
		case "id":
			if !b.isNull(f) {
				str(f, &it.id, &it.hasID)
			}
		case "call_id":
			str(f, &it.callID, &it.hasCallID)
		case "name":
			str(f, &it.name, &it.hasName)
		case "arguments", "input":
			it.argsKey = string(key)
			str(f, &it.args, &it.hasArgs)
		case "content":
			var err error
			it.contentAt = f
			it.content, it.str, it.parts, err = d.content(f)
			it.shape(err)
		case "output":
			var err error
			it.outputAt = f
			it.output, it.outStr, it.outParts, err = d.content(f)
			it.shape(err)
		case "summary":
			var err error
			_, _, it.summary, err = d.content(f)
			it.shape(err)
		case "status", "phase":
		default:
			b.unmodeled(f, key, &it.extra, &it.quiet)
		}
	}
	path := "input." + strconv.Itoa(i)
	if !it.hasType {
		if !it.hasRole {
			if it.deferred != nil {
				return it.deferred
			}
			return b.errorf(n, "an input item needs a type (message, function_call, function_call_output, reasoning, ...) or a role")
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
		if x, join, err = d.message(n, &it, path, start); err != nil {
			return err
		}
		seen.model = it.role == "assistant"
	case "function_call", "custom_tool_call":
		if it.deferred != nil {
			return it.deferred
		}
		var err error
		if x, err = d.call(n, &it, path, start); err != nil {
			return err
		}
		modeledID = true
	case "function_call_output", "custom_tool_call_output":
		if it.deferred != nil {
			return it.deferred
		}
		var err error
		if x, err = d.output(n, &it, path, start); err != nil {
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
		d.add(x, block{part: llm.Reasoning{Provider: ResponsesProvider, Text: strings.Join(texts, "\n\n"), Data: t.Compact(n)}, node: n, kind: bWhole})
		modeledID = true
	default:
		if seen.model {
			o := d.opaque(ResponsesProvider, it.typ, n)
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

// content reads a content or output value: a string, or an array of parts.
func (d *rsDecoder) content(n jsontree.Node) (contentKind, string, []rsPart, error) {
	t := d.b.t
	switch t.Kind(n) {
	case jsontree.String:
		return contentString, t.Str(n), nil, nil
	case jsontree.Array:
		parts := make([]rsPart, 0, t.Len(n))
		for c := t.First(n); c != jsontree.None; c = t.Next(c) {
			p, err := d.part(c)
			if err != nil {
				return contentArray, "", parts, err
			}
			parts = append(parts, p)
		}
		return contentArray, "", parts, nil
	case jsontree.Null:
		return contentNull, "", nil, nil
	}
	return contentAbsent, "", nil, d.b.want(n, "a string or an array of content parts")
}

func (d *rsDecoder) part(n jsontree.Node) (rsPart, error) {
	b, t := d.b, d.b.t
	p := rsPart{node: n}
	if t.Kind(n) != jsontree.Object {
		return p, b.want(n, "an object")
	}
	hasType := false
	for f := t.First(n); f != jsontree.None; f = t.Next(f) {
		key := b.key(f)
		isStr := t.Kind(f) == jsontree.String
		switch string(key) {
		case "type":
			var err error
			if p.typ, err = b.str(f); err != nil {
				return p, err
			}
			hasType = true
			continue
		case "text":
			if isStr {
				p.text, p.hasText = t.Str(f), true
				continue
			}
			p.textKind = t.Kind(f)
		case "image_url":
			if isStr {
				p.imageURL, p.hasURL = t.Str(f), true
				continue
			}
		case "file_data":
			if isStr {
				p.fileData, p.hasFile = t.Str(f), true
				continue
			}
		case "detail":
			if isStr {
				if p.detail = t.Str(f); p.detail != "auto" {
					p.extra = append(p.extra, "detail")
				}
				continue
			}
		}
		b.unmodeled(f, key, &p.extra, &p.quiet)
	}
	if !hasType {
		return p, b.errorf(n, "content part without a type (want input_text, input_image, output_text, ...)")
	}
	switch p.typ {
	case "input_text", "output_text":
		if !p.hasText {
			return p, textError(b, n, p.textKind)
		}
	}
	return p, nil
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
	return d.opaque(ResponsesProvider, p.typ, p.node)
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
func (d *rsDecoder) message(n jsontree.Node, it *rsItem, path string, start int) (int32, bool, error) {
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
		return 0, false, &DecodeError{Path: path + ".role", Offset: start, Err: errors.New("missing: a message needs a role (user, assistant, system or developer)")}
	default:
		return 0, false, &DecodeError{Path: path + ".role", Offset: start, Err: fmt.Errorf("unknown role %q (want user, assistant, system or developer)", it.role)}
	}
	wireRole := it.role
	if role == llm.RoleSystem {
		wireRole = "system"
	}
	switch it.content {
	case contentAbsent, contentNull:
		return 0, false, &DecodeError{Path: path + ".content", Offset: start, Err: errors.New("missing: a message needs content (a string or an array of parts)")}
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
			d.add(x, block{part: d.opaque(ResponsesProvider, "message", n), node: n, kind: bWhole})
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

func (d *rsDecoder) call(n jsontree.Node, it *rsItem, path string, start int) (int32, error) {
	argsKey := "arguments"
	if it.typ == "custom_tool_call" {
		argsKey = "input"
	}
	switch {
	case !it.hasCallID:
		return 0, &DecodeError{Path: path + ".call_id", Offset: start, Err: fmt.Errorf("missing: a %s item needs a call_id", it.typ)}
	case !it.hasName:
		return 0, &DecodeError{Path: path + ".name", Offset: start, Err: fmt.Errorf("missing: a %s item needs a name", it.typ)}
	case !it.hasArgs || it.argsKey != argsKey:
		hint := ""
		if argsKey == "arguments" {
			hint = " (a JSON string; send \"{}\" for a call without arguments)"
		}
		return 0, &DecodeError{Path: path + "." + argsKey, Offset: start, Err: fmt.Errorf("missing%s", hint)}
	}
	input := callInput(it.args)
	if it.typ == "custom_tool_call" {
		d.note(path, "a custom tool call is read as a call whose input is its text as a JSON string")
		input, _ = llm.AppendJSONString(nil, it.args)
	}
	x := d.begin(n, llm.RoleAssistant)
	d.add(x, block{part: llm.ToolCall{ID: it.callID, Name: it.name, Input: input, ItemID: it.id}, node: n, kind: bWhole})
	d.names[it.callID] = it.name
	return x, nil
}

func (d *rsDecoder) output(n jsontree.Node, it *rsItem, path string, start int) (int32, error) {
	if !it.hasCallID {
		return 0, &DecodeError{Path: path + ".call_id", Offset: start, Err: fmt.Errorf("missing: a %s item needs the call_id of the call it answers", it.typ)}
	}
	res := llm.ToolResult{CallID: it.callID}
	blk := block{node: n, kind: bWhole}
	switch it.output {
	case contentAbsent, contentNull:
		return 0, &DecodeError{Path: path + ".output", Offset: start, Err: errors.New("missing: want a string or an array of input_text/input_image parts")}
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
func rsTool(b *body, n jsontree.Node) (spec llm.ToolSpec, isFunc bool, extra []string, err error) {
	t := b.t
	if t.Kind(n) != jsontree.Object {
		return spec, false, nil, b.want(n, "an object")
	}
	typ := ""
	hasName := false
	var shapeErr error // only a function tool's fields must have these shapes
	for f := t.First(n); f != jsontree.None; f = t.Next(f) {
		key := b.key(f)
		var err error
		switch string(key) {
		case "type":
			if typ, err = b.str(f); err != nil {
				return spec, false, nil, err
			}
		default:
			var modeled bool
			if modeled, err = b.toolField(&spec, key, f); !modeled {
				if noted, _ := b.extra(f); noted {
					extra = append(extra, string(key))
				}
			}
			if string(key) == "name" {
				hasName = err == nil
			}
		}
		if err != nil && shapeErr == nil {
			shapeErr = err
		}
	}
	if typ == "" {
		return spec, false, nil, b.errorf(n, "tool without a type (want \"function\", \"web_search\", ...)")
	}
	if typ != "function" {
		return spec, false, nil, nil
	}
	if shapeErr != nil {
		return spec, false, nil, shapeErr
	}
	if !hasName {
		return spec, false, nil, b.missing(n, "name", errors.New("missing: a function tool needs a name"))
	}
	return spec, true, extra, nil
}
