package lint

import (
	"bytes"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// node is one schema being walked, with what messages call it.
type node struct {
	s       *value
	path    string
	subject string // `parameter "city"`, `the items of "tags"`, `parameters`
	name    string // the nearest property name, for fix suggestions
	prop    bool   // a member of some "properties": descriptions are expected
}

// checkParameters walks the parameters schema.
func (c *checker) checkParameters() {
	raw := bytes.TrimSpace(c.spec.Parameters)
	if len(raw) == 0 || string(raw) == "null" {
		return // no parameters: providers read it as an empty object
	}
	v, err := parse(c.spec.Parameters) // not raw: TrimSpace trims more than JSON white space
	if err != nil {
		c.add(SchemaInvalid, "parameters", "the parameters schema cannot be read: "+err.Error(),
			`make parameters a JSON Schema object: {"type": "object", "properties": {...}, "required": [...], "additionalProperties": false}`)
		return
	}
	if v.kind != kindObject {
		c.add(SchemaInvalid, "parameters", sprintf("parameters is a JSON %s; OpenAI, Anthropic and Gemini want an object schema", v.kind),
			`make parameters a JSON Schema object: {"type": "object", "properties": {...}, "required": [...], "additionalProperties": false}`)
		return
	}
	if t, _ := v.get("type").stringValue(); t != "object" {
		got := "no type"
		if tv := v.get("type"); tv != nil {
			got = `"type": ` + tv.String()
		}
		c.add(SchemaInvalid, "parameters.type",
			sprintf(`the parameters schema has %s; OpenAI, Anthropic and Gemini want "type": "object" at the root`, got),
			`set "type": "object" and put each argument under "properties"`)
	}
	c.params = v
	c.walk(node{s: v, path: "parameters", subject: "parameters"})
	c.checkHTTPArguments(v)
	c.checkStrict()
}

// checkHTTPArguments: an HTTP tool sends the arguments it does not put in
// its URL to its endpoint, in the query or the body. The tool refuses
// undeclared ones unless the schema admits them explicitly; that schema
// lets the model choose parameters the endpoint acts on.
func (c *checker) checkHTTPArguments(root *value) {
	if c.spec.HTTP == nil {
		return
	}
	fix := `declare each argument under "properties" and set "additionalProperties": false; put the values the endpoint needs fixed in the binding's URL`
	if ap := root.get("additionalProperties"); ap != nil && !isFalse(ap) {
		c.add(HTTPArgumentsOpen, "parameters.additionalProperties",
			sprintf("the HTTP tool's parameters admit undeclared arguments (additionalProperties is %s): the tool sends each of them to its endpoint, so the model chooses parameters the endpoint acts on", ap.String()), fix)
	}
	if pp := root.get("patternProperties"); pp != nil {
		c.add(HTTPArgumentsOpen, "parameters.patternProperties",
			"the HTTP tool's parameters admit undeclared arguments matching patternProperties: the tool sends each of them to its endpoint, so the model chooses parameters the endpoint acts on", fix)
	}
	if up := root.get("unevaluatedProperties"); up != nil && !isFalse(up) {
		c.add(HTTPArgumentsOpen, "parameters.unevaluatedProperties",
			sprintf("the HTTP tool's parameters admit undeclared arguments (unevaluatedProperties is %s): the tool sends each of them to its endpoint, so the model chooses parameters the endpoint acts on", up.String()), fix)
	}
}

// jsonTypes are the type names of JSON Schema, and typeFixes the usual
// mistakes with the name meant.
var (
	jsonTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "object": true, "array": true, "null": true}
	typeFixes = map[string]string{
		"int": "integer", "long": "integer", "float": "number", "double": "number",
		"decimal": "number", "str": "string", "text": "string", "bool": "boolean",
		"list": "array", "dict": "object", "map": "object", "obj": "object",
		"date": "string", "datetime": "string", "any": "",
	}
)

// typesOf returns the valid declared types of s, and reports invalid ones.
// declared says whether s has a "type" at all.
func (c *checker) typesOf(n node) (types map[string]bool, declared bool) {
	t := n.s.get("type")
	if t == nil {
		return nil, false
	}
	var names []*value
	switch t.kind {
	case kindString:
		names = []*value{t}
	case kindArray:
		names = t.arr
	default:
		c.add(SchemaInvalid, child(n.path, "type"), sprintf(`%s has "type": %s; want a type name or an array of them`, n.subject, t),
			`write "type": "string" (or "number", "integer", "boolean", "object", "array", "null")`)
		return nil, true
	}
	types = map[string]bool{}
	for _, nv := range names {
		name, _ := nv.stringValue()
		if jsonTypes[name] {
			types[name] = true
			continue
		}
		fix := `use one of "string", "number", "integer", "boolean", "object", "array", "null"`
		if meant, ok := typeFixes[strings.ToLower(name)]; ok && meant != "" {
			fix = sprintf(`write "type": %s`, quote(meant))
			if meant == "string" && strings.HasPrefix(strings.ToLower(name), "date") {
				fix = `write "type": "string" with "format": "date" or "date-time"`
			}
		} else if ok {
			fix = `leave "type" out only if any JSON value is really acceptable; otherwise name the type`
		}
		c.add(SchemaInvalid, child(n.path, "type"), sprintf("%s has type %s, which is not a JSON Schema type", n.subject, nv), fix)
	}
	return types, true
}

// walk checks one schema and everything nested in it.
func (c *checker) walk(n node) {
	s := n.s
	if s.kind == kindBool {
		if s.b && n.prop {
			c.add(ParamTypeMissing, n.path, sprintf("%s is the schema true: any JSON value is accepted", n.subject),
				sprintf("replace true with a schema that has a type and a description, e.g. %s", typeExample(n.name)))
		}
		return
	}
	if s.kind != kindObject {
		fix := sprintf("write a schema object, e.g. %s", typeExample(n.name))
		if str, ok := s.stringValue(); ok && (jsonTypes[str] || typeFixes[str] != "") {
			t := str
			if !jsonTypes[t] {
				t = typeFixes[str]
			}
			fix = sprintf(`write {"type": %s, "description": "..."} instead of the bare string`, quote(t))
		}
		c.add(SchemaInvalid, n.path, sprintf("%s is a JSON %s, not a schema", n.subject, s.kind), fix)
		return
	}
	if n.prop {
		c.checkParamDescription(n)
	}
	types, declared := c.typesOf(n)
	constrained := s.has("enum") || s.has("const")
	composite := s.has("$ref") || s.has("anyOf") || s.has("oneOf") || s.has("allOf") || s.has("not") || s.has("if")
	if !declared && !constrained && !composite {
		switch {
		case s.has("properties") || s.has("additionalProperties") || s.has("patternProperties"):
			types = map[string]bool{"object": true}
		case s.has("items") || s.has("prefixItems"):
			types = map[string]bool{"array": true}
		case n.prop:
			c.add(ParamTypeMissing, n.path, sprintf("%s declares no type: any JSON value is accepted", n.subject),
				sprintf(`add a "type", e.g. %s`, typeExample(n.name)))
		}
	}
	if types["string"] && !constrained && !s.has("pattern") && !s.has("format") && !s.has("maxLength") {
		c.add(StringUnconstrained, n.path, sprintf("%s is a string with no pattern, enum, format or maxLength: the model may send any text", n.subject),
			stringFix(n.name, c.spec.Strict))
	}
	if (types["number"] || types["integer"]) && !constrained {
		c.checkBounds(n)
	}
	if types["object"] {
		c.checkObject(n)
	}
	if types["array"] && !s.has("items") && !s.has("prefixItems") {
		c.add(ArrayItemsMissing, n.path, sprintf("%s is an array that does not say what its items are", n.subject),
			`add "items" with a type and constraints, e.g. "items": {"type": "string", "maxLength": 100}, and a "maxItems"`)
	}
	if s.has("default") {
		c.checkDefault(n, types)
	}
	if r := s.get("$ref"); r != nil {
		c.checkRef(n, r)
	}
	c.walkChildren(n)
}

// walkChildren walks the subschemas of n, in the order they appear.
func (c *checker) walkChildren(n node) {
	for _, m := range n.s.members {
		p := child(n.path, m.key)
		switch m.key {
		case "properties":
			if m.val.kind != kindObject {
				c.add(SchemaInvalid, p, sprintf("the properties of %s are a JSON %s, not an object of schemas", n.subject, m.val.kind),
					`write "properties": {"name": {"type": "string", "description": "..."}}`)
				continue
			}
			for _, pm := range m.val.members {
				pp := child(p, pm.key)
				c.checkParamName(pm.key, pp)
				c.walk(node{s: pm.val, path: pp, subject: "parameter " + quote(pm.key), name: pm.key, prop: true})
			}
		case "$defs", "definitions", "patternProperties":
			if m.val.kind != kindObject {
				c.add(SchemaInvalid, p, sprintf("%s of %s is a JSON %s, not an object of schemas", m.key, n.subject, m.val.kind),
					sprintf(`write "%s": {"Name": {"type": "object", ...}}`, m.key))
				continue
			}
			for _, dm := range m.val.members {
				what := "definition "
				if m.key == "patternProperties" {
					what = "pattern property "
				}
				c.walk(node{s: dm.val, path: child(p, dm.key), subject: what + quote(dm.key), name: dm.key})
			}
		case "additionalProperties", "unevaluatedProperties":
			if m.val.kind == kindObject {
				c.walk(node{s: m.val, path: p, subject: "the values of " + n.subject, name: n.name})
			}
		case "items", "prefixItems":
			if m.val.kind == kindArray {
				for i, e := range m.val.arr {
					c.walk(node{s: e, path: index(p, i), subject: sprintf("item %d of %s", i, n.subject), name: n.name})
				}
				continue
			}
			c.walk(node{s: m.val, path: p, subject: "the items of " + n.subject, name: n.name})
		case "anyOf", "oneOf", "allOf":
			if m.val.kind != kindArray {
				c.add(SchemaInvalid, p, sprintf("%s of %s is a JSON %s, not an array of schemas", m.key, n.subject, m.val.kind),
					sprintf(`write "%s": [{"type": "string"}, {"type": "null"}]`, m.key))
				continue
			}
			for i, e := range m.val.arr {
				c.walk(node{s: e, path: index(p, i), subject: sprintf("%s branch %d of %s", m.key, i, n.subject), name: n.name})
			}
		}
	}
}

// checkParamDescription: each parameter needs a description that says
// what to put in it.
func (c *checker) checkParamDescription(n node) {
	dv := n.s.get("description")
	d, ok := dv.stringValue()
	d = strings.TrimSpace(d)
	if d == "" {
		if target := c.resolve(n.s.get("$ref")); target != nil {
			if td, _ := target.get("description").stringValue(); strings.TrimSpace(td) != "" {
				return // the referenced schema describes it
			}
		}
		msg := sprintf("%s has no description", n.subject)
		if dv != nil && !ok {
			msg = sprintf("%s has a description that is a JSON %s, not a string", n.subject, dv.kind)
		}
		c.add(ParamDescriptionMissing, n.path, msg,
			`add a "description": what the value means, its unit or format, and an example`)
		return
	}
	if textLen(d) < minParamDescription {
		c.add(ParamDescriptionShort, child(n.path, "description"),
			sprintf("the description of %s, %s, is too short (%d characters, want at least %d)", n.subject, quote(d), textLen(d), minParamDescription),
			"say what the value means, its unit or format, and give an example")
	}
	if terms := vagueTerms(d); len(terms) > 0 {
		c.add(ParamDescriptionVague, child(n.path, "description"),
			sprintf("the description of %s uses vague wording: %s", n.subject, quoteList(terms)),
			"replace each vague word with the exact values, units or cases meant")
	}
}

// checkParamName flags abbreviated parameter names.
func (c *checker) checkParamName(name, path string) {
	words := identWords(name)
	found := abbreviated(words)
	if len(found) == 0 {
		return
	}
	parts := make([]string, len(found))
	var unknown []string
	for i, f := range found {
		if f[1] == "" {
			parts[i] = quote(f[0])
			unknown = append(unknown, quote(f[0]))
		} else {
			parts[i] = sprintf("%s (%s)", quote(f[0]), f[1])
		}
	}
	fix := sprintf("rename it %s: models fill spelled-out names more reliably", quote(expandName(name, words)))
	switch {
	case len(unknown) == len(found):
		fix = sprintf("spell out %s in full", strings.Join(unknown, ", "))
	case len(unknown) > 0:
		fix = sprintf("rename it %s and spell out %s in full", quote(expandName(name, words)), strings.Join(unknown, ", "))
	}
	c.add(ParamNameAbbreviated, path, sprintf("parameter name %s is abbreviated: %s", quote(name), strings.Join(parts, ", ")), fix)
}

// checkBounds: a number needs a range.
func (c *checker) checkBounds(n node) {
	s := n.s
	lo := s.has("minimum") || isNumber(s.get("exclusiveMinimum"))
	hi := s.has("maximum") || isNumber(s.get("exclusiveMaximum"))
	if lo && hi {
		return
	}
	missing := "no minimum or maximum"
	switch {
	case lo:
		missing = "no maximum"
	case hi:
		missing = "no minimum"
	}
	what := "a number"
	if t := c.typeName(s); t == "integer" {
		what = "an integer"
	}
	c.add(NumberUnbounded, n.path, sprintf("%s is %s with %s: the model may send any value", n.subject, what, missing), numberFix(n.name, lo, hi))
}

func isNumber(v *value) bool { return v != nil && v.kind == kindNumber }

// typeName returns the single non-null type of s, or "".
func (c *checker) typeName(s *value) string {
	t := s.get("type")
	if str, ok := t.stringValue(); ok {
		return str
	}
	if t != nil && t.kind == kindArray {
		for _, e := range t.arr {
			if str, _ := e.stringValue(); str != "null" {
				return str
			}
		}
	}
	return ""
}

// checkObject: an object should list its keys and close itself.
func (c *checker) checkObject(n node) {
	s := n.s
	ap := s.get("additionalProperties")
	closed := isFalse(ap) || isFalse(s.get("unevaluatedProperties"))
	if closed {
		return
	}
	hasProps := s.has("properties") || s.has("patternProperties")
	mapSchema := ap.isObject() && len(ap.members) > 0
	switch {
	case !hasProps && !mapSchema && !s.has("$ref") && !s.has("anyOf") && !s.has("oneOf") && !s.has("allOf"):
		c.add(ObjectFreeform, n.path, sprintf("%s is an object with no properties: the model must invent its keys and values", n.subject),
			`list the keys under "properties", each with a type and a description, and set "additionalProperties": false; for a real map, give "additionalProperties" a schema for the values`)
	case mapSchema && !hasProps:
		c.add(ObjectOpen, n.path, sprintf("%s accepts any key (additionalProperties is a schema)", n.subject),
			`if the keys are known, list them under "properties" and set "additionalProperties": false; if it is a map, bound its size with "maxProperties" and describe the keys`)
	default:
		got := "is not set"
		if ap != nil {
			got = "is " + ap.String()
		}
		c.add(ObjectOpen, n.path, sprintf("%s does not set \"additionalProperties\": false (it %s): unknown or misspelled keys pass unnoticed", n.subject, got),
			`set "additionalProperties": false`)
	}
}

func isFalse(v *value) bool { return v != nil && v.kind == kindBool && !v.b }

// checkRef: a $ref must point inside the definition; providers fetch
// nothing.
func (c *checker) checkRef(n node, r *value) {
	p := child(n.path, "$ref")
	ref, ok := r.stringValue()
	switch {
	case !ok:
		c.add(SchemaInvalid, p, sprintf("the $ref of %s is a JSON %s, not a string", n.subject, r.kind), `write "$ref": "#/$defs/Name"`)
	case !strings.HasPrefix(ref, "#"):
		c.add(RefUnresolved, p, sprintf("$ref %s is not local: providers do not fetch external schemas", quote(ref)),
			`copy the schema under "$defs" and refer to it as "#/$defs/Name"`)
	case c.resolve(r) == nil:
		c.add(RefUnresolved, p, sprintf("$ref %s points to nothing in this definition", quote(ref)),
			sprintf(`define it under "$defs" (refer to it as "#/$defs/Name")%s`, c.refHint(ref)))
	}
}

// refHint names the definitions that exist, to spot a typo.
func (c *checker) refHint(string) string {
	var names []string
	for _, key := range []string{"$defs", "definitions"} {
		if d := c.params.get(key); d.isObject() {
			for _, m := range d.members {
				names = append(names, "#/"+key+"/"+m.key)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	if len(names) > 5 {
		names = append(names[:5], "...")
	}
	return ", or use one that exists: " + strings.Join(names, ", ")
}

// resolve follows a local $ref ("#", "#/$defs/Name") inside the
// parameters schema; nil if it does not resolve.
func (c *checker) resolve(r *value) *value {
	ref, ok := r.stringValue()
	if !ok || !strings.HasPrefix(ref, "#") || c.params == nil {
		return nil
	}
	ptr := ref[1:]
	cur := c.params
	if ptr == "" {
		return cur
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil // an anchor such as "#foo": not resolved
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch cur.kind {
		case kindObject:
			cur = cur.get(tok)
		case kindArray:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.arr) {
				return nil
			}
			cur = cur.arr[i]
		default:
			return nil
		}
		if cur == nil {
			return nil
		}
	}
	return cur
}

// checkDefault: a default must pass its own schema, or the runtime fills
// in a value the tool then rejects.
func (c *checker) checkDefault(n node, types map[string]bool) {
	s := n.s
	d := s.get("default")
	var problems []string
	if len(types) > 0 && !hasType(d, types) {
		problems = append(problems, sprintf("is a JSON %s, not %s", jsonKind(d), strings.Join(slices.Sorted(maps.Keys(types)), " or ")))
	}
	if e := s.get("enum"); e != nil && e.kind == kindArray {
		found := false
		for _, x := range e.arr {
			found = found || equal(x, d)
		}
		if !found {
			problems = append(problems, "is not one of the enum values "+e.String())
		}
	}
	if k := s.get("const"); k != nil && !equal(k, d) {
		problems = append(problems, "is not the const value "+k.String())
	}
	if x, ok := d.number(); ok {
		if m, ok := s.get("minimum").number(); ok && x < m {
			problems = append(problems, "is below minimum "+s.get("minimum").str)
		}
		if m, ok := s.get("maximum").number(); ok && x > m {
			problems = append(problems, "is above maximum "+s.get("maximum").str)
		}
		if m, ok := s.get("exclusiveMinimum").number(); ok && x <= m {
			problems = append(problems, "is not above exclusiveMinimum "+s.get("exclusiveMinimum").str)
		}
		if m, ok := s.get("exclusiveMaximum").number(); ok && x >= m {
			problems = append(problems, "is not below exclusiveMaximum "+s.get("exclusiveMaximum").str)
		}
		if m, ok := s.get("multipleOf").number(); ok && m > 0 {
			if q := x / m; math.Abs(q-math.Round(q)) > 1e-9*math.Max(1, math.Abs(q)) {
				problems = append(problems, "is not a multiple of "+s.get("multipleOf").str)
			}
		}
	}
	if str, ok := d.stringValue(); ok {
		length := utf8.RuneCountInString(str)
		if m, ok := s.get("maxLength").number(); ok && float64(length) > m {
			problems = append(problems, sprintf("is %d characters, above maxLength %s", length, s.get("maxLength").str))
		}
		if m, ok := s.get("minLength").number(); ok && float64(length) < m {
			problems = append(problems, sprintf("is %d characters, below minLength %s", length, s.get("minLength").str))
		}
		if p, ok := s.get("pattern").stringValue(); ok {
			// JSON Schema patterns are ECMA-262; a pattern RE2 cannot
			// compile (lookaround, backreferences) is not checked.
			if re, err := regexp.Compile(p); err == nil && !re.MatchString(str) {
				problems = append(problems, "does not match pattern "+quote(p))
			}
		}
	}
	if len(problems) == 0 {
		return
	}
	c.add(DefaultInvalid, child(n.path, "default"),
		sprintf("the default of %s, %s, %s", n.subject, d, strings.Join(problems, "; ")),
		"change the default to a value the schema accepts, or drop it; the runtime fills defaults in before it validates")
}

func hasType(d *value, types map[string]bool) bool {
	switch d.kind {
	case kindNumber:
		return types["number"] || types["integer"] && d.isInteger()
	default:
		return types[jsonKind(d)]
	}
}

func jsonKind(d *value) string { return d.kind.String() }

// typeExample suggests a schema for a parameter, from its name.
func typeExample(name string) string {
	return sprintf(`{"type": "string", "description": "...", "maxLength": 200} for %s`, orDefault(name, "a text value"))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return quote(s)
}

// expandedWords returns the words of a name with abbreviations spelled
// out, for the suggestions below.
func expandedWords(name string) []string {
	var words []string
	for _, w := range identWords(name) {
		if exp, ok := abbreviations[w]; ok {
			w = exp
		}
		words = append(words, strings.Split(w, "_")...)
	}
	return words
}

// hasAny reports whether words holds any of ws.
func hasAny(words, ws []string) bool {
	for _, x := range ws {
		if slices.Contains(words, x) {
			return true
		}
	}
	return false
}

// stringFix suggests a constraint for a string, from its name.
func stringFix(name string, strict bool) string {
	words := expandedWords(name)
	has := func(ws ...string) bool { return hasAny(words, ws) }
	last := ""
	if len(words) > 0 {
		last = words[len(words)-1]
	}
	switch {
	case has("email", "mail"):
		return `add "format": "email"`
	case has("uuid", "guid"):
		return `add "format": "uuid"`
	case has("timestamp", "datetime", "time") || last == "at":
		return `add "format": "date-time" (RFC 3339, e.g. "2026-05-01T14:30:00Z")`
	case has("date", "day", "birthday", "dob"):
		return `add "format": "date" (e.g. "2026-05-01")`
	case has("url", "uri", "link", "website", "href"):
		if strict {
			return `add "pattern": "^https://" (strict mode does not support "format": "uri")`
		}
		return `add "format": "uri" and a "maxLength"`
	case has("zip", "postal", "postcode"):
		return `add a "pattern" for the postal code, e.g. "pattern": "^[0-9]{5}$" (US ZIP code)`
	case has("country"):
		return `add "pattern": "^[A-Z]{2}$" (ISO 3166-1 alpha-2, e.g. "FR")`
	case has("currency"):
		return `add "pattern": "^[A-Z]{3}$" (ISO 4217, e.g. "EUR")`
	case has("phone", "mobile", "tel"):
		return `add "pattern": "^\\+[1-9][0-9]{6,14}$" (E.164, e.g. "+33142685300")`
	case has("language", "lang", "locale"):
		return `add "pattern": "^[a-z]{2,3}(-[A-Z]{2})?$" (BCP 47, e.g. "fr-FR")`
	case has("ip"):
		return `add "format": "ipv4" (or "ipv6")`
	case has("hostname", "host", "domain"):
		return `add "format": "hostname"`
	case last == "id" || last == "ids" || has("code", "number", "sku", "key", "account"):
		return `add a "pattern" for the value's exact shape, e.g. "pattern": "^[A-Z0-9]{8}$"`
	case strict:
		return `add an "enum" if only some values are valid, or a "pattern" such as "^.{1,200}$" (strict mode does not support maxLength)`
	}
	return `add an "enum" if only some values are valid, a "pattern" if the value has a fixed shape, or at least a "maxLength" (e.g. 200)`
}

// numberFix suggests bounds for a number, from its name.
func numberFix(name string, lo, hi bool) string {
	words := expandedWords(name)
	has := func(ws ...string) bool { return hasAny(words, ws) }
	var lower, upper string
	switch {
	case has("lat", "latitude"):
		lower, upper = "-90", "90"
	case has("lon", "lng", "longitude"):
		lower, upper = "-180", "180"
	case has("percent", "percentage"):
		lower, upper = "0", "100"
	case has("limit", "count", "size", "top", "results", "n", "per"):
		lower, upper = "1", "100"
	case has("page", "offset", "skip"):
		lower, upper = "0", "10000"
	case has("amount", "price", "cost", "total", "quantity"):
		lower, upper = "0", "(the largest value you accept)"
	}
	if lower == "" {
		switch {
		case lo:
			return `add a "maximum" for the largest value that makes sense`
		case hi:
			return `add a "minimum" for the smallest value that makes sense`
		}
		return `add a "minimum" and a "maximum" for the range that makes sense`
	}
	switch {
	case lo:
		return sprintf(`add "maximum": %s`, upper)
	case hi:
		return sprintf(`add "minimum": %s`, lower)
	}
	return sprintf(`add "minimum": %s and "maximum": %s`, lower, upper)
}
