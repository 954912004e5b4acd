package observe

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
)

// ErrNotFound is returned by a [Store] for a reference it does not hold
// (never stored, or evicted).
var ErrNotFound = errors.New("observe: no stored result has this reference")

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
// page through. Implementations must be safe for concurrent use. The
// memory store is [NewMemoryStore]; SQLite and PostgreSQL stores belong
// to the session packages.
type Store interface {
	// Put keeps r and returns its reference: a short string, unique in
	// the store, safe to show a model.
	Put(ctx context.Context, r Stored) (ref string, err error)
	// Get returns what Put kept under ref, or an error wrapping
	// [ErrNotFound].
	Get(ctx context.Context, ref string) (Stored, error)
}

// MemoryStore is a [Store] in memory, bounded in bytes: when full it
// evicts the oldest results. References are "r1", "r2", ... in order. It
// is safe for concurrent use.
type MemoryStore struct {
	mu    sync.Mutex
	max   int
	used  int
	next  int
	byRef map[string]Stored
	order []string // oldest first
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty memory store that holds at most
// maxBytes of data; 0 means 256 MiB. A result larger than the bound is
// refused.
func NewMemoryStore(maxBytes int) *MemoryStore {
	if maxBytes <= 0 {
		maxBytes = 256 << 20
	}
	return &MemoryStore{max: maxBytes, byRef: map[string]Stored{}}
}

// Put keeps a copy of r.
func (s *MemoryStore) Put(ctx context.Context, r Stored) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("observe: store result: %w", err)
	}
	if len(r.Data) > s.max {
		return "", fmt.Errorf("observe: store result: %d bytes is more than the store's %d", len(r.Data), s.max)
	}
	r.Data = append([]byte(nil), r.Data...)
	r.Rules.Fields = append([]string(nil), r.Rules.Fields...)
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.used+len(r.Data) > s.max && len(s.order) > 0 {
		old := s.order[0]
		s.order = s.order[1:]
		s.used -= len(s.byRef[old].Data)
		delete(s.byRef, old)
	}
	s.next++
	ref := "r" + strconv.Itoa(s.next)
	s.byRef[ref] = r
	s.order = append(s.order, ref)
	s.used += len(r.Data)
	return ref, nil
}

// Get returns the result kept under ref.
func (s *MemoryStore) Get(ctx context.Context, ref string) (Stored, error) {
	if err := ctx.Err(); err != nil {
		return Stored{}, fmt.Errorf("observe: read result %s: %w", ref, err)
	}
	s.mu.Lock()
	r, ok := s.byRef[ref]
	s.mu.Unlock()
	if !ok {
		return Stored{}, fmt.Errorf("observe: read result %q: %w", ref, ErrNotFound)
	}
	return r, nil
}

// Len returns how many results the store holds.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.order)
}
