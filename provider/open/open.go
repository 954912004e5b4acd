// Package open opens an [llm.Model] from its name, the way a command line,
// an agent file or a server's configuration names one:
//
//	model, err := open.Model("anthropic:claude-sonnet-4-5", &provider.Options{APIKey: key})
//
// A name is PROVIDER:MODEL, where PROVIDER is one of [Providers]:
//
//	openai:NAME            OpenAI Chat Completions, or a compatible server (openai.NewChat)
//	openai-responses:NAME  OpenAI Responses (openai.NewResponses)
//	anthropic:NAME         Anthropic Messages (anthropic.NewClient)
//	gemini:NAME            Gemini (gemini.NewClient)
//
// and MODEL is everything after the first colon, passed to the provider
// as it is ("openai:qwen3:8b" is Ollama's "qwen3:8b"). The
// [provider.Options] say where the API is, the key, timeouts and
// retries, with the same meaning for every provider; a caller that needs
// a dialect's own settings (Anthropic's NoCache, the Responses API's
// Store, extra body fields) calls that client's constructor.
//
// Like the clients, Model never reads the environment: the caller passes
// the key. Nor does it open files: a recorded run (provider/replay) is
// opened by name only where the caller chose to, as toolwire run does
// with "replay:FILE", so that a name taken from a request cannot make a
// server read its disk.
//
// The package sits above the clients, as the only one that imports them
// all; package provider, below them, holds the Options they share.
package open

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/internal/names"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/anthropic"
	"github.com/toolwire/toolwire/provider/gemini"
	"github.com/toolwire/toolwire/provider/openai"
)

// ErrUnknownProvider is wrapped by the error of a name whose provider is
// not one of [Providers].
var ErrUnknownProvider = errors.New("unknown provider")

// An Error is why [Model] could not open a model: Spec is the name it
// was given, Err what is wrong with it (wrapping [ErrUnknownProvider],
// or the client's own error about its options).
type Error struct {
	Spec string
	Err  error
}

// Error returns `open "SPEC": ERR`.
func (e *Error) Error() string { return "open " + strconv.Quote(e.Spec) + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// A kind is one provider: its name in a spec, a model name for examples
// in messages, and how its client is made.
type kind struct {
	name    string
	example string
	open    func(model string, o provider.Options) (llm.Model, error)
}

// kinds are the providers, in the order messages list them.
var kinds = []kind{
	{"openai", "gpt-4o", func(m string, o provider.Options) (llm.Model, error) {
		return openai.NewChat(m, &openai.Config{Options: o})
	}},
	{"openai-responses", "gpt-5", func(m string, o provider.Options) (llm.Model, error) {
		return openai.NewResponses(m, &openai.Config{Options: o})
	}},
	{"anthropic", "claude-sonnet-4-5", func(m string, o provider.Options) (llm.Model, error) {
		return anthropic.NewClient(m, &anthropic.Config{Options: o})
	}},
	{"gemini", "gemini-2.5-flash", func(m string, o provider.Options) (llm.Model, error) {
		return gemini.NewClient(m, &gemini.Config{Options: o})
	}},
}

// Providers returns the provider names [Model] knows, in a new slice:
// "openai", "openai-responses", "anthropic", "gemini".
func Providers() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.name
	}
	return out
}

// Model returns the client of the model spec names, "PROVIDER:MODEL"
// (see the package documentation), made with opts; nil opts mean the
// defaults. Its error is an [*Error] that says what is wrong with spec or
// opts and how to fix it. The model is safe for concurrent use.
func Model(spec string, opts *provider.Options) (llm.Model, error) {
	var o provider.Options
	if opts != nil {
		o = *opts
	}
	name, model, ok := strings.Cut(spec, ":")
	if !ok || name == "" {
		return nil, &Error{Spec: spec, Err: fmt.Errorf("want PROVIDER:MODEL, e.g. %s", list(func(k kind) string { return k.name + ":" + k.example }))}
	}
	for _, k := range kinds {
		if k.name != name {
			continue
		}
		if strings.TrimSpace(model) == "" {
			return nil, &Error{Spec: spec, Err: fmt.Errorf("no model name after %q; want e.g. %s:%s", name+":", k.name, k.example)}
		}
		m, err := k.open(model, o)
		if err != nil {
			return nil, &Error{Spec: spec, Err: err}
		}
		return m, nil
	}
	err := fmt.Errorf("%w %q: want %s", ErrUnknownProvider, name, list(func(k kind) string { return k.name }))
	if near := nearest(name); near != "" {
		err = fmt.Errorf("%w (did you mean %s?)", err, near)
	}
	return nil, &Error{Spec: spec, Err: err}
}

// list writes what f says of each provider: "a, b, c or d".
func list(f func(kind) string) string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = f(k)
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// nearest returns the provider name that name is likely a misspelling of
// (another case, or at most two letters changed, added or removed), or
// "".
func nearest(name string) string {
	best, bestDist := "", 3
	for _, k := range kinds {
		if d := names.Distance(strings.ToLower(name), k.name); d < bestDist {
			best, bestDist = k.name, d
		}
	}
	return best
}
