package tool

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

// prepared is a call's arguments, validated, ready for the tool.
type prepared struct {
	args      []byte // the JSON as sent or repaired; see json
	value     any    // the arguments decoded, defaults filled in
	defaulted bool   // value has defaults that args lacks
	repaired  string // the repair made, for meta.repaired
}

// json returns the arguments as JSON with defaults filled in. Encoding
// value waits until something needs the bytes.
func (p *prepared) json() ([]byte, error) {
	if p.defaulted {
		b, err := marshalCompact(p.value)
		if err != nil { // cannot happen: value came from JSON
			return nil, Errorf(toolresult.InternalError, "could not re-encode the arguments: %v", err)
		}
		p.args, p.defaulted = b, false
	}
	return p.args, nil
}

// prepare parses, if need be repairs, validates and completes a call's
// arguments; or returns a failure envelope, with p.repaired set.
//
// A repair that closes an unterminated string at the end completes a value
// that was most likely cut off; it is accepted only for read-only (level
// 2) tools, where a wrong guess costs nothing.
func prepare(c *contract, call llm.ToolCall, repair bool) (p prepared, fail *toolresult.Envelope) {
	raw := bytes.TrimSpace(call.Input)
	if len(raw) == 0 {
		raw, p.repaired = []byte("{}"), "read empty arguments as {}"
	}
	v, err := decodeJSON(raw)
	if err != nil {
		var fixed []byte
		var what string
		var ok bool
		if repair {
			var truncated bool
			fixed, what, truncated, ok = repairArgs(raw)
			ok = ok && (!truncated || c.spec.Idempotency == Level2)
		}
		var fv any
		if ok {
			fv, err = decodeJSON(fixed)
			ok = err == nil && validate(c.params, fv) == nil
		}
		if !ok {
			env := malformed(c, call, raw)
			return prepared{}, &env
		}
		raw, v, p.repaired = fixed, fv, what
	}
	// Arguments sent as a JSON string holding the object ("{\"a\":1}"), as
	// some models do: unambiguous when the string is an object that fits.
	if s, isString := v.(string); isString {
		if inner, err := decodeJSON([]byte(s)); err == nil {
			if _, isObj := inner.(map[string]any); isObj && validate(c.params, inner) == nil {
				raw, v, p.repaired = []byte(s), inner, "decoded arguments that were sent as a JSON string"
			}
		}
	}
	if fes := validate(c.params, v); len(fes) > 0 {
		env := invalid(c, call, v, fes)
		return p, &env
	}
	p.args, p.value = raw, v
	p.defaulted = c.fillDefaults(v)
	return p, nil
}

// malformed is the result for arguments that are not JSON.
func malformed(c *contract, call llm.ToolCall, raw []byte) toolresult.Envelope {
	se := syntaxError(raw, jsonx.Valid(raw))
	msg := "the arguments are not valid JSON: " + syntaxMessage(raw, se)
	if near := snippet(raw, se.offset); near != "" {
		msg += ", near " + near
	}
	env := toolresult.Failure(toolresult.MalformedArguments, msg)
	env.Summary = call.Name + "(…) was not run: its arguments are not valid JSON"
	env.Suggestion = toolresult.Options("call " + call.Name + " again with the arguments as one JSON object" + requiredHint(c.params))
	return env
}

// requiredHint lists the required properties and their types, for a
// suggestion: " such as {"city": string}".
func requiredHint(s *jsonschema.Schema) string {
	if s == nil || len(s.Required) == 0 {
		return ""
	}
	parts := make([]string, 0, len(s.Required))
	for _, n := range s.Required {
		t := "value"
		if p := s.Properties[n]; p != nil && p.Types != nil {
			t = strings.Join(p.Types.ToStrings(), "|")
		}
		parts = append(parts, strconv.Quote(n)+": "+t)
	}
	return " holding its required fields {" + strings.Join(parts, ", ") + "}"
}

// snippet quotes up to 20 bytes around off.
func snippet(raw []byte, off int) string {
	if len(raw) == 0 {
		return ""
	}
	lo, hi := max(off-12, 0), min(off+8, len(raw))
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(raw[lo:hi]), "")), " ")
	if lo > 0 {
		s = "…" + s
	}
	if hi < len(raw) {
		s += "…"
	}
	return "`" + s + "`"
}

// invalid is the result for arguments that break the schema.
func invalid(c *contract, call llm.ToolCall, v any, fes []FieldError) toolresult.Envelope {
	msgs := make([]string, len(fes))
	var hints []string
	for i, fe := range fes {
		msgs[i] = fe.String()
		if fe.Hint != "" && !slices.Contains(hints, fe.Hint) {
			hints = append(hints, fe.Hint)
		}
	}
	n := "1 argument is"
	if len(fes) > 1 {
		n = fmt.Sprintf("%d arguments are", len(fes))
	}
	env := toolresult.Failure(toolresult.InvalidArguments, strings.Join(msgs, "; "))
	env.Summary = callBrief(call.Name, v, c.properties) + " was not run: " + n + " invalid"
	if len(hints) > 5 {
		hints = hints[:5]
	}
	opts := []string{"call " + call.Name + " again with corrected values"}
	if len(hints) > 0 {
		opts[0] += " (" + strings.Join(hints, "; ") + ")"
	}
	if slices.ContainsFunc(fes, func(fe FieldError) bool { return fe.Keyword == "required" }) {
		opts = append(opts, "ask the user for the missing values")
	}
	env.Suggestion = toolresult.Options(opts...)
	return env
}

// fillDefaults fills in the defaults of the parameters schema that v,
// the decoded arguments, lacks; it reports whether it changed v. Only the
// top-level properties that hold a default are visited, when the
// contract knows them (c.withDefaults).
func (c *contract) fillDefaults(v any) bool {
	if !c.hasDefaults {
		return false
	}
	obj, ok := v.(map[string]any)
	if !ok || c.withDefaults == nil {
		return applyDefaults(c.params, v)
	}
	changed := false
	for _, p := range c.withDefaults {
		changed = applyProperty(obj, p.name, p.schema) || changed
	}
	return changed
}

// applyDefaults fills in missing properties that have a default in the
// schema, recursively; it reports whether it changed v.
func applyDefaults(s *jsonschema.Schema, v any) bool {
	s = deref(s)
	if s == nil {
		return false
	}
	changed := false
	for _, sub := range s.AllOf {
		changed = applyDefaults(sub, v) || changed
	}
	switch vv := v.(type) {
	case map[string]any:
		for name, ps := range s.Properties {
			changed = applyProperty(vv, name, ps) || changed
		}
	case []any:
		for i, item := range vv {
			is := s.Items2020
			if i < len(s.PrefixItems) {
				is = s.PrefixItems[i]
			}
			if is != nil {
				changed = applyDefaults(is, item) || changed
			}
		}
	}
	return changed
}

// applyProperty fills in the property name of obj, whose schema is ps:
// its default when it is missing, else the defaults inside it.
func applyProperty(obj map[string]any, name string, ps *jsonschema.Schema) bool {
	cur, present := obj[name]
	if present {
		return applyDefaults(ps, cur)
	}
	if d := deref(ps); d != nil && d.Default != nil {
		obj[name] = deepCopy(*d.Default)
		return true
	}
	return false
}

// deepCopy copies a decoded JSON value, so that defaults are never shared
// between calls.
func deepCopy(v any) any {
	switch vv := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(vv))
		for k, x := range vv {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(vv))
		for i, x := range vv {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

// callBrief renders a call for a summary: name(city=Paris, days=3), the
// arguments in the order of their names, the first four of them. known
// is the sorted names that the schema declares (see briefArgs).
func callBrief(name string, args any, known []string) string {
	name = truncate(name, 80)
	obj, ok := args.(map[string]any)
	if !ok {
		return name + "(…)"
	}
	var buf [8]briefArg
	shown := briefArgs(obj, known, buf[:0])
	var b strings.Builder
	b.Grow(len(name) + 2 + 24*min(len(shown), 5))
	b.WriteString(name)
	b.WriteByte('(')
	for i, a := range shown {
		if i == 4 {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(truncate(a.name, 24))
		b.WriteByte('=')
		b.WriteString(briefValue(a.value))
	}
	b.WriteByte(')')
	return b.String()
}

// A briefArg is one argument of a call, for its brief.
type briefArg struct {
	name  string
	value any
}

// briefArgs appends to args the arguments in obj, sorted by name; or,
// when obj has only names from known (sorted), the first five of them,
// which spares collecting and sorting them all. known is read only when
// it is short next to obj: a lookup costs about what sorting one name
// does.
func briefArgs(obj map[string]any, known []string, args []briefArg) []briefArg {
	if len(known) <= 2*len(obj) {
		n := 0
		for _, k := range known {
			if v, ok := obj[k]; ok {
				if n < 5 {
					args = append(args, briefArg{k, v})
				}
				n++
			}
		}
		if n == len(obj) {
			return args
		}
		args = args[:0]
	}
	for k, v := range obj {
		args = append(args, briefArg{k, v})
	}
	slices.SortFunc(args, func(a, b briefArg) int { return strings.Compare(a.name, b.name) })
	return args
}

func briefValue(v any) string {
	switch v := v.(type) {
	case string:
		return truncate(foldSpace(v), 32)
	case jsonx.Number:
		return truncate(string(v), 32)
	case bool:
		return strconv.FormatBool(v)
	case map[string]any:
		return "{…}"
	case []any:
		return "[" + plural(len(v), "item") + "]"
	case nil:
		return "null"
	}
	return truncate(fmt.Sprint(v), 32)
}

// foldSpace is strings.Join(strings.Fields(s), " "): runs of white space
// become one space, and the ends are trimmed. It does not allocate when s
// is already folded.
func foldSpace(s string) string {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return strings.Join(strings.Fields(s), " ")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if ' ' < c && c < 0x80 {
			continue // most bytes: neither space nor part of a multi-byte rune
		}
		switch {
		case c >= 0x80, c == '\t', c == '\n', c == '\v', c == '\f', c == '\r', c == ' ' && s[i+1] == ' ':
			// s[i+1] exists: s does not end with a space
			return strings.Join(strings.Fields(s), " ")
		}
	}
	return s
}

// successSummary is the generic summary of a successful call; doc, when
// not nil, is data parsed.
func successSummary(brief string, data any, doc *toolresult.JSON) string {
	switch d := data.(type) {
	case nil:
		return brief + ": done"
	case jsontext.Value:
		t := bytes.TrimSpace(d)
		switch {
		case string(t) == "[]" || string(t) == "{}" || string(t) == "null" || string(t) == `""`:
			return brief + ": nothing found"
		case len(t) > 0 && t[0] == '[':
			// Count the elements without decoding them: a result may
			// hold thousands.
			n, ok := 0, false
			if doc != nil {
				n, ok = doc.ArrayLen()
			} else {
				n, ok = arrayLen(t)
			}
			if ok {
				return fmt.Sprintf("%s: %s", brief, plural(n, "item"))
			}
		}
		return brief + ": done"
	}
	b, err := jsonx.Marshal(data)
	if err != nil {
		return brief + ": done"
	}
	return successSummary(brief, jsontext.Value(b), nil)
}

// arrayLen returns the number of elements of t, a JSON array, reading
// them without decoding them.
func arrayLen(t []byte) (int, bool) {
	dec := jsonx.NewDecoder(t)
	if _, err := dec.ReadToken(); err != nil {
		return 0, false
	}
	n := 0
	for k := dec.PeekKind(); k != ']'; k = dec.PeekKind() {
		if k == 0 {
			return 0, false
		}
		if err := dec.SkipValue(); err != nil {
			return 0, false
		}
		n++
	}
	if _, err := dec.ReadToken(); err != nil || jsonx.End(dec, t) != nil {
		return 0, false
	}
	return n, true
}

// dataValue encodes an envelope's data once, for validation: the JSON to
// render, parsed (doc, when data is that JSON already parsed, else nil
// when it is not JSON), and its value decoded from the parse. The value
// is the strict reader's, and so is the error when there is none.
func dataValue(data any, doc *toolresult.JSON) (jsontext.Value, *toolresult.JSON, any, error) {
	b, ok := data.(jsontext.Value)
	if !ok {
		var err error
		if b, err = marshalCompact(data); err != nil {
			return nil, nil, nil, err
		}
		doc, _ = toolresult.ParseJSON(b)
	}
	if doc != nil {
		if v, err := doc.Value(); err == nil {
			return b, doc, v, nil
		}
	}
	v, err := decodeJSON(b) // for its verdict and its words
	if err != nil {
		return nil, nil, nil, err
	}
	return b, doc, v, nil
}

// joinFieldErrors renders at most n field errors.
func joinFieldErrors(fes []FieldError, n int) string {
	parts := make([]string, 0, min(n, len(fes))+1)
	for i, fe := range fes {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(fes)-n))
			break
		}
		parts = append(parts, fe.String())
	}
	return strings.Join(parts, "; ")
}
