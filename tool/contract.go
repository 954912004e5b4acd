package tool

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolwire/toolwire/internal/jsonx"
)

// namePattern is the tool-name rule that every provider accepts
// (PROVIDER-RULES §1: Gemini wants a letter or underscore first, the
// others accept that; 64 characters at most).
var namePattern = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`)

// placeholderPattern finds {param} placeholders in an HTTP binding's URL.
var placeholderPattern = regexp.MustCompile(`\{([^{}]*)\}`)

// A SpecError says why a [Spec] is not a valid contract: which tool, which
// field (a dotted path such as "parameters.properties.days.default"), and
// what is wrong.
type SpecError struct {
	Tool  string // the tool's name as given
	Field string // where in the spec: "name", "parameters", "http.url", ...
	Err   error
}

// Error renders "tool NAME: FIELD: problem".
func (e *SpecError) Error() string {
	name := e.Tool
	if name == "" {
		name = "(unnamed)"
	}
	return fmt.Sprintf("tool %s: %s: %v", name, e.Field, e.Err)
}

// Unwrap returns the underlying error.
func (e *SpecError) Unwrap() error { return e.Err }

// Validate reports whether s is a contract the runtime can enforce: a name
// that every provider accepts, schemas that compile (draft 2020-12,
// self-contained, an object schema for the parameters), defaults that
// satisfy their own schemas, a known idempotency level, a non-negative
// timeout, and a usable HTTP binding. Every problem is reported, each as a
// [*SpecError], joined with [errors.Join].
//
// Validate does not judge style (missing descriptions, unbounded strings):
// that is the lint package's job.
func (s Spec) Validate() error {
	_, err := compileSpec(s)
	return err
}

// contract is a validated spec with its schemas compiled once.
type contract struct {
	spec    Spec
	params  *jsonschema.Schema // never nil
	returns *jsonschema.Schema // nil when undeclared
	// proven is set for a [Func] whose results its return schema cannot
	// reject (see provenType): they are not validated at run time.
	proven      bool
	hasDefaults bool     // params declare a default somewhere
	properties  []string // the parameters' top-level properties, sorted
	// withDefaults is the top-level properties whose schemas hold a
	// default, their own or deeper down: all that fillDefaults need
	// visit. It is nil when the root schema combines others (allOf).
	withDefaults []namedSchema
}

// A namedSchema is a property's name and its schema.
type namedSchema struct {
	name   string
	schema *jsonschema.Schema
}

// compileSpec validates s and compiles its schemas.
func compileSpec(s Spec) (*contract, error) {
	var errs []error
	fail := func(field string, format string, args ...any) {
		errs = append(errs, &SpecError{Tool: s.Name, Field: field, Err: fmt.Errorf(format, args...)})
	}
	if !namePattern.MatchString(s.Name) {
		fail("name", "%s", nameProblem(s.Name))
	}
	c := &contract{spec: s}
	where := s.Name
	if !namePattern.MatchString(where) {
		where = "tool"
	}
	params := s.Parameters
	if len(params) == 0 || string(params) == "null" {
		params = objectSchema
	}
	if sch, err := compileSchema(params, where+"/parameters"); err != nil {
		fail("parameters", "%v", err)
	} else {
		c.params = sch
		if t := sch.Types; sch.Bool == nil && (t == nil || !slices.Contains(t.ToStrings(), "object") || len(t.ToStrings()) != 1) {
			fail("parameters", `the root must be an object schema ("type": "object"): providers send arguments as a JSON object`)
		}
		for _, e := range checkDefaults(sch, "parameters") {
			errs = append(errs, &SpecError{Tool: s.Name, Field: e.field, Err: e.err})
		}
		c.hasDefaults = hasDefaults(sch)
		for n := range sch.Properties {
			c.properties = append(c.properties, n)
		}
		slices.Sort(c.properties)
		if root := deref(sch); c.hasDefaults && root != nil && len(root.AllOf) == 0 {
			c.withDefaults = []namedSchema{}
			for _, n := range slices.Sorted(maps.Keys(root.Properties)) {
				if ps := root.Properties[n]; hasDefaults(ps) {
					c.withDefaults = append(c.withDefaults, namedSchema{n, ps})
				}
			}
		}
	}
	if len(s.Returns) > 0 && string(s.Returns) != "null" {
		if sch, err := compileSchema(s.Returns, where+"/returns"); err != nil {
			fail("returns", "%v", err)
		} else {
			c.returns = sch
			for _, e := range checkDefaults(sch, "returns") {
				errs = append(errs, &SpecError{Tool: s.Name, Field: e.field, Err: e.err})
			}
		}
	}
	switch s.Idempotency {
	case "", Level0, Level1, Level2:
	default:
		fail("idempotency", "%q is not a level (want level_0, level_1 or level_2)", s.Idempotency)
	}
	if s.Timeout < 0 {
		fail("timeout", "%v is negative (use 0 for the executor's default)", s.Timeout)
	}
	if err := s.Shape.Validate(); err != nil {
		fail("shape", "%s", strings.TrimPrefix(err.Error(), "toolresult: invalid shaping rules: "))
	}
	if s.HTTP != nil {
		for _, e := range checkHTTP(s.HTTP, c.params) {
			errs = append(errs, &SpecError{Tool: s.Name, Field: e.field, Err: e.err})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// nameProblem explains why name breaks the name rule.
func nameProblem(name string) string {
	const rule = "a letter or underscore, then up to 63 letters, digits, underscores or hyphens"
	switch {
	case name == "":
		return "the name is empty (want " + rule + ")"
	case len(name) > 64:
		return fmt.Sprintf("%q is %d bytes long, above the 64 that every provider accepts", truncate(name, 40), len(name))
	case !(name[0] == '_' || (name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z')):
		return fmt.Sprintf("%q starts with %q; Gemini requires a letter or underscore first", name, string([]rune(name)[0]))
	}
	for _, r := range name {
		if !(r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			return fmt.Sprintf("%q contains %q; use only letters, digits, underscores and hyphens", name, string(r))
		}
	}
	return fmt.Sprintf("%q is not %s", name, rule)
}

type fieldProblem struct {
	field string
	err   error
}

// checkDefaults validates every "default" in a compiled schema against the
// schema it sits in.
func checkDefaults(root *jsonschema.Schema, prefix string) []fieldProblem {
	var out []fieldProblem
	walkSchema(root, func(s *jsonschema.Schema) {
		if s.Default == nil {
			return
		}
		if fes := validate(s, *s.Default); len(fes) > 0 {
			msgs := make([]string, len(fes))
			for i, fe := range fes {
				msgs[i] = fe.String()
			}
			out = append(out, fieldProblem{
				field: schemaField(prefix, s.Location) + ".default",
				err:   fmt.Errorf("the default %s breaks its own schema: %s", brief(*s.Default), strings.Join(msgs, "; ")),
			})
		}
	})
	slices.SortFunc(out, func(a, b fieldProblem) int { return strings.Compare(a.field, b.field) })
	return out
}

func hasDefaults(root *jsonschema.Schema) bool {
	found := false
	walkSchema(root, func(s *jsonschema.Schema) {
		if s.Default != nil {
			found = true
		}
	})
	return found
}

// walkSchema calls f on every subschema of root once.
func walkSchema(root *jsonschema.Schema, f func(*jsonschema.Schema)) {
	seen := map[*jsonschema.Schema]bool{}
	var walk func(*jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		f(s)
		walk(s.Ref)
		walk(s.Not)
		walk(s.If)
		walk(s.Then)
		walk(s.Else)
		walk(s.PropertyNames)
		walk(s.Items2020)
		walk(s.Contains)
		walk(s.UnevaluatedItems)
		walk(s.UnevaluatedProperties)
		walk(s.ContentSchema)
		for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems} {
			for _, c := range l {
				walk(c)
			}
		}
		for _, m := range []map[string]*jsonschema.Schema{s.Properties, s.DependentSchemas} {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				walk(m[k])
			}
		}
		for _, c := range s.PatternProperties {
			walk(c)
		}
		if c, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			walk(c)
		}
		if c, ok := s.Items.(*jsonschema.Schema); ok {
			walk(c)
		}
	}
	walk(root)
}

// schemaField turns a compiled schema's location
// ("toolwire:///x/parameters.json#/properties/days") into a dotted field
// ("parameters.properties.days").
func schemaField(prefix, location string) string {
	_, frag, _ := strings.Cut(location, "#")
	frag = strings.TrimPrefix(frag, "/")
	if frag == "" {
		return prefix
	}
	parts := strings.Split(frag, "/")
	for i, p := range parts {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		if u, err := url.PathUnescape(p); err == nil {
			p = u
		}
		parts[i] = p
	}
	return prefix + "." + strings.Join(parts, ".")
}

// The HTTP methods an [HTTPBinding] may use.
var httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// checkHTTP validates an HTTP binding against the parameters schema.
func checkHTTP(h *HTTPBinding, params *jsonschema.Schema) []fieldProblem {
	var out []fieldProblem
	if h.Method != "" && !slices.Contains(httpMethods, h.Method) {
		out = append(out, fieldProblem{"http.method", fmt.Errorf("%q is not one of %s", h.Method, strings.Join(httpMethods, ", "))})
	}
	// A digit stands for each placeholder: it keeps a placeholder in the
	// port parseable, for parseURLTemplate to report.
	u, err := url.Parse(placeholderPattern.ReplaceAllString(h.URL, "1"))
	switch {
	case h.URL == "":
		out = append(out, fieldProblem{"http.url", errors.New("the URL is empty")})
	case err != nil:
		out = append(out, fieldProblem{"http.url", fmt.Errorf("%q does not parse: %v", h.URL, err)})
	case u.Scheme != "http" && u.Scheme != "https":
		out = append(out, fieldProblem{"http.url", fmt.Errorf("%q is not an absolute http or https URL", h.URL)})
	case u.Host == "":
		out = append(out, fieldProblem{"http.url", fmt.Errorf("%q has no host", h.URL)})
	default:
		_, errs := parseURLTemplate(h.URL)
		for _, err := range errs {
			out = append(out, fieldProblem{"http.url", err})
		}
	}
	if params != nil {
		for _, m := range placeholderPattern.FindAllStringSubmatch(h.URL, -1) {
			name := m[1]
			switch {
			case params.Properties[name] == nil:
				out = append(out, fieldProblem{"http.url", fmt.Errorf("placeholder {%s} names no property of the parameters", name)})
			case !slices.Contains(params.Required, name) && params.Properties[name].Default == nil:
				out = append(out, fieldProblem{"http.url", fmt.Errorf("placeholder {%s} names an optional property without a default; make it required", name)})
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(h.Headers)) {
		if k == "" || strings.ContainsAny(k, " :\r\n\t") {
			out = append(out, fieldProblem{"http.headers", fmt.Errorf("%q is not a valid header name", k)})
		}
		if strings.ContainsAny(h.Headers[k], "\r\n") {
			out = append(out, fieldProblem{"http.headers." + k, errors.New("the value contains a line break")})
		}
	}
	return out
}

// marshalCompact renders a value of the program's own types compactly, by
// encoding/json's rules, without HTML escaping.
func marshalCompact(v any) (jsontext.Value, error) {
	return jsonx.Marshal(v)
}
