package tool

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

type planUnits string

type planNode struct {
	Name string    `json:"name"`
	Next *planNode `json:"next,omitempty"`
}

// planAll has a field of every kind a setter handles.
type planAll struct {
	S     string               `json:"s"`
	U     planUnits            `json:"u,omitempty"`
	B     bool                 `json:"b"`
	I     int                  `json:"i"`
	I8    int8                 `json:"i8"`
	U16   uint16               `json:"u16"`
	F32   float32              `json:"f32"`
	F     float64              `json:"f"`
	PS    *string              `json:"ps"`
	PI    *int                 `json:"pi"`
	L     []string             `json:"l"`
	LL    [][]int              `json:"ll"`
	M     map[string]float64   `json:"m"`
	MP    map[planUnits]*int   `json:"mp"`
	Node  planNode             `json:"node"`
	Nodes []*planNode          `json:"nodes"`
	Deep  map[string][]planAll `json:"deep"`
	Plain string               // no tag: its Go name
	Punct string               `json:"a-b.c"`
	skip  int                  //lint:ignore U1000 an unexported field the setter must skip
	Dash  int                  `json:"-"`
}

// TestSetterFor: the types a setter models, and those it leaves to
// json.Unmarshal.
func TestSetterFor(t *testing.T) {
	tests := []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[planAll](), true},
		{reflect.TypeFor[*planNode](), true},
		{reflect.TypeFor[[]int](), true},
		{reflect.TypeFor[[]byte](), false}, // base64
		{reflect.TypeFor[[2]int](), false},
		{reflect.TypeFor[any](), false},
		{reflect.TypeFor[json.Number](), false},
		{reflect.TypeFor[time.Time](), false},
		{reflect.TypeFor[map[int]string](), false},
		{reflect.TypeFor[map[textKey]string](), false},
		{reflect.TypeFor[struct{ planNode }](), false}, // embedded
		{reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](), false},
		{reflect.StructOf([]reflect.StructField{ // built here: vet rightly refuses the duplicate in a literal
			{Name: "A", Type: reflect.TypeFor[int](), Tag: `json:"x"`},
			{Name: "B", Type: reflect.TypeFor[int](), Tag: `json:"x"`},
		}), false},
		{reflect.TypeFor[struct {
			A int `json:"a\"b"` //lint:ignore SA5008 a malformed tag on purpose: the setter must give up
		}](), false},
		{reflect.TypeFor[struct {
			N  int
			Fn func()
		}](), false},
	}
	for _, tt := range tests {
		if got := setterFor(tt.t) != nil; got != tt.want {
			t.Errorf("setterFor(%v) != nil = %v, want %v", tt.t, got, tt.want)
		}
	}
}

// TestSetter: a setter decodes what json.Unmarshal decodes, and gives up
// where json.Unmarshal fails or decides otherwise.
func TestSetter(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{`{"s": "x", "u": "celsius", "b": true, "i": -3, "i8": 127, "u16": 65535, "f32": 1.5, "f": 2e-3}`, true},
		{`{"ps": "p", "pi": null, "l": [], "ll": [[1], [], null], "m": {"a": 1, "b": null}, "mp": {"k": 2, "z": null}}`, true},
		{`{"node": {"name": "a", "next": {"name": "b"}}, "nodes": [null, {"name": "c"}], "deep": {"x": [{"s": "y"}]}}`, true},
		{`{"Plain": "p", "a-b.c": "q", "s": null, "i": null, "l": null, "node": null}`, true},
		{`{"plain": "p"}`, false}, // json.Unmarshal matches it case-insensitively
		{`{"skip": 1}`, false},    // ignored by json.Unmarshal
		{`{"Dash": 1}`, false},
		{`{"i8": 128}`, false}, // overflow: json.Unmarshal fails
		{`{"i": 1.5}`, false},
		{`{"u16": -1}`, false},
		{`{"f32": 1e39}`, false},
		{`{"s": 1}`, false},
		{`{"b": "true"}`, false},
		{`{"l": "a"}`, false},
		{`["s"]`, false},
	}
	set := setterFor(reflect.TypeFor[planAll]())
	for _, tt := range tests {
		v, unique, err := decodeUnique([]byte(tt.in))
		if err != nil || !unique {
			t.Fatalf("decodeUnique(%q) = %v, %v, want unique keys and no error", tt.in, unique, err)
		}
		var got planAll
		if ok := set(reflect.ValueOf(&got).Elem(), v); ok != tt.ok {
			t.Errorf("setter(%s) = %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if !tt.ok {
			continue
		}
		var want planAll
		if err := json.Unmarshal([]byte(tt.in), &want); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("setter(%s) = %+v, want %+v (%v)", tt.in, got, want, err)
		}
	}
}

// FuzzBindPlan: whenever a setter decodes what decodeUnique returned for
// JSON without duplicate keys, json.Unmarshal of the same bytes succeeds
// with the same value.
func FuzzBindPlan(f *testing.F) {
	set := setterFor(reflect.TypeFor[planAll]())
	setNode := setterFor(reflect.TypeFor[[]*planNode]())
	f.Fuzz(func(t *testing.T, b []byte) {
		v, unique, err := decodeUnique(b)
		if err != nil || !unique {
			return
		}
		var got, want planAll
		if set(reflect.ValueOf(&got).Elem(), v) {
			if err := json.Unmarshal(b, &want); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("setter(%q) = %+v, json.Unmarshal = %+v, %v", b, got, want, err)
			}
		}
		var gotN, wantN []*planNode
		if setNode(reflect.ValueOf(&gotN).Elem(), v) {
			if err := json.Unmarshal(b, &wantN); err != nil || !reflect.DeepEqual(gotN, wantN) {
				t.Fatalf("setter(%q) = %+v, json.Unmarshal = %+v, %v", b, gotN, wantN, err)
			}
		}
	})
}
