package tool

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/toolresult"
)

// Format names a way of writing tool definitions as JSON, as read by
// [ParseSpecs].
type Format string

// The formats [ParseSpecs] reads.
const (
	// FormatOpenAIChat is an OpenAI Chat Completions tools array:
	// [{"type":"function","function":{"name","description","parameters","strict"}}].
	FormatOpenAIChat Format = "openai-chat"
	// FormatOpenAIResponses is an OpenAI Responses tools array:
	// [{"type":"function","name","description","parameters","strict"}].
	FormatOpenAIResponses Format = "openai-responses"
	// FormatAnthropic is an Anthropic Messages tools array:
	// [{"name","description","input_schema"}].
	FormatAnthropic Format = "anthropic"
	// FormatMCP is an MCP tools/list result:
	// {"tools":[{"name","description","inputSchema","outputSchema","annotations"}]},
	// bare or inside its JSON-RPC response.
	FormatMCP Format = "mcp"
	// FormatToolwire is toolwire's own spec file, which carries the whole
	// contract: {"version":"toolwire/v1","tools":[...]}. See docs/tools.md.
	FormatToolwire Format = "toolwire"
)

// SpecFileVersion is the version string of the spec files this package
// reads and writes.
const SpecFileVersion = "toolwire/v1"

// A ParseError says where a tool definition file is wrong: Path is dotted
// and zero-based ("tools.2.function.parameters"), "" for the whole input;
// Line and Column (1-based) are set for JSON syntax errors.
type ParseError struct {
	Path   string
	Line   int
	Column int
	Err    error
}

// Error renders the location and the problem.
func (e *ParseError) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("tool: parse specs: line %d, column %d: %v", e.Line, e.Column, e.Err)
	case e.Path != "":
		return fmt.Sprintf("tool: parse specs: %s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("tool: parse specs: %v", e.Err)
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// ParseSpecs reads tool definitions from JSON and says which [Format] they
// were in. It accepts an OpenAI tools array (Chat Completions or Responses
// shape), an Anthropic tools array, a request body holding such a "tools"
// array, an MCP tools/list result (bare or as a JSON-RPC response), or a
// toolwire spec file.
//
// ParseSpecs checks the shape of the input, not the quality of the
// contract: a tool with a name no provider accepts or a schema that does
// not compile is returned as written, so that a linter can score it. Call
// [Spec.Validate] (or [Registry.Add]) to enforce the contract. Errors are
// [*ParseError]s naming the exact path, or line and column for JSON syntax
// errors.
//
// Provider formats carry no idempotency level, timeout or return schema;
// MCP's readOnlyHint maps to [Level2], its idempotentHint to [Level1], and
// its outputSchema to Returns.
func ParseSpecs(data []byte) ([]Spec, Format, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 BOM from an editor
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, "", &ParseError{Err: errors.New("the input is empty; want a tools array or a spec file")}
	}
	// One strict reading of the whole document (internal/jsonx): after
	// it, no object has a name twice and every string is UTF-8, so that
	// the members read below are the ones every other reader sees.
	if err := jsonx.Valid(data); err != nil {
		return nil, "", syntaxParseError(data, err)
	}
	trimmed := bytes.TrimSpace(data)
	switch trimmed[0] {
	case '[':
		var items []jsontext.Value
		if err := jsonv2.Unmarshal(trimmed, &items); err != nil {
			return nil, "", &ParseError{Err: err}
		}
		return parseToolArray(items, "")
	case '{':
		var obj map[string]jsontext.Value
		if err := jsonv2.Unmarshal(trimmed, &obj); err != nil {
			return nil, "", &ParseError{Err: err}
		}
		return parseToolObject(obj)
	}
	return nil, "", &ParseError{Err: fmt.Errorf("the input is %s; want a tools array, an object with a \"tools\" array, an MCP tools/list result or a toolwire spec file", rawKind(trimmed))}
}

// parseToolObject reads a spec file, a request body, or an MCP result.
func parseToolObject(obj map[string]jsontext.Value) ([]Spec, Format, error) {
	if v, ok := obj["version"]; ok {
		var version string
		if err := jsonv2.Unmarshal(v, &version); err == nil && strings.HasPrefix(version, "toolwire/") {
			return parseSpecFile(obj, version)
		}
	}
	prefix := ""
	if res, ok := obj["result"]; ok && obj["jsonrpc"] != nil { // a JSON-RPC response to tools/list
		var inner map[string]jsontext.Value
		if err := jsonv2.Unmarshal(res, &inner); err != nil {
			return nil, "", &ParseError{Path: "result", Err: fmt.Errorf("is %s, want an object with a \"tools\" array", rawKind(res))}
		}
		obj, prefix = inner, "result."
	} else if obj["jsonrpc"] != nil && obj["error"] != nil {
		return nil, "", &ParseError{Path: "error", Err: errors.New("the input is a JSON-RPC error response, not a tools/list result")}
	}
	raw, ok := obj["tools"]
	if !ok {
		return nil, "", &ParseError{Path: strings.TrimSuffix(prefix, "."), Err: errors.New(`no "tools" array; want a tools array, an object with a "tools" array, an MCP tools/list result or a toolwire spec file ({"version": "` + SpecFileVersion + `", "tools": [...]})`)}
	}
	var items []jsontext.Value
	if err := jsonv2.Unmarshal(raw, &items); err != nil {
		return nil, "", &ParseError{Path: prefix + "tools", Err: fmt.Errorf("is %s, want an array of tools", rawKind(raw))}
	}
	return parseToolArray(items, prefix+"tools.")
}

// parseToolArray detects the format of a tools array from its first
// element and reads every element in that format.
func parseToolArray(items []jsontext.Value, prefix string) ([]Spec, Format, error) {
	if len(items) == 0 {
		return nil, "", &ParseError{Path: strings.TrimSuffix(prefix, "."), Err: errors.New("the tools array is empty")}
	}
	var format Format
	specs := make([]Spec, 0, len(items))
	seen := map[string]string{}
	for i, item := range items {
		path := fmt.Sprintf("%s%d", prefix, i)
		obj, err := object(item, path)
		if err != nil {
			return nil, "", err
		}
		f, err := detect(obj, path)
		if err != nil {
			return nil, "", err
		}
		if format == "" {
			format = f
		} else if f != format {
			return nil, "", &ParseError{Path: path, Err: fmt.Errorf("is a %s tool but %s0 is a %s tool; one file holds one format", f, prefix, format)}
		}
		var s Spec
		switch f {
		case FormatOpenAIChat:
			s, err = parseOpenAIChat(obj, path)
		case FormatOpenAIResponses:
			s, err = parseOpenAIResponses(obj, path)
		case FormatAnthropic:
			s, err = parseAnthropic(obj, path)
		case FormatMCP:
			s, err = parseMCP(obj, path)
		}
		if err != nil {
			return nil, "", err
		}
		if first, dup := seen[s.Name]; dup {
			return nil, "", &ParseError{Path: path, Err: fmt.Errorf("duplicate tool name %q (also at %s); providers reject duplicate names", s.Name, first)}
		}
		seen[s.Name] = path
		specs = append(specs, s)
	}
	if prefix == "result.tools." {
		format = FormatMCP
	}
	return specs, format, nil
}

// detect tells which format one element of a tools array is in.
func detect(obj map[string]jsontext.Value, path string) (Format, error) {
	typ := stringField(obj, "type")
	switch {
	case obj["function"] != nil:
		return FormatOpenAIChat, nil
	case obj["input_schema"] != nil:
		return FormatAnthropic, nil
	case obj["inputSchema"] != nil:
		return FormatMCP, nil
	case typ == "function":
		return FormatOpenAIResponses, nil
	case typ == "custom" && obj["format"] != nil:
		return "", &ParseError{Path: path, Err: errors.New(`is an OpenAI custom (free-form text) tool; it has no JSON Schema to read`)}
	case typ != "" && typ != "custom":
		name := stringField(obj, "name")
		if name != "" {
			name = " " + name
		}
		return "", &ParseError{Path: path, Err: fmt.Errorf("is a provider built-in tool (type %q%s) with no schema of its own; only tools you implement can be read (remove it from the list)", typ, name)}
	case obj["parameters"] != nil && obj["name"] != nil:
		return "", &ParseError{Path: path, Err: errors.New(`has "name" and "parameters" but no "type": "function"; for OpenAI Responses add "type": "function", or use a toolwire spec file ({"version": "` + SpecFileVersion + `", "tools": [...]})`)}
	}
	return "", &ParseError{Path: path, Err: errors.New(`is not a tool definition this reader knows: want "function" (OpenAI Chat), "type": "function" with "name" (OpenAI Responses), "input_schema" (Anthropic) or "inputSchema" (MCP)`)}
}

func parseOpenAIChat(obj map[string]jsontext.Value, path string) (Spec, error) {
	if t := stringField(obj, "type"); t != "" && t != "function" {
		return Spec{}, &ParseError{Path: path + ".type", Err: fmt.Errorf("is %q, want \"function\"", t)}
	}
	fn, err := object(obj["function"], path+".function")
	if err != nil {
		return Spec{}, err
	}
	return readCommon(fn, path+".function", "parameters")
}

func parseOpenAIResponses(obj map[string]jsontext.Value, path string) (Spec, error) {
	return readCommon(obj, path, "parameters")
}

func parseAnthropic(obj map[string]jsontext.Value, path string) (Spec, error) {
	return readCommon(obj, path, "input_schema")
}

func parseMCP(obj map[string]jsontext.Value, path string) (Spec, error) {
	s, err := readCommon(obj, path, "inputSchema")
	if err != nil {
		return Spec{}, err
	}
	if s.Returns, err = schemaMember(obj, "outputSchema", path); err != nil {
		return Spec{}, err
	}
	if raw, ok := obj["annotations"]; ok && !isNull(raw) {
		ann, err := object(raw, path+".annotations")
		if err != nil {
			return Spec{}, err
		}
		readOnly, err := boolField(ann, "readOnlyHint", path+".annotations")
		if err != nil {
			return Spec{}, err
		}
		idempotent, err := boolField(ann, "idempotentHint", path+".annotations")
		if err != nil {
			return Spec{}, err
		}
		switch {
		case readOnly:
			s.Idempotency = Level2
		case idempotent:
			s.Idempotency = Level1
		}
	}
	return s, nil
}

// readCommon reads name, description, the schema under schemaKey, and
// strict.
func readCommon(obj map[string]jsontext.Value, path, schemaKey string) (Spec, error) {
	var s Spec
	var err error
	if s.Name, err = requiredString(obj, "name", path); err != nil {
		return Spec{}, err
	}
	if s.Description, err = optionalString(obj, "description", path); err != nil {
		return Spec{}, err
	}
	if s.Parameters, err = schemaMember(obj, schemaKey, path); err != nil {
		return Spec{}, err
	}
	if s.Strict, err = boolField(obj, "strict", path); err != nil {
		return Spec{}, err
	}
	return s, nil
}

// specFile is toolwire's own spec file as [MarshalSpecFile] writes it;
// see docs/tools.md. [ParseSpecs] reads it member by member, so that it
// can name the path of an unknown key or a value of the wrong type.
type specFile struct {
	Version string         `json:"version"`
	Tools   []specFileTool `json:"tools"`
}

type specFileTool struct {
	Name             string         `json:"name"`
	Description      string         `json:"description,omitempty"`
	Parameters       jsontext.Value `json:"parameters,omitempty"`
	Returns          jsontext.Value `json:"returns,omitempty"`
	Idempotency      Idempotency    `json:"idempotency,omitempty"`
	Timeout          string         `json:"timeout,omitempty"`
	RequiresApproval bool           `json:"requires_approval,omitempty"`
	Strict           bool           `json:"strict,omitempty"`
	HTTP             *specFileHTTP  `json:"http,omitempty"`
	Shape            *specFileShape `json:"shape,omitempty"`
}

type specFileShape struct {
	Fields     []string `json:"fields,omitempty"`
	SortBy     string   `json:"sort_by,omitempty"`
	Order      string   `json:"order,omitempty"`
	MaxRecords int      `json:"max_records,omitempty"`
}

type specFileHTTP struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

var specFileKeys = []string{"version", "tools"}
var specToolKeys = []string{"name", "description", "parameters", "returns", "idempotency", "timeout", "requires_approval", "strict", "http", "shape"}
var specShapeKeys = []string{"fields", "sort_by", "order", "max_records"}
var specHTTPKeys = []string{"method", "url", "headers"}

func parseSpecFile(obj map[string]jsontext.Value, version string) ([]Spec, Format, error) {
	if version != SpecFileVersion {
		return nil, "", &ParseError{Path: "version", Err: fmt.Errorf("%q is not supported; this toolwire reads %q", version, SpecFileVersion)}
	}
	if err := knownKeys(obj, specFileKeys, ""); err != nil {
		return nil, "", err
	}
	raw, ok := obj["tools"]
	if !ok {
		return nil, "", &ParseError{Path: "tools", Err: errors.New("missing; a spec file lists its tools under \"tools\"")}
	}
	var items []jsontext.Value
	if err := jsonv2.Unmarshal(raw, &items); err != nil {
		return nil, "", &ParseError{Path: "tools", Err: fmt.Errorf("is %s, want an array of tools", rawKind(raw))}
	}
	if len(items) == 0 {
		return nil, "", &ParseError{Path: "tools", Err: errors.New("the tools array is empty")}
	}
	specs := make([]Spec, 0, len(items))
	seen := map[string]string{}
	for i, item := range items {
		path := fmt.Sprintf("tools.%d", i)
		s, err := parseSpecFileTool(item, path)
		if err != nil {
			return nil, "", err
		}
		if first, dup := seen[s.Name]; dup {
			return nil, "", &ParseError{Path: path + ".name", Err: fmt.Errorf("duplicate tool name %q (also at %s)", s.Name, first)}
		}
		seen[s.Name] = path
		specs = append(specs, s)
	}
	return specs, FormatToolwire, nil
}

func parseSpecFileTool(item jsontext.Value, path string) (Spec, error) {
	obj, err := object(item, path)
	if err != nil {
		return Spec{}, err
	}
	if err := knownKeys(obj, specToolKeys, path); err != nil {
		return Spec{}, err
	}
	var s Spec
	if s.Name, err = requiredString(obj, "name", path); err != nil {
		return Spec{}, err
	}
	if s.Description, err = optionalString(obj, "description", path); err != nil {
		return Spec{}, err
	}
	if s.Parameters, err = schemaMember(obj, "parameters", path); err != nil {
		return Spec{}, err
	}
	if s.Returns, err = schemaMember(obj, "returns", path); err != nil {
		return Spec{}, err
	}
	idem, err := optionalString(obj, "idempotency", path)
	if err != nil {
		return Spec{}, err
	}
	switch Idempotency(idem) {
	case "", Level0, Level1, Level2:
		s.Idempotency = Idempotency(idem)
	default:
		return Spec{}, &ParseError{Path: path + ".idempotency", Err: fmt.Errorf("%q is not a level; want \"level_0\" (never retried), \"level_1\" (retried with an idempotency key) or \"level_2\" (read-only, retried)", idem)}
	}
	timeout, err := optionalString(obj, "timeout", path)
	if err != nil {
		return Spec{}, err
	}
	if timeout != "" {
		d, err := time.ParseDuration(timeout)
		if err != nil || d < 0 {
			return Spec{}, &ParseError{Path: path + ".timeout", Err: fmt.Errorf("%q is not a duration; write it like \"5s\", \"1500ms\" or \"2m\"", timeout)}
		}
		s.Timeout = d
	}
	if s.RequiresApproval, err = boolField(obj, "requires_approval", path); err != nil {
		return Spec{}, err
	}
	if s.Strict, err = boolField(obj, "strict", path); err != nil {
		return Spec{}, err
	}
	if raw, ok := obj["http"]; ok && !isNull(raw) {
		hobj, err := object(raw, path+".http")
		if err != nil {
			return Spec{}, err
		}
		if err := knownKeys(hobj, specHTTPKeys, path+".http"); err != nil {
			return Spec{}, err
		}
		var h specFileHTTP
		if h.Method, err = optionalString(hobj, "method", path+".http"); err != nil {
			return Spec{}, err
		}
		if h.URL, err = optionalString(hobj, "url", path+".http"); err != nil {
			return Spec{}, err
		}
		if raw, ok := hobj["headers"]; ok && !isNull(raw) {
			hdrs, err := object(raw, path+".http.headers")
			if err != nil {
				return Spec{}, err
			}
			h.Headers = make(map[string]string, len(hdrs))
			for k := range hdrs {
				if h.Headers[k], err = requiredString(hdrs, k, path+".http.headers"); err != nil {
					return Spec{}, err
				}
			}
		}
		if h.URL == "" {
			return Spec{}, &ParseError{Path: path + ".http.url", Err: errors.New("missing; an HTTP binding needs the endpoint's URL")}
		}
		s.HTTP = &HTTPBinding{Method: strings.ToUpper(h.Method), URL: h.URL, Headers: h.Headers}
	}
	if raw, ok := obj["shape"]; ok && !isNull(raw) {
		if s.Shape, err = parseShape(raw, path+".shape"); err != nil {
			return Spec{}, err
		}
	}
	return s, nil
}

// parseShape reads a spec file's "shape" member into shaping rules.
func parseShape(raw jsontext.Value, path string) (toolresult.Rules, error) {
	obj, err := object(raw, path)
	if err != nil {
		return toolresult.Rules{}, err
	}
	if err := knownKeys(obj, specShapeKeys, path); err != nil {
		return toolresult.Rules{}, err
	}
	var r toolresult.Rules
	if f, ok := obj["fields"]; ok && !isNull(f) {
		if err := jsonv2.Unmarshal(f, &r.Fields); err != nil {
			return toolresult.Rules{}, &ParseError{Path: path + ".fields", Err: fmt.Errorf("is %s, want an array of field paths such as [\"title\", \"address.city\"]", rawKind(f))}
		}
	}
	if r.SortBy, err = optionalString(obj, "sort_by", path); err != nil {
		return toolresult.Rules{}, err
	}
	order, err := optionalString(obj, "order", path)
	if err != nil {
		return toolresult.Rules{}, err
	}
	r.Order = toolresult.Order(order)
	if m, ok := obj["max_records"]; ok && !isNull(m) {
		if err := jsonv2.Unmarshal(m, &r.MaxRecords); err != nil {
			return toolresult.Rules{}, &ParseError{Path: path + ".max_records", Err: fmt.Errorf("is %s, want a whole number (0 for no cap)", rawKind(m))}
		}
	}
	if err := r.Validate(); err != nil {
		return toolresult.Rules{}, &ParseError{Path: path, Err: errors.New(strings.TrimPrefix(err.Error(), "toolresult: invalid shaping rules: "))}
	}
	return r, nil
}

// MarshalSpecFile writes specs as a toolwire spec file (version
// [SpecFileVersion]), the inverse of [ParseSpecs] for [FormatToolwire].
func MarshalSpecFile(specs []Spec) ([]byte, error) {
	f := specFile{Version: SpecFileVersion, Tools: make([]specFileTool, len(specs))}
	for i, s := range specs {
		t := specFileTool{Name: s.Name, Description: s.Description, Parameters: s.Parameters, Returns: s.Returns,
			Idempotency: s.Idempotency, RequiresApproval: s.RequiresApproval, Strict: s.Strict}
		if s.Timeout > 0 {
			t.Timeout = s.Timeout.String()
		}
		if s.HTTP != nil {
			t.HTTP = &specFileHTTP{Method: s.HTTP.Method, URL: s.HTTP.URL, Headers: s.HTTP.Headers}
		}
		if !s.Shape.IsZero() {
			t.Shape = &specFileShape{Fields: s.Shape.Fields, SortBy: s.Shape.SortBy, Order: string(s.Shape.Order), MaxRecords: s.Shape.MaxRecords}
		}
		f.Tools[i] = t
	}
	b, err := jsonx.MarshalIndent(f, "  ")
	if err != nil {
		return nil, fmt.Errorf("tool: marshal spec file: %w", err)
	}
	return b, nil
}

// --- helpers ---

func object(raw jsontext.Value, path string) (map[string]jsontext.Value, error) {
	var obj map[string]jsontext.Value
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		return nil, &ParseError{Path: path, Err: fmt.Errorf("is %s, want an object", rawKind(raw))}
	}
	if err := jsonv2.Unmarshal(raw, &obj); err != nil {
		return nil, &ParseError{Path: path, Err: err}
	}
	return obj, nil
}

func knownKeys(obj map[string]jsontext.Value, known []string, path string) error {
	var unknown []string
	for k := range obj {
		found := false
		for _, kk := range known {
			if k == kk {
				found = true
			}
		}
		if !found {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	k := unknown[0]
	msg := fmt.Sprintf("unknown field %q", k)
	if near := closest(k, known, 3); len(near) > 0 {
		msg += fmt.Sprintf(" (did you mean %q?)", near[0])
	} else {
		msg += " (known fields: " + strings.Join(known, ", ") + ")"
	}
	p := k
	if path != "" {
		p = path + "." + k
	}
	return &ParseError{Path: p, Err: errors.New(msg)}
}

func stringField(obj map[string]jsontext.Value, key string) string {
	var s string
	_ = jsonv2.Unmarshal(obj[key], &s)
	return s
}

func requiredString(obj map[string]jsontext.Value, key, path string) (string, error) {
	if raw, ok := obj[key]; !ok || isNull(raw) {
		return "", &ParseError{Path: path + "." + key, Err: errors.New("missing")}
	}
	return optionalString(obj, key, path)
}

func optionalString(obj map[string]jsontext.Value, key, path string) (string, error) {
	raw, ok := obj[key]
	if !ok || isNull(raw) {
		return "", nil
	}
	var s string
	if err := jsonv2.Unmarshal(raw, &s); err != nil {
		return "", &ParseError{Path: path + "." + key, Err: fmt.Errorf("is %s, want a string", rawKind(raw))}
	}
	return s, nil
}

func boolField(obj map[string]jsontext.Value, key, path string) (bool, error) {
	raw, ok := obj[key]
	if !ok || isNull(raw) {
		return false, nil
	}
	var b bool
	if err := jsonv2.Unmarshal(raw, &b); err != nil {
		return false, &ParseError{Path: path + "." + key, Err: fmt.Errorf("is %s, want true or false", rawKind(raw))}
	}
	return b, nil
}

// schemaMember returns the schema under key, compacted: nil when it is
// absent or null, an error when it is not an object.
func schemaMember(obj map[string]jsontext.Value, key, path string) (jsontext.Value, error) {
	raw, ok := obj[key]
	if !ok || isNull(raw) {
		return nil, nil
	}
	if _, err := object(raw, path+"."+key); err != nil {
		return nil, err
	}
	return compact(raw), nil
}

func isNull(raw jsontext.Value) bool { return string(bytes.TrimSpace(raw)) == "null" }

// compact returns raw without insignificant whitespace, in a new slice.
func compact(raw jsontext.Value) jsontext.Value {
	v := jsontext.Value(bytes.Clone(raw))
	_ = v.Compact() // raw is valid: ParseSpecs read the whole document
	return jsontext.Value(v)
}

// rawKind names the JSON type of raw: "a string", "an array", ...
func rawKind(raw jsontext.Value) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// syntaxParseError reports a JSON syntax error with its line and column.
func syntaxParseError(data []byte, err error) error {
	se := syntaxError(data, err)
	if strings.Contains(se.what.Error(), "UTF-8") {
		return &ParseError{Err: errors.New("the input is not valid UTF-8")}
	}
	line, col := lineCol(data, se.offset)
	return &ParseError{Line: line, Column: col, Err: fmt.Errorf("not valid JSON: %v", se.what)}
}

// lineCol converts a byte offset to a 1-based line and column (in runes).
func lineCol(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	col = 1 + utf8.RuneCount(data[start:off])
	return line, col
}
