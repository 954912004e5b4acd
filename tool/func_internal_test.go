package tool

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

type plainLeaf struct {
	N    int               `json:"n"`
	S    []string          `json:"s"`
	M    map[string]*int   `json:"m"`
	When time.Time         `json:"when"`
	Raw  json.RawMessage   `json:"raw"`
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
