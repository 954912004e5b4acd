package observe_test

import (
	"context"
	"errors"
	"testing"

	"github.com/toolwire/toolwire/observe"
	"github.com/toolwire/toolwire/observe/storetest"
)

func TestMemoryStore(t *testing.T) {
	storetest.Exercise(t, func(t *testing.T) observe.Store { return observe.NewMemoryStore(0) })
}

// TestMemoryStoreEvicts keeps the store within its bound by evicting the
// oldest results.
func TestMemoryStoreEvicts(t *testing.T) {
	ctx := context.Background()
	s := observe.NewMemoryStore(10)
	r1, _ := s.Put(ctx, observe.Stored{Tool: "t", Data: []byte("aaaa")})
	r2, _ := s.Put(ctx, observe.Stored{Tool: "t", Data: []byte("bbbb")})
	r3, _ := s.Put(ctx, observe.Stored{Tool: "t", Data: []byte("cccc")})
	if _, err := s.Get(ctx, r1); !errors.Is(err, observe.ErrNotFound) {
		t.Errorf("Get(oldest) after eviction = %v, want ErrNotFound", err)
	}
	for _, r := range []string{r2, r3} {
		if _, err := s.Get(ctx, r); err != nil {
			t.Errorf("Get(%s) = %v, want it kept", r, err)
		}
	}
	if s.Len() != 2 {
		t.Errorf("Len() = %d, want 2", s.Len())
	}
	if _, err := s.Put(ctx, observe.Stored{Tool: "t", Data: make([]byte, 11)}); err == nil {
		t.Error("Put(larger than the store) succeeded, want an error")
	}
}
