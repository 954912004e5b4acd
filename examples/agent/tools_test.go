package agent

import (
	"slices"
	"testing"
)

// The registry holds every example tool, by its name, for agent
// definitions to name.
func TestRegistry(t *testing.T) {
	s := NewSet(nil)
	reg := s.Registry()
	if got := reg.Names(); !slices.Equal(got, Names()) {
		t.Errorf("Registry().Names() = %v, want %v", got, Names())
	}
	for _, name := range Names() {
		got, ok := reg.Lookup(name)
		want, _ := s.Tool(name)
		if !ok || got.Spec().Name != want.Spec().Name {
			t.Errorf("Registry().Lookup(%q) = %v, %v; want the set's tool", name, got, ok)
		}
	}
}
