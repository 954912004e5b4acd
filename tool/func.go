package tool

import (
	"context"
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/toolresult"
)

// FuncOptions completes the contract of a [Func] tool. A nil *FuncOptions
// means defaults: no idempotency level (never retried), the executor's
// timeout, no approval, schemas inferred from the Go types.
type FuncOptions struct {
	// Idempotency is the tool's retry level; "" (undeclared) is treated
	// as [Level0]: never retried.
	Idempotency Idempotency
	// Timeout bounds one attempt; 0 means the executor's default.
	Timeout time.Duration
	// RequiresApproval asks the executor's Approver before every call.
	RequiresApproval bool
	// Strict asks the provider to constrain arguments to the schema.
	Strict bool
	// Parameters, when set, replaces the schema inferred from In.
	Parameters jsontext.Value
	// Returns, when set, replaces the schema inferred from Out. The
	// results of a Func are then validated against it at run time.
	//
	// When Returns is nil, whether they are depends on Out (see [Func]):
	// a schema inferred from a type of plain data, with no constraint
	// tags, holds what the compiler already proved, and is not checked
	// again; a schema with constraints the type does not prove
	// (minimum, pattern, enum, format, minLength, ...), or inferred from a
	// type whose encoding it may not describe, is.
	Returns jsontext.Value
	// Shape says how the output is shaped to fit the context (the
	// fields that matter, a sort key for top N, a record cap); the zero
	// value lets the pipeline decide.
	Shape toolresult.Rules
}

// funcTool is a typed Go tool; see [Func].
type funcTool[In, Out any] struct {
	c  *contract
	fn func(context.Context, In) (Out, error)
	// plainIn and plainOut report that decoding In and encoding Out run
	// no code of the program's own (see plainJSON): the executor then
	// does them on its own goroutine, and only fn runs under the
	// attempt's deadline.
	plainIn, plainOut bool
}

// Func returns a tool that calls fn, with a contract inferred from the Go
// types: the parameters schema from In (a struct), the return schema from
// Out. When it is called, the raw JSON arguments are validated against
// the schema before they are decoded, schema defaults are filled in, fn
// runs, and its result is validated against the return schema unless Out
// proves it (see below).
//
// The schema of In follows encoding/json: a field's JSON name is its json
// tag's name; a field without omitempty/omitzero is required unless it has
// a default. These struct tags add to a field's schema (on a slice field,
// the string and number constraints apply to its items):
//
//	jsonschema:"City name, e.g. Paris"    the description (also description:"…")
//	pattern:"^[A-Z]{3}$"                  a regular expression (RE2)
//	format:"date"                         date, date-time, email, uri, uuid, ...
//	enum:"celsius|fahrenheit"             the allowed values, separated by |
//	minimum:"1" maximum:"14"              bounds (also exclusiveMinimum, exclusiveMaximum, multipleOf)
//	minLength:"1" maxLength:"80"          string length in characters
//	minItems:"1" maxItems:"10" uniqueItems:"true"
//	default:"celsius"                     the default; JSON for non-string fields: default:"3", default:"[\"a\"]"
//
// If Out is [toolresult.Envelope], fn has full control of the result and no
// return schema is inferred; if Out implements [Summarizer], its summary
// is used. Func fails if a tag does not parse, a default breaks its own
// schema, or the types cannot be described by JSON Schema.
//
// Run by an [Executor], a result is validated against the return schema
// only where the schema says more than the type: a schema inferred from
// Out without constraint tags describes every value the compiler lets fn
// return, so checking each result against it would only cost time. Out is
// proven, and its results not validated, when it is built from
//
//	bool, string, the integer and floating-point types (their ranges
//	are the schema's bounds), time.Time (always RFC 3339), pointers,
//	slices (not []byte), arrays, maps with string keys, and structs
//	whose exported fields have no constraint tag (pattern to uniqueItems
//	above; description and default are not constraints), no
//	",string" option, distinct JSON names, and no embedded fields
//
// and nothing else: no interface (any), jsontext.Value, json.RawMessage, json.Number,
// []byte (base64 on the wire, an array of integers in the schema), no
// type with its own MarshalJSON or MarshalText but time.Time. Results of
// every other Out, of a Func given [FuncOptions].Returns, and of every tool
// that is not a Func (an HTTP tool's body is untrusted bytes) are
// validated.
//
// Run by an [Executor], a Func's attempt deadline and panic recovery
// cover fn, and also the decoding of In and the encoding of Out whenever
// those run code of the program's own (MarshalJSON, UnmarshalJSON,
// MarshalText, UnmarshalText, Summary, or values behind an interface).
// Plain data types are decoded and encoded by the executor itself, outside
// the deadline and still panic-safe, straight from the value it validated.
func Func[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error), opts *FuncOptions) (Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("tool: func %q: fn is nil", name)
	}
	if opts == nil {
		opts = &FuncOptions{}
	}
	spec := Spec{Name: name, Description: description, Idempotency: opts.Idempotency,
		Timeout: opts.Timeout, RequiresApproval: opts.RequiresApproval, Strict: opts.Strict, Shape: opts.Shape}
	var err error
	if spec.Parameters = opts.Parameters; spec.Parameters == nil {
		if spec.Parameters, err = inferSchema(reflect.TypeFor[In](), true); err != nil {
			return nil, fmt.Errorf("tool: func %q: parameters: %w", name, err)
		}
	}
	if spec.Returns = opts.Returns; spec.Returns == nil {
		switch reflect.TypeFor[Out]() {
		case reflect.TypeFor[toolresult.Envelope](), reflect.TypeFor[jsontext.Value](), reflect.TypeFor[any]():
		default:
			if spec.Returns, err = InferSchema[Out](); err != nil {
				return nil, fmt.Errorf("tool: func %q: returns: %w", name, err)
			}
		}
	}
	c, err := compileSpec(spec)
	if err != nil {
		return nil, fmt.Errorf("tool: func: %w", err)
	}
	in, out := reflect.TypeFor[In](), reflect.TypeFor[Out]()
	c.proven = opts.Returns == nil && provenType(out)
	t := &funcTool[In, Out]{c: c, fn: fn,
		plainIn:  plainJSON(in),
		plainOut: plainJSON(out) && !out.Implements(reflect.TypeFor[Summarizer]()),
	}
	return t, nil
}

// MustFunc is like [Func] but panics on error; it is for static wiring.
func MustFunc[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error), opts *FuncOptions) Tool {
	t, err := Func(name, description, fn, opts)
	if err != nil {
		panic(err)
	}
	return t
}

// Spec returns the tool's contract.
func (t *funcTool[In, Out]) Spec() Spec { return t.c.spec }

func (t *funcTool[In, Out]) contract() *contract { return t.c }

// Call validates args against the parameters schema, fills in defaults,
// decodes them into In and calls fn. Called by an [Executor], validation
// is not repeated.
func (t *funcTool[In, Out]) Call(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
	v, err := decodeJSON(args)
	if err != nil {
		return toolresult.Envelope{}, Errorf(toolresult.MalformedArguments, "the arguments are not valid JSON: %v", err)
	}
	if fes := validate(t.c.params, v); len(fes) > 0 {
		return toolresult.Envelope{}, Errorf(toolresult.InvalidArguments, "%s", joinFieldErrors(fes, 10))
	}
	p := prepared{args: args, value: v}
	p.defaulted = t.c.fillDefaults(v)
	var in In
	if err := t.decodeIn(&p, &in); err != nil {
		return toolresult.Envelope{}, err
	}
	out, err := t.fn(ctx, in)
	if err != nil {
		return toolresult.Envelope{}, err
	}
	return t.encode(out)
}

// decodeIn decodes prepared arguments into in (which is zero).
func (t *funcTool[In, Out]) decodeIn(p *prepared, in *In) error {
	args, err := p.json()
	if err != nil {
		return err
	}
	return t.decode(args, in)
}

// decode decodes validated arguments into in.
func (t *funcTool[In, Out]) decode(args jsontext.Value, in *In) error {
	// Names match as encoding/json matched them, without regard to case
	// (issue 7's behaviour, which TestDefaultsReachEveryTool holds): the
	// one place where the strict layer's case-sensitive rule is relaxed.
	if err := jsonv2.Unmarshal(args, in, jsonv2.MatchCaseInsensitiveNames(true)); err != nil {
		return Errorf(toolresult.InvalidArguments, "the arguments do not fit the tool's input: %s", decodeProblem(err))
	}
	return nil
}

// encode renders fn's result.
func (t *funcTool[In, Out]) encode(out Out) (toolresult.Envelope, error) {
	v := any(out) // boxed once: each conversion of an Out allocates
	if env, ok := v.(toolresult.Envelope); ok {
		return env, nil
	}
	data, err := marshalCompact(v)
	if err != nil {
		return toolresult.Envelope{}, Errorf(toolresult.InternalError, "the result could not be encoded as JSON: %v", err)
	}
	env := toolresult.Envelope{Status: "success", Data: data}
	if s, ok := v.(Summarizer); ok {
		env.Summary = s.Summary()
	}
	return env, nil
}

// bind prepares one attempt for the executor; see [bound]. The arguments
// are decoded afresh for every attempt: fn may have changed the last In.
func (t *funcTool[In, Out]) bind(p prepared) (bound, error) {
	c := &funcCall[In, Out]{t: t}
	if !t.plainIn {
		args, err := p.json()
		if err != nil {
			return nil, err
		}
		c.args = args // decoded by run, under the deadline
		return c, nil
	}
	if err := t.decodeIn(&p, &c.in); err != nil {
		return nil, err
	}
	return c, nil
}

// funcCall is one attempt of a [Func] tool.
type funcCall[In, Out any] struct {
	t    *funcTool[In, Out]
	args jsontext.Value // still to decode, when In is not plain
	in   In
	out  Out                 // still to encode, when Out is plain
	env  toolresult.Envelope // already encoded, when Out is not plain
	err  error
}

func (c *funcCall[In, Out]) run(ctx context.Context) error {
	if !c.t.plainIn {
		if err := c.t.decode(c.args, &c.in); err != nil {
			return err
		}
	}
	out, err := c.t.fn(ctx, c.in)
	if err != nil {
		return err
	}
	if c.t.plainOut {
		c.out = out
	} else {
		c.env, c.err = c.t.encode(out)
	}
	return nil
}

func (c *funcCall[In, Out]) result() (toolresult.Envelope, error) {
	if c.t.plainOut {
		return c.t.encode(c.out)
	}
	return c.env, c.err
}

// plainJSON reports whether encoding/json decodes and encodes values of t
// without calling methods of the program's own types: no json.Marshaler,
// json.Unmarshaler (or their v2 forms), encoding.TextMarshaler or
// encoding.TextUnmarshaler anywhere in t, except in time.Time, json.Number,
// json.RawMessage and jsontext.Value, and
// no interface that could hold one.
func plainJSON(t reflect.Type) bool {
	return plainType(t, map[reflect.Type]bool{})
}

// hasJSONMethods reports whether t or *t has JSON or text methods, which
// encoding/json calls instead of applying its own rules.
func hasJSONMethods(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	for _, m := range [...]reflect.Type{
		reflect.TypeFor[jsonv2.Marshaler](), reflect.TypeFor[jsonv2.Unmarshaler](),
		reflect.TypeFor[jsonv2.MarshalerTo](), reflect.TypeFor[jsonv2.UnmarshalerFrom](),
		reflect.TypeFor[encoding.TextMarshaler](), reflect.TypeFor[encoding.TextUnmarshaler](),
	} {
		if t.Implements(m) || pt.Implements(m) {
			return true
		}
	}
	return false
}

func plainType(t reflect.Type, seen map[reflect.Type]bool) bool {
	switch t {
	case reflect.TypeFor[time.Time](), reflect.TypeFor[jsonx.Number](), reflect.TypeFor[jsonx.RawMessage](), reflect.TypeFor[jsontext.Value]():
		return true
	}
	if seen[t] {
		return true
	}
	seen[t] = true
	if t.Kind() == reflect.Pointer {
		return plainType(t.Elem(), seen)
	}
	if hasJSONMethods(t) {
		return false
	}
	switch t.Kind() {
	case reflect.Interface:
		return false
	case reflect.Slice, reflect.Array:
		return plainType(t.Elem(), seen)
	case reflect.Map:
		return plainType(t.Key(), seen) && plainType(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if !plainType(t.Field(i).Type, seen) {
				return false
			}
		}
	}
	return true
}

// constraintTags are the struct tags that add to a field's schema a
// constraint its Go type does not prove (see applyFieldTags).
var constraintTags = []string{
	"pattern", "format", "enum",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "minItems", "maxItems", "uniqueItems",
}

// provenType reports whether every value of t, encoded by encoding/json,
// satisfies the schema [InferSchema] derives from t: the rule of [Func]
// for results that need no validation at run time. It errs on the side
// of false: a type it does not know is validated.
func provenType(t reflect.Type) bool {
	return proven(t, map[reflect.Type]bool{})
}

func proven(t reflect.Type, seen map[reflect.Type]bool) bool {
	switch t {
	case reflect.TypeFor[time.Time]():
		return true // MarshalJSON writes RFC 3339 (format date-time) or fails
	case reflect.TypeFor[jsonx.Number](), reflect.TypeFor[jsonx.RawMessage](), reflect.TypeFor[jsontext.Value]():
		return false // a number under a string schema; any JSON
	}
	if seen[t] {
		return true // a cycle, which the schema inference refuses anyway
	}
	seen[t] = true
	if t.Kind() == reflect.Pointer {
		return proven(t.Elem(), seen) // nil is null, which the schema allows
	}
	if hasJSONMethods(t) {
		return false // its encoding is its own, not what the schema describes
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Slice:
		// []byte is written in base64, a string; its schema is an array.
		return t.Elem().Kind() != reflect.Uint8 && proven(t.Elem(), seen)
	case reflect.Array:
		return proven(t.Elem(), seen)
	case reflect.Map:
		k := t.Key()
		return k.Kind() == reflect.String && !hasJSONMethods(k) && proven(t.Elem(), seen)
	case reflect.Struct:
		return provenStruct(t, seen)
	}
	return false // interfaces, and what JSON cannot hold
}

// provenStruct is [proven] for a struct: each field encoded as the schema
// says, under its own name, with nothing but its type to satisfy.
func provenStruct(t reflect.Type, seen map[reflect.Type]bool) bool {
	names := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return false // promoted fields, a nil embedded pointer: not modelled
		}
		if !f.IsExported() {
			continue
		}
		name, _, skip := jsonField(f)
		if skip {
			continue
		}
		if _, opts, _ := strings.Cut(f.Tag.Get("json"), ","); slices.Contains(strings.Split(opts, ","), "string") {
			return false // a number or bool written as a string
		}
		for _, k := range constraintTags {
			if _, ok := f.Tag.Lookup(k); ok {
				return false
			}
		}
		if names[name] || !proven(f.Type, seen) {
			return false // encoding/json drops both fields of a name
		}
		names[name] = true
	}
	return true
}

// decodeProblem rephrases a decode error: the dotted path of the value,
// its JSON kind and the Go type it does not fit.
func decodeProblem(err error) string {
	var se *jsonv2.SemanticError
	if errors.As(err, &se) && se.JSONPointer != "" && se.GoType != nil {
		path := strings.Join(slices.Collect(se.JSONPointer.Tokens()), ".")
		return fmt.Sprintf("%s: %s does not fit %s", path, kindName(se.JSONKind), se.GoType)
	}
	return shortMessage(err.Error(), "decode failed")
}

// kindName names a JSON kind as encoding/json's errors do.
func kindName(k jsontext.Kind) string {
	switch k {
	case 't', 'f':
		return "bool"
	case 0:
		return "value"
	}
	return k.String()
}

// InferSchema returns the JSON Schema of T as [Func] infers a result's,
// with the constraints of T's struct tags (see [Func]): a slice or map may
// be null, which is how encoding/json writes a nil one. (For arguments,
// Func narrows them to non-null: a model should send [] rather than null.)
//
// A time.Time is a string of format date-time (RFC 3339), the form
// encoding/json reads and writes it in.
func InferSchema[T any]() (jsontext.Value, error) {
	return inferSchema(reflect.TypeFor[T](), false)
}

// inferSchema is [InferSchema] of t; forInput narrows slices and maps to
// non-null.
func inferSchema(t reflect.Type, forInput bool) (jsontext.Value, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[time.Time](): {Type: "string", Format: "date-time"},
	}})
	if err != nil {
		return nil, err
	}
	if err := applyTags(t, s, forInput, t.String()); err != nil {
		return nil, err
	}
	return marshalCompact(s)
}

// applyTags walks a type and its inferred schema together and applies
// the constraint tags of struct fields.
func applyTags(t reflect.Type, s *jsonschema.Schema, forInput bool, where string) error {
	if s == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if forInput {
		if (t.Kind() == reflect.Slice || t.Kind() == reflect.Map) && len(s.Types) == 2 && s.Types[0] == "null" {
			s.Type, s.Types = s.Types[1], nil
		}
	} else if t.Kind() == reflect.Map && s.Type == "object" {
		// encoding/json writes a nil map as null, as it does a nil slice,
		// which the schema inference already allows.
		s.Type, s.Types = "", []string{"null", "object"}
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return applyTags(t.Elem(), s.Items, forInput, where+"[]")
	case reflect.Map:
		return applyTags(t.Elem(), s.AdditionalProperties, forInput, where+"{}")
	case reflect.Struct:
	default:
		return nil
	}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name, optional, skip := jsonField(f)
		if skip {
			continue
		}
		ps := s.Properties[name]
		if ps == nil {
			continue
		}
		fw := where + "." + f.Name
		if err := applyTags(f.Type, ps, forInput, fw); err != nil {
			return err
		}
		hasDefault, err := applyFieldTags(f, ps)
		if err != nil {
			return fmt.Errorf("field %s: %w", fw, err)
		}
		if hasDefault || optional {
			s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
		}
	}
	if len(s.Required) == 0 {
		s.Required = nil
	}
	return nil
}

// jsonField returns a struct field's JSON name, whether it is optional,
// and whether encoding/json skips it.
func jsonField(f reflect.StructField) (name string, optional, skip bool) {
	name = f.Name
	tag, ok := f.Tag.Lookup("json")
	if !ok {
		return name, false, false
	}
	n, rest, found := strings.Cut(tag, ",")
	if n == "-" && !found {
		return "", false, true
	}
	if n != "" {
		name = n
	}
	for _, o := range strings.Split(rest, ",") {
		if o == "omitempty" || o == "omitzero" {
			optional = true
		}
	}
	return name, optional, false
}

// applyFieldTags applies one field's constraint tags to its schema; it
// reports whether the field has a default.
func applyFieldTags(f reflect.StructField, s *jsonschema.Schema) (bool, error) {
	tag := f.Tag
	target := s // where value constraints go: the items, for a slice
	ft := f.Type
	for ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	if (ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array) && s.Items != nil && ft.Elem().Kind() != reflect.Uint8 {
		target = s.Items
	}
	if d, ok := tag.Lookup("description"); ok {
		s.Description = d
	}
	if p, ok := tag.Lookup("pattern"); ok {
		target.Pattern = p
	}
	if p, ok := tag.Lookup("format"); ok {
		target.Format = p
	}
	if e, ok := tag.Lookup("enum"); ok {
		if e == "" {
			return false, errors.New(`tag enum is empty; list the values separated by |, e.g. enum:"celsius|fahrenheit"`)
		}
		for _, v := range strings.Split(e, "|") {
			val, err := tagValue(elemKind(ft), v)
			if err != nil {
				return false, fmt.Errorf("tag enum value %q: %w", v, err)
			}
			target.Enum = append(target.Enum, val)
		}
	}
	floats := []struct {
		key string
		dst **float64
	}{
		{"minimum", &target.Minimum}, {"maximum", &target.Maximum},
		{"exclusiveMinimum", &target.ExclusiveMinimum}, {"exclusiveMaximum", &target.ExclusiveMaximum},
		{"multipleOf", &target.MultipleOf},
	}
	for _, fl := range floats {
		if v, ok := tag.Lookup(fl.key); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return false, fmt.Errorf("tag %s:%q is not a number", fl.key, v)
			}
			*fl.dst = &n
		}
	}
	ints := []struct {
		key string
		dst **int
	}{
		{"minLength", &target.MinLength}, {"maxLength", &target.MaxLength},
		{"minItems", &s.MinItems}, {"maxItems", &s.MaxItems},
	}
	for _, in := range ints {
		if v, ok := tag.Lookup(in.key); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return false, fmt.Errorf("tag %s:%q is not a non-negative integer", in.key, v)
			}
			*in.dst = &n
		}
	}
	if v, ok := tag.Lookup("uniqueItems"); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, fmt.Errorf("tag uniqueItems:%q is not true or false", v)
		}
		s.UniqueItems = b
	}
	d, ok := tag.Lookup("default")
	if !ok {
		return false, nil
	}
	var raw []byte
	if ft.Kind() == reflect.String {
		raw, _ = jsonx.Marshal(d)
	} else {
		var v any
		if err := jsonx.Unmarshal([]byte(d), &v); err != nil {
			return false, fmt.Errorf("tag default:%q is not JSON (write non-string defaults as JSON: 3, true, [\"a\"])", d)
		}
		raw = []byte(d)
	}
	s.Default = raw
	return true, nil
}

// elemKind is the kind whose values an enum lists: the element kind for a
// slice.
func elemKind(t reflect.Type) reflect.Kind {
	if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind()
}

// tagValue parses one enum value for a field of kind k.
func tagValue(k reflect.Kind, v string) (any, error) {
	switch k {
	case reflect.String:
		return v, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, errors.New("not an integer")
		}
		return n, nil
	case reflect.Float32, reflect.Float64:
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, errors.New("not a number")
		}
		return n, nil
	case reflect.Bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, errors.New("not true or false")
		}
		return b, nil
	}
	var x any
	if err := jsonx.Unmarshal([]byte(v), &x); err != nil {
		return nil, errors.New("not JSON")
	}
	return x, nil
}
