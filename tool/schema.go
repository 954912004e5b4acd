package tool

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/toolwire/toolwire/internal/jsonx"
)

// newPrinter returns the printer the schema library renders messages
// with; only rare error kinds need it.
func newPrinter() *message.Printer { return message.NewPrinter(language.English) }

// objectSchema is what a nil Parameters means: any JSON object.
var objectSchema = jsontext.Value(`{"type":"object"}`)

// noLoader refuses every remote or file reference: a tool's schema must be
// self-contained, and a schema read from an untrusted file must not make
// the compiler open files or URLs.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("$ref to %q is not allowed: tool schemas must be self-contained (put shared parts under $defs and use \"$ref\": \"#/$defs/...\")", url)
}

// compileSchema compiles one JSON Schema (draft 2020-12 unless it says
// otherwise in $schema). Formats are asserted, not just annotated: a
// "format": "date" rejects "tomorrow".
func compileSchema(raw jsontext.Value, where string) (*jsonschema.Schema, error) {
	doc, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if _, ok := doc.(map[string]any); !ok {
		if _, isBool := doc.(bool); !isBool {
			return nil, fmt.Errorf("a schema is a JSON object (or true/false), not %s", jsonx.KindPhrase(jsontext.Value(raw).Kind()))
		}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noLoader{})
	url := "toolwire:///" + where + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, schemaCompileError(err, url)
	}
	return s, nil
}

// schemaCompileError turns the compiler's error into one line that points
// into the schema with a dotted path instead of an internal URL.
func schemaCompileError(err error, url string) error {
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		var ve *jsonschema.ValidationError
		if errors.As(sve.Err, &ve) {
			var parts []string
			for _, leaf := range leaves(ve, true) {
				p := dotted(leaf.InstanceLocation, nil)
				msg := leaf.ErrorKind.LocalizedString(newPrinter())
				if p != "" {
					msg = p + ": " + msg
				}
				parts = append(parts, msg)
			}
			slices.Sort(parts)
			parts = slices.Compact(parts)
			return fmt.Errorf("not a valid JSON Schema: %s", strings.Join(parts, "; "))
		}
	}
	msg := err.Error()
	msg = strings.ReplaceAll(msg, url+"#", "#")
	msg = strings.ReplaceAll(msg, url, "the schema")
	return errors.New(msg)
}

// A FieldError is one way a value broke its schema.
type FieldError struct {
	// Path locates the value: "limit", "items[2].name"; "" is the whole
	// value.
	Path string
	// Keyword is the schema keyword that failed: "required", "maximum",
	// "enum", ...
	Keyword string
	// Message says what was received and what the constraint is: "999 is
	// above maximum 10", "required property missing".
	Message string
	// Hint says how to fix it, for a suggestion: "limit at most 10".
	Hint string
}

// String renders the error as "path: message".
func (e FieldError) String() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// validate checks v against s and returns every failure, sorted by path.
func validate(s *jsonschema.Schema, v any) []FieldError {
	err := s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []FieldError{{Message: err.Error()}}
	}
	var out []FieldError
	for _, leaf := range leaves(ve, false) {
		out = append(out, fieldErrors(leaf, v, s)...)
	}
	slices.SortStableFunc(out, func(a, b FieldError) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Keyword, b.Keyword)
	})
	return slices.CompactFunc(out, func(a, b FieldError) bool { return a.Path == b.Path && a.Message == b.Message })
}

// leaves returns the errors that say what is wrong, skipping the
// grouping nodes. anyOf/oneOf/not are reported as one failure: their
// branches' failures would mislead ("must be a string" and "must be a
// number" at once).
// With deep set (for schema authors), the branches are reported too.
func leaves(ve *jsonschema.ValidationError, deep bool) []*jsonschema.ValidationError {
	switch ve.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf, *kind.Not:
		if !deep || len(ve.Causes) == 0 {
			return []*jsonschema.ValidationError{ve}
		}
	}
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leaves(c, deep)...)
	}
	return out
}

// fieldErrors describes one leaf failure; additionalProperties and
// required yield one error per property.
func fieldErrors(ve *jsonschema.ValidationError, root any, s *jsonschema.Schema) []FieldError {
	loc := ve.InstanceLocation
	path := dotted(loc, root)
	val := lookup(root, loc)
	fe := FieldError{Path: path, Keyword: keyword(ve.ErrorKind)}
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		out := make([]FieldError, len(k.Missing))
		for i, m := range k.Missing {
			out[i] = FieldError{Path: join(path, m), Keyword: "required", Message: "required property missing", Hint: "provide " + join(path, m)}
		}
		return out
	case *kind.AdditionalProperties:
		allowed := allowedProperties(s, loc, root)
		out := make([]FieldError, len(k.Properties))
		for i, p := range k.Properties {
			msg := "property not allowed"
			hint := "drop " + join(path, p)
			if near := closest(p, allowed, 1); len(near) > 0 {
				msg += fmt.Sprintf(" (did you mean %s?)", near[0])
				hint = fmt.Sprintf("rename %s to %s", join(path, p), join(path, near[0]))
			} else if len(allowed) > 0 {
				msg += " (allowed: " + strings.Join(allowed, ", ") + ")"
			}
			out[i] = FieldError{Path: join(path, p), Keyword: "additionalProperties", Message: msg, Hint: hint}
		}
		return out
	case *kind.Type:
		wants := make([]string, len(k.Want))
		for i, w := range k.Want {
			wants[i] = article(w)
		}
		want := strings.Join(wants, " or ")
		switch val.(type) {
		case map[string]any, []any:
			fe.Message = fmt.Sprintf("got %s, want %s", article(k.Got), want)
		default:
			fe.Message = fmt.Sprintf("%s is %s, want %s", brief(val), article(k.Got), want)
		}
		fe.Hint = fmt.Sprintf("send %s as %s", nameOr(path), want)
	case *kind.Enum:
		opts := make([]string, len(k.Want))
		for i, w := range k.Want {
			opts[i] = brief(w)
		}
		fe.Message = fmt.Sprintf("%s is not one of %s", brief(k.Got), strings.Join(opts, ", "))
		fe.Hint = fmt.Sprintf("set %s to one of %s", nameOr(path), strings.Join(opts, ", "))
	case *kind.Const:
		fe.Message = fmt.Sprintf("%s is not %s", brief(k.Got), brief(k.Want))
		fe.Hint = fmt.Sprintf("set %s to %s", nameOr(path), brief(k.Want))
	case *kind.Maximum:
		fe.Message, fe.Hint = ratBound(path, k.Got, k.Want, "is above maximum", "at most")
	case *kind.Minimum:
		fe.Message, fe.Hint = ratBound(path, k.Got, k.Want, "is below minimum", "at least")
	case *kind.ExclusiveMaximum:
		fe.Message, fe.Hint = ratBound(path, k.Got, k.Want, "is not below exclusive maximum", "below")
	case *kind.ExclusiveMinimum:
		fe.Message, fe.Hint = ratBound(path, k.Got, k.Want, "is not above exclusive minimum", "above")
	case *kind.MultipleOf:
		fe.Message, fe.Hint = ratBound(path, k.Got, k.Want, "is not a multiple of", "a multiple of")
	case *kind.MinLength:
		fe.Message = fmt.Sprintf("%s has %d characters, below minLength %d", brief(val), k.Got, k.Want)
		fe.Hint = fmt.Sprintf("%s with at least %s", nameOr(path), plural(k.Want, "character"))
	case *kind.MaxLength:
		fe.Message = fmt.Sprintf("%s has %d characters, above maxLength %d", brief(val), k.Got, k.Want)
		fe.Hint = fmt.Sprintf("%s with at most %s", nameOr(path), plural(k.Want, "character"))
	case *kind.Pattern:
		fe.Message = fmt.Sprintf("%s does not match pattern %s", brief(k.Got), k.Want)
		fe.Hint = fmt.Sprintf("%s matching %s", nameOr(path), k.Want)
	case *kind.Format:
		fe.Message = fmt.Sprintf("%s is not a valid %s", brief(k.Got), k.Want)
		fe.Hint = fmt.Sprintf("%s as a valid %s", nameOr(path), k.Want)
	case *kind.MinItems:
		fe.Message = fmt.Sprintf("%s, below minItems %d", plural(k.Got, "item"), k.Want)
		fe.Hint = fmt.Sprintf("%s with at least %s", nameOr(path), plural(k.Want, "item"))
	case *kind.MaxItems:
		fe.Message = fmt.Sprintf("%s, above maxItems %d", plural(k.Got, "item"), k.Want)
		fe.Hint = fmt.Sprintf("%s with at most %s", nameOr(path), plural(k.Want, "item"))
	case *kind.UniqueItems:
		fe.Message = fmt.Sprintf("items %d and %d are equal, want unique items", k.Duplicates[0], k.Duplicates[1])
		fe.Hint = fmt.Sprintf("%s without duplicates", nameOr(path))
	case *kind.MinProperties:
		fe.Message = fmt.Sprintf("%d properties, below minProperties %d", k.Got, k.Want)
	case *kind.MaxProperties:
		fe.Message = fmt.Sprintf("%d properties, above maxProperties %d", k.Got, k.Want)
	case *kind.AnyOf:
		fe.Message = fmt.Sprintf("%s matches none of the allowed shapes (anyOf)", brief(val))
	case *kind.OneOf:
		if len(k.Subschemas) > 1 {
			fe.Message = fmt.Sprintf("%s matches more than one of the allowed shapes (oneOf)", brief(val))
		} else {
			fe.Message = fmt.Sprintf("%s matches none of the allowed shapes (oneOf)", brief(val))
		}
	case *kind.FalseSchema:
		fe.Message = "no value is allowed here"
		fe.Hint = "leave out " + nameOr(path)
	default:
		fe.Message = ve.ErrorKind.LocalizedString(newPrinter())
	}
	return []FieldError{fe}
}

// keyword names the schema keyword of an error kind.
func keyword(k jsonschema.ErrorKind) string {
	if p := k.KeywordPath(); len(p) > 0 {
		return p[0]
	}
	return ""
}

// allowedProperties lists the declared properties of the object schema
// that applies at loc, for "did you mean".
func allowedProperties(s *jsonschema.Schema, loc []string, root any) []string {
	cur := s
	v := root
	for _, tok := range loc {
		cur = deref(cur)
		if cur == nil {
			return nil
		}
		switch vv := v.(type) {
		case map[string]any:
			cur = cur.Properties[tok]
			v = vv[tok]
		case []any:
			i, _ := strconv.Atoi(tok)
			if i >= 0 && i < len(cur.PrefixItems) {
				cur = cur.PrefixItems[i]
			} else {
				cur = cur.Items2020
			}
			if i >= 0 && i < len(vv) {
				v = vv[i]
			}
		default:
			return nil
		}
	}
	cur = deref(cur)
	if cur == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(cur.Properties))
}

// deref follows $ref.
func deref(s *jsonschema.Schema) *jsonschema.Schema {
	for i := 0; s != nil && s.Ref != nil && i < 32; i++ {
		if len(s.Properties) > 0 || s.Items2020 != nil {
			return s
		}
		s = s.Ref
	}
	return s
}

// lookup returns the value at loc, or nil.
func lookup(v any, loc []string) any {
	for _, tok := range loc {
		switch vv := v.(type) {
		case map[string]any:
			v = vv[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(vv) {
				return nil
			}
			v = vv[i]
		default:
			return nil
		}
	}
	return v
}

// dotted renders an instance location as "items[2].name". With a nil
// root, numeric tokens are taken as array indices.
func dotted(loc []string, root any) string {
	var b strings.Builder
	v := root
	for _, tok := range loc {
		isIndex := false
		switch vv := v.(type) {
		case []any:
			isIndex = true
			i, _ := strconv.Atoi(tok)
			if i >= 0 && i < len(vv) {
				v = vv[i]
			}
		case map[string]any:
			v = vv[tok]
		default:
			if root == nil {
				_, err := strconv.Atoi(tok)
				isIndex = err == nil
			}
		}
		if isIndex {
			b.WriteString("[" + tok + "]")
			continue
		}
		b.WriteString(join(b.String(), tok)[b.Len():])
	}
	return b.String()
}

// join appends a property name to a path.
func join(path, name string) string {
	if !isIdent(name) {
		return path + "[" + strconv.Quote(name) + "]"
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || r == '-' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9') {
			continue
		}
		return false
	}
	return true
}

func nameOr(path string) string {
	if path == "" {
		return "the arguments"
	}
	return path
}

// article puts "a" or "an" before a JSON type name.
func article(t string) string {
	switch {
	case t == "null":
		return "null"
	case strings.HasPrefix(t, "a") || strings.HasPrefix(t, "i") || strings.HasPrefix(t, "o"):
		return "an " + t
	}
	return "a " + t
}

// rat renders a number the way it was most likely written.
// ratBound words a numeric bound that a value breaks: the message "7 is
// above maximum 5" and the hint "path at most 5".
func ratBound(path string, got, want *big.Rat, is, fix string) (message, hint string) {
	return fmt.Sprintf("%s %s %s", rat(got), is, rat(want)), fmt.Sprintf("%s %s %s", nameOr(path), fix, rat(want))
}

func rat(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// brief renders a received value in at most about 40 characters.
func brief(v any) string {
	var s string
	switch v := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return fmt.Sprintf("an array of %d", len(v))
	case string:
		s = strconv.Quote(truncate(v, 40))
	default:
		b, err := jsonx.Marshal(v)
		if err != nil {
			return fmt.Sprint(v)
		}
		s = string(b)
	}
	return s
}

// truncate cuts s to at most n runes, marking the cut with "…".
func truncate(s string, n int) string {
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
