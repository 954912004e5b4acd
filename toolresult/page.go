package toolresult

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/llm"
)

// ErrBadPage is wrapped by the errors of [Shaper.Page] that are the
// caller's to fix: an offset past the end, a filter on text.
var ErrBadPage = errors.New("toolresult: bad page request")

// A PageRequest asks for one page of an offloaded result: read_result's
// arguments.
type PageRequest struct {
	// Ref is the reference the observation gave (meta.ref).
	Ref string
	// Offset is the first record (or line) to show, counting from 0 in
	// the order the observation showed them.
	Offset int
	// Limit caps the records shown; 0 shows as many as fit.
	Limit int
	// Fields, when set, replaces the fields records show.
	Fields []string
	// Filter keeps only the records whose fields equal its values;
	// Offset then counts matching records.
	Filter Filter
}

// Page returns one page of the result stored under req.Ref, shaped by
// the same rules as the observation that offloaded it: records in the
// same order, pruned and flattened alike, as many as fit budget tokens
// (0: the shaper's default), with a note saying where the next page
// starts. Paging from the offset an observation gives, then from each
// page's next offset, returns every record it omitted exactly once, in
// order.
//
// The errors wrap [ErrNotFound] (unknown or evicted ref) or
// [ErrBadPage] (the request does not fit the result).
func (s *Shaper) Page(ctx context.Context, req PageRequest, budget int) (Shaped, error) {
	if s.store == nil {
		return Shaped{}, fmt.Errorf("toolresult: read result %q: %w (this runtime keeps no results)", req.Ref, ErrNotFound)
	}
	if req.Offset < 0 || req.Limit < 0 {
		return Shaped{}, fmt.Errorf("%w: offset %d and limit %d must not be negative", ErrBadPage, req.Offset, req.Limit)
	}
	st, err := s.store.Get(ctx, req.Ref)
	if err != nil {
		return Shaped{}, err
	}
	rules := st.Rules
	if len(req.Fields) > 0 {
		rules.Fields = req.Fields
	}
	rules.Fields = uniqueFields(rules.Fields)
	j := &job{s: s, ctx: ctx, req: Request{Tool: st.Tool, Budget: budget, Rules: rules}, budget: budget, stored: true}
	if j.budget <= 0 {
		j.budget = s.cfg.Budget
	}
	j.rep.Budget = j.budget
	j.base = Envelope{Status: llm.StatusSuccess, Meta: Meta{Ref: req.Ref, Source: st.Tool}}
	call := fmt.Sprintf("read_result(ref=%s, offset=%d)", req.Ref, req.Offset)
	switch st.Kind {
	case KindJSON:
		err = j.pageJSON(st, req, call)
	case KindText:
		err = j.pageText(string(st.Data), req, call)
	default:
		if looksText(st.Data) {
			err = j.pageText(string(st.Data), req, call)
			break
		}
		j.summary = call
		err = j.blob(Blob{MediaType: st.MediaType, Data: st.Data})
	}
	if err != nil {
		return Shaped{}, err
	}
	j.rep.Level = j.env.Meta.Level
	j.rep.TokensAfter = j.env.Meta.TokensAfter
	j.rep.Ref = req.Ref
	return j.shaped(), nil
}

func (j *job) pageJSON(st Stored, req PageRequest, call string) error {
	t, err := j.s.parsed(req.Ref, st.Data)
	if err != nil {
		return fmt.Errorf("toolresult: read result %s: the stored output is not JSON: %w", req.Ref, err)
	}
	rs := findRecords(t)
	if rs == nil {
		if len(req.Filter) > 0 || req.Offset > 0 {
			return fmt.Errorf("%w: result %s is one value, not a list of records: call read_result with fields only", ErrBadPage, req.Ref)
		}
		j.summary = call
		root := &t.nodes[t.root]
		r := j.renderer(t)
		r.limit = 0
		r.record(root)
		env := j.base
		env.Summary = call + ": the whole result"
		env.Data = rendered(r.dst)
		if tokens, _ := j.measure(&env, false); tokens <= j.budget {
			j.env = env
			return j.finish(LevelFull)
		}
		j.base.Summary = call
		return j.clip(t)
	}
	if j.req.Rules.SortBy != "" {
		rs.sort(j.req.Rules.SortBy, j.req.Rules.order())
	}
	if err := rs.filter(req.Filter); err != nil {
		return fmt.Errorf("%w: %v", ErrBadPage, err)
	}
	total := len(rs.order)
	what := "records"
	if len(req.Filter) > 0 {
		what = "matching records"
	}
	if req.Offset > total || (req.Offset == total && total > 0) {
		return fmt.Errorf("%w: offset %d is past the end: result %s has %d %s", ErrBadPage, req.Offset, req.Ref, total, what)
	}
	rs.order = rs.order[req.Offset:]
	want := len(rs.order)
	if req.Limit > 0 {
		want = min(want, req.Limit)
	}
	build := func(n int) Envelope {
		r := j.renderer(t)
		r.limit = 0
		rs.render(&r, 0, n, false)
		env := j.base
		env.Data = rendered(r.dst)
		j.meta(&env, &r)
		left := len(rs.order) - n
		env.Meta.Omitted = left
		env.Meta.Truncated = left > 0 || r.clipped
		switch {
		case n == 0:
			env.Summary = fmt.Sprintf("%s: no %s", call, what)
		default:
			env.Summary = fmt.Sprintf("%s: %s %s–%s of %s", call, what, thousands(req.Offset+1), thousands(req.Offset+n), thousands(total))
		}
		if left > 0 {
			env.Suggestion = Options(fmt.Sprintf("call read_result with ref %q and offset %d for more", req.Ref, req.Offset+n))
		}
		return env
	}
	empty := build(0)
	base, _ := j.measure(&empty, false)
	n := j.recordsFitting(rs, want, j.budget-base)
	for n > 1 {
		env := build(n)
		tokens, _ := j.measure(&env, false)
		if tokens <= j.budget {
			break
		}
		n -= max(1, (tokens-j.budget)*n/tokens)
	}
	n = max(n, min(1, want)) // always make progress, even over budget
	j.env = build(n)
	j.rep.Records, j.rep.Kept, j.rep.Omitted = total, n, len(rs.order)-n
	level := LevelFull
	if n < len(rs.order) {
		level = LevelHead
	}
	return j.finish(level)
}

func (j *job) pageText(text string, req PageRequest, call string) error {
	if len(req.Filter) > 0 {
		return fmt.Errorf("%w: result %s is text: filter applies to JSON records only", ErrBadPage, req.Ref)
	}
	lines := textLines(text)
	if req.Offset > len(lines) || (req.Offset == len(lines) && len(lines) > 0) {
		return fmt.Errorf("%w: offset %d is past the end: result %s has %d lines", ErrBadPage, req.Offset, req.Ref, len(lines))
	}
	to := len(lines)
	if req.Limit > 0 {
		to = min(to, req.Offset+req.Limit)
	}
	note := func(env *Envelope, shown int) {
		env.Summary = fmt.Sprintf("%s: lines %s–%s of %s", call, thousands(req.Offset+1), thousands(req.Offset+shown), thousands(len(lines)))
		env.Meta.Omitted = len(lines) - req.Offset - shown
		env.Meta.Truncated = env.Meta.Omitted > 0
		if env.Meta.Omitted > 0 {
			env.Suggestion = Options(fmt.Sprintf("call read_result with ref %q and offset %d for more", req.Ref, req.Offset+max(shown, 1)))
		}
	}
	env, n := j.textPage(lines, req.Offset, to, note)
	j.env = env
	j.rep.Records, j.rep.Kept, j.rep.Omitted = len(lines), n, len(lines)-req.Offset-n
	level := LevelFull
	if req.Offset+n < len(lines) || n == 0 {
		level = LevelHead
	}
	if n == 0 && strings.TrimSpace(text) == "" {
		level = LevelFull
	}
	return j.finish(level)
}

// parsed returns the tree of a stored result, parsing it only when it is
// not the one parsed last: a model usually reads several pages of one
// result in a row.
func (s *Shaper) parsed(ref string, data []byte) (*tree, error) {
	s.mu.Lock()
	if s.lastRef == ref && s.lastTree != nil && len(s.lastTree.src) == len(data) && (len(data) == 0 || &s.lastTree.src[0] == &data[0]) {
		t := s.lastTree
		s.mu.Unlock()
		return t, nil
	}
	s.mu.Unlock()
	t, err := parse(data)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.lastRef, s.lastTree = ref, t
	s.mu.Unlock()
	return t, nil
}
