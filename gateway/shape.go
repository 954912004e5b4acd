package gateway

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/transcript"
)

// Shaping turns on the shaping of a route's large tool results. The zero
// value means the defaults below.
//
// A tool result in the request's history whose text is over Budget
// tokens is shaped by the observation pipeline (toolresult.Shaper): its
// records kept as far as they fit, or aggregated, the rest offloaded
// behind a ref; the request gets a read_result tool. When the model
// calls read_result, the gateway answers the call itself from the
// request's own results and asks the upstream again, until the model
// answers without it: the client sees only that last answer. A request
// that asks for a stream gets one, joined from the model's answers: what
// the model says streams as it comes, a tool call is held until the
// answer ends (docs/gateway.md, "Streamed requests").
type Shaping struct {
	// Budget is the most tokens a tool result may take before it is
	// shaped, and what it is shaped to; 0 means 4,000.
	Budget int
	// MaxReads bounds the read_result rounds of one request; past it the
	// gateway answers read_result with an error that tells the model to
	// answer with what it has. 0 means 8.
	MaxReads int
}

func (s *Shaping) withDefaults() Shaping {
	out := *s
	if out.Budget == 0 {
		out.Budget = 4000
	}
	if out.MaxReads == 0 {
		out.MaxReads = 8
	}
	return out
}

// shaping is the shaping of one request: its results, kept in a store
// of its own for its read_result rounds.
type shaping struct {
	cfg    Shaping
	shaper *toolresult.Shaper
	read   tool.Tool
	shaped []string // "call id: tool: tokens before → after, ref" for the record
}

// newShaping returns the shaping of one request. The results it offloads
// live as long as the request: the client sends them again with its
// next request, which shapes them again, to the same refs (derived from
// the results' bytes) and the same text, so a provider's prompt cache
// still matches.
func newShaping(cfg Shaping) (*shaping, error) {
	counter, err := budget.NewCounter(budget.Estimated)
	if err != nil {
		return nil, err
	}
	sh, err := toolresult.NewShaper(counter, derivedRefs{toolresult.NewMemoryStore(0)}, &toolresult.Config{Budget: cfg.Budget})
	if err != nil {
		return nil, err
	}
	read, err := tool.ReadResult(sh)
	if err != nil {
		return nil, err
	}
	return &shaping{cfg: cfg, shaper: sh, read: read}, nil
}

// derivedRefs is a store that names each result after its tool and its
// bytes, so that the same result gets the same ref in every request.
type derivedRefs struct{ *toolresult.MemoryStore }

func (s derivedRefs) Put(ctx context.Context, st toolresult.Stored) (string, error) {
	ref := toolresult.DeriveRef("gateway", st.Tool, string(st.Data))
	return ref, s.Keep(ctx, ref, st)
}

// shape shapes the results of r over the budget, and adds read_result
// to its tools when it shaped one. It reports whether it changed r.
func (s *shaping) shape(ctx context.Context, r *transcript.Request) (bool, error) {
	changed := false
	for i, m := range r.Messages {
		if m.Role != llm.RoleTool {
			continue
		}
		var parts []llm.Part
		for j, p := range m.Parts {
			res, ok := p.(llm.ToolResult)
			if !ok || !onlyText(res) || res.Name == tool.ReadResultName {
				continue
			}
			text := res.Text()
			if len(text) <= s.cfg.Budget { // fewer bytes than tokens: nothing to count
				continue
			}
			sh, err := s.shaper.Shape(ctx, toolresult.Envelope{Status: orSuccess(res.Status), Data: toolresult.Raw(text)}, toolresult.Request{Tool: res.Name, Budget: s.cfg.Budget})
			if err != nil {
				return false, err
			}
			if sh.Report.Ref == "" && sh.Report.TokensAfter >= sh.Report.TokensBefore {
				continue // it fits as it is
			}
			if parts == nil {
				parts = append([]llm.Part(nil), m.Parts...)
			}
			parts[j] = sh.Result(res.CallID, res.Name)
			s.shaped = append(s.shaped, fmt.Sprintf("%s %s: %d → %d tokens, ref %s", orDash(res.CallID), res.Name, sh.Report.TokensBefore, sh.Report.TokensAfter, orDash(sh.Report.Ref)))
		}
		if parts != nil {
			r.Messages[i].Parts = parts
			changed = true
		}
	}
	if changed {
		spec := s.read.Spec()
		r.Tools = append(r.Tools, llm.ToolSpec{Name: spec.Name, Description: spec.Description, Parameters: spec.Parameters})
	}
	return changed, nil
}

func onlyText(r llm.ToolResult) bool {
	for _, p := range r.Content {
		if _, ok := p.(llm.Text); !ok {
			return false
		}
	}
	return true
}

func orSuccess(s llm.Status) llm.Status {
	if s == "" {
		return llm.StatusSuccess
	}
	return s
}

// answer answers the calls of the model's answer: each read_result call
// with a page, or, past the rounds allowed, an error telling the model to
// answer; any other call with an error saying it was not run, so that the
// answer replays as the model gave it (a Gemini 3 thought signature
// stays on the call it came with) and the model calls it again.
func (s *shaping) answer(ctx context.Context, calls []llm.ToolCall, round int) llm.Message {
	var results []llm.ToolResult
	for _, c := range calls {
		var env toolresult.Envelope
		var err error
		switch {
		case c.Name != tool.ReadResultName:
			err = tool.Errorf(toolresult.Cancelled, "%s was not run: it was called with read_result, which alone runs here; call it again if you still need it", c.Name)
		case round > s.cfg.MaxReads:
			err = tool.Errorf(toolresult.InvalidArguments, "read_result may be called at most %d times per request here: answer with what you have read", s.cfg.MaxReads)
		default:
			env, err = s.read.Call(ctx, c.Input) // pages fit the shaper's budget, Shaping.Budget
		}
		if err != nil {
			env = errorEnvelope(err)
		}
		results = append(results, env.Result(c.ID, c.Name))
	}
	return llm.Tool(results...)
}

// errorEnvelope is the observation of a failed read_result call.
func errorEnvelope(err error) toolresult.Envelope {
	var te *tool.Error
	if errors.As(err, &te) && te.Type.Valid() {
		return toolresult.Failure(te.Type, te.Message)
	}
	return toolresult.Failure(toolresult.InternalError, err.Error())
}

// continuation returns the request that goes on from the model's answer
// (of dialect d, its events when stream is set) to body, when the model
// called read_result: body's conversation, then the answer as the model
// gave it — its reasoning and signatures, text and calls, which the
// providers want replayed whole (ANT-THINKING-FIRST, GEM-THOUGHT-SIG,
// OAI-RS-REASONING-PAIR) — then the results of its calls (answer). It
// returns nil when the model did not call read_result: the answer is the
// client's.
func continuation(ctx context.Context, d transcript.Dialect, s *shaping, body, answer []byte, stream bool, round int) ([]byte, error) {
	a, err := wire.DecodeAnswer(d, answer, stream, nil)
	if err != nil {
		return nil, fmt.Errorf("reading the model's answer: %w", err)
	}
	if !slices.ContainsFunc(a.Message.ToolCalls(), func(c llm.ToolCall) bool { return c.Name == tool.ReadResultName }) {
		return nil, nil
	}
	b, err := wire.Decode(body, d)
	if err != nil {
		return nil, err
	}
	r := b.Request()
	// Again with the conversation, so that ids made for calls sent
	// without one (Gemini) stay apart from the ids in it.
	if a, err = wire.DecodeAnswer(d, answer, stream, r.Messages); err != nil {
		return nil, fmt.Errorf("reading the model's answer: %w", err)
	}
	r.Messages = append(r.Messages, a.Message, s.answer(ctx, a.Message.ToolCalls(), round))
	return b.Rewrite(r)
}
