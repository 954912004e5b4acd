package tool

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

// A Tool is something a model can call.
//
// Spec returns the tool's contract; it must return the same value every
// time. Call runs the tool once. When the [Executor] calls it, args is a
// JSON object that satisfies Spec().Parameters, with schema defaults
// filled in; ctx carries the attempt's deadline and a [CallInfo].
//
// Call returns what the model should see: usually
// [toolresult.Success](summary, data) — an empty summary gets a generic one —
// or a typed failure as an error (see [Error]). A tool that wants full
// control returns any [toolresult.Envelope], including a partial one.
//
// Call must honour ctx: return soon after it is done. The executor gives
// a tool whose context is done [Config.Grace] to return, then reports the
// call as timed out or cancelled and stops waiting; the tool's goroutine
// is then tracked until it returns, and [Executor.Close] waits for it.
// Implementations must be safe for concurrent use: one turn's calls run in
// parallel.
type Tool interface {
	Spec() Spec
	Call(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error)
}

// A Summarizer is a tool result that says in one line what it holds. A
// [Func] whose Out implements it gets that summary instead of a generic
// one.
type Summarizer interface {
	Summary() string
}

// A Registry holds the tools a model may call, by name. It is a value
// with no global state: build one per agent with [NewRegistry]. A
// Registry is safe for concurrent use.
type Registry struct {
	mu      sync.RWMutex
	entries map[string]*entry
	order   []string // registration order
	version uint64   // counts the changes: each Add and Remove
}

// entry is a registered tool with its compiled contract.
type entry struct {
	tool Tool
	c    *contract
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{entries: map[string]*entry{}}
}

// Add registers t. It validates t's spec ([Spec.Validate]) and compiles
// its schemas once; it fails if the spec is invalid or the name is taken
// ([ErrDuplicateTool]).
func (r *Registry) Add(t Tool) error {
	if t == nil {
		return fmt.Errorf("tool: add: the tool is nil")
	}
	spec := t.Spec()
	var c *contract
	if p, ok := t.(precompiled); ok {
		c = p.contract()
	} else {
		var err error
		if c, err = compileSpec(spec); err != nil {
			return fmt.Errorf("tool: add: %w", err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.entries[spec.Name]; dup {
		return fmt.Errorf("tool: add %q: %w", spec.Name, ErrDuplicateTool)
	}
	r.entries[spec.Name] = &entry{tool: t, c: c}
	r.order = append(r.order, spec.Name)
	r.version++
	return nil
}

// Remove unregisters the tool with the given name; it reports whether
// there was one. A tool source whose tools change while a program runs
// (an MCP server that announces a new list) removes and adds them; a
// call already running keeps its tool.
func (r *Registry) Remove(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.entries[name]; !ok {
		return false
	}
	delete(r.entries, name)
	r.order = slices.DeleteFunc(r.order, func(n string) bool { return n == name })
	r.version++
	return true
}

// Version counts the changes made to the registry: it grows with every
// Add and Remove, so that a reader that copied the tools can tell
// whether its copy is still current.
func (r *Registry) Version() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.version
}

// MustAdd registers each tool and panics if one cannot be added. It is
// for static wiring in main, where a bad tool is a programming error.
func (r *Registry) MustAdd(tools ...Tool) {
	for _, t := range tools {
		if err := r.Add(t); err != nil {
			panic(err)
		}
	}
}

// Lookup returns the tool with the given name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	e := r.entry(name)
	if e == nil {
		return nil, false
	}
	return e.tool, true
}

func (r *Registry) entry(name string) *entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.entries[name]
}

// Names returns the registered tool names in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.order)
}

// Len returns the number of registered tools.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.order)
}

// Specs returns every tool's contract, in registration order.
func (r *Registry) Specs() []Spec {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Spec, len(r.order))
	for i, n := range r.order {
		out[i] = r.entries[n].c.spec
	}
	return out
}

// ToolSpecs returns what the model is told about every tool, in
// registration order, for a provider request.
func (r *Registry) ToolSpecs() []llm.ToolSpec {
	specs := r.Specs()
	out := make([]llm.ToolSpec, len(specs))
	for i, s := range specs {
		out[i] = s.ToolSpec()
	}
	return out
}

// precompiled is a tool that compiled its own contract, so that the
// registry need not compile it again.
type precompiled interface {
	contract() *contract
}

// binder is a tool whose arguments the executor decodes itself, once they
// are validated ([Func]): bind prepares one attempt, on the executor's
// goroutine. It must not modify p.value. (p is a copy, so that the
// caller's stays on its stack.)
type binder interface {
	bind(p prepared) (bound, error)
}

// A bound is one attempt of a tool with its arguments in hand: what a
// [binder] prepared, or a plainCall of any other tool. run calls the
// tool; it runs on the attempt's goroutine, under the attempt's deadline.
// result renders what run produced; the executor calls it on its own
// goroutine, after run returned nil.
type bound interface {
	run(ctx context.Context) error
	result() (toolresult.Envelope, error)
}

// Sync makes r hold the tools of src, in src's order, followed by those
// of r's own tools named in keep that src lacks; r's other tools are
// removed. The contracts src compiled are shared, not compiled again. It
// returns the version of src that r now holds ([Registry.Version]). An
// agent copies its caller's registry this way, and again whenever the
// caller's changes.
func (r *Registry) Sync(src *Registry, keep ...string) uint64 {
	src.mu.RLock()
	entries := maps.Clone(src.entries)
	order := slices.Clone(src.order)
	version := src.version
	src.mu.RUnlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range keep {
		if e, ok := r.entries[n]; ok {
			if _, theirs := entries[n]; !theirs {
				entries[n] = e
				order = append(order, n)
			}
		}
	}
	r.entries, r.order = entries, order
	r.version++
	return version
}
