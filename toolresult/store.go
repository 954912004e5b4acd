package toolresult

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
)

// ErrNotFound is returned by a [Store] for a reference it does not hold
// (never stored, or evicted).
var ErrNotFound = errors.New("toolresult: no stored result has this reference")

// Kind says what a stored result holds.
type Kind string

// The kinds of stored results.
const (
	KindJSON   Kind = "json"   // a JSON value
	KindText   Kind = "text"   // text, read by lines
	KindBinary Kind = "binary" // bytes of MediaType (an image, a PDF, ...)
)

// A Stored result is the full raw output of a tool call, kept behind a
// reference when the model is shown less than all of it.
type Stored struct {
	// Tool is the tool that produced it.
	Tool string
	// Kind says how Data is read back.
	Kind Kind
	// MediaType is the type of binary data ("image/png").
	MediaType string
	// Data is the raw output, exactly as the tool returned it.
	Data []byte
	// Rules are the shaping rules its records were shown with, so that
	// every page is ordered and projected the same way.
	Rules Rules
}

// A Store keeps full tool results behind references, for read_result to
// page through. Implementations must be safe for concurrent use.
//
// A reference is shown to a model, and a model's arguments are untrusted:
// a store that serves more than one run must keep each run's results
// from the others. Get must answer [ErrNotFound] for a reference that Put
// kept under another [Scope] of the context, and references must not be
// guessable ([NewRef]). The memory store is [NewMemoryStore]; the SQLite
// and PostgreSQL stores, bound to one session each, belong to the
// session packages.
type Store interface {
	// Put keeps r, in the scope of ctx, and returns its reference: a
	// short string, unique in the store, safe to show a model.
	Put(ctx context.Context, r Stored) (ref string, err error)
	// Get returns what Put kept under ref in the scope of ctx, or an
	// error wrapping [ErrNotFound].
	Get(ctx context.Context, ref string) (Stored, error)
}

// A Keeper is a [Store] that can also keep a result under a reference
// the caller chose. The agent loop decides in its pure step which results
// fitting clears, and the references they get, and keeps their content
// when it performs the step: a stored run replays to the same references.
type Keeper interface {
	Store
	// Keep keeps r under ref in the scope of ctx, replacing what was
	// kept there.
	Keep(ctx context.Context, ref string, r Stored) error
}

// refAlphabet is lowercase base32 without padding: references that are
// easy to copy and safe in URLs, file names and shells.
const refAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// DeriveRef returns the reference that the parts name, derived from them:
// "r-" and 14 characters of lowercase base32 of their SHA-256. It is as
// hard to guess as the parts are: derived from a run's random id, it
// names a result that run decided to keep, the same in every replay.
func DeriveRef(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	sum := h.Sum(nil)
	out := []byte("r-00000000000000")
	for i := range 14 {
		out[2+i] = refAlphabet[sum[i]&31]
	}
	return string(out)
}

// NewRef returns a new random reference for a stored result: "r-" and 14
// characters of lowercase base32 (70 bits from crypto/rand), short
// enough for a model to copy and too many to guess. Every store of the
// module names results this way.
func NewRef() string {
	var b [14]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	out := []byte("r-00000000000000")
	for i, c := range b {
		out[2+i] = refAlphabet[c&31]
	}
	return string(out)
}

type scopeKey struct{}

// WithScope returns a copy of ctx whose stored results are kept apart
// from every other scope's: what a [Store] keeps under one scope, Get
// does not find under another. The agent loop scopes each run by its
// session id, or by its run id without a session, so that one run's
// read_result cannot read another's offloaded data.
func WithScope(ctx context.Context, scope string) context.Context {
	return context.WithValue(ctx, scopeKey{}, scope)
}

// Scope returns the scope that [WithScope] gave ctx, or "" for none
// (which is a scope of its own).
func Scope(ctx context.Context) string {
	s, _ := ctx.Value(scopeKey{}).(string)
	return s
}

// MemoryStore is a [Store] in memory, bounded in bytes: when full it
// evicts the oldest results. It keeps each [Scope] apart, and names
// results with [NewRef] unless [MemoryStore.NumberRefs] was called. It is
// safe for concurrent use.
type MemoryStore struct {
	mu       sync.Mutex
	max      int
	used     int
	numbered bool           // refs are r1, r2, ... per scope
	next     map[string]int // with numbered: the last number of each scope
	byKey    map[scopedRef]Stored
	order    []scopedRef // oldest first
}

// scopedRef is where a memory store keeps a result: the same ref in two
// scopes names two results.
type scopedRef struct{ scope, ref string }

var _ Keeper = (*MemoryStore)(nil)

// NewMemoryStore returns an empty memory store that holds at most
// maxBytes of data; 0 means 256 MiB. A result larger than the bound is
// refused.
func NewMemoryStore(maxBytes int) *MemoryStore {
	if maxBytes <= 0 {
		maxBytes = 256 << 20
	}
	return &MemoryStore{max: maxBytes, byKey: map[scopedRef]Stored{}, next: map[string]int{}}
}

// NumberRefs makes s name results "r1", "r2", ... in the order they are
// put, counting in each scope from r1, and returns s. Numbered refs are
// for replaying recorded runs, whose turns name the refs they were
// recorded with, and for examples and tests that print a ref; scopes
// still keep runs apart, but a number is easy to guess within one. Call
// it before the first Put.
func (s *MemoryStore) NumberRefs() *MemoryStore {
	s.mu.Lock()
	s.numbered = true
	s.mu.Unlock()
	return s
}

// Put keeps a copy of r in the scope of ctx.
func (s *MemoryStore) Put(ctx context.Context, r Stored) (string, error) {
	r, err := s.admit(ctx, r)
	if err != nil {
		return "", err
	}
	scope := Scope(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	k := scopedRef{scope: scope, ref: NewRef()}
	if s.numbered {
		s.next[scope]++
		k.ref = "r" + strconv.Itoa(s.next[scope])
	}
	s.add(k, r)
	return k.ref, nil
}

// Keep keeps a copy of r under ref in the scope of ctx.
func (s *MemoryStore) Keep(ctx context.Context, ref string, r Stored) error {
	r, err := s.admit(ctx, r)
	if err != nil {
		return err
	}
	k := scopedRef{scope: Scope(ctx), ref: ref}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.byKey[k]; ok {
		s.used -= len(old.Data)
		s.order = slices.DeleteFunc(s.order, func(o scopedRef) bool { return o == k })
	}
	s.add(k, r)
	return nil
}

// admit returns the copy of r that Put and Keep store, or why r cannot
// be stored under ctx.
func (s *MemoryStore) admit(ctx context.Context, r Stored) (Stored, error) {
	if err := ctx.Err(); err != nil {
		return Stored{}, fmt.Errorf("toolresult: store result: %w", err)
	}
	if len(r.Data) > s.max {
		return Stored{}, fmt.Errorf("toolresult: store result: %d bytes is more than the store's %d", len(r.Data), s.max)
	}
	r.Data = append([]byte(nil), r.Data...)
	r.Rules.Fields = append([]string(nil), r.Rules.Fields...)
	return r, nil
}

// add stores r under k, the newest, after evicting what it must for r to
// fit. It is called with mu held.
func (s *MemoryStore) add(k scopedRef, r Stored) {
	s.evict(len(r.Data))
	s.byKey[k] = r
	s.order = append(s.order, k)
	s.used += len(r.Data)
}

// evict drops the oldest results until n more bytes fit. It is called
// with mu held.
func (s *MemoryStore) evict(n int) {
	for s.used+n > s.max && len(s.order) > 0 {
		old := s.order[0]
		s.order = s.order[1:]
		s.used -= len(s.byKey[old].Data)
		delete(s.byKey, old)
	}
}

// Get returns the result kept under ref in the scope of ctx.
func (s *MemoryStore) Get(ctx context.Context, ref string) (Stored, error) {
	if err := ctx.Err(); err != nil {
		return Stored{}, fmt.Errorf("toolresult: read result %s: %w", ref, err)
	}
	s.mu.Lock()
	r, ok := s.byKey[scopedRef{scope: Scope(ctx), ref: ref}]
	s.mu.Unlock()
	if !ok {
		return Stored{}, fmt.Errorf("toolresult: read result %q: %w", ref, ErrNotFound)
	}
	return r, nil
}

// Len returns how many results the store holds, in every scope.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.order)
}
