package llm

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// ConversationVersion is the version of the persistence format written by
// [Conversation.MarshalJSON] and the only one [Conversation.UnmarshalJSON]
// reads.
const ConversationVersion = 1

// A Conversation is a list of messages with a versioned, lossless JSON
// encoding:
//
//	{"version":1,"messages":[{"role":"user","parts":[{"type":"text","text":"Hi"}]}]}
//
// Parts are objects with a "type" of "text", "image", "tool_call",
// "tool_result" or "reasoning"; docs/tool-message-protocol.md lists their
// fields. A tool call's input is written verbatim under "input" when it is
// valid JSON, and as a string under "input_raw" otherwise, so nothing the
// model sent is lost. The one loss is invalid UTF-8 in text, which JSON
// cannot carry: it is replaced by U+FFFD.
//
// Decoding is strict: an unknown field, an unknown role, status or part type,
// a tool call without an id or name, a tool result without a call id or name,
// or a part in a message whose role may not hold it is a [*DecodeError] that
// names the exact path, such as messages[3].parts[1].call_id.
type Conversation struct {
	Messages []Message
}

// MarshalJSON encodes c in the persistence format. Encoding never fails on a
// well-formed conversation; a nil or foreign [Part] is an error.
func (c Conversation) MarshalJSON() ([]byte, error) {
	return c.AppendJSON(make([]byte, 0, c.sizeHint()))
}

// sizeHint estimates the encoded size, so that encoding allocates once.
func (c Conversation) sizeHint() int {
	n := 32
	var part func(p Part) int
	part = func(p Part) int {
		switch p := p.(type) {
		case Text:
			return 32 + len(p.Text) + len(p.Text)/16
		case Image:
			return 64 + len(p.MediaType) + len(p.URL) + base64.StdEncoding.EncodedLen(len(p.Data))
		case ToolCall:
			return 64 + len(p.ID) + len(p.Name) + len(p.ItemID) + len(p.Input) + len(p.Input)/8
		case ToolResult:
			n := 80 + len(p.CallID) + len(p.Name)
			for _, q := range p.Content {
				n += part(q)
			}
			return n
		case Reasoning:
			return 80 + len(p.Provider) + len(p.Text) + len(p.Signature) + len(p.Data)
		case Opaque:
			return 80 + len(p.Provider) + len(p.Kind) + len(p.CallID) + len(p.Data)
		}
		return 0
	}
	for _, m := range c.Messages {
		n += 32
		for _, p := range m.Parts {
			n += part(p)
		}
	}
	return n
}

// AppendJSON appends the encoding of c to dst, like [Conversation.MarshalJSON].
func (c Conversation) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"version":`...)
	dst = strconv.AppendInt(dst, ConversationVersion, 10)
	dst = append(dst, `,"messages":[`...)
	for i, m := range c.Messages {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"role":`...)
		dst = appendString(dst, string(m.Role))
		dst = append(dst, `,"parts":[`...)
		var err error
		for j, p := range m.Parts {
			if j > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendPart(dst, p); err != nil {
				return nil, fmt.Errorf("llm: encode conversation: messages[%d].parts[%d]: %w", i, j, err)
			}
		}
		dst = append(dst, "]}"...)
	}
	return append(dst, "]}"...), nil
}

func appendPart(dst []byte, p Part) ([]byte, error) {
	switch p := p.(type) {
	case Text:
		dst = append(dst, `{"type":"text","text":`...)
		dst = appendString(dst, p.Text)
	case Image:
		dst = append(dst, `{"type":"image"`...)
		if p.MediaType != "" {
			dst = append(dst, `,"media_type":`...)
			dst = appendString(dst, p.MediaType)
		}
		if p.Data != nil {
			dst = append(dst, `,"data":"`...)
			dst = base64.StdEncoding.AppendEncode(dst, p.Data)
			dst = append(dst, '"')
		}
		if p.URL != "" {
			dst = append(dst, `,"url":`...)
			dst = appendString(dst, p.URL)
		}
	case ToolCall:
		dst = append(dst, `{"type":"tool_call","id":`...)
		dst = appendString(dst, p.ID)
		dst = append(dst, `,"name":`...)
		dst = appendString(dst, p.Name)
		switch {
		case p.Input == nil:
		case isVerbatimJSON(p.Input):
			dst = append(dst, `,"input":`...)
			dst = append(dst, p.Input...)
		default:
			dst = append(dst, `,"input_raw":`...)
			dst = appendString(dst, p.Input)
		}
		if p.ItemID != "" {
			dst = append(dst, `,"item_id":`...)
			dst = appendString(dst, p.ItemID)
		}
	case ToolResult:
		dst = append(dst, `{"type":"tool_result","call_id":`...)
		dst = appendString(dst, p.CallID)
		dst = append(dst, `,"name":`...)
		dst = appendString(dst, p.Name)
		dst = append(dst, `,"status":`...)
		dst = appendString(dst, string(p.Status))
		dst = append(dst, `,"content":[`...)
		for k, q := range p.Content {
			if k > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendPart(dst, q); err != nil {
				return nil, fmt.Errorf("content[%d]: %w", k, err)
			}
		}
		dst = append(dst, ']')
	case Reasoning:
		dst = append(dst, `{"type":"reasoning","provider":`...)
		dst = appendString(dst, p.Provider)
		if p.Text != "" {
			dst = append(dst, `,"text":`...)
			dst = appendString(dst, p.Text)
		}
		if p.Signature != "" {
			dst = append(dst, `,"signature":`...)
			dst = appendString(dst, p.Signature)
		}
		if p.Data != nil {
			if !isVerbatimJSON(p.Data) {
				return nil, errors.New("reasoning data is not valid JSON")
			}
			dst = append(dst, `,"data":`...)
			dst = append(dst, p.Data...)
		}
	case Opaque:
		if !isVerbatimJSON(p.Data) {
			return nil, errors.New("opaque data is not valid JSON")
		}
		dst = append(dst, `{"type":"opaque","provider":`...)
		dst = appendString(dst, p.Provider)
		if p.Kind != "" {
			dst = append(dst, `,"kind":`...)
			dst = appendString(dst, p.Kind)
		}
		if p.CallID != "" {
			dst = append(dst, `,"call_id":`...)
			dst = appendString(dst, p.CallID)
		}
		dst = append(dst, `,"data":`...)
		dst = append(dst, p.Data...)
	default:
		return nil, fmt.Errorf("cannot encode a part of type %s", partKind(p))
	}
	return append(dst, '}'), nil
}

// A DecodeError reports where and why a JSON document could not be decoded:
// a persisted conversation, or (from the provider codecs) a request body.
// Every toolwire decoder returns this one type; each writes the path in its
// own [PathStyle].
type DecodeError struct {
	// Op names what was being decoded; it starts the message:
	// "llm: decode conversation", "anthropic", "openai", "gemini".
	Op string
	// Path locates the offending value, such as messages[3].parts[1].call_id;
	// the zero Path for the document as a whole.
	Path Path
	// Style is how the message writes Path.
	Style PathStyle
	// Offset is the byte offset of a syntax error, or -1.
	Offset int64
	// Err says what is wrong.
	Err error
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	if e.Path.Len() > 0 {
		b.WriteString(e.Path.Short(e.Style))
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	if e.Offset >= 0 {
		fmt.Fprintf(&b, " (at byte %d)", e.Offset)
	}
	return b.String()
}

// convOp is the Op of the persistence decoder's errors.
const convOp = "llm: decode conversation"

func (e *DecodeError) Unwrap() error { return e.Err }

// UnmarshalJSON decodes a conversation in the persistence format, strictly;
// see [Conversation]. Errors are [*DecodeError]s. It never panics, whatever
// the input.
func (c *Conversation) UnmarshalJSON(b []byte) error {
	d := convDecoder{src: b, dec: newStrictDecoder(b)}
	msgs, err := d.conversation()
	if err != nil {
		de := asDecodeError(err)
		de.Op, de.Style = convOp, Indexed
		return de
	}
	c.Messages = msgs
	return nil
}

// newStrictDecoder returns a decoder of b with the options of the module's
// one strict JSON layer (internal/jsonx.Strict, which llm cannot import:
// jsonx imports llm): duplicate member names and invalid UTF-8 are errors.
// Reading from a bytes.Buffer, jsontext does not copy b.
func newStrictDecoder(b []byte) *jsontext.Decoder {
	return jsontext.NewDecoder(bytes.NewBuffer(b), jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false))
}

// convDecoder reads the persistence format value by value. It keeps no
// path: each level prefixes the error of the level below with its key or
// index ([atKey], [atIndex]), so that a path is built only for the error
// returned.
type convDecoder struct {
	src []byte
	dec *jsontext.Decoder
}

// syntax returns err, the decoder's error where the input stops being
// JSON, with its line, column and byte offset.
func (d *convDecoder) syntax(err error) *DecodeError {
	off, what := d.dec.InputOffset(), err
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		off, what = se.ByteOffset, se.Err
	}
	switch {
	case errors.Is(what, io.ErrUnexpectedEOF) || errors.Is(what, io.EOF):
		off, what = int64(len(d.src)), errors.New("the input ends before the document does")
	case errors.Is(what, jsontext.ErrDuplicateName):
		what = fmt.Errorf("duplicate member name %q", se.JSONPointer.LastToken())
	}
	return d.syntaxAt(off, what)
}

// syntaxAt reports that the input is not JSON at off, because of what.
func (d *convDecoder) syntaxAt(off int64, what error) *DecodeError {
	off = min(off, int64(len(d.src)))
	before := d.src[:off]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := len(before) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	msg := fmt.Sprintf("invalid JSON at line %d, column %d", line, col)
	if what != nil {
		msg += ": " + what.Error()
	}
	return &DecodeError{Offset: off, Err: errors.New(msg)}
}

// expect reports an error unless the next value is of kind k, which want
// names ("an object").
func (d *convDecoder) expect(k jsontext.Kind, want string) error {
	got := d.dec.PeekKind()
	if got == k {
		return nil
	}
	if got == 0 { // the end of the input, or not JSON
		if _, err := d.dec.ReadToken(); err != io.EOF {
			return d.syntax(err)
		}
	}
	return &DecodeError{Offset: d.valueOffset(), Err: fmt.Errorf("want %s, found %s", want, kindPhrase(got))}
}

// valueOffset returns the byte offset of the next value.
func (d *convDecoder) valueOffset() int64 {
	off := d.dec.InputOffset()
	for _, c := range d.dec.UnreadBuffer() {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != ':' && c != ',' {
			break
		}
		off++
	}
	return off
}

// kindPhrase names a JSON kind in an error message.
func kindPhrase(k jsontext.Kind) string {
	switch k {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '0':
		return "a number"
	}
	return "end of input"
}

// object reads an object, calling member with the name of each of its
// members; member reads the value. The name is valid until the next read.
// A name given twice is a "duplicate field".
func (d *convDecoder) object(member func(name []byte) error) error {
	if err := d.expect('{', "an object"); err != nil {
		return err
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return d.syntax(err)
	}
	for d.dec.PeekKind() == '"' {
		v, err := d.dec.ReadValue()
		if err != nil {
			var se *jsontext.SyntacticError
			if errors.As(err, &se) && errors.Is(se.Err, jsontext.ErrDuplicateName) {
				return fieldError(se.JSONPointer.LastToken(), "duplicate field")
			}
			return d.syntax(err)
		}
		if err := member(unquote(v)); err != nil {
			return err
		}
	}
	if _, err := d.dec.ReadToken(); err != nil { // the closing brace, or not JSON
		return d.syntax(err)
	}
	return nil
}

// array reads an array, calling elem for each element; elem reads it. The
// path of elem's error starts with the element's index.
func (d *convDecoder) array(elem func() error) error {
	if err := d.expect('[', "an array"); err != nil {
		return err
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return d.syntax(err)
	}
	for i := 0; ; i++ {
		switch d.dec.PeekKind() {
		case ']', 0: // the end, or not JSON
			if _, err := d.dec.ReadToken(); err != nil {
				return d.syntax(err)
			}
			return nil
		}
		if err := elem(); err != nil {
			return atIndex(i, err)
		}
	}
}

// unquote returns the text of v, a valid JSON string: a slice of v when it
// has no escapes, else a new slice.
func unquote(v jsontext.Value) []byte {
	if bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1]
	}
	b, _ := jsontext.AppendUnquote(nil, v)
	return b
}

// strBytes reads a string; the bytes are valid until the next read.
func (d *convDecoder) strBytes() ([]byte, error) {
	if err := d.expect('"', "a string"); err != nil {
		return nil, err
	}
	v, err := d.dec.ReadValue()
	if err != nil {
		return nil, d.syntax(err)
	}
	return unquote(v), nil
}

// str reads a string.
func (d *convDecoder) str() (string, error) {
	b, err := d.strBytes()
	return string(b), err
}

// integer reads a JSON integer.
func (d *convDecoder) integer() (int, error) {
	if err := d.expect('0', "an integer"); err != nil {
		return 0, err
	}
	off := d.valueOffset()
	v, err := d.dec.ReadValue()
	if err != nil {
		return 0, d.syntax(err)
	}
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return 0, &DecodeError{Offset: off, Err: errors.New("want an integer, found a number")}
	}
	return n, nil
}

// raw reads any value and returns a copy of its bytes, as they are.
func (d *convDecoder) raw() ([]byte, error) {
	v, err := d.dec.ReadValue()
	if err != nil {
		return nil, d.syntax(err)
	}
	return bytes.Clone(v), nil
}

func (d *convDecoder) conversation() ([]Message, error) {
	var msgs []Message
	var hasVersion, hasMessages bool
	err := d.object(func(name []byte) error {
		switch string(name) {
		case "version":
			hasVersion = true
			version, err := d.integer()
			if err == nil && version != ConversationVersion {
				err = fmt.Errorf("unsupported version %d (this build reads version %d)", version, ConversationVersion)
			}
			return atKey("version", err)
		case "messages":
			hasMessages = true
			var err error
			msgs, err = d.messages()
			return atKey("messages", err)
		}
		return fieldError(string(name), "unknown field %q", name)
	})
	if err != nil {
		return nil, err
	}
	if off := d.valueOffset(); off < int64(len(d.src)) {
		return nil, d.syntaxAt(off, errors.New("unexpected data after the conversation object"))
	}
	if !hasVersion {
		return nil, fieldError("version", "missing (this format needs \"version\":%d)", ConversationVersion)
	}
	if !hasMessages {
		return nil, fieldError("messages", "missing (use [] for an empty conversation)")
	}
	if msgs == nil {
		msgs = []Message{}
	}
	return msgs, nil
}

func (d *convDecoder) messages() ([]Message, error) {
	var msgs []Message
	err := d.array(func() error {
		m, err := d.message()
		msgs = append(msgs, m)
		return err
	})
	if err != nil {
		return nil, err
	}
	return msgs, nil
}

func (d *convDecoder) message() (Message, error) {
	var m Message
	var hasRole, hasParts bool
	err := d.object(func(name []byte) error {
		switch string(name) {
		case "role":
			hasRole = true
			s, err := d.strBytes()
			if err == nil {
				if m.Role = internRole(s); m.Role == "" {
					err = fmt.Errorf("unknown role %q (want system, user, assistant or tool)", s)
				}
			}
			return atKey("role", err)
		case "parts":
			hasParts = true
			var err error
			m.Parts, err = d.parts(false)
			return atKey("parts", err)
		}
		return fieldError(string(name), "unknown field %q", name)
	})
	if err != nil {
		return m, err
	}
	if !hasRole {
		return m, fieldError("role", "missing (system, user, assistant or tool)")
	}
	if !hasParts {
		return m, fieldError("parts", "missing (use [] for a message without parts)")
	}
	results := 0
	for j, p := range m.Parts {
		if err := checkPlacement(m.Role, p); err != nil {
			return m, atKey("parts", atIndex(j, err))
		}
		if _, ok := p.(ToolResult); ok {
			results++
		}
	}
	if m.Role == RoleTool && results == 0 {
		return m, fieldError("parts", "a tool message needs at least one tool_result part")
	}
	return m, nil
}

// internRole returns the Role named by s without allocating, or "".
func internRole(s []byte) Role {
	for _, r := range [...]Role{RoleSystem, RoleUser, RoleAssistant, RoleTool} {
		if string(s) == string(r) {
			return r
		}
	}
	return ""
}

// internString returns s as one of the known strings without allocating
// when it is one of them.
func internString(s []byte, known ...string) string {
	for _, k := range known {
		if string(s) == k {
			return k
		}
	}
	return string(s)
}

func (d *convDecoder) parts(inResult bool) ([]Part, error) {
	parts := []Part{}
	err := d.array(func() error {
		p, err := d.part(inResult)
		parts = append(parts, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return parts, nil
}

// Part fields, as bits of a presence mask.
const (
	fType = 1 << iota
	fText
	fMediaType
	fData
	fURL
	fID
	fName
	fInput
	fInputRaw
	fItemID
	fCallID
	fStatus
	fContent
	fProvider
	fSignature
	fKind
)

var partFieldBits = map[string]int{
	"type": fType, "text": fText, "media_type": fMediaType, "data": fData, "url": fURL,
	"id": fID, "name": fName, "input": fInput, "input_raw": fInputRaw, "item_id": fItemID,
	"call_id": fCallID, "status": fStatus, "content": fContent, "provider": fProvider,
	"signature": fSignature, "kind": fKind,
}

// partFieldName returns the name of a part field's bit.
func partFieldName(bit int) string {
	for name, b := range partFieldBits {
		if b == bit {
			return name
		}
	}
	return ""
}

// ownFields says which fields each part type has.
var ownFields = map[string]int{
	"text":        fType | fText,
	"image":       fType | fMediaType | fData | fURL,
	"tool_call":   fType | fID | fName | fInput | fInputRaw | fItemID,
	"tool_result": fType | fCallID | fName | fStatus | fContent,
	"reasoning":   fType | fProvider | fText | fSignature | fData,
	"opaque":      fType | fProvider | fKind | fCallID | fData,
}

// wirePart holds a part's fields as read, before its type is known.
type wirePart struct {
	set                                 int
	typ, text, mediaType, url, id, name string
	inputRaw, itemID, callID, status    string
	provider, signature, kind           string
	data, input                         []byte
	content                             []Part
	dataIsString                        bool
}

func (d *convDecoder) part(inResult bool) (Part, error) {
	var w wirePart
	err := d.object(func(name []byte) error {
		bit := partFieldBits[string(name)]
		if bit == 0 {
			return fieldError(string(name), "unknown field %q", name)
		}
		w.set |= bit
		if err := d.partField(&w, bit); err != nil {
			return atKey(partFieldName(bit), err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return w.part(inResult)
}

// partField reads the value of the field bit into w.
func (d *convDecoder) partField(w *wirePart, bit int) error {
	var b []byte
	var err error
	switch bit {
	case fType:
		if b, err = d.strBytes(); err == nil {
			w.typ = internString(b, "text", "tool_call", "tool_result", "image", "reasoning", "opaque")
		}
	case fText:
		w.text, err = d.str()
	case fMediaType:
		if b, err = d.strBytes(); err == nil {
			w.mediaType = internString(b, "image/png", "image/jpeg", "image/gif", "image/webp")
		}
	case fURL:
		w.url, err = d.str()
	case fID:
		w.id, err = d.str()
	case fName:
		w.name, err = d.str()
	case fInputRaw:
		w.inputRaw, err = d.str()
	case fItemID:
		w.itemID, err = d.str()
	case fCallID:
		w.callID, err = d.str()
	case fStatus:
		if b, err = d.strBytes(); err == nil {
			w.status = internString(b, string(StatusSuccess), string(StatusError), string(StatusPartial))
		}
	case fProvider:
		w.provider, err = d.str()
	case fSignature:
		w.signature, err = d.str()
	case fKind:
		w.kind, err = d.str()
	case fData:
		w.dataIsString = d.dec.PeekKind() == '"'
		w.data, err = d.raw()
	case fInput:
		w.input, err = d.raw()
	case fContent:
		w.content, err = d.parts(true)
	}
	return err
}

func (w *wirePart) part(inResult bool) (Part, error) {
	if w.set&fType == 0 {
		return nil, fieldError("type", "missing (text, image, tool_call, tool_result, reasoning or opaque)")
	}
	own, ok := ownFields[w.typ]
	if !ok {
		return nil, fieldError("type", "unknown part type %q (want text, image, tool_call, tool_result, reasoning or opaque)", w.typ)
	}
	if extra := w.set &^ own; extra != 0 {
		bit := extra & -extra // the lowest: deterministic
		name := partFieldName(bit)
		return nil, fieldError(name, "field %q does not belong to a %q part", name, w.typ)
	}
	if inResult && w.typ != "text" && w.typ != "image" && w.typ != "opaque" {
		return nil, fieldError("type", "a tool result's content holds text, image and opaque parts, not %q", w.typ)
	}
	switch w.typ {
	case "text":
		if w.set&fText == 0 {
			return nil, fieldError("text", "missing")
		}
		return Text{Text: w.text}, nil
	case "image":
		img := Image{MediaType: w.mediaType, URL: w.url}
		if w.set&fData != 0 {
			if !w.dataIsString {
				return nil, fieldError("data", "want a base64 string")
			}
			s := unquote(w.data)
			data := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
			n, err := base64.StdEncoding.Decode(data, s)
			if err != nil {
				return nil, fieldError("data", "invalid base64: %v", err)
			}
			img.Data = data[:n]
			if img.MediaType == "" {
				return nil, fieldError("media_type", "missing: inline image data needs its media type (e.g. \"image/png\")")
			}
		} else if img.URL == "" {
			return nil, fieldError("", "an image needs data or url")
		}
		return img, nil
	case "tool_call":
		if w.id == "" {
			return nil, fieldError("id", "missing: a tool call needs the id its result will answer")
		}
		if w.name == "" {
			return nil, fieldError("name", "missing: a tool call names the tool it calls")
		}
		call := ToolCall{ID: w.id, Name: w.name, ItemID: w.itemID, Input: w.input}
		if w.set&fInputRaw != 0 {
			if w.set&fInput != 0 {
				return nil, fieldError("input_raw", "set input or input_raw, not both")
			}
			call.Input = jsontext.Value(w.inputRaw)
		}
		return call, nil
	case "tool_result":
		if w.callID == "" {
			return nil, fieldError("call_id", "missing: a tool result must name the call it answers")
		}
		if w.name == "" {
			return nil, fieldError("name", "missing: a tool result names the tool that was called")
		}
		if !Status(w.status).Valid() {
			return nil, fieldError("status", "unknown status %q (want success, error or partial)", w.status)
		}
		return ToolResult{CallID: w.callID, Name: w.name, Status: Status(w.status), Content: nilIfEmpty(w.content)}, nil
	case "opaque":
		if w.provider == "" {
			return nil, fieldError("provider", "missing: opaque data is replayed only to the provider that produced it")
		}
		if w.set&fData == 0 {
			return nil, fieldError("data", "missing: an opaque part holds the provider's element as JSON")
		}
		return Opaque{Provider: w.provider, Kind: w.kind, CallID: w.callID, Data: w.data}, nil
	default: // reasoning
		if w.provider == "" {
			return nil, fieldError("provider", "missing: reasoning is replayed only to the provider that produced it")
		}
		return Reasoning{Provider: w.provider, Text: w.text, Signature: w.signature, Data: w.data}, nil
	}
}

func nilIfEmpty(p []Part) []Part {
	if len(p) == 0 {
		return nil
	}
	return p
}

func checkPlacement(role Role, p Part) error {
	switch p.(type) {
	case ToolCall, Reasoning:
		if role != RoleAssistant {
			return fmt.Errorf("a %s part belongs in an assistant message, not a %s message", partKind(p), role)
		}
	case ToolResult:
		if role != RoleTool {
			return fmt.Errorf("a tool_result part belongs in a tool message, not a %s message", role)
		}
	}
	return nil
}

func fieldError(path, format string, args ...any) *DecodeError {
	var p Path
	if path != "" {
		p = p.Key(path)
	}
	return &DecodeError{Op: convOp, Path: p, Style: Indexed, Offset: -1, Err: fmt.Errorf(format, args...)}
}

// atKey prefixes err's path with an object key.
func atKey(key string, err error) error {
	if err == nil {
		return nil
	}
	de := asDecodeError(err)
	de.Path = Path{}.Key(key).Join(de.Path)
	return de
}

// atIndex prefixes err's path with an array index.
func atIndex(i int, err error) error {
	if err == nil {
		return nil
	}
	de := asDecodeError(err)
	de.Path = Path{}.Index(i).Join(de.Path)
	return de
}

func asDecodeError(err error) *DecodeError {
	var de *DecodeError
	if errors.As(err, &de) {
		return de
	}
	return &DecodeError{Op: convOp, Style: Indexed, Offset: -1, Err: err}
}
