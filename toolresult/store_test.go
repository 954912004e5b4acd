package toolresult_test

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"testing"

	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/toolresult/storetest"
)

func TestMemoryStore(t *testing.T) {
	storetest.Exercise(t, func(t *testing.T) toolresult.Store { return toolresult.NewMemoryStore(0) })
}

// TestMemoryStoreEvicts keeps the store within its bound by evicting the
// oldest results.
func TestMemoryStoreEvicts(t *testing.T) {
	ctx := context.Background()
	s := toolresult.NewMemoryStore(10)
	r1, _ := s.Put(ctx, toolresult.Stored{Tool: "t", Data: []byte("aaaa")})
	r2, _ := s.Put(ctx, toolresult.Stored{Tool: "t", Data: []byte("bbbb")})
	r3, _ := s.Put(ctx, toolresult.Stored{Tool: "t", Data: []byte("cccc")})
	if _, err := s.Get(ctx, r1); !errors.Is(err, toolresult.ErrNotFound) {
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
	if _, err := s.Put(ctx, toolresult.Stored{Tool: "t", Data: make([]byte, 11)}); err == nil {
		t.Error("Put(larger than the store) succeeded, want an error")
	}
}

// TestMemoryStoreNumbered numbers refs from r1 in each scope, as a
// replayed run expects, and still keeps the scopes apart.
func TestMemoryStoreNumbered(t *testing.T) {
	s := toolresult.NewMemoryStore(0).NumberRefs()
	a, b := toolresult.WithScope(context.Background(), "a"), toolresult.WithScope(context.Background(), "b")
	var got []string
	for _, ctx := range []context.Context{a, a, b} {
		ref, err := s.Put(ctx, toolresult.Stored{Tool: "t", Data: []byte(toolresult.Scope(ctx))})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ref)
	}
	if want := []string{"r1", "r2", "r1"}; !slices.Equal(got, want) {
		t.Errorf("numbered refs in scopes a, a, b = %q, want %q", got, want)
	}
	for _, c := range []struct {
		ctx  context.Context
		want string
	}{{a, "a"}, {b, "b"}} {
		if out, err := s.Get(c.ctx, "r1"); err != nil || string(out.Data) != c.want {
			t.Errorf("Get(r1) in scope %s = %q, %v; want %q", toolresult.Scope(c.ctx), out.Data, err, c.want)
		}
	}
}

func TestNewRef(t *testing.T) {
	ref := toolresult.NewRef()
	if !regexp.MustCompile(`^r-[a-z2-7]{14}$`).MatchString(ref) {
		t.Errorf("NewRef() = %q, want r- and 14 characters of lowercase base32", ref)
	}
	if again := toolresult.NewRef(); again == ref {
		t.Errorf("NewRef() twice = %q: want a new reference each time", ref)
	}
}

// TestMemoryStoreKeep keeps a result under the ref the caller chose, in
// its scope, replacing what was there.
func TestMemoryStoreKeep(t *testing.T) {
	s := toolresult.NewMemoryStore(8)
	a := toolresult.WithScope(context.Background(), "a")
	ref := toolresult.DeriveRef("run_1", "fit", "0")
	for _, data := range []string{"first", "second"} {
		if err := s.Keep(a, ref, toolresult.Stored{Tool: "t", Data: []byte(data)}); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := s.Get(a, ref); err != nil || string(out.Data) != "second" {
		t.Errorf("Get(%s) after two Keeps = %q, %v; want the second", ref, out.Data, err)
	}
	if s.Len() != 1 {
		t.Errorf("Len() = %d, want 1: Keep replaces", s.Len())
	}
	if _, err := s.Get(context.Background(), ref); !errors.Is(err, toolresult.ErrNotFound) {
		t.Errorf("Get(%s) from no scope = %v, want ErrNotFound", ref, err)
	}
	if err := s.Keep(a, "r-big", toolresult.Stored{Data: make([]byte, 9)}); err == nil {
		t.Error("Keep(larger than the store) succeeded, want an error")
	}
	if got, again := toolresult.DeriveRef("run_1", "fit", "0"), toolresult.DeriveRef("run_1", "fit0"); got != ref || again == ref {
		t.Errorf("DeriveRef = %q then %q for other parts; want %q, then another", got, again, ref)
	}
}
