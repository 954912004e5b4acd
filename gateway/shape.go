package gateway

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

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

// answer answers the model's read_result calls: a page of each, or,
// past the rounds allowed, an error telling it to answer.
func (s *shaping) answer(ctx context.Context, calls []llm.ToolCall, round int) llm.Message {
	var results []llm.ToolResult
	for _, c := range calls {
		var env toolresult.Envelope
		var err error
		if round > s.cfg.MaxReads {
			err = tool.Errorf(toolresult.InvalidArguments, "read_result may be called at most %d times per request here: answer with what you have read", s.cfg.MaxReads)
		} else {
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

// readCalls returns the read_result calls of an answer, and whether it
// has other calls too.
func readCalls(calls []llm.ToolCall) (reads []llm.ToolCall, others bool) {
	for i, c := range calls {
		if c.Name != tool.ReadResultName {
			others = true
			continue
		}
		if c.ID == "" {
			c.ID = "read_result_" + strconv.Itoa(i) // Gemini sends calls without ids
		}
		reads = append(reads, c)
	}
	return reads, others
}

// callsOf reads the tool calls of a non-streamed answer of dialect d.
func callsOf(d transcript.Dialect, body []byte) ([]llm.ToolCall, error) {
	var calls []llm.ToolCall
	add := func(id, name string, args jsontext.Value) {
		calls = append(calls, llm.ToolCall{ID: id, Name: name, Input: args})
	}
	opts := []json.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	switch d {
	case transcript.OpenAIChat:
		var a struct {
			Choices []struct {
				Message struct {
					ToolCalls []struct {
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(body, &a, opts...); err != nil {
			return nil, err
		}
		for _, c := range a.Choices {
			for _, tc := range c.Message.ToolCalls {
				add(tc.ID, tc.Function.Name, jsontext.Value(tc.Function.Arguments))
			}
		}
	case transcript.OpenAIResponses:
		var a struct {
			Output []struct {
				Type      string `json:"type"`
				CallID    string `json:"call_id"`
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"output"`
		}
		if err := json.Unmarshal(body, &a, opts...); err != nil {
			return nil, err
		}
		for _, o := range a.Output {
			if o.Type == "function_call" {
				add(o.CallID, o.Name, jsontext.Value(o.Arguments))
			}
		}
	case transcript.Anthropic:
		var a struct {
			Content []struct {
				Type  string         `json:"type"`
				ID    string         `json:"id"`
				Name  string         `json:"name"`
				Input jsontext.Value `json:"input"`
			} `json:"content"`
		}
		if err := json.Unmarshal(body, &a, opts...); err != nil {
			return nil, err
		}
		for _, c := range a.Content {
			if c.Type == "tool_use" {
				add(c.ID, c.Name, c.Input)
			}
		}
	case transcript.Gemini:
		var a struct {
			Candidates []struct {
				Content struct {
					Parts []struct {
						FunctionCall *struct {
							ID   string         `json:"id"`
							Name string         `json:"name"`
							Args jsontext.Value `json:"args"`
						} `json:"functionCall"`
					} `json:"parts"`
				} `json:"content"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal(body, &a, opts...); err != nil {
			return nil, err
		}
		if len(a.Candidates) > 0 {
			for _, p := range a.Candidates[0].Content.Parts {
				if fc := p.FunctionCall; fc != nil {
					add(fc.ID, fc.Name, fc.Args)
				}
			}
		}
	}
	return calls, nil
}

// continued returns the body that goes on from an answer with reads:
// b's request, then the model's read_result calls, then their pages.
func continued(ctx context.Context, b *wire.Body, s *shaping, reads []llm.ToolCall, round int) ([]byte, error) {
	r := b.Request()
	parts := make([]llm.Part, len(reads))
	for i, c := range reads {
		parts[i] = c
	}
	r.Messages = append(r.Messages, llm.Assistant(parts...), s.answer(ctx, reads, round))
	return b.Rewrite(r)
}
