package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// The inferred schemas, tags included, are what the model is told.
func TestFuncSchemas(t *testing.T) {
	reg := testRegistry(t)
	for _, s := range reg.Specs() {
		if s.Name == "list_files" || s.Name == "search_news" {
			continue
		}
		out, err := tool.MarshalSpecFile([]tool.Spec{s})
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "schemas", s.Name+".json"), out)
	}
}

func TestFuncErrors(t *testing.T) {
	noop := func(ctx context.Context, in struct{}) (int, error) { return 0, nil }
	tests := []struct {
		name string
		make func() error
		want string
	}{
		{"bad name", func() error { _, err := tool.Func("get weather", "d", noop, nil); return err }, `tool: func: tool get weather: name: "get weather" contains " "; use only letters, digits, underscores and hyphens`},
		{"nil fn", func() error {
			_, err := tool.Func[struct{}, int]("a", "d", nil, nil)
			return err
		}, `tool: func "a": fn is nil`},
		{"bad minimum", func() error {
			_, err := tool.Func("a", "d", func(ctx context.Context, in struct {
				N int `json:"n" minimum:"one"`
			}) (int, error) {
				return 0, nil
			}, nil)
			return err
		}, `tool: func "a": parameters: field struct { N int "json:\"n\" minimum:\"one\"" }.N: tag minimum:"one" is not a number`},
		{"bad enum", func() error {
			_, err := tool.Func("a", "d", func(ctx context.Context, in struct {
				N int `json:"n" enum:"1|two"`
			}) (int, error) {
				return 0, nil
			}, nil)
			return err
		}, `tool: func "a": parameters: field struct { N int "json:\"n\" enum:\"1|two\"" }.N: tag enum value "two": not an integer`},
		{"default breaks max", func() error {
			_, err := tool.Func("a", "d", func(ctx context.Context, in struct {
				N int `json:"n" maximum:"5" default:"9"`
			}) (int, error) {
				return 0, nil
			}, nil)
			return err
		}, `tool: func: tool a: parameters.properties.n.default: the default 9 breaks its own schema: 9 is above maximum 5`},
		{"bad pattern", func() error {
			_, err := tool.Func("a", "d", func(ctx context.Context, in struct {
				S string `json:"s" pattern:"(?=x)"`
			}) (int, error) {
				return 0, nil
			}, nil)
			return err
		}, "tool: func: tool a: parameters: "},
		{"channel", func() error {
			_, err := tool.Func("a", "d", func(ctx context.Context, in struct{ C chan int }) (int, error) { return 0, nil }, nil)
			return err
		}, "tool: func \"a\": parameters: ForType("},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.make()
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Func(%s) = %v, want %q", tt.name, err, tt.want)
			}
		})
	}
}

// Called directly, outside an executor, a Func still validates and fills
// in defaults.
func TestFuncCallDirect(t *testing.T) {
	f := tool.MustFunc("get_weather", "d", getWeather, nil)
	env, err := f.Call(context.Background(), jsontext.Value(`{"city": "Nice"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(env.Data.(jsontext.Value)); got != `{"city":"Nice","temp":21.5,"units":"celsius","conditions":"sunny"}` {
		t.Errorf("Call(Nice) data = %s", got)
	}
	_, err = f.Call(context.Background(), jsontext.Value(`{"days": 99}`))
	var te *tool.Error
	if !errors.As(err, &te) || te.Type != toolresult.InvalidArguments || te.Message != "city: required property missing; days: 99 is above maximum 14" {
		t.Errorf("Call(days 99) error = %v, want invalid_arguments listing city and days", err)
	}
	_, err = f.Call(context.Background(), jsontext.Value(`{`))
	if !errors.As(err, &te) || te.Type != toolresult.MalformedArguments {
		t.Errorf("Call({) error = %v, want malformed_arguments", err)
	}
}

func TestRegistry(t *testing.T) {
	reg := testRegistry(t)
	want := []string{"get_weather", "get_forecast", "search_web", "send_sms", "search_news", "list_files"}
	if got := reg.Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	ts := reg.ToolSpecs()
	if len(ts) != len(want) || ts[0].Name != "get_weather" || !strings.Contains(string(ts[0].Parameters), `"city"`) {
		t.Errorf("ToolSpecs() = %+v", ts)
	}
	if _, ok := reg.Lookup("search_web"); !ok {
		t.Errorf("Lookup(search_web) = false, want true")
	}
	if _, ok := reg.Lookup("nope"); ok {
		t.Errorf("Lookup(nope) = true, want false")
	}
	err := reg.Add(tool.MustFunc("get_weather", "again", getWeather, nil))
	if !errors.Is(err, tool.ErrDuplicateTool) {
		t.Errorf("Add(duplicate) = %v, want ErrDuplicateTool", err)
	}
	bad := newFake("x", tool.Level0, nil)
	bad.spec.Parameters = jsontext.Value(`{"type": "array"}`)
	err = reg.Add(bad)
	var se *tool.SpecError
	if !errors.As(err, &se) || se.Field != "parameters" {
		t.Errorf("Add(array parameters) = %v, want a SpecError on parameters", err)
	}
	if reg.Add(nil) == nil {
		t.Errorf("Add(nil) = nil, want an error")
	}
}

func TestSpecValidate(t *testing.T) {
	tests := []struct {
		spec tool.Spec
		want string
	}{
		{tool.Spec{Name: "ok_tool"}, ""},
		{tool.Spec{Name: ""}, `tool (unnamed): name: the name is empty (want a letter or underscore, then up to 63 letters, digits, underscores or hyphens)`},
		{tool.Spec{Name: strings.Repeat("a", 65)}, `is 65 bytes long, above the 64 that every provider accepts`},
		{tool.Spec{Name: "a.b"}, `tool a.b: name: "a.b" contains "."; use only letters, digits, underscores and hyphens`},
		{tool.Spec{Name: "a", Parameters: jsontext.Value(`{"type": "objekt"}`)}, `type: value must be one of 'array', 'boolean', 'integer'`},
		{tool.Spec{Name: "a", Parameters: jsontext.Value(`{"type": "object", "properties": {"x": {"$ref": "https://example.com/s.json"}}}`)}, `is not allowed: tool schemas must be self-contained`},
		{tool.Spec{Name: "a", Parameters: jsontext.Value(`{"type": "object", "properties": {"x": {"$ref": "file:///etc/passwd"}}}`)}, `is not allowed: tool schemas must be self-contained`},
		{tool.Spec{Name: "a", Parameters: jsontext.Value(`{`)}, `tool a: parameters: not valid JSON`},
		{tool.Spec{Name: "a", Parameters: jsontext.Value(`[1]`)}, `tool a: parameters: a schema is a JSON object (or true/false), not an array`},
		{tool.Spec{Name: "a", Returns: jsontext.Value(` "x"`)}, `tool a: returns: a schema is a JSON object (or true/false), not a string`},
		{tool.Spec{Name: "a", Returns: jsontext.Value(`2`)}, `tool a: returns: a schema is a JSON object (or true/false), not a number`},
		{tool.Spec{Name: "a", Returns: jsontext.Value(`{"type": "object", "properties": {"n": {"type": "string", "enum": ["x"], "default": "y"}}}`)}, `tool a: returns.properties.n.default: the default "y" breaks its own schema: "y" is not one of "x"`},
		{tool.Spec{Name: "a", Idempotency: "level_3"}, `tool a: idempotency: "level_3" is not a level (want level_0, level_1 or level_2)`},
		{tool.Spec{Name: "a", Timeout: -1}, `tool a: timeout: -1ns is negative`},
	}
	for _, tt := range tests {
		err := tt.spec.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Validate(%s) = %v, want nil", tt.spec.Name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("Validate(%s) = %v, want an error containing %q", tt.spec.Name, err, tt.want)
		}
	}
}

// FuzzCall: whatever bytes a model sends as arguments, the executor
// answers with exactly one valid result carrying the call's id and name.
func FuzzCall(f *testing.F) {
	for _, s := range []string{`{"city": "Paris"}`, `{"city": "Paris",}`, `{'city': 'Lyon'`, `{"city": "Par`, `[]`, `"{\"city\":\"x\"}"`, "```json\n{}\n```", `{"days": 1e999}`, `{"city": "\ud800"}`} {
		f.Add([]byte(s))
	}
	reg := testRegistry(f)
	ex, err := tool.NewExecutor(reg, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		for _, name := range []string{"get_forecast", "search_web"} {
			call := llm.ToolCall{ID: "call_fz", Name: name, Input: args}
			out := ex.Run(context.Background(), []llm.ToolCall{call})
			if len(out) != 1 {
				t.Fatalf("Run(%q) = %d outcomes, want 1", args, len(out))
			}
			r := out[0].Result
			if r.CallID != call.ID || r.Name != name || !r.Status.Valid() {
				t.Fatalf("Run(%q) = %q/%q/%q, want %q/%q and a valid status", args, r.CallID, r.Name, r.Status, call.ID, name)
			}
			if _, err := toolresult.Parse([]byte(text(r))); err != nil {
				t.Fatalf("Run(%q) rendered an invalid envelope: %v", args, err)
			}
		}
	})
}

// TestInferSchemaTime checks that a time.Time is inferred as what
// encoding/json writes it as, an RFC 3339 date-time string, wherever it
// stands, and that the format is checked.
func TestInferSchemaTime(t *testing.T) {
	type in struct {
		When  time.Time            `json:"when"`
		Maybe *time.Time           `json:"maybe,omitempty"`
		All   []time.Time          `json:"all"`
		ByKey map[string]time.Time `json:"by_key"`
	}
	got, err := tool.InferSchema[in]()
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]struct {
			Type                 any `json:"type"`
			Format               string
			Items                struct{ Format string }
			AdditionalProperties struct{ Format string } `json:"additionalProperties"`
		}
	}
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatal(err)
	}
	p := s.Properties
	if p["when"].Format != "date-time" || p["maybe"].Format != "date-time" || p["all"].Items.Format != "date-time" || p["by_key"].AdditionalProperties.Format != "date-time" {
		t.Errorf("InferSchema(time fields) = %s, want format date-time on each", got)
	}
	f, err := tool.Func("at", "d", func(ctx context.Context, in in) (time.Time, error) { return in.When, nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(f.Spec().Returns), `"format":"date-time"`) {
		t.Errorf("Func returning time.Time: Returns = %s, want format date-time", f.Spec().Returns)
	}
	_, err = f.Call(context.Background(), jsontext.Value(`{"when":"tomorrow","all":[],"by_key":{}}`))
	if err == nil || !strings.Contains(err.Error(), "date-time") {
		t.Errorf("Call(when: \"tomorrow\") error = %v, want one about the date-time format", err)
	}
	if _, err = f.Call(context.Background(), jsontext.Value(`{"when":"2026-12-01T09:30:00Z","all":[],"by_key":{}}`)); err != nil {
		t.Errorf("Call(when: an RFC 3339 time) error = %v", err)
	}
}

// TestRegistryChanges: Remove and Sync change what a registry holds,
// and Version says that it changed.
func TestRegistryChanges(t *testing.T) {
	src := testRegistry(t)
	v0 := src.Version()
	if !src.Remove("search_web") || src.Remove("search_web") {
		t.Errorf("Remove(search_web) twice = not true then false")
	}
	if src.Version() == v0 {
		t.Errorf("Version() did not change after Remove")
	}
	dst := tool.NewRegistry()
	dst.MustAdd(newFake("mine", tool.Level2, nil), newFake("gone", tool.Level2, nil))
	if got := dst.Sync(src, "mine", "get_weather"); got != src.Version() {
		t.Errorf("Sync = version %d, want %d", got, src.Version())
	}
	want := "get_weather,get_forecast,send_sms,search_news,list_files,mine"
	if got := strings.Join(dst.Names(), ","); got != want {
		t.Errorf("Names() after Sync = %s, want %s", got, want)
	}
	if _, ok := dst.Lookup("gone"); ok {
		t.Errorf("Lookup(gone) after Sync = true; a tool neither in src nor kept must go")
	}
	v := src.Version()
	src.MustAdd(newFake("later", tool.Level0, nil))
	if src.Version() == v {
		t.Errorf("Version() did not change after Add")
	}
}
