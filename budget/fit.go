package budget

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/transcript"
)

// ErrDoesNotFit is wrapped by [Fitter.Fit] when the history is still
// above the low watermark after everything that may be compacted was:
// the protected tail (system messages and the most recent rounds) is
// itself too large. The history returned is valid and as small as
// fitting could make it.
var ErrDoesNotFit = errors.New("budget: the history does not fit the window")

// A Summarizer writes the summary that replaces compacted rounds: the
// tools called, each one-line outcome, and what is still open. rounds
// are the messages removed, complete call/result rounds in order. A
// model-backed Summarizer lets a model write it; without one the
// [Fitter] writes it deterministically.
type Summarizer interface {
	Summarize(ctx context.Context, rounds []llm.Message) (string, error)
}

// FitConfig configures a [Fitter]. A nil *FitConfig, or a zero field,
// means the documented default.
type FitConfig struct {
	// High is the fraction of the usable window (the window less the
	// output reserve) above which Fit compacts. Default 0.9.
	High float64
	// Low is the fraction Fit brings the history down to once it
	// compacts. Default 0.7.
	Low float64
	// Reserve is kept free for the model's answer. Default: MaxOutput,
	// at most 8,192 tokens.
	Reserve int
	// KeepRounds is how many of the most recent rounds (an assistant turn
	// with its calls and all their results) are never cleared or
	// removed. Default 2.
	KeepRounds int
	// Summarizer writes the summary of removed rounds; nil writes it
	// deterministically.
	Summarizer Summarizer
	// Store keeps the content of a cleared result that has no ref yet,
	// so that read_result can reload it. nil clears such results
	// without a ref.
	Store toolresult.Store
}

// A Fitter keeps a conversation inside a model's context window. When
// the history nears the window it first clears the content of the oldest
// tool results (each keeps its one-line summary and its ref), then
// replaces the oldest complete rounds by one summary message. A call and
// its result are always kept or removed together, and the fitted history
// passes [transcript.Check] for the dialect whenever the history given
// did. A Fitter is safe for concurrent use.
type Fitter struct {
	counter Counter
	limits  Limits
	dialect transcript.Dialect
	cfg     FitConfig
}

// NewFitter returns a fitter for a model with limits l, speaking dialect
// d, counting with counter.
func NewFitter(counter Counter, l Limits, d transcript.Dialect, cfg *FitConfig) (*Fitter, error) {
	if counter == nil {
		return nil, errors.New("budget: new fitter: the counter is nil (use NewCounter)")
	}
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("budget: new fitter: %w", err)
	}
	if _, err := transcript.ParseDialect(string(d)); err != nil {
		return nil, fmt.Errorf("budget: new fitter: %w", err)
	}
	var c FitConfig
	if cfg != nil {
		c = *cfg
	}
	c.High = cmp.Or(c.High, 0.9)
	c.Low = cmp.Or(c.Low, 0.7)
	c.Reserve = cmp.Or(c.Reserve, min(l.MaxOutput, 8192))
	c.KeepRounds = cmp.Or(c.KeepRounds, 2)
	switch {
	case c.High <= 0 || c.High > 1 || c.Low <= 0 || c.Low > c.High:
		return nil, fmt.Errorf("budget: new fitter: watermarks high %v and low %v must satisfy 0 < low ≤ high ≤ 1", c.High, c.Low)
	case c.Reserve < 0 || c.Reserve >= l.Window:
		return nil, fmt.Errorf("budget: new fitter: reserve %d leaves no room in a window of %d", c.Reserve, l.Window)
	case c.KeepRounds < 0:
		return nil, fmt.Errorf("budget: new fitter: keep rounds %d is negative", c.KeepRounds)
	}
	return &Fitter{counter: counter, limits: l, dialect: d, cfg: c}, nil
}

// FitReport says what fitting did.
type FitReport struct {
	Before, After int // tokens of the history
	High, Low     int // the watermarks, in tokens
	Cleared       int // tool results whose content was cleared
	Removed       int // rounds replaced by summaries
	Summaries     int // summary messages written
}

// Tokens counts a history as Fit does: each part's text, calls with
// their arguments, images by their size, plus a few tokens of framing
// per message.
func (f *Fitter) Tokens(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += f.messageTokens(m)
	}
	return n
}

const framing = 4 // tokens of role and separators per message or part

func (f *Fitter) messageTokens(m llm.Message) int {
	n := framing
	for _, p := range m.Parts {
		n += f.partTokens(p)
	}
	return n
}

func (f *Fitter) partTokens(p llm.Part) int {
	switch p := p.(type) {
	case llm.Text:
		return f.counter.Count(p.Text)
	case llm.Image:
		return toolresult.ImageTokensOf(p)
	case llm.ToolCall:
		return framing + f.counter.Count(p.Name) + f.counter.Count(string(p.Input))
	case llm.ToolResult:
		n := framing
		for _, c := range p.Content {
			n += f.partTokens(c)
		}
		return n
	case llm.Reasoning:
		return f.counter.Count(p.Text) + len(p.Signature)/4 + len(p.Data)/4
	}
	return 0
}

// Fit returns msgs fitted to the window: unchanged (the same slice) when
// they are below the high watermark, else compacted to the low
// watermark. msgs are never modified. Fit fails only when ctx is done,
// the summarizer fails, or the history cannot be brought below the low
// watermark ([ErrDoesNotFit], with the smallest valid history it
// reached).
func (f *Fitter) Fit(ctx context.Context, msgs []llm.Message) ([]llm.Message, FitReport, error) {
	usable := f.limits.Window - f.cfg.Reserve
	rep := FitReport{High: int(float64(usable) * f.cfg.High), Low: int(float64(usable) * f.cfg.Low)}
	tokens := make([]int, len(msgs))
	total := 0
	for i, m := range msgs {
		tokens[i] = f.messageTokens(m)
		total += tokens[i]
	}
	rep.Before, rep.After = total, total
	if total <= rep.High {
		return msgs, rep, nil
	}
	wasAccepted := transcript.Accepted(transcript.Check(msgs, f.dialect))
	rounds := findRounds(msgs)
	protect := len(msgs) // messages from protect on are never touched
	if k := f.cfg.KeepRounds; k > 0 && len(rounds) > 0 {
		protect = rounds[max(0, len(rounds)-k)].start
	}
	out := make([]llm.Message, len(msgs))
	copy(out, msgs)

	// 1. Clear the oldest tool results.
	for i := 0; i < protect && total > rep.Low; i++ {
		if out[i].Role != llm.RoleTool {
			continue
		}
		m, cleared, err := f.clear(ctx, out[i])
		if err != nil {
			return msgs, rep, err
		}
		if cleared == 0 {
			continue
		}
		out[i] = m
		n := f.messageTokens(m)
		total += n - tokens[i]
		tokens[i] = n
		rep.Cleared += cleared
	}

	// 2. Replace the oldest complete rounds by a summary.
	if total > rep.Low {
		var err error
		out, _, total, err = f.compact(ctx, out, tokens, total, rounds, protect, rep.Low, &rep)
		if err != nil {
			return msgs, rep, err
		}
	}
	rep.After = total
	if wasAccepted {
		if vs := transcript.Check(out, f.dialect); !transcript.Accepted(vs) {
			// Never hand back a history the provider would reject.
			return msgs, rep, fmt.Errorf("budget: fit: the compacted history breaks %s (%s); the history was left as it was", vs[0].Rule, vs[0].Message)
		}
	}
	if total > rep.Low {
		return out, rep, fmt.Errorf("%w: %d tokens remain above the low watermark of %d after compacting every round but the last %d", ErrDoesNotFit, total, rep.Low, f.cfg.KeepRounds)
	}
	return out, rep, nil
}

// A round is an assistant message with calls and the tool messages
// right after it that answer them: msgs[start:end].
type round struct{ start, end int }

// findRounds returns the complete rounds of msgs, in order: rounds whose
// every call is answered inside them, by tool messages only.
func findRounds(msgs []llm.Message) []round {
	var out []round
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role != llm.RoleAssistant {
			continue
		}
		want := map[string]bool{}
		for _, p := range m.Parts {
			if c, ok := p.(llm.ToolCall); ok {
				want[c.ID] = true
			}
		}
		if len(want) == 0 {
			continue
		}
		j := i + 1
		for j < len(msgs) && msgs[j].Role == llm.RoleTool {
			for _, p := range msgs[j].Parts {
				if r, ok := p.(llm.ToolResult); ok {
					delete(want, r.CallID)
				}
			}
			j++
		}
		if len(want) == 0 {
			out = append(out, round{i, j})
			i = j - 1
		}
	}
	return out
}

// clear returns m with the content of each result not cleared yet
// replaced by its one-line summary and ref, and how many it cleared.
func (f *Fitter) clear(ctx context.Context, m llm.Message) (llm.Message, int, error) {
	parts := make([]llm.Part, len(m.Parts))
	copy(parts, m.Parts)
	n := 0
	for i, p := range parts {
		r, ok := p.(llm.ToolResult)
		if !ok {
			continue
		}
		env, ok := resultEnvelope(r)
		if ok && env.Meta.Level == toolresult.LevelCleared {
			continue
		}
		if !ok {
			env = toolresult.Envelope{Status: r.Status, Summary: firstLine(r.Text(), 160)}
			if !env.Status.Valid() {
				env.Status = llm.StatusSuccess
			}
			if env.Status == llm.StatusError {
				env.Error = &toolresult.Error{Type: toolresult.InternalError, Message: env.Summary}
			}
		}
		if strings.TrimSpace(env.Summary) == "" {
			env.Summary = r.Name + " returned a result"
		}
		ref := env.Meta.Ref
		if ref == "" && f.cfg.Store != nil {
			var err error
			ref, err = f.cfg.Store.Put(ctx, toolresult.Stored{Tool: r.Name, Kind: toolresult.KindText, Data: []byte(r.Text())})
			if err != nil && ctx.Err() != nil {
				return m, 0, fmt.Errorf("budget: fit: %w", ctx.Err())
			}
		}
		cleared := toolresult.Envelope{Status: env.Status, Summary: env.Summary, Error: env.Error,
			Meta: toolresult.Meta{Source: env.Meta.Source, Ref: ref, Level: toolresult.LevelCleared, Truncated: true}}
		if cleared.Error != nil {
			e := *cleared.Error
			e.Message = firstLine(e.Message, 200)
			cleared.Error = &e
		}
		if ref != "" {
			cleared.Suggestion = toolresult.Options(fmt.Sprintf("call read_result with ref %q to reload it", ref))
		}
		parts[i] = cleared.Result(r.CallID, r.Name)
		n++
	}
	if n == 0 {
		return m, 0, nil
	}
	return llm.Message{Role: m.Role, Parts: parts}, n, nil
}

// resultEnvelope reads the envelope a result's text holds.
func resultEnvelope(r llm.ToolResult) (toolresult.Envelope, bool) {
	for _, c := range r.Content {
		if t, ok := c.(llm.Text); ok {
			env, err := toolresult.Parse([]byte(t.Text))
			return env, err == nil
		}
	}
	return toolresult.Envelope{}, false
}

// firstLine returns the first line of s, at most n runes.
func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// compact replaces runs of adjacent complete rounds before protect,
// oldest first, by one summary message each, until total is at most
// low.
func (f *Fitter) compact(ctx context.Context, msgs []llm.Message, tokens []int, total int, rounds []round, protect, low int, rep *FitReport) ([]llm.Message, []int, int, error) {
	type run struct{ start, end, rounds int }
	var runs []run
	for _, r := range rounds {
		if r.end > protect {
			break
		}
		if n := len(runs); n > 0 && runs[n-1].end == r.start {
			runs[n-1].end = r.end
			runs[n-1].rounds++
			continue
		}
		runs = append(runs, run{r.start, r.end, 1})
	}
	if len(runs) == 0 {
		return msgs, tokens, total, nil
	}
	out := make([]llm.Message, 0, len(msgs))
	outTokens := make([]int, 0, len(msgs))
	next := 0
	for _, r := range runs {
		if total <= low {
			break
		}
		// Only as many rounds of this run as needed.
		end, removed, saved := r.start, 0, 0
		for _, rd := range rounds {
			if rd.start < r.start || rd.end > r.end {
				continue
			}
			end = rd.end
			removed++
			for i := rd.start; i < rd.end; i++ {
				saved += tokens[i]
			}
			if total-saved+200 <= low {
				break
			}
		}
		text, err := f.summarize(ctx, msgs[r.start:end])
		if err != nil {
			return msgs, tokens, total, err
		}
		out = append(out, msgs[next:r.start]...)
		outTokens = append(outTokens, tokens[next:r.start]...)
		summary := llm.User(text)
		// Merge into a neighbouring user text message rather than write
		// two user messages in a row.
		switch {
		case len(out) > 0 && textOnly(out[len(out)-1], llm.RoleUser):
			prev := out[len(out)-1]
			merged := llm.Message{Role: llm.RoleUser, Parts: append(append([]llm.Part(nil), prev.Parts...), llm.Text{Text: text})}
			total += f.messageTokens(merged) - outTokens[len(outTokens)-1]
			out[len(out)-1] = merged
			outTokens[len(outTokens)-1] = f.messageTokens(merged)
		case end < len(msgs) && textOnly(msgs[end], llm.RoleUser) && end < protect:
			nm := llm.Message{Role: llm.RoleUser, Parts: append([]llm.Part{llm.Text{Text: text}}, msgs[end].Parts...)}
			msgs = append(msgs[:end:end], append([]llm.Message{nm}, msgs[end+1:]...)...)
			n := f.messageTokens(nm)
			total += n - tokens[end]
			tokens = append(tokens[:end:end], append([]int{n}, tokens[end+1:]...)...)
		default:
			n := f.messageTokens(summary)
			out = append(out, summary)
			outTokens = append(outTokens, n)
			total += n
		}
		total -= saved
		rep.Removed += removed
		rep.Summaries++
		next = end
	}
	out = append(out, msgs[next:]...)
	outTokens = append(outTokens, tokens[next:]...)
	return out, outTokens, total, nil
}

func textOnly(m llm.Message, role llm.Role) bool {
	if m.Role != role || len(m.Parts) == 0 {
		return false
	}
	for _, p := range m.Parts {
		if _, ok := p.(llm.Text); !ok {
			return false
		}
	}
	return true
}

// summarize writes the summary of removed rounds, with its header.
func (f *Fitter) summarize(ctx context.Context, rounds []llm.Message) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("budget: fit: %w", err)
	}
	var body string
	if f.cfg.Summarizer != nil {
		s, err := f.cfg.Summarizer.Summarize(ctx, rounds)
		if err != nil {
			return "", fmt.Errorf("budget: fit: summarize: %w", err)
		}
		body = strings.TrimSpace(s)
	}
	if body == "" {
		body = Summary(rounds)
	}
	return "[Earlier tool calls were removed to fit the context window. Summary:]\n" + body, nil
}
