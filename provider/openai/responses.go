package openai

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolwire/toolwire/internal/callid"
	"github.com/toolwire/toolwire/internal/jsontree"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// ResponsesProvider is the llm.Reasoning provider name of OpenAI Responses
// reasoning items.
const ResponsesProvider = string(transcript.OpenAIResponses)

// ResponsesRequest is an OpenAI Responses request body in llm form.
//
// [DecodeResponses] fills it from a body; [EncodeResponses] writes it back.
// A request decoded from a body re-encodes to the same body up to
// formatting, key order of the modeled fields and equivalent spellings.
type ResponsesRequest struct {
	// Messages is the conversation, mapped as docs/dialect-mapping.md says:
	// consecutive assistant-side items (function_call, reasoning, assistant
	// message) form one llm assistant message, and consecutive
	// function_call_output items one llm tool message. A reasoning item is
	// an llm.Reasoning{Provider: "openai-responses"} whose Data is the
	// whole item and whose Text is its summary.
	Messages []llm.Message
	// Tools are the function tools, in order. Other tools (web_search,
	// file_search, mcp, custom, ...) are kept and written back after the
	// function tool they preceded. A function tool without "strict" is
	// strict: Responses defaults it to true.
	Tools []llm.ToolSpec
	// Bare is set when the input was a bare input array; EncodeResponses
	// then writes a bare array.
	Bare bool
	// Instructions is the top-level system prompt, "" when absent. It is not
	// a message.
	Instructions string
	// PreviousResponseID is the stored response this request continues, ""
	// when absent. With it, the server already holds earlier items: a
	// function_call_output may answer a call that is not in Messages.
	PreviousResponseID string
	// SystemRole is the role system messages are written with; decoding
	// sets it from the first system or developer message.
	SystemRole SystemRole
	// Fields are the other top-level fields (model, store, reasoning,
	// tool_choice, ...), in body order, kept verbatim.
	Fields []Field
	// Wire holds the violations found while decoding that the llm form
	// cannot express (OAI-RS-DUP-ITEM for items whose id it does not hold),
	// with dotted paths into the body.
	Wire []transcript.Violation
	// Unmodeled lists what the body holds that the llm form does not (an
	// item_reference, a web_search_call, an input_file part, an image
	// detail, ...). It is kept and written back when its item is
	// re-encoded unchanged in this dialect; converting to another dialect,
	// or changing the item, loses it.
	Unmodeled []transcript.Warning

	decoded     bool // made by DecodeResponses: its ids are written as they are
	order       []string
	inputString bool // input was a string
	msgKeep     *keep
	toolKeep    *keep
	paths       pathMap
}

// BodyPath translates a dotted path computed from r's llm form, as
// transcript.Layout and transcript.Check compute it, into the path of the
// same value in the body r was decoded from: "input.2" may be "input.3" in
// a body with an item_reference before it, "input.2.content.1" may be
// "input.3.content.2" when an input_file part precedes it. Paths outside
// the input come back unchanged. The translation holds for the messages as
// decoded: the paths of a changed transcript (after transcript.Repair, say)
// are paths in its own encoding, not in this body.
func (r *ResponsesRequest) BodyPath(path string) string { return r.paths.bodyPath(path) }

// DecodeResponses decodes a Responses request body (whose input may be a
// string or an array of items), or a bare input array, into llm form.
//
// A tool result's status is that of the toolwire envelope it holds (OpenAI
// has no error flag), else success; its Name is recovered from the call it
// answers, "" when there is none. A call's arguments are kept verbatim
// (invalid UTF-8 in them becomes U+FFFD, as when encoding), and its item id ("fc_…") is ToolCall.ItemID. Item types the llm form has no
// place for are kept (see Unmodeled), never dropped.
//
// Errors are [*DecodeError]s naming the exact path:
// "input.3.arguments: want a string, got an object".
func DecodeResponses(body []byte) (*ResponsesRequest, error) {
	if len(bytes.TrimLeft(body, " \t\r\n")) == 0 {
		return nil, &DecodeError{Err: errors.New("empty input: want a Responses request body or an input array")}
	}
	b, err := parseBody(body, "input") // a bare array's paths are those of a full body
	if err != nil {
		return nil, err
	}
	req := &ResponsesRequest{decoded: true}
	d := &rsDecoder{decoder: decoder{b: b, names: make(map[string]string), unmodeled: &req.Unmodeled, violations: &req.Wire,
		systemRole: &req.SystemRole, dialect: "Responses", elem: "item"}, req: req, ids: make(map[string]int)}
	t := b.t
	switch root := t.Root(); t.Kind(root) {
	case jsontree.Array:
		req.Bare = true
		if err := d.items(root); err != nil {
			return nil, err
		}
	case jsontree.Object:
		hasMessages := false
		for f := t.First(root); f != jsontree.None; f = t.Next(f) {
			k := string(b.key(f))
			req.order = append(req.order, k)
			var err error
			switch k {
			case "input":
				switch t.Kind(f) {
				case jsontree.String:
					req.inputString = true
					var parts []llm.Part
					if s := t.Str(f); s != "" {
						parts = []llm.Part{llm.Text{Text: s}}
					}
					d.wires = append(d.wires, wire{kind: wUser, parts: parts})
				case jsontree.Null:
				case jsontree.Array:
					err = d.items(f)
				default:
					err = b.want(f, "a string or an array of input items")
				}
			case "tools":
				if !b.isNull(f) {
					req.Tools, req.toolKeep, err = d.tools(f, rsTool, appendRsTool)
				}
			case "instructions":
				if !b.isNull(f) {
					req.Instructions, err = b.str(f)
				}
			case "previous_response_id":
				if !b.isNull(f) {
					req.PreviousResponseID, err = b.str(f)
				}
			case "messages":
				hasMessages = true
				fallthrough
			default:
				req.Fields = append(req.Fields, Field{Key: k, Value: b.canon(nil, f)})
			}
			if err != nil {
				return nil, err
			}
		}
		if hasMessages && len(d.wires) == 0 && !req.inputString {
			return nil, &DecodeError{Path: "messages", Err: errors.New("a Responses request has no messages field; this looks like a Chat Completions request (use DecodeChat)")}
		}
	default:
		return nil, &DecodeError{Err: fmt.Errorf("want a Responses request body (an object) or an input array, got %s", t.Kind(root).Phrase())}
	}
	req.msgKeep = d.finish("input", &req.Messages, &req.paths, d.canon)
	return req, nil
}

type rsDecoder struct {
	decoder
	req *ResponsesRequest
	ids map[string]int // item id → index, for OAI-RS-DUP-ITEM
}

// rsPart is a content part before the item's type is known.
type rsPart struct {
	typ      string
	text     string
	hasText  bool
	textKind jsontree.Kind
	imageURL string
	hasURL   bool
	detail   string
	fileID   string
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
	str                               string
	parts                             []rsPart
	output                            contentKind
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

func (d *rsDecoder) item(i int, n jsontree.Node) error {
	b, t := d.b, d.b.t
	if t.Kind(n) != jsontree.Object {
		return b.want(n, "an object")
	}
	start := t.Offset(n)
	var it rsItem
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
			it.content, it.str, it.parts, err = d.content(f)
			it.shape(err)
		case "output":
			var err error
			it.output, it.outStr, it.outParts, err = d.content(f)
			it.shape(err)
		case "summary":
			var err error
			_, _, it.summary, err = d.content(f)
			it.shape(err)
		case "status", "phase":
			if !b.isNull(f) {
				it.quiet = true
			}
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
	w := wire{node: n, keepRaw: it.quiet}
	modeledID := false
	switch it.typ {
	case "message":
		if it.deferred != nil {
			return it.deferred
		}
		if err := d.message(&w, &it, path, start); err != nil {
			return err
		}
	case "function_call", "custom_tool_call":
		if it.deferred != nil {
			return it.deferred
		}
		if err := d.call(&w, &it, path, start); err != nil {
			return err
		}
		modeledID = true
	case "function_call_output", "custom_tool_call_output":
		if it.deferred != nil {
			return it.deferred
		}
		if err := d.output(&w, &it, path, start); err != nil {
			return err
		}
	case "reasoning":
		raw := b.canon(nil, n)
		var texts []string
		for _, p := range it.summary {
			if p.hasText {
				texts = append(texts, p.text)
			}
		}
		w.kind = wAssistant
		w.joins = true
		w.parts = []llm.Part{llm.Reasoning{Provider: ResponsesProvider, Text: strings.Join(texts, "\n\n"), Data: raw}}
		w.keepRaw = false
		modeledID = true
	default:
		w.kind = wOpaque
		d.note(path, fmt.Sprintf("an item of type %q is not part of the llm form", it.typ))
	}
	if w.kind != wOpaque && it.typ != "reasoning" {
		if it.hasID && !modeledID {
			w.keepID = true // a message or output item id: kept, not worth a note
		}
		for _, k := range it.extra {
			w.keepRaw = true
			d.note(path+"."+k, fmt.Sprintf("the %q field of %s item is not part of the llm form", k, an(it.typ)))
		}
	}
	if it.hasID {
		if prev, dup := d.ids[it.id]; dup && !modeledID {
			w.violated = w.kind == wOpaque
			w.keepID = false
			w.patch = append(w.patch, keyPatch{"id", nil})
			d.req.Wire = append(d.req.Wire, transcript.Violation{Rule: "OAI-RS-DUP-ITEM", Path: path + ".id",
				Message:       fmt.Sprintf("the item id %q appears twice, in input.%d and input.%d; send each item once", it.id, prev, i),
				ProviderError: fmt.Sprintf("Duplicate item found with id %s. Remove duplicate items from your input and try again.", it.id)})
		} else if !dup {
			d.ids[it.id] = i
		}
	}
	d.wires = append(d.wires, w)
	return nil
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
	var p rsPart
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
		case "detail":
			if isStr {
				if p.detail = t.Str(f); p.detail != "auto" {
					p.extra = append(p.extra, "detail")
				}
				continue
			}
		case "file_id":
			if isStr {
				p.fileID = t.Str(f)
				p.extra = append(p.extra, "file_id")
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

// mapPart maps one content part of a message item or a tool output; ok is
// false for a part the llm form does not hold (it is kept with its item).
func (d *rsDecoder) mapPart(w *wire, p rsPart, path string, role string) (llm.Part, bool) {
	if p.quiet {
		w.keepRaw = true
	}
	canonText := "input_text"
	if role == "assistant" {
		canonText = "output_text"
	}
	switch {
	case p.typ == "input_text" || p.typ == "output_text":
		if p.typ != canonText {
			w.keepRaw = true
		}
		d.partExtras(w, p, path)
		return llm.Text{Text: p.text}, true
	case p.typ == "input_image" && role != "assistant" && role != "system" && p.hasURL && p.imageURL != "":
		d.partExtras(w, p, path)
		if mt, data, ok := parseDataURL(p.imageURL); ok {
			return llm.Image{MediaType: mt, Data: data}, true
		}
		return llm.Image{URL: p.imageURL}, true
	}
	w.keepRaw = true
	where := an(role) + " message"
	if role == "tool" {
		where = "a tool output"
	}
	d.note(path, fmt.Sprintf("a part of type %q in %s is not part of the llm form", p.typ, where))
	return nil, false
}

func (d *rsDecoder) partExtras(w *wire, p rsPart, path string) {
	for _, k := range p.extra {
		w.keepRaw = true
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

func (d *rsDecoder) message(w *wire, it *rsItem, path string, start int) error {
	switch it.role {
	case "system", "developer":
		d.system(w, it.role, path)
	case "user":
		w.kind = wUser
	case "assistant":
		w.kind = wAssistant
		w.joins = true
		w.msgItem = true
	case "":
		return &DecodeError{Path: path + ".role", Offset: start, Err: errors.New("missing: a message needs a role (user, assistant, system or developer)")}
	default:
		return &DecodeError{Path: path + ".role", Offset: start, Err: fmt.Errorf("unknown role %q (want user, assistant, system or developer)", it.role)}
	}
	role := it.role
	if w.kind == wSystem {
		role = "system"
	}
	switch it.content {
	case contentAbsent, contentNull:
		return &DecodeError{Path: path + ".content", Offset: start, Err: errors.New("missing: a message needs content (a string or an array of parts)")}
	case contentString:
		if it.str != "" {
			w.parts = []llm.Part{llm.Text{Text: it.str}}
		}
	case contentArray:
		w.parts = mapParts(w, it.parts, path+".content", func(p rsPart, path string) (llm.Part, bool) {
			return d.mapPart(w, p, path, role)
		})
	}
	if w.kind == wAssistant && len(w.parts) == 0 {
		// An assistant message with no text (a refusal, say) has no llm
		// form; keeping it whole keeps it in place.
		w.kind = wOpaque
		if it.content != contentArray || len(it.parts) == 0 {
			d.note(path, "an assistant message without text is not part of the llm form")
		}
	}
	return nil
}

func (d *rsDecoder) call(w *wire, it *rsItem, path string, start int) error {
	argsKey := "arguments"
	if it.typ == "custom_tool_call" {
		argsKey = "input"
	}
	switch {
	case !it.hasCallID:
		return &DecodeError{Path: path + ".call_id", Offset: start, Err: fmt.Errorf("missing: a %s item needs a call_id", it.typ)}
	case !it.hasName:
		return &DecodeError{Path: path + ".name", Offset: start, Err: fmt.Errorf("missing: a %s item needs a name", it.typ)}
	case !it.hasArgs || it.argsKey != argsKey:
		hint := ""
		if argsKey == "arguments" {
			hint = " (a JSON string; send \"{}\" for a call without arguments)"
		}
		return &DecodeError{Path: path + "." + argsKey, Offset: start, Err: fmt.Errorf("missing%s", hint)}
	}
	input := callInput(it.args)
	if it.typ == "custom_tool_call" {
		w.keepRaw = true
		d.note(path, "a custom tool call is read as a call whose input is its text as a JSON string")
		input, _ = llm.AppendJSONString(nil, it.args)
	}
	w.kind = wAssistant
	w.joins = true
	w.parts = []llm.Part{llm.ToolCall{ID: it.callID, Name: it.name, Input: input, ItemID: it.id}}
	d.names[it.callID] = it.name
	return nil
}

func (d *rsDecoder) output(w *wire, it *rsItem, path string, start int) error {
	if !it.hasCallID {
		return &DecodeError{Path: path + ".call_id", Offset: start, Err: fmt.Errorf("missing: a %s item needs the call_id of the call it answers", it.typ)}
	}
	res := llm.ToolResult{CallID: it.callID}
	switch it.output {
	case contentAbsent, contentNull:
		return &DecodeError{Path: path + ".output", Offset: start, Err: errors.New("missing: want a string or an array of input_text/input_image parts")}
	case contentString:
		if it.outStr != "" {
			res.Content = []llm.Part{llm.Text{Text: it.outStr}}
		}
	case contentArray:
		res.Content = mapParts(w, it.outParts, path+".output", func(p rsPart, path string) (llm.Part, bool) {
			return d.mapPart(w, p, path, "tool")
		})
		w.output = true
	}
	if it.hasName {
		w.keepRaw = true
	}
	if it.typ == "custom_tool_call_output" {
		w.keepRaw = true
		d.note(path, "a custom tool call output is read as a function call output")
	}
	res.Name = d.names[res.CallID]
	res.Status = resultStatus(res.Content)
	w.kind = wTool
	w.result = res
	return nil
}

// rsTool reads one tool definition; a function tool is flat.
func rsTool(b *body, n jsontree.Node) (spec llm.ToolSpec, isFunc bool, extra []string, err error) {
	t := b.t
	if t.Kind(n) != jsontree.Object {
		return spec, false, nil, b.want(n, "an object")
	}
	typ := ""
	hasName := false
	strictSet := false
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
			switch string(key) {
			case "name":
				hasName = err == nil
			case "strict":
				strictSet = err == nil && !b.isNull(f)
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
	if !strictSet {
		spec.Strict = true // the Responses default
	}
	return spec, true, extra, nil
}

// canon appends the canonical form of a decoded item: what
// EncodeResponses writes for its llm form.
func (d *rsDecoder) canon(dst []byte, w *wire) []byte {
	switch w.kind {
	case wSystem:
		return appendRsMessage(dst, d.req.SystemRole.wire(), w.parts)
	case wUser:
		return appendRsMessage(dst, "user", w.parts)
	case wAssistant:
		switch p := w.parts[0].(type) {
		case llm.ToolCall:
			return appendRsCall(dst, p)
		case llm.Reasoning:
			return append(dst, p.Data...)
		}
		return appendRsMessage(dst, "assistant", w.parts)
	}
	return appendRsOutput(dst, w.result)
}

// EncodeResponses writes r as a Responses request body (or a bare input
// array when r.Bare is set): compact, deterministic, without HTML escaping.
// The body's other fields come back in their original order.
//
// Messages from another dialect are converted as docs/dialect-mapping.md
// says. What Responses cannot express comes back as warnings, never a
// silent drop: reasoning from another provider, an image in an assistant or
// system message, an error status not spelled out by the content. Warning
// paths are paths in the encoded body. A message that breaks the llm
// placement rules is an error.
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
func EncodeResponses(r *ResponsesRequest) ([]byte, []transcript.Warning, error) {
	if r == nil {
		return nil, nil, errors.New("openai: EncodeResponses: nil request")
	}
	e := &rsEncoder{encoder: encoder{array: "input"}, req: r}
	if !r.decoded {
		e.planIDs(r.Messages, rsIDRules())
	}
	hint := sizeHint(r.Messages, 64)
	if r.Bare {
		if len(r.Tools) > 0 || r.toolKeep != nil {
			e.Warn("tools", "a bare input array has no place for tools; they are left out")
		}
		if len(r.Fields) > 0 || r.Instructions != "" || r.PreviousResponseID != "" {
			e.Warn("", "a bare input array has no place for the other fields (model, instructions, ...); they are left out")
		}
		dst, err := e.items(make([]byte, 0, hint))
		if err != nil {
			return nil, nil, err
		}
		return dst, e.Warnings, nil
	}
	modeled := []string{"instructions", "input", "tools", "previous_response_id"}
	dst, err := appendTopLevel(make([]byte, 0, hint), r.order, r.Fields, modeled,
		func(dst []byte, key string, first *bool) ([]byte, error) {
			switch key {
			case "instructions", "previous_response_id":
				v := r.Instructions
				if key == "previous_response_id" {
					v = r.PreviousResponseID
				}
				if v == "" {
					return dst, nil
				}
				dst = appendKey(dst, first, key)
				dst, _ = llm.AppendJSONString(dst, v)
				return dst, nil
			case "input":
				if len(r.Messages) == 0 && r.msgKeep == nil && !hasKey(r.order, "input") {
					return dst, nil
				}
				dst = appendKey(dst, first, "input")
				if s, ok := r.inputText(); ok {
					dst, _ = llm.AppendJSONString(dst, s)
					return dst, nil
				}
				return e.items(dst)
			case "tools":
				if len(r.Tools) == 0 && r.toolKeep == nil {
					return dst, nil
				}
				dst = appendKey(dst, first, "tools")
				return appendTools(dst, r.Tools, r.toolKeep, appendRsTool)
			}
			return dst, nil
		})
	if err != nil {
		return nil, nil, err
	}
	return dst, e.Warnings, nil
}

func hasKey(order []string, k string) bool {
	for _, o := range order {
		if o == k {
			return true
		}
	}
	return false
}

// inputText returns the input as a string when the body gave it as one and
// it is still a single plain user message.
func (r *ResponsesRequest) inputText() (string, bool) {
	if !r.inputString || r.msgKeep != nil || len(r.Messages) != 1 || r.Messages[0].Role != llm.RoleUser {
		return "", false
	}
	switch p := r.Messages[0].Parts; len(p) {
	case 0:
		return "", true
	case 1:
		t, ok := p[0].(llm.Text)
		return t.Text, ok && t.Text != ""
	}
	return "", false
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
	req *ResponsesRequest
}

func (e *rsEncoder) items(dst []byte) ([]byte, error) {
	w := newArrayWriter(append(dst, '['), e.req.msgKeep)
	for i, m := range e.req.Messages {
		if err := e.message(w, i, m); err != nil {
			return nil, err
		}
	}
	dst = w.finish(false)
	return append(dst, ']'), nil
}

func (e *rsEncoder) message(w *arrayWriter, i int, m llm.Message) error {
	switch m.Role {
	case llm.RoleSystem, llm.RoleUser:
		parts, err := e.userParts(i, m)
		if err != nil {
			return err
		}
		role := "user"
		if m.Role == llm.RoleSystem {
			role = e.req.SystemRole.wire()
		}
		e.emit(w, func(dst []byte) []byte { return appendRsMessage(dst, role, parts) })
	case llm.RoleAssistant:
		var run []llm.Part
		flush := func() {
			if len(run) > 0 {
				r := run
				e.emit(w, func(dst []byte) []byte { return appendRsMessage(dst, "assistant", r) })
				run = nil
			}
		}
		wrote := false
		for j, part := range m.Parts {
			switch p := part.(type) {
			case llm.Text:
				run = append(run, part)
				wrote = true
			case llm.ToolCall:
				flush()
				p.ID = e.callID(i, j, p, e.outPath()+".call_id")
				e.emit(w, func(dst []byte) []byte { return appendRsCall(dst, p) })
				wrote = true
			case llm.Reasoning:
				if p.Provider != ResponsesProvider {
					e.Warn(e.outPath(), fmt.Sprintf("%s reasoning cannot be replayed to OpenAI Responses; it is dropped", providerName(p.Provider)))
					continue
				}
				data, err := compactJSON(p.Data)
				if err != nil || len(data) == 0 || data[0] != '{' {
					e.Warn(e.outPath(), "an openai-responses reasoning part without its reasoning item (Data) cannot be replayed; it is dropped")
					continue
				}
				flush()
				e.emit(w, func(dst []byte) []byte { return append(dst, data...) })
				wrote = true
			case llm.Image:
				e.Warn(e.outPath(), "an assistant message cannot hold an image in Responses; it is left out")
			default:
				return placement(i, j, m.Role, p)
			}
		}
		flush()
		if !wrote {
			e.emit(w, func(dst []byte) []byte { return appendRsMessage(dst, "assistant", nil) })
		}
	case llm.RoleTool:
		trailing, err := e.toolParts(i, m, func(j int, r llm.ToolResult) {
			r = e.resultID(i, j, r, e.outPath()+".call_id")
			if wr := statusWarning(e.outPath(), r); wr != nil {
				e.Warnings = append(e.Warnings, *wr)
			}
			e.emit(w, func(dst []byte) []byte { return appendRsOutput(dst, r) })
		})
		if err != nil {
			return err
		}
		if len(trailing) > 0 {
			e.emit(w, func(dst []byte) []byte { return appendRsMessage(dst, "user", trailing) })
		}
	default:
		return fmt.Errorf("openai: messages[%d]: unknown role %q", i, m.Role)
	}
	return nil
}

// appendRsMessage writes a message item. Content is a string for a single
// text part (or none), else an array of parts.
func appendRsMessage(dst []byte, role string, parts []llm.Part) []byte {
	dst = append(dst, `{"type":"message","role":`...)
	dst, _ = llm.AppendJSONString(dst, role)
	dst = append(dst, `,"content":`...)
	textType := `{"type":"input_text","text":`
	if role == "assistant" {
		textType = `{"type":"output_text","text":`
	}
	dst = appendRsContent(dst, parts, textType)
	return append(dst, '}')
}

func appendRsContent(dst []byte, parts []llm.Part, textType string) []byte {
	switch len(parts) {
	case 0:
		return append(dst, `""`...)
	case 1:
		// One text part is a string; an empty one stays an array, so that
		// it does not read back as no content.
		if t, ok := parts[0].(llm.Text); ok && t.Text != "" {
			dst, _ = llm.AppendJSONString(dst, t.Text)
			return dst
		}
	}
	dst = append(dst, '[')
	for j, p := range parts {
		if j > 0 {
			dst = append(dst, ',')
		}
		switch p := p.(type) {
		case llm.Text:
			dst = append(dst, textType...)
			dst, _ = llm.AppendJSONString(dst, p.Text)
			dst = append(dst, '}')
		case llm.Image:
			dst = append(dst, `{"type":"input_image","image_url":`...)
			dst = appendImageURL(dst, p)
			dst = append(dst, `,"detail":"auto"}`...)
		}
	}
	return append(dst, ']')
}

func appendRsCall(dst []byte, c llm.ToolCall) []byte {
	dst = append(dst, `{"type":"function_call"`...)
	if c.ItemID != "" {
		dst = append(dst, `,"id":`...)
		dst, _ = llm.AppendJSONString(dst, c.ItemID)
	}
	dst = append(dst, `,"call_id":`...)
	dst, _ = llm.AppendJSONString(dst, c.ID)
	dst = append(dst, `,"name":`...)
	dst, _ = llm.AppendJSONString(dst, c.Name)
	dst = append(dst, `,"arguments":`...)
	dst = appendArguments(dst, c.Input)
	return append(dst, '}')
}

func appendRsOutput(dst []byte, r llm.ToolResult) []byte {
	dst = append(dst, `{"type":"function_call_output","call_id":`...)
	dst, _ = llm.AppendJSONString(dst, r.CallID)
	dst = append(dst, `,"output":`...)
	dst = appendRsContent(dst, r.Content, `{"type":"input_text","text":`)
	return append(dst, '}')
}

// appendRsTool writes a flat function tool; strict is always explicit,
// since Responses defaults it to true.
func appendRsTool(dst []byte, t llm.ToolSpec) []byte {
	dst = append(dst, `{"type":"function","name":`...)
	dst, _ = llm.AppendJSONString(dst, t.Name)
	if t.Description != "" {
		dst = append(dst, `,"description":`...)
		dst, _ = llm.AppendJSONString(dst, t.Description)
	}
	if t.Parameters != nil {
		dst = append(dst, `,"parameters":`...)
		dst = appendParameters(dst, t.Parameters)
	}
	dst = append(dst, `,"strict":`...)
	dst = strconv.AppendBool(dst, t.Strict)
	return append(dst, '}')
}
