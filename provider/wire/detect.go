package wire

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/transcript"
)

// A Detection is what [Detect] found out about a body's dialect.
type Detection struct {
	// Dialect is the body's dialect. For an ambiguous body it is the first
	// of Candidates; judge the body in each of them instead.
	Dialect transcript.Dialect
	// Reason names what decided, as in `messages.2 has "tool_calls"` or
	// `the top-level "system" field`; for an ambiguous body it says what
	// the body is and which dialects it fits.
	Reason string
	// Candidates are the dialects the body's shape fits, in the order of
	// transcript.Dialects: one when the shape decides, more when it does
	// not (a bare array of user and assistant messages with string content
	// is valid Chat Completions, Responses input and Anthropic messages).
	Candidates []transcript.Dialect
}

// Ambiguous reports whether the body's shape fits more than one dialect.
func (d Detection) Ambiguous() bool { return len(d.Candidates) > 1 }

// An AmbiguousError is the error of an operation that needs one dialect
// ([Fix], [Convert]) on a body whose shape fits several: name the dialect.
type AmbiguousError struct {
	Detection Detection
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("the dialect is ambiguous: %s; name the dialect it is written in", e.Detection.Reason)
}

// Detect finds the dialect of a request body (or a bare message array)
// from its shape: the fields only one dialect has (Gemini's "contents",
// Responses' "input", Anthropic's "system" and "thinking"), the roles,
// keys and item types of its messages, the types of their content parts
// (Anthropic's image blocks with a "source", Chat's image_url parts,
// Responses' input_text), and its tool definitions. Shapes are weighed in
// that order, and one that contradicts what came before is passed over
// (the codec then reports it). When the shape fits more than one dialect,
// the model's name and, for a body with "messages", the absence of
// "max_tokens" (which Anthropic requires) decide when they agree; else
// the Detection is ambiguous and lists the candidates.
//
// An error says why data is not a request body of any dialect: not JSON
// (with the line, column and byte offset), not an object or array, an
// object without messages, or a bare array of something else than
// messages.
func Detect(data []byte) (Detection, error) {
	s := bytes.TrimLeft(data, " \t\r\n")
	if len(s) == 0 {
		return Detection{}, errors.New("empty input: want a provider request body (a JSON object) or a bare message array")
	}
	if s[0] != '{' && s[0] != '[' {
		if err := scalarError(data); err != nil {
			return Detection{}, fmt.Errorf("not a JSON object or array: %w", err)
		}
		return Detection{}, fmt.Errorf("not a JSON object or array: the input is %s; want a provider request body (a JSON object) or a bare message array", jsonx.KindPhrase(firstKind(s[0])))
	}
	sc := scanner{cands: allDialects}
	if err := sc.body(data); err != nil {
		return Detection{}, err
	}
	return sc.result(), nil
}

// syntaxError returns err, the error of the streaming reader on data, as
// every toolwire reader words a syntax error (internal/jsonx.Error): the
// path of the value it is in, the line, the column and the byte offset,
// as in "messages.0: invalid JSON at line 3, column 20: invalid character
// ',' at start of value (at byte 37)".
func syntaxError(data []byte, err error) error {
	return jsonx.Error("", llm.Dotted, data, err)
}

// scalarError returns the syntax error of data, a document that is not an
// object or array, or nil when it is one JSON value.
func scalarError(data []byte) error {
	dec := newDecoder(data)
	_, err := dec.ReadValue()
	if err == nil {
		err = jsonx.End(dec, data)
	}
	if err != nil {
		return syntaxError(data, err)
	}
	return nil
}

// dialects is a set of dialects, one bit each in the order of
// transcript.Dialects.
type dialects uint8

const (
	inChat dialects = 1 << iota
	inResponses
	inAnthropic
	inGemini
	allDialects = inChat | inResponses | inAnthropic | inGemini
	inOpenAI    = inChat | inResponses
)

func (s dialects) list() []transcript.Dialect {
	var out []transcript.Dialect
	for i, d := range transcript.Dialects() {
		if s&(1<<i) != 0 {
			out = append(out, d)
		}
	}
	return out
}

func (s dialects) single() bool { return s != 0 && s&(s-1) == 0 }

// String names the dialects: "openai-chat, openai-responses and anthropic".
func (s dialects) String() string {
	var names []string
	for _, d := range s.list() {
		names = append(names, string(d))
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// scanner gathers the clues of a body's shape. It reads the body with a
// streaming reader that copies nothing, so that detecting the dialect of a
// large body costs no memory.
type scanner struct {
	cands dialects
	steps []step // the clues that narrowed cands, in order
	// what the body is, for the reason of an ambiguous one
	what string
	// weak clues, for an object body
	model        string
	hasMaxTokens bool
	hasMessages  bool
}

// clue narrows the candidates to fits, when that leaves any; a clue that
// contradicts the ones before is passed over.
func (sc *scanner) clue(fits dialects, why string) {
	if sc.cands.single() {
		return
	}
	next := sc.cands & fits
	if next == 0 || next == sc.cands {
		return
	}
	sc.cands = next
	sc.steps = append(sc.steps, step{fits, why})
}

// A step is a clue that narrowed the candidates.
type step struct {
	fits dialects
	why  string
}

// because says what decided: the last clue, and as few of the clues
// before it as it takes to leave only the dialect found.
func (sc *scanner) because() string {
	var whys []string
	set := allDialects
	for i := len(sc.steps) - 1; i >= 0 && set != sc.cands; i-- {
		if set&sc.steps[i].fits == set {
			continue // it rules out nothing the later ones leave
		}
		set &= sc.steps[i].fits
		whys = append([]string{sc.steps[i].why}, whys...)
	}
	return strings.Join(whys, ", and ")
}

func newDecoder(b []byte) *jsontext.Decoder {
	return jsontext.NewDecoder(bytes.NewBuffer(b), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
}

// span is a value of the body: its path and where it is.
type span struct {
	path       string
	start, end int64
}

// body reads data: its top-level fields first, then its message and tool
// arrays, so that a field that names the dialect decides before what the
// messages hold.
func (sc *scanner) body(data []byte) error {
	dec := newDecoder(data)
	var msgs, tools []span
	if dec.PeekKind() == '[' {
		sc.what = "a bare array of messages"
		if err := dec.SkipValue(); err != nil {
			return syntaxError(data, err)
		}
		msgs = append(msgs, span{start: 0, end: dec.InputOffset()})
	} else {
		if _, err := dec.ReadToken(); err != nil {
			return syntaxError(data, err)
		}
		for dec.PeekKind() != '}' {
			kt, err := dec.ReadToken()
			if err != nil {
				return syntaxError(data, err)
			}
			key := kt.String()
			kind := dec.PeekKind()
			start := dec.InputOffset()
			if err := dec.SkipValue(); err != nil {
				return syntaxError(data, err)
			}
			v := span{path: key, start: start, end: dec.InputOffset()}
			v.start = v.end - int64(len(trimValue(data[v.start:v.end])))
			switch {
			case key == "model" && kind == '"':
				sc.model = unquote(data[v.start:v.end])
			case key == "max_tokens":
				sc.hasMaxTokens = true
				sc.clue(inChat|inAnthropic, `the top-level "max_tokens" field`)
			case key == "tools" && kind == '[':
				tools = append(tools, v)
			case key == "tool_choice":
				sc.toolChoice(data[v.start:v.end])
			case key == "prompt" && kind == '{':
				// A Responses prompt template; a string is the legacy
				// Completions API's, no dialect here.
				sc.clue(inResponses, `the top-level "prompt" object`)
			default:
				if (key == "messages" || key == "input" || key == "contents") && kind == '[' {
					msgs = append(msgs, v)
				}
				if fits, ok := topFields[key]; ok {
					sc.hasMessages = sc.hasMessages || key == "messages"
					sc.clue(fits, fmt.Sprintf("the top-level %q field", key))
				}
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return syntaxError(data, err)
		}
		if len(msgs) == 0 && sc.cands == allDialects {
			return errors.New(`a JSON object without "messages", "input" or "contents": not a request body toolwire knows; give the dialect`)
		}
		sc.what = "a body with " + describeContainer(msgs)
	}
	if err := jsonx.End(dec, data); err != nil {
		return syntaxError(data, err)
	}
	for _, m := range msgs {
		if err := sc.items(data[m.start:m.end], m.path); err != nil {
			return err
		}
	}
	for _, t := range tools {
		sc.tools(data[t.start:t.end], t.path)
	}
	return nil
}

// trimValue returns b, a value as the reader passed it, without the colon
// and white space before it.
func trimValue(b []byte) []byte { return bytes.TrimLeft(b, " \t\r\n:") }

func describeContainer(msgs []span) string {
	if len(msgs) == 0 {
		return "no messages"
	}
	return fmt.Sprintf("%q", msgs[0].path)
}

// unquote returns the string a JSON string token holds.
func unquote(raw []byte) string {
	if !bytes.ContainsRune(raw, '\\') && len(raw) >= 2 {
		return string(raw[1 : len(raw)-1])
	}
	dec := newDecoder(raw)
	tok, err := dec.ReadToken()
	if err != nil || tok.Kind() != '"' {
		return ""
	}
	return tok.String()
}

// topFields are the top-level fields that only some dialects have. Fields
// that every dialect but one has (temperature, stream, ...) are left out:
// they are too weak to outweigh a field that names one dialect.
var topFields = map[string]dialects{
	"messages":              inChat | inAnthropic,
	"input":                 inResponses,
	"instructions":          inResponses,
	"previous_response_id":  inResponses,
	"conversation":          inResponses,
	"max_output_tokens":     inResponses,
	"include":               inResponses,
	"truncation":            inResponses,
	"background":            inResponses,
	"reasoning":             inResponses,
	"text":                  inResponses,
	"max_tool_calls":        inResponses,
	"system":                inAnthropic,
	"thinking":              inAnthropic,
	"stop_sequences":        inAnthropic,
	"top_k":                 inAnthropic,
	"mcp_servers":           inAnthropic,
	"container":             inAnthropic,
	"context_management":    inAnthropic,
	"anthropic_version":     inAnthropic,
	"max_completion_tokens": inChat,
	"n":                     inChat,
	"frequency_penalty":     inChat,
	"presence_penalty":      inChat,
	"logit_bias":            inChat,
	"response_format":       inChat,
	"seed":                  inChat,
	"stop":                  inChat,
	"modalities":            inChat,
	"audio":                 inChat,
	"prediction":            inChat,
	"reasoning_effort":      inChat,
	"web_search_options":    inChat,
	"functions":             inChat,
	"function_call":         inChat,
	"parallel_tool_calls":   inOpenAI,
	"store":                 inOpenAI,
	"user":                  inOpenAI,
	"contents":              inGemini,
	"systemInstruction":     inGemini,
	"system_instruction":    inGemini,
	"generationConfig":      inGemini,
	"generation_config":     inGemini,
	"safetySettings":        inGemini,
	"safety_settings":       inGemini,
	"toolConfig":            inGemini,
	"tool_config":           inGemini,
	"cachedContent":         inGemini,
	"cached_content":        inGemini,
}

// An item is what the scanner learns of one message or input item.
type item struct {
	role, typ      string
	hasRole        bool
	hasType        bool
	parts          bool   // a "parts" field: a Gemini content
	chatKey        string // a key only Chat messages have
	content        jsontext.Kind
	partTypes      []string // the types of its content parts, in order
	anthropicField string   // "source", "cache_control" or "citations" in a content part
	anthropicAt    int      // the index of that part
}

// items reads the elements of a message or item array (path "" for a bare
// one) until one dialect is left.
func (sc *scanner) items(arr []byte, path string) error {
	dec := newDecoder(arr)
	if _, err := dec.ReadToken(); err != nil {
		return nil // read before: it is an array
	}
	for i := 0; dec.PeekKind() != ']' && dec.PeekKind() != 0; i++ {
		if sc.cands.single() {
			return nil
		}
		at := elemPath(path, i)
		if dec.PeekKind() != '{' {
			if path == "" {
				return fmt.Errorf("%s: want a message (a JSON object), got %s", at, jsonx.KindPhrase(dec.PeekKind()))
			}
			if dec.SkipValue() != nil {
				return nil
			}
			continue // the codec says what is wrong with it
		}
		it, err := readItem(dec)
		if err != nil {
			return nil
		}
		sc.item(it, at)
	}
	return nil
}

// elemPath is the path of element i of the array at path: "messages.3",
// or "element 3" of a bare array.
func elemPath(path string, i int) string {
	if path == "" {
		return fmt.Sprintf("element %d", i)
	}
	return fmt.Sprintf("%s.%d", path, i)
}

// firstKind returns the kind of the JSON value that starts with c.
func firstKind(c byte) jsontext.Kind {
	switch c {
	case 'n', 't', 'f', '"', '{', '[':
		return jsontext.Kind(c)
	}
	return '0'
}

// readItem reads one object of a message array.
func readItem(dec *jsontext.Decoder) (item, error) {
	var it item
	if _, err := dec.ReadToken(); err != nil {
		return it, err
	}
	for dec.PeekKind() != '}' {
		kt, err := dec.ReadToken()
		if err != nil {
			return it, err
		}
		key := kt.String()
		kind := dec.PeekKind()
		switch {
		case (key == "role" || key == "type") && kind == '"':
			v, err := dec.ReadToken()
			if err != nil {
				return it, err
			}
			if key == "role" {
				it.role, it.hasRole = v.String(), true
			} else {
				it.typ, it.hasType = v.String(), true
			}
			continue
		case key == "type":
			it.hasType = true
		case key == "parts":
			it.parts = true
		case key == "content":
			it.content = kind
			if kind == '[' {
				if err := it.readParts(dec); err != nil {
					return it, err
				}
				continue
			}
		case chatMessageKeys[key] && it.chatKey == "":
			it.chatKey = key
		}
		if err := dec.SkipValue(); err != nil {
			return it, err
		}
	}
	_, err := dec.ReadToken()
	return it, err
}

// chatMessageKeys are the message fields only Chat Completions has.
var chatMessageKeys = map[string]bool{"tool_calls": true, "tool_call_id": true, "function_call": true, "refusal": true, "audio": true}

// readParts reads a content array: the type of each part, and whether a
// part has a field only Anthropic blocks have.
func (it *item) readParts(dec *jsontext.Decoder) error {
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for k := 0; dec.PeekKind() != ']'; k++ {
		if dec.PeekKind() != '{' {
			it.partTypes = append(it.partTypes, "")
			if err := dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		typ := ""
		for dec.PeekKind() != '}' {
			kt, err := dec.ReadToken()
			if err != nil {
				return err
			}
			key := kt.String()
			if key == "type" && dec.PeekKind() == '"' {
				v, err := dec.ReadToken()
				if err != nil {
					return err
				}
				typ = v.String()
				continue
			}
			if (key == "source" || key == "cache_control" || key == "citations") && it.anthropicField == "" {
				it.anthropicField, it.anthropicAt = key, k
			}
			if err := dec.SkipValue(); err != nil {
				return err
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		it.partTypes = append(it.partTypes, typ)
	}
	_, err := dec.ReadToken()
	return err
}

// item weighs the clues of one message or item at path at.
func (sc *scanner) item(it item, at string) {
	switch {
	case it.hasType && it.typ != "":
		sc.clue(inResponses, fmt.Sprintf("%s is an item of type %q", at, it.typ))
	case it.hasType:
		sc.clue(inResponses, fmt.Sprintf(`%s has a "type" field`, at))
	}
	if it.parts {
		sc.clue(inGemini, fmt.Sprintf(`%s has "parts"`, at))
	}
	if it.hasRole {
		if fits, ok := roles[it.role]; ok {
			sc.clue(fits, fmt.Sprintf("%s has role %q", at, it.role))
		}
	}
	if it.chatKey != "" {
		sc.clue(inChat, fmt.Sprintf("%s has %q", at, it.chatKey))
	}
	switch it.content {
	case '"':
		sc.clue(inChat|inResponses|inAnthropic, fmt.Sprintf("%s has string content", at))
	case 'n':
		sc.clue(inChat, fmt.Sprintf("%s has null content", at))
	}
	if it.anthropicField != "" {
		sc.clue(inAnthropic, fmt.Sprintf("%s.content.%d has %q, which only Anthropic blocks have", at, it.anthropicAt, it.anthropicField))
	}
	for k, t := range it.partTypes {
		if fits, ok := partFits(t); ok {
			sc.clue(fits, fmt.Sprintf("%s.content.%d is a %q part", at, k, t))
		}
	}
}

// roles are the dialects each message role is read in. Anthropic reads a
// role "system" message (newer models accept one; ANT-SYSTEM-ROLE).
var roles = map[string]dialects{
	"user":      allDialects,
	"assistant": inChat | inResponses | inAnthropic,
	"system":    inChat | inResponses | inAnthropic,
	"developer": inOpenAI,
	"tool":      inChat,
	"function":  inChat,
	"model":     inGemini,
}

// partTypes are the dialects whose content parts have each type. Gemini
// parts have no type.
var partTypes = map[string]dialects{
	"text":                inChat | inAnthropic,
	"image_url":           inChat,
	"input_audio":         inChat,
	"file":                inChat,
	"refusal":             inOpenAI,
	"input_text":          inResponses,
	"output_text":         inResponses,
	"input_image":         inResponses,
	"input_file":          inResponses,
	"summary_text":        inResponses,
	"reasoning_text":      inResponses,
	"computer_screenshot": inResponses,
	"image":               inAnthropic,
	"document":            inAnthropic,
	"search_result":       inAnthropic,
	"tool_use":            inAnthropic,
	"tool_result":         inAnthropic,
	"server_tool_use":     inAnthropic,
	"thinking":            inAnthropic,
	"redacted_thinking":   inAnthropic,
	"container_upload":    inAnthropic,
	"tool_reference":      inAnthropic,
	"mcp_tool_use":        inAnthropic,
	"mcp_tool_result":     inAnthropic,
}

// partFits returns the dialects a content part of type t is read in;
// Anthropic's server tool results all end in "_tool_result".
func partFits(t string) (dialects, bool) {
	if fits, ok := partTypes[t]; ok {
		return fits, true
	}
	if strings.HasSuffix(t, "_tool_result") {
		return inAnthropic, true
	}
	return 0, false
}

// tools reads a tools array: the shape of each definition.
func (sc *scanner) tools(arr []byte, path string) {
	dec := newDecoder(arr)
	if _, err := dec.ReadToken(); err != nil {
		return
	}
	for i := 0; dec.PeekKind() == '{'; i++ {
		if sc.cands.single() {
			return
		}
		typ, keys, ok := readTyped(dec)
		if !ok {
			return
		}
		at := elemPath(path, i)
		if fits, why := toolFits(typ, keys); fits != 0 {
			sc.clue(fits, at+" "+why)
		}
	}
}

// readTyped reads the object dec is at: its "type", when a string, and
// its keys. ok is false when it is not a well-formed object.
func readTyped(dec *jsontext.Decoder) (typ string, keys []string, ok bool) {
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return "", nil, false
	}
	for dec.PeekKind() != '}' {
		kt, err := dec.ReadToken()
		if err != nil {
			return "", nil, false
		}
		key := kt.String()
		keys = append(keys, key)
		if key == "type" && dec.PeekKind() == '"' {
			v, err := dec.ReadToken()
			if err != nil {
				return "", nil, false
			}
			typ = v.String()
			continue
		}
		if dec.SkipValue() != nil {
			return "", nil, false
		}
	}
	_, err := dec.ReadToken()
	return typ, keys, err == nil
}

// toolFits returns the dialects a tool definition with type typ and these
// keys is read in, and why.
func toolFits(typ string, keys []string) (dialects, string) {
	has := func(k string) bool {
		for _, x := range keys {
			if x == k {
				return true
			}
		}
		return false
	}
	for _, k := range keys {
		switch k {
		case "input_schema":
			return inAnthropic, `has "input_schema"`
		case "functionDeclarations", "function_declarations", "googleSearch", "google_search", "googleSearchRetrieval", "codeExecution", "urlContext", "url_context":
			return inGemini, fmt.Sprintf("has %q", k)
		}
	}
	switch {
	case (typ == "function" || typ == "custom") && has(typ):
		return inChat, fmt.Sprintf(`has type %q and a %q object`, typ, typ)
	case (typ == "function" || typ == "custom") && has("name"):
		return inResponses, fmt.Sprintf(`has type %q and a "name" beside it`, typ)
	case datedTool(typ):
		return inAnthropic, fmt.Sprintf("has type %q, a dated Anthropic tool version", typ)
	}
	switch typ {
	case "web_search", "web_search_preview", "file_search", "computer_use_preview", "code_interpreter", "image_generation", "mcp", "local_shell", "shell", "apply_patch":
		return inResponses, fmt.Sprintf("has type %q, a Responses built-in tool", typ)
	}
	return 0, ""
}

// datedTool reports whether t is a versioned Anthropic tool type such as
// "web_search_20250305".
func datedTool(t string) bool {
	i := strings.LastIndexByte(t, '_')
	if i < 0 || len(t)-i-1 != 8 {
		return false
	}
	for _, c := range t[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// toolChoice weighs the tool_choice field: a string is OpenAI's
// ("auto", "required"), an object {"type": "any"} or {"type": "tool"} is
// Anthropic's, {"type":"function","function":{...}} is Chat's and
// {"type":"function","name":...} Responses'.
func (sc *scanner) toolChoice(raw []byte) {
	if len(raw) == 0 {
		return
	}
	if raw[0] == '"' {
		sc.clue(inOpenAI, "tool_choice is a string")
		return
	}
	if raw[0] != '{' {
		return
	}
	typ, keys, ok := readTyped(newDecoder(raw))
	if !ok {
		return
	}
	switch {
	case typ == "any" || typ == "tool" || typ == "auto" || typ == "none":
		sc.clue(inAnthropic, fmt.Sprintf(`tool_choice is {"type": %q}`, typ))
	case typ == "function" && slicesContains(keys, "function"):
		sc.clue(inChat, `tool_choice has type "function" and a "function" object`)
	case typ == "function" && slicesContains(keys, "name"):
		sc.clue(inResponses, `tool_choice has type "function" and a "name" beside it`)
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// modelFamilies are the dialects a model name's prefix suggests: a weak
// clue, since gateways serve one provider's models through another's API.
var modelFamilies = []struct {
	prefix string
	fits   dialects
}{
	{"claude", inAnthropic},
	{"gemini", inGemini},
	{"models/gemini", inGemini},
	{"gpt-", inOpenAI},
	{"chatgpt", inOpenAI},
	{"o1", inOpenAI},
	{"o3", inOpenAI},
	{"o4", inOpenAI},
	{"codex", inOpenAI},
}

// result weighs the weak clues when the shape left more than one
// candidate: the model family, and, for a body with "messages", that
// Anthropic requires "max_tokens". They decide only when they agree.
func (sc *scanner) result() Detection {
	shape := sc.cands
	if !shape.single() {
		var weak []step
		if sc.hasMessages && !sc.hasMaxTokens && shape&inAnthropic != 0 {
			weak = append(weak, step{allDialects &^ inAnthropic, `there is no "max_tokens", which Anthropic requires`})
		}
		for _, f := range modelFamilies {
			if strings.HasPrefix(sc.model, f.prefix) {
				weak = append(weak, step{f.fits, fmt.Sprintf("model %q", sc.model)})
				break
			}
		}
		cands := shape
		for _, w := range weak {
			cands &= w.fits
		}
		if !cands.single() {
			why := ""
			switch {
			case cands == 0: // both: no max_tokens, and a Claude model
				why = fmt.Sprintf("; %s points to %s, but %s", weak[1].why, weak[1].fits, weak[0].why)
			case cands != shape:
				why = fmt.Sprintf("; %s leaves %s", weak[0].why, cands)
			}
			c := shape.list()
			return Detection{Dialect: c[0], Candidates: c, Reason: fmt.Sprintf("%s whose shape fits %s%s", sc.what, shape, why)}
		}
		sc.steps = append(sc.steps, weak...)
		sc.cands = cands
		c := cands.list()
		return Detection{Dialect: c[0], Candidates: c, Reason: fmt.Sprintf("%s (the shape fits %s)", sc.because(), shape)}
	}
	c := shape.list()
	return Detection{Dialect: c[0], Reason: sc.because(), Candidates: c}
}
