package tool

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

type plainLeaf struct {
	N    int               `json:"n"`
	S    []string          `json:"s"`
	M    map[string]*int   `json:"m"`
	When time.Time         `json:"when"`
	Raw  jsontext.Value    `json:"raw"`
	Num  json.Number       `json:"num"`
	Kids []*plainLeaf      `json:"kids"` // recursive
	Arr  [2]map[int]string `json:"arr"`
}

type textKey string

func (k textKey) MarshalText() ([]byte, error) { return []byte(k), nil }

type ownJSON struct{}

func (*ownJSON) UnmarshalJSON([]byte) error { return nil }

func TestPlainJSON(t *testing.T) {
	tests := []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[int](), true},
		{reflect.TypeFor[plainLeaf](), true},
		{reflect.TypeFor[*plainLeaf](), true},
		{reflect.TypeFor[time.Time](), true},
		{reflect.TypeFor[*time.Time](), true},
		{reflect.TypeFor[any](), false},
		{reflect.TypeFor[struct{ V any }](), false},
		{reflect.TypeFor[map[textKey]int](), false},
		{reflect.TypeFor[ownJSON](), false}, // pointer receiver
		{reflect.TypeFor[[]struct{ O *ownJSON }](), false},
	}
	for _, tt := range tests {
		if got := plainJSON(tt.t); got != tt.want {
			t.Errorf("plainJSON(%v) = %v, want %v", tt.t, got, tt.want)
		}
	}
}

type provenLeaf struct {
	ID      string            `json:"id" jsonschema:"The id."`
	N       int64             `json:"n,omitempty" default:"3"`
	U       uint8             `json:"u"`
	F       float32           `json:"f"`
	OK      bool              `json:"ok"`
	When    time.Time         `json:"when"`
	Maybe   *time.Time        `json:"maybe"`
	Tags    []string          `json:"tags"`
	Pair    [2]byte           `json:"pair"`
	Counts  map[textName]*int `json:"counts"`
	Kids    []*provenKid      `json:"kids,omitzero"`
	Skipped int               `json:"-"`
	hidden  int
}

type provenKid struct {
	Name string `json:"name"`
}

type textName string

type embedsValue struct {
	provenKid
	N int `json:"n"`
}

type embedsPointer struct {
	*provenKid
	N int `json:"n"`
}

type ownMarshal struct{ A int }

func (ownMarshal) MarshalJSON() ([]byte, error) { return []byte(`"a"`), nil }

// TestProvenResults holds the rule of Func for results that need no
// validation: for each Out, whether provenType says so; for a proven Out,
// that values of it, edge cases included, encode to what its inferred
// schema accepts; for an Out that is not, a value whose encoding breaks
// its schema where there is one (why the executor keeps validating).
func TestProvenResults(t *testing.T) {
	one := 1
	offset := time.FixedZone("", 5*3600+1800)
	tests := []struct {
		t       reflect.Type
		want    bool
		samples []any // for a proven type, all valid; else one that breaks the schema, if any
	}{
		{reflect.TypeFor[int](), true, []any{0, -1 << 63}},
		{reflect.TypeFor[int8](), true, []any{int8(-128), int8(127)}},
		{reflect.TypeFor[uint64](), true, []any{uint64(1<<64 - 1)}},
		{reflect.TypeFor[float64](), true, []any{0.0, -1.5e300, 1e-7}},
		{reflect.TypeFor[bool](), true, []any{true}},
		{reflect.TypeFor[string](), true, []any{"", "<&> \u2028 k\xff"}},
		{reflect.TypeFor[time.Time](), true, []any{time.Time{}, time.Date(2026, 1, 2, 3, 4, 5, 123, offset)}},
		{reflect.TypeFor[*int](), true, []any{(*int)(nil), &one}},
		{reflect.TypeFor[[]string](), true, []any{[]string(nil), []string{}, []string{"a"}}},
		{reflect.TypeFor[[3]int](), true, []any{[3]int{}}},
		{reflect.TypeFor[map[string]float64](), true, []any{map[string]float64(nil), map[string]float64{"a": 1}}},
		{reflect.TypeFor[provenLeaf](), true, []any{
			provenLeaf{hidden: 1},
			provenLeaf{ID: "x", N: 7, U: 255, F: 1.5, OK: true, When: time.Now(), Maybe: &time.Time{}, Tags: []string{}, Pair: [2]byte{1, 2},
				Counts: map[textName]*int{"a": &one, "b": nil}, Kids: []*provenKid{nil, {Name: "k"}}},
		}},
		{reflect.TypeFor[[]*provenLeaf](), true, []any{[]*provenLeaf{nil, {}}}},

		{reflect.TypeFor[any](), false, nil},
		{reflect.TypeFor[struct{ V any }](), false, nil},
		{reflect.TypeFor[jsontext.Value](), false, []any{jsontext.Value(`{}`)}},
		{reflect.TypeFor[json.Number](), false, []any{json.Number("1")}},
		{reflect.TypeFor[[]byte](), false, []any{[]byte("hi")}},
		{reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](), false, []any{struct {
			N int `json:"n,string"`
		}{1}}},
		{reflect.TypeFor[embedsPointer](), false, []any{embedsPointer{N: 1}}},
		{reflect.TypeFor[embedsValue](), false, nil},
		{reflect.TypeFor[ownMarshal](), false, []any{ownMarshal{}}},
		{reflect.TypeFor[map[textKey]int](), false, nil},
		{reflect.TypeFor[struct {
			Units string `json:"units" enum:"c|f"`
		}](), false, []any{struct {
			Units string `json:"units" enum:"c|f"`
		}{"k"}}},
		{reflect.TypeFor[struct {
			N int `json:"n" minimum:"1"`
		}](), false, []any{struct {
			N int `json:"n" minimum:"1"`
		}{0}}},
		{reflect.TypeFor[[]struct {
			URL string `json:"url" format:"uri"`
		}](), false, []any{[]struct {
			URL string `json:"url" format:"uri"`
		}{{"not a uri"}}}},
		{reflect.TypeFor[struct {
			Tags []string `json:"tags" maxItems:"1"`
		}](), false, []any{struct {
			Tags []string `json:"tags" maxItems:"1"`
		}{[]string{"a", "b"}}}},
	}
	for _, tt := range tests {
		if got := provenType(tt.t); got != tt.want {
			t.Errorf("provenType(%v) = %v, want %v", tt.t, got, tt.want)
		}
		if len(tt.samples) == 0 {
			continue
		}
		schema, err := inferSchema(tt.t, false)
		if err != nil {
			t.Fatalf("inferSchema(%v): %v", tt.t, err)
		}
		c, err := compileSchema(schema, "returns")
		if err != nil {
			t.Fatalf("compileSchema(%s): %v", schema, err)
		}
		broken := false
		for _, v := range tt.samples {
			data, err := marshalCompact(v)
			if err != nil {
				t.Fatalf("marshal %#v: %v", v, err)
			}
			dv, err := decodeJSON(data)
			if err != nil {
				t.Fatalf("decode %s: %v", data, err)
			}
			fes := validate(c, dv)
			if tt.want && fes != nil {
				t.Errorf("provenType(%v) = true, but %s breaks its schema %s: %v", tt.t, data, schema, fes)
			}
			broken = broken || fes != nil
		}
		if !tt.want && !broken {
			t.Errorf("provenType(%v) = false, and no sample breaks its schema %s", tt.t, schema)
		}
	}
}

// TestFuncProvenContract checks which tools' results the executor skips
// validating: only a Func's whose return schema is inferred from a
// proven Out.
func TestFuncProvenContract(t *testing.T) {
	type constrained struct {
		Units string `json:"units" enum:"c|f"`
	}
	fn := func(ctx context.Context, in struct{}) ([]provenLeaf, error) { return nil, nil }
	httpTool, err := NewHTTP(Spec{Name: "h", Description: "d", Returns: jsontext.Value(`{"type":"array"}`),
		HTTP: &HTTPBinding{URL: "https://example.com/x"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		tool Tool
		want bool
	}{
		{"Func with a proven Out", MustFunc("a", "d", fn, nil), true},
		{"Func with Returns given", MustFunc("b", "d", fn, &FuncOptions{Returns: jsontext.Value(`{"type":"array"}`)}), false},
		{"Func with a constrained Out", MustFunc("c", "d", func(ctx context.Context, in struct{}) (constrained, error) { return constrained{}, nil }, nil), false},
		{"Func with Out any", MustFunc("d", "d", func(ctx context.Context, in struct{}) (any, error) { return nil, nil }, nil), false},
		{"HTTP tool", httpTool, false},
	}
	for _, tt := range tests {
		reg := NewRegistry()
		reg.MustAdd(tt.tool)
		if got := reg.entry(tt.tool.Spec().Name).c.proven; got != tt.want {
			t.Errorf("%s: proven = %v, want %v", tt.name, got, tt.want)
		}
	}
}
