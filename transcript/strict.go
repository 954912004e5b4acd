package transcript

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/jsonx"
)

// OpenAI strict-mode limits (docs/provider-rules.md, OAI-STRICT-LIMITS).
const (
	strictMaxDepth          = 10
	strictMaxProperties     = 5000
	strictMaxEnumValues     = 1000
	strictMaxChars          = 120000
	strictLongEnum          = 250
	strictLongEnumMaxLength = 15000
)

// CheckStrictSchema reports every way the JSON Schema of the tool named
// tool breaks OpenAI's strict-mode ("structured outputs") requirements:
// every object sets "additionalProperties": false (OAI-STRICT-ADDL), has
// "properties" (OAI-STRICT-PROPS) and lists every property in "required"
// (OAI-STRICT-REQUIRED); the root is an object and not anyOf
// (OAI-STRICT-ROOT); only supported keywords, types and formats appear
// (OAI-STRICT-KEYWORD, OAI-STRICT-TYPE, OAI-STRICT-FORMAT); arrays declare
// items (OAI-STRICT-ITEMS); $ref has no siblings (OAI-STRICT-REF-SIBLINGS);
// nesting and size stay within the limits (OAI-STRICT-DEPTH,
// OAI-STRICT-LIMITS).
//
// path is the dotted location of the schema in the request body, such as
// "tools.2.function.parameters"; each violation's Path extends it with the
// location inside the schema. The order is deterministic: each schema's own
// problems, then its properties (sorted by name), items, alternatives and
// definitions. A nil or empty schema gives no violations.
func CheckStrictSchema(tool string, schema jsontext.Value, path string) []Violation {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil
	}
	root, err := jsonx.DecodeAny(schema)
	if err != nil {
		_, _, err = jsonx.Describe(schema, err)
		return []Violation{{
			Rule:    ruleStrictRoot,
			Path:    path,
			Message: fmt.Sprintf("tool %s: the parameters schema is not valid JSON (%v); fix the JSON", tool, err),
		}}
	}
	s := strictChecker{tool: tool, base: path}
	obj, ok := root.(map[string]any)
	switch {
	case !ok:
		s.add(ruleStrictRoot, nil, "", fmt.Sprintf("the parameters schema is %s, not an object schema; strict mode needs {\"type\": \"object\", ...} at the root", jsonKind(root)))
		return s.out
	case obj["anyOf"] != nil:
		s.add(ruleStrictRoot, nil, "", "the root of the parameters schema is anyOf; strict mode needs a single object at the root (wrap the alternatives in a property)")
	case !hasType(obj, "object"):
		s.add(ruleStrictRoot, nil, "", "the root of the parameters schema is not \"type\": \"object\"; strict mode needs an object at the root")
	}
	s.node(obj, nil, 1)
	if s.props > strictMaxProperties {
		s.add(ruleStrictLimits, nil, "", fmt.Sprintf("the schema has %d object properties in total; strict mode allows at most %d", s.props, strictMaxProperties))
	}
	if s.chars > strictMaxChars {
		s.add(ruleStrictLimits, nil, "", fmt.Sprintf("property names, definition names, enum and const values add up to %d characters; strict mode allows at most %d", s.chars, strictMaxChars))
	}
	return s.out
}

// strictChecker walks one schema.
type strictChecker struct {
	tool      string
	base      string
	out       []Violation
	props     int // object properties seen, in total
	chars     int // characters of names, enum and const values
	deepShown bool
}

// strictUnsupported reports whether strict mode rejects keyword k.
// "default" is not among them: the research notes list it, but OpenAI
// accepts strict schemas that set it (real traffic: recorded 200s with
// "strict": true and a "default" in a property, on both OpenAI APIs).
func strictUnsupported(k string) bool {
	switch k {
	case "minLength", "maxLength", "patternProperties", "unevaluatedProperties", "propertyNames",
		"minProperties", "maxProperties", "unevaluatedItems", "contains", "minContains",
		"maxContains", "uniqueItems", "allOf", "not", "if", "then", "else",
		"dependentRequired", "dependentSchemas", "oneOf":
		return true
	}
	return false
}

// strictFormat reports whether strict mode supports string format f.
func strictFormat(f string) bool {
	switch f {
	case "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid":
		return true
	}
	return false
}

func strictType(t string) bool {
	switch t {
	case "string", "number", "boolean", "integer", "object", "array", "null":
		return true
	}
	return false
}

// ctx is a location inside the schema: keys (string) and indices (int).
type ctx []any

func (c ctx) with(k any) ctx {
	out := make(ctx, len(c)+1)
	copy(out, c)
	out[len(c)] = k
	return out
}

// python renders c the way OpenAI's errors do: a Python tuple.
func (c ctx) python() string {
	var b strings.Builder
	b.WriteByte('(')
	for i, k := range c {
		if i > 0 {
			b.WriteString(", ")
		}
		switch k := k.(type) {
		case string:
			b.WriteString("'" + k + "'")
		case int:
			b.WriteString(strconv.Itoa(k))
		}
	}
	if len(c) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

func (c ctx) dotted() string {
	parts := make([]string, len(c))
	for i, k := range c {
		parts[i] = fmt.Sprint(k)
	}
	return strings.Join(parts, ".")
}

func (s *strictChecker) add(rule RuleID, c ctx, providerError, msg string) {
	p := s.base
	if d := c.dotted(); d != "" {
		if p != "" {
			p += "."
		}
		p += d
	}
	where := "at the root"
	if len(c) > 0 {
		where = "at " + c.dotted()
	}
	s.out = append(s.out, Violation{
		Rule:          rule,
		Path:          p,
		Message:       fmt.Sprintf("tool %s, schema %s: %s", s.tool, where, msg),
		ProviderError: providerError,
	})
}

func hasType(n map[string]any, want string) bool {
	switch t := n["type"].(type) {
	case string:
		return t == want
	case []any:
		for _, x := range t {
			if x == want {
				return true
			}
		}
	}
	return false
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case jsonx.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "an object"
}

// node checks one schema object at c; depth counts nested objects.
func (s *strictChecker) node(n map[string]any, c ctx, depth int) {
	if ref, ok := n["$ref"]; ok && ref != nil {
		var siblings []string
		for _, k := range slices.Sorted(maps.Keys(n)) {
			if k != "$ref" && k != "$defs" && k != "definitions" {
				siblings = append(siblings, k)
			}
		}
		if len(siblings) > 0 {
			s.add(ruleStrictRefSiblings, c, "", fmt.Sprintf("$ref has sibling keywords (%s); strict mode needs $ref alone: wrap it as {\"anyOf\": [{\"$ref\": ...}]} or move the siblings into the referenced schema", strings.Join(siblings, ", ")))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(n)) {
		if strictUnsupported(k) {
			hint := "remove it or say it in the description"
			if k == "oneOf" {
				hint = "use anyOf instead"
			}
			s.add(ruleStrictKeyword, c.with(k), "", fmt.Sprintf("keyword %q is not supported in strict mode; %s", k, hint))
		}
	}
	switch t := n["type"].(type) {
	case string:
		if !strictType(t) {
			s.add(ruleStrictType, c.with("type"), "", fmt.Sprintf("type %q is not a JSON Schema type strict mode supports (string, number, integer, boolean, object, array, null)", t))
		}
	case []any:
		for i, x := range t {
			if xs, ok := x.(string); !ok || !strictType(xs) {
				s.add(ruleStrictType, c.with("type").with(i), "", fmt.Sprintf("type %v is not one strict mode supports (string, number, integer, boolean, object, array, null)", x))
			}
		}
	}
	if f, ok := n["format"].(string); ok && !strictFormat(f) {
		s.add(ruleStrictFormat, c.with("format"), "", fmt.Sprintf("format %q is not supported in strict mode (supported: date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid)", f))
	}
	if enum, ok := n["enum"].([]any); ok {
		total := 0
		for _, v := range enum {
			if str, ok := v.(string); ok {
				total += len(str)
			}
		}
		s.chars += total
		if len(enum) > strictMaxEnumValues {
			s.add(ruleStrictLimits, c.with("enum"), "", fmt.Sprintf("enum has %d values; strict mode allows at most %d", len(enum), strictMaxEnumValues))
		}
		if len(enum) > strictLongEnum && total > strictLongEnumMaxLength {
			s.add(ruleStrictLimits, c.with("enum"), "", fmt.Sprintf("a string enum of %d values (more than %d) has %d characters in all; strict mode allows at most %d", len(enum), strictLongEnum, total, strictLongEnumMaxLength))
		}
	}
	if cv, ok := n["const"].(string); ok {
		s.chars += len(cv)
	}

	isObject := hasType(n, "object") || (n["type"] == nil && n["properties"] != nil)
	if isObject {
		if depth > strictMaxDepth && !s.deepShown {
			s.deepShown = true
			s.add(ruleStrictDepth, c, "", fmt.Sprintf("objects are nested %d levels deep here; strict mode allows at most %d", depth, strictMaxDepth))
		}
		s.object(n, c)
	}
	if hasType(n, "array") {
		if _, ok := n["items"]; !ok {
			s.add(ruleStrictItems, c, "", "an array without \"items\"; strict mode needs the type of the array's items")
		}
	}

	// Recurse into sub-schemas.
	if props, ok := n["properties"].(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(props)) {
			if sub, ok := props[k].(map[string]any); ok {
				s.node(sub, c.with("properties").with(k), depth+1)
			}
		}
	}
	if items, ok := n["items"].(map[string]any); ok {
		s.node(items, c.with("items"), depth+1)
	}
	if ap, ok := n["additionalProperties"].(map[string]any); ok {
		s.node(ap, c.with("additionalProperties"), depth+1)
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		if list, ok := n[kw].([]any); ok {
			for i, x := range list {
				if sub, ok := x.(map[string]any); ok {
					s.node(sub, c.with(kw).with(i), depth)
				}
			}
		}
	}
	for _, kw := range []string{"$defs", "definitions"} {
		if defs, ok := n[kw].(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(defs)) {
				s.chars += len(k)
				if sub, ok := defs[k].(map[string]any); ok {
					s.node(sub, c.with(kw).with(k), 1)
				}
			}
		}
	}
}

// object checks the object-only rules of n at c.
func (s *strictChecker) object(n map[string]any, c ctx) {
	if ap, ok := n["additionalProperties"]; !ok || ap != false {
		got := "missing"
		if ok {
			got = "set to something other than false"
		}
		s.add(ruleStrictAddl, c, fill(tmplStrictAddl, "{name}", s.tool, "{path}", strings.TrimSuffix(strings.TrimPrefix(c.python(), "("), ")")),
			fmt.Sprintf("\"additionalProperties\" is %s; strict mode needs \"additionalProperties\": false on every object", got))
	}
	props, ok := n["properties"].(map[string]any)
	if !ok {
		s.add(ruleStrictProps, c, fill(tmplStrictProps, "{name}", s.tool, "{path}", strings.TrimSuffix(strings.TrimPrefix(c.python(), "("), ")")),
			"object schema without \"properties\"; strict mode needs \"properties\" (use \"properties\": {} for an object with none)")
		return
	}
	s.props += len(props)
	required := map[string]bool{}
	if list, ok := n["required"].([]any); ok {
		for _, r := range list {
			if rs, ok := r.(string); ok {
				required[rs] = true
			}
		}
	}
	var missing []string
	for _, k := range slices.Sorted(maps.Keys(props)) {
		s.chars += len(k)
		if !required[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		s.add(ruleStrictRequired, c, fill(tmplStrictRequired, "{name}", s.tool, "{path}", strings.TrimSuffix(strings.TrimPrefix(c.python(), "("), ")"), "{key}", missing[0]), fmt.Sprintf("properties %s are not listed in \"required\"; strict mode needs every property there (make a field optional with \"type\": [\"string\", \"null\"])", quoteList(missing)))
	}
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}
