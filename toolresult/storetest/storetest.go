// Package storetest is the conformance suite of the toolresult.Store
// contract: every result store (memory now; SQLite and PostgreSQL with
// the session stores) runs Exercise in its tests.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/toolresult"
)

// Exercise checks that the stores newStore returns keep the Store
// contract: what Put keeps, Get returns unchanged, under a short
// reference unique in the store that cannot be guessed; a result kept in
// one scope is not found from another; an unknown reference is
// ErrNotFound; a done context is an error; Put and Get are safe for
// concurrent use.
// newStore returns a new, empty store for each subtest.
func Exercise(t *testing.T, newStore func(t *testing.T) toolresult.Store) {
	exercise(t, newStore, true)
}

// ExerciseBound is [Exercise] for a store bound to one run or session,
// such as session.ResultStore: it serves no other run, so it need not
// keep scopes apart.
func ExerciseBound(t *testing.T, newStore func(t *testing.T) toolresult.Store) {
	exercise(t, newStore, false)
}

func exercise(t *testing.T, newStore func(t *testing.T) toolresult.Store, scopes bool) {
	ctx := context.Background()
	t.Run("round trip", func(t *testing.T) {
		s := newStore(t)
		in := []toolresult.Stored{
			{Tool: "search_orders", Kind: toolresult.KindJSON, Data: []byte(`[{"id":1},{"id":2}]`), Rules: toolresult.Rules{Fields: []string{"id"}, SortBy: "id", Order: toolresult.Ascending, MaxRecords: 5}},
			{Tool: "tail_log", Kind: toolresult.KindText, Data: []byte("line 1\nligne 2 — 北京\n")},
			{Tool: "screenshot", Kind: toolresult.KindBinary, MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n\x00\xff")},
			{Tool: "empty", Kind: toolresult.KindText, Data: []byte{}},
		}
		refs := map[string]bool{}
		var got []string
		for _, st := range in {
			ref, err := s.Put(ctx, st)
			if err != nil {
				t.Fatalf("Put(%s): %v", st.Tool, err)
			}
			if ref == "" || len(ref) > 64 || refs[ref] {
				t.Fatalf("Put(%s) = ref %q: want a short reference unique in the store", st.Tool, ref)
			}
			refs[ref] = true
			got = append(got, ref)
		}
		for i, ref := range got {
			out, err := s.Get(ctx, ref)
			if err != nil {
				t.Fatalf("Get(%q): %v", ref, err)
			}
			want := in[i]
			if out.Tool != want.Tool || out.Kind != want.Kind || out.MediaType != want.MediaType || !bytes.Equal(out.Data, want.Data) ||
				!slices.Equal(out.Rules.Fields, want.Rules.Fields) || out.Rules.SortBy != want.Rules.SortBy || out.Rules.Order != want.Rules.Order || out.Rules.MaxRecords != want.Rules.MaxRecords {
				t.Errorf("Get(%q) = %+v, want %+v", ref, out, want)
			}
		}
	})
	t.Run("kept data does not alias the caller's", func(t *testing.T) {
		s := newStore(t)
		data := []byte(`{"a":1}`)
		ref, err := s.Put(ctx, toolresult.Stored{Tool: "t", Kind: toolresult.KindJSON, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		data[2] = 'X'
		out, err := s.Get(ctx, ref)
		if err != nil || string(out.Data) != `{"a":1}` {
			t.Errorf("Get after the caller changed its slice = %q, %v; want the data as it was put", out.Data, err)
		}
	})
	t.Run("scopes are kept apart", func(t *testing.T) {
		if !scopes {
			t.Skip("a store bound to one run or session serves no other scope")
		}
		s := newStore(t)
		alice, bob := toolresult.WithScope(ctx, "run-alice"), toolresult.WithScope(ctx, "run-bob")
		ref, err := s.Put(alice, toolresult.Stored{Tool: "t", Kind: toolresult.KindText, Data: []byte("alice's data")})
		if err != nil {
			t.Fatal(err)
		}
		if out, err := s.Get(alice, ref); err != nil || string(out.Data) != "alice's data" {
			t.Errorf("Get(%q) in its own scope = %q, %v; want the data", ref, out.Data, err)
		}
		for _, c := range []struct {
			name string
			ctx  context.Context
		}{{"another scope", bob}, {"no scope", ctx}} {
			if out, err := s.Get(c.ctx, ref); !errors.Is(err, toolresult.ErrNotFound) {
				t.Errorf("Get(%q) from %s = %q, %v; want toolresult.ErrNotFound", ref, c.name, out.Data, err)
			}
		}
	})
	t.Run("references cannot be guessed", func(t *testing.T) {
		// Two new stores given the same result must not name it alike,
		// as a counter would: a ref is shown to a model.
		var refs []string
		for range 2 {
			ref, err := newStore(t).Put(ctx, toolresult.Stored{Tool: "t", Kind: toolresult.KindText, Data: []byte("x")})
			if err != nil {
				t.Fatal(err)
			}
			refs = append(refs, ref)
		}
		if refs[0] == refs[1] || len(refs[0]) < 12 {
			t.Errorf("the first refs of two new stores = %q, %q; want long random references", refs[0], refs[1])
		}
	})
	t.Run("unknown reference", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Get(ctx, "r-none"); !errors.Is(err, toolresult.ErrNotFound) {
			t.Errorf("Get(unknown) = %v, want toolresult.ErrNotFound", err)
		}
	})
	t.Run("done context", func(t *testing.T) {
		s := newStore(t)
		done, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := s.Put(done, toolresult.Stored{Tool: "t", Kind: toolresult.KindText, Data: []byte("x")}); err == nil {
			t.Error("Put(cancelled context) succeeded, want an error")
		}
		if _, err := s.Get(done, "r1"); err == nil {
			t.Error("Get(cancelled context) succeeded, want an error")
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		s := newStore(t)
		var wg sync.WaitGroup
		refs := make([]string, 32)
		errs := make([]error, 32)
		for i := range refs {
			wg.Go(func() {
				ref, err := s.Put(ctx, toolresult.Stored{Tool: "t", Kind: toolresult.KindText, Data: []byte(fmt.Sprint(i))})
				if err == nil {
					var out toolresult.Stored
					out, err = s.Get(ctx, ref)
					if err == nil && string(out.Data) != fmt.Sprint(i) {
						err = fmt.Errorf("Get(%q) = %q, want %q", ref, out.Data, fmt.Sprint(i))
					}
				}
				refs[i], errs[i] = ref, err
			})
		}
		wg.Wait()
		seen := map[string]bool{}
		for i, err := range errs {
			if err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			if seen[refs[i]] {
				t.Fatalf("two results stored as %q", refs[i])
			}
			seen[refs[i]] = true
		}
	})
}
