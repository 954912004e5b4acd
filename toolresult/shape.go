package toolresult

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/internal/units"
	"github.com/toolwire/toolwire/llm"
)

// A Counter counts the tokens a model reads for a text. budget.Counter
// has the same method: every counter of the budget package works here.
type Counter interface {
	Count(text string) int
}

// A PrefixCounter is a [Counter] that can count the start of a text once
// for every text that begins with it; budget.Exact is one. With it, the
// shaper counts a result it renders several times (to choose, then with
// its final token count) once, and the output as the tool gave it
// together with it when shaping left it as it was.
type PrefixCounter interface {
	Counter
	// CountPrefix returns the tokens of the pieces text begins with that
	// no text appended to it can change, and how many bytes of text they
	// take: for every more, Count(text+more) == tokens +
	// Count(text[n:]+more).
	CountPrefix(text string) (tokens, n int)
}

// ImagePolicy says how images in tool results reach the model.
type ImagePolicy string

// The image policies. The zero value describes images, which every
// dialect accepts.
const (
	// DescribeImages writes an image as a description in the envelope
	// (media type, size, dimensions, ref) — never a path or base64.
	// OpenAI Chat Completions, and models that refuse images in tool
	// results (Gemini 2.5), need it.
	DescribeImages ImagePolicy = "describe"
	// InlineImages sends an image as an image part of the tool result,
	// after the envelope: OpenAI Responses, Anthropic, Gemini 3.
	InlineImages ImagePolicy = "inline"
)

// Raw is a tool's raw output whose kind the [Shaper] detects: JSON when
// it parses as JSON, text when it reads as text, else binary data of the
// media type its bytes show. Use it as [Envelope.Data].
type Raw []byte

// Blob is binary output of a known media type (an image, a PDF). Use it
// as [Envelope.Data]; the shaper describes it, offloads it, and sends an
// image inline where the dialect accepts one.
type Blob struct {
	MediaType string
	Data      []byte
}

// Config configures a [Shaper]. A nil *Config, or a zero field, means
// the documented default.
type Config struct {
	// Budget is the token budget of a result whose [Request] gives none.
	// Default 4,000.
	Budget int
	// MinRecords is the fewest records the head level shows; when fewer
	// fit, the result is aggregated instead. Default 5 (or all records,
	// when there are fewer).
	MinRecords int
	// Sample is how many records an aggregate shows. Default 3.
	Sample int
	// TopValues is how many of the most frequent values an aggregate
	// lists per string field. Default 5.
	TopValues int
	// MaxInline bounds the bytes of an image sent inline; a larger one
	// is described. Default 5 MiB (Anthropic's limit per image).
	MaxInline int
}

func (c *Config) withDefaults() Config {
	var out Config
	if c != nil {
		out = *c
	}
	out.Budget = cmp.Or(out.Budget, 4000)
	out.MinRecords = cmp.Or(out.MinRecords, 5)
	out.Sample = cmp.Or(out.Sample, 3)
	out.TopValues = cmp.Or(out.TopValues, 5)
	out.MaxInline = cmp.Or(out.MaxInline, 5<<20)
	return out
}

// A Shaper turns a tool's raw output into an observation that fits a
// token budget: it compacts JSON, prunes empty fields, flattens nested
// objects where that is shorter, keeps the first records or aggregates
// them when the whole does not fit, reduces stack traces to their first
// line, describes binary data, and offloads the full output to a
// [Store] behind a reference that read_result pages through. Every step
// is recorded in the envelope's meta. A Shaper is safe for concurrent
// use.
type Shaper struct {
	counter Counter
	store   Store
	cfg     Config

	mu       sync.Mutex
	lastRef  string // the result Page parsed last, and its tree
	lastTree *tree
}

// NewShaper returns a shaper that counts tokens with counter and
// offloads to store. A nil store offloads nothing: the model is then
// told to narrow its query instead of paging. A nil cfg means defaults.
func NewShaper(counter Counter, store Store, cfg *Config) (*Shaper, error) {
	if counter == nil {
		return nil, errors.New("toolresult: new shaper: the counter is nil (use budget.NewCounter)")
	}
	c := cfg.withDefaults()
	if c.Budget < 0 || c.MinRecords < 0 || c.Sample < 0 || c.TopValues < 0 || c.MaxInline < 0 {
		return nil, fmt.Errorf("toolresult: new shaper: a negative setting in %+v", c)
	}
	return &Shaper{counter: counter, store: store, cfg: c}, nil
}

// Store returns the shaper's store, nil if it has none.
func (s *Shaper) Store() Store { return s.store }

// A Request says how to shape one result.
type Request struct {
	// Tool is the tool's name, kept with the offloaded result.
	Tool string
	// Budget is the most tokens the rendered tool message may take; 0
	// means the shaper's default.
	Budget int
	// Rules are the tool contract's shaping rules; the zero value lets
	// the pipeline decide.
	Rules Rules
	// Images says how images reach the model; the zero value describes
	// them.
	Images ImagePolicy
	// JSON is set when the tool declares JSON output: a [Raw] output
	// that is not JSON is then an error rather than text.
	JSON bool
}

// Shaped is a shaped result.
type Shaped struct {
	// Envelope is the observation, its Data a jsontext.Value.
	Envelope Envelope
	// Images are sent as image parts after the envelope (policy
	// [InlineImages] only).
	Images []llm.Image
	// Report says what was done, for people and logs.
	Report Report

	// text is the rendering of the envelope that shaping measured last,
	// of a copy of it (ofError the value of its Error), so that Result
	// need not render it again while Envelope is unchanged.
	text    string
	of      Envelope
	ofError Error
}

// Result renders s into the tool result answering the call: the
// envelope as text, then any image parts. It reuses the rendering that
// shaping measured unless Envelope was changed since (the bytes of its
// data must not be changed in place).
func (s Shaped) Result(callID, name string) llm.ToolResult {
	var r llm.ToolResult
	if s.text != "" && s.unchanged() {
		r = llm.ToolResult{CallID: callID, Name: name, Status: s.Envelope.Status, Content: []llm.Part{llm.Text{Text: s.text}}}
	} else {
		r = s.Envelope.Result(callID, name)
	}
	for _, img := range s.Images {
		r.Content = append(r.Content, img)
	}
	return r
}

// unchanged reports whether s.Envelope is still the envelope s.text
// renders.
func (s *Shaped) unchanged() bool {
	a, b := &s.Envelope, &s.of
	if a.Status != b.Status || a.Summary != b.Summary || a.Suggestion != b.Suggestion || a.Meta != b.Meta ||
		(a.Error == nil) != (b.Error == nil) || (a.Error != nil && *a.Error != s.ofError) {
		return false
	}
	if a.Data == nil || b.Data == nil {
		return a.Data == nil && b.Data == nil
	}
	ad, aok := a.Data.(jsontext.Value)
	bd, bok := b.Data.(jsontext.Value)
	return aok && bok && len(ad) == len(bd) && (len(ad) == 0 || &ad[0] == &bd[0])
}

// shaped hands out what the job made: the envelope with its data as a
// jsontext.Value, and the rendering finish measured, if it still
// renders that envelope.
func (j *job) shaped() Shaped {
	env := j.env
	if d, ok := env.Data.(rendered); ok {
		env.Data = jsontext.Value(d)
	}
	s := Shaped{Envelope: env, Images: j.images, Report: j.rep}
	if j.shownText != "" {
		s.text, s.of = j.shownText, j.shown
		if d, ok := s.of.Data.(rendered); ok {
			s.of.Data = jsontext.Value(d)
		}
		if s.of.Error != nil {
			s.ofError = *s.of.Error
		}
		if !s.unchanged() {
			s.text = ""
		}
	}
	return s
}

// Report says what shaping did.
type Report struct {
	Level        Level
	Budget       int // the budget the result was shaped to
	TokensBefore int // the output as the tool gave it (see [Shaper.Shape])
	TokensAfter  int // the rendered tool message
	Records      int // records (or lines) in the output; 0 when it is not a list
	Kept         int // records shown, in full or in the sample
	Omitted      int // records not shown
	Ref          string
	// Steps lists what was done, in order: "pruned 12 empty fields",
	// "kept 50 of 30,000 records", "offloaded as r1", ...
	Steps []string
	// Unapplied lists the shaping rules ([Rules]) that the output gave no
	// hold to, and why: "sort_by price: no record has the field price, so
	// the records keep the tool's order". Empty when every rule applied.
	Unapplied []string
	// OverBudget is set when even the smallest observation exceeds the
	// budget (a tiny budget): it is sent anyway, marked truncated.
	OverBudget bool
	// StoreError is why the output could not be offloaded, if it could
	// not; the observation then has no ref.
	StoreError error
}

// exactLimit is the largest text counted with the counter whole; above
// it, TokensBefore is extrapolated from three samples of sampleBytes.
const (
	exactLimit  = 64 << 10
	sampleBytes = 4 << 10
	// maxTokenBytes is more bytes than any token of compact JSON or
	// text holds: a rendering longer than budget×maxTokenBytes is not
	// counted, it cannot fit.
	maxTokenBytes = 16
)

// Shape shapes env, what a tool returned, to req. env.Data may be a
// jsontext.Value (JSON), a [*JSON] (JSON already parsed, which is not
// parsed again), a [Raw] output (detected), a string (text), a [Blob]
// (binary), nil, or any value encoding/json marshals.
//
// TokensBefore counts the output exactly up to 64 KiB and extrapolates
// from three 4 KiB samples above that, since exact tokenizers run at a
// few MB/s.
//
// Shape fails only on a request it cannot honour: invalid rules, or a
// JSON output (a jsontext.Value, or a Raw one with req.JSON) that is
// not JSON; the error says where. A store failure is not an error: the
// observation is shaped without a ref and Report.StoreError says why.
func (s *Shaper) Shape(ctx context.Context, env Envelope, req Request) (Shaped, error) {
	if err := req.Rules.Validate(); err != nil {
		return Shaped{}, err
	}
	req.Rules.Fields = uniqueFields(req.Rules.Fields)
	switch req.Images {
	case "", DescribeImages, InlineImages:
	default:
		return Shaped{}, fmt.Errorf("toolresult: shape: image policy %q is not %q or %q", req.Images, DescribeImages, InlineImages)
	}
	j := &job{s: s, ctx: ctx, env: env, req: req, budget: req.Budget}
	if j.budget <= 0 {
		j.budget = s.cfg.Budget
	}
	j.rep.Budget = j.budget
	if err := j.run(); err != nil {
		return Shaped{}, err
	}
	j.rep.Level = j.env.Meta.Level
	j.rep.TokensBefore = j.env.Meta.TokensBefore
	j.rep.TokensAfter = j.env.Meta.TokensAfter
	j.rep.Ref = j.env.Meta.Ref
	return j.shaped(), nil
}

// A job is one call of Shape.
type job struct {
	s      *Shaper
	ctx    context.Context
	env    Envelope // being shaped
	req    Request
	budget int
	rep    Report
	images []llm.Image

	base      Envelope // the envelope as given, without its data
	shown     Envelope // the envelope finish measured last, rendered as shownText
	shownText string
	before    int    // tokens of the output as given
	last      int    // the count of the last envelope measured
	pending   []byte // the output as given, when before does not count it yet
	pendBase  int    // before, without the output
	prefix    []byte // the start of renderings counted once (see countRendering)
	prefixN   int    // its tokens
	stored    bool   // the output was offered to the store
	summary   string // the tool's summary, before notes
	suggest   string // the tool's suggestion, before notes
	sorted    bool   // some record has the field Rules.SortBy names
}

// checkRules notes in the report each shaping rule that the records rs
// (nil: the output holds none) give no hold to, and sets j.sorted.
func (j *job) checkRules(rs *recordSet) {
	r := j.req.Rules
	if rs == nil {
		var set []string
		for _, s := range []struct {
			name string
			on   bool
		}{{"sort_by", r.SortBy != ""}, {"fields", len(r.Fields) > 0}, {"max_records", r.MaxRecords > 0}} {
			if s.on {
				set = append(set, s.name)
			}
		}
		if len(set) > 0 {
			names := strings.Join(set, " and ")
			if len(set) == 3 {
				names = set[0] + ", " + set[1] + " and " + set[2]
			}
			verb := "they do not"
			if len(set) == 1 {
				verb = "it does not"
			}
			j.rep.Unapplied = append(j.rep.Unapplied, fmt.Sprintf("%s: the output holds no list of records, so %s apply", names, verb))
		}
		return
	}
	has := func(field string) int {
		n := 0
		for i := range rs.recs {
			if v := rs.t.path(&rs.recs[i], field); v != nil {
				n++
			}
		}
		return n
	}
	if r.SortBy != "" {
		switch n := has(r.SortBy); {
		case n == 0:
			j.rep.Unapplied = append(j.rep.Unapplied, fmt.Sprintf("sort_by %s: no record has the field %s, so the records keep the tool's order", r.SortBy, r.SortBy))
		case n < len(rs.recs):
			j.sorted = true
			j.rep.Unapplied = append(j.rep.Unapplied, fmt.Sprintf("sort_by %s: %d of %d records lack the field %s; they come last", r.SortBy, len(rs.recs)-n, len(rs.recs), r.SortBy))
		default:
			j.sorted = true
		}
	}
	for _, f := range r.Fields {
		if has(f) == 0 {
			j.rep.Unapplied = append(j.rep.Unapplied, "fields: no record has the field "+f)
		}
	}
}

func (j *job) step(format string, args ...any) {
	j.rep.Steps = append(j.rep.Steps, fmt.Sprintf(format, args...))
}

func (j *job) run() error {
	j.summary, j.suggest = j.env.Summary, j.env.Suggestion
	if j.env.Error != nil {
		e := *j.env.Error
		j.env.Error = &e
		j.reduceTrace()
	}
	data := j.env.Data
	if r, ok := data.(jsonx.RawMessage); ok {
		data = jsontext.Value(r) // raw JSON either way
	}
	j.env.Data = nil
	j.base = j.env
	before := j.count(j.env)
	switch d := data.(type) {
	case nil:
		j.setBefore(before)
		return j.finish(LevelFull)
	case *JSON:
		if d == nil { // as encodeData renders it
			null := []byte("null")
			j.setBefore(before + j.countLarge(null))
			return j.json(null, true)
		}
		j.pend(before, d.t.src)
		return j.jsonTree(d.t)
	case jsontext.Value:
		j.pend(before, d)
		return j.json(d, true)
	case Raw:
		j.setBefore(before + j.countLarge(d))
		return j.raw(d)
	case []byte:
		j.setBefore(before + j.countLarge(d))
		return j.raw(d)
	case string:
		j.setBefore(before + j.countLarge(unsafe.Slice(unsafe.StringData(d), len(d))))
		return j.text(d)
	case Blob:
		j.setBefore(before + j.countLarge([]byte(describeBlob(d, ""))))
		return j.blob(d)
	default:
		b, _, err := encodeData(d)
		if err != nil {
			return fmt.Errorf("toolresult: shape: encode data: %w", err)
		}
		j.pend(before, b)
		return j.json(b, true)
	}
}

// pend leaves the tokens of a JSON output to be counted with its
// rendering, when the counter can count a prefix once (see countFull);
// before is the tokens of the envelope without it.
func (j *job) pend(before int, output []byte) {
	if _, ok := j.s.counter.(PrefixCounter); !ok || len(output) > exactLimit {
		j.setBefore(before + j.countLarge(output))
		return
	}
	j.pending, j.pendBase = output, before
}

// settle counts the output pend left, if any.
func (j *job) settle() {
	if j.pending != nil {
		j.setBefore(j.pendBase + j.countLarge(j.pending))
		j.pending = nil
	}
}

// setBefore records the tokens of the output as given: every envelope
// measured from now on carries them.
func (j *job) setBefore(n int) {
	j.before = n
	j.base.Meta.TokensBefore = n
	j.env.Meta.TokensBefore = n
}

// raw shapes output of unknown kind.
func (j *job) raw(b []byte) error {
	if len(b) == 0 {
		return j.text("")
	}
	if err := j.json(b, j.req.JSON); j.req.JSON || !errors.Is(err, errNotJSON) {
		return err
	}
	if looksText(b) {
		j.step("read as text (not JSON)")
		// The text shares b's bytes, not a copy of them (which would double
		// the memory of a 200 MB output): nothing text makes of it keeps
		// them after Shape returns; each envelope and the store copy what
		// they keep.
		return j.text(unsafe.String(unsafe.SliceData(b), len(b)))
	}
	return j.blob(Blob{MediaType: sniff(b), Data: b})
}

// json shapes a JSON output; strict says a parse failure is an error
// for the caller rather than errNotJSON for raw to fall back on.
func (j *job) json(b []byte, strict bool) error {
	t, err := parse(b)
	if err != nil {
		if strict {
			return fmt.Errorf("toolresult: shape: the output is not JSON: %w", err)
		}
		return err
	}
	return j.jsonTree(t)
}

// jsonTree shapes a JSON output parsed into t.
func (j *job) jsonTree(t *tree) error {
	b := t.src
	if j.env.Status == llm.StatusError && t.nodes[t.root].kind == kString {
		j.settle()
		// An error reported as a bare JSON string: a trace may hide in it.
		if text := t.str(&t.nodes[t.root]); strings.Contains(text, "\n") {
			return j.text(text)
		}
	}
	rs := findRecords(t)
	rules := j.req.Rules
	j.checkRules(rs)
	if rs != nil && rules.SortBy != "" && j.sorted {
		rs.sort(rules.SortBy, rules.order())
		j.step("sorted %d records by %s (%s)", len(rs.order), rules.SortBy, rules.order())
	}
	if rs != nil {
		j.rep.Records = len(rs.order)
	}
	capped := rs != nil && rules.MaxRecords > 0 && len(rs.order) > rules.MaxRecords
	if !capped {
		r := j.renderer(t)
		if rs != nil {
			rs.render(&r, 0, len(rs.order), true)
		} else {
			r.value(&t.nodes[t.root], 0)
		}
		if !r.over {
			env := j.base
			env.Data = rendered(r.dst)
			env.Meta.Level = LevelFull
			j.meta(&env, &r)
			j.countFull(&env, r.dst)
			if n, _ := j.measure(&env, false); n <= j.budget {
				j.env = env
				if rs != nil {
					j.rep.Kept = len(rs.order)
				}
				j.compacted(&r)
				return j.finish(LevelFull)
			}
		}
	}
	j.settle()
	j.offload(Stored{Tool: j.req.Tool, Kind: KindJSON, Data: b, Rules: rules})
	if rs != nil && len(rs.order) > 0 {
		if j.head(rs, capped) {
			return nil
		}
		return j.aggregate(rs)
	}
	return j.clip(t)
}

// renderer returns a renderer over t for this job: records projected to
// the rules' fields, rendering abandoned once it cannot fit.
func (j *job) renderer(t *tree) renderer {
	return renderer{t: t, fields: j.req.Rules.Fields, limit: j.budget * maxTokenBytes}
}

func (j *job) compacted(r *renderer) {
	j.step("compacted")
	if r.pruned > 0 {
		j.step("pruned %s empty fields", thousands(r.pruned))
	}
	if r.flattened > 0 {
		j.step("flattened %s nested objects into dotted keys", thousands(r.flattened))
	}
}

// meta sets the shaping counts of a rendering on env.
func (j *job) meta(env *Envelope, r *renderer) {
	env.Meta.Pruned = r.pruned
	env.Meta.Flattened = r.flattened
	if r.replaced {
		env.Meta.InvalidUTF8 = true
	}
	if r.clipped {
		env.Meta.Truncated = true
	}
}

// head tries the first records that fit: at least MinRecords (or all,
// or the rules' cap when smaller). It reports whether it produced the
// observation.
func (j *job) head(rs *recordSet, capped bool) bool {
	total := len(rs.order)
	want := total
	if capped {
		want = j.req.Rules.MaxRecords
	}
	// Cost of the envelope with no record shown, then of each record.
	empty := j.headEnvelope(rs, 0)
	base, _ := j.measure(&empty, false)
	n := j.recordsFitting(rs, want, j.budget-base)
	least := min(j.s.cfg.MinRecords, want)
	for n >= least && n > 0 {
		env := j.headEnvelope(rs, n)
		tokens, _ := j.measure(&env, false)
		if tokens <= j.budget {
			j.env = env
			j.rep.Kept, j.rep.Omitted = n, total-n
			if env.Meta.Pruned > 0 {
				j.step("pruned %s empty fields", thousands(env.Meta.Pruned))
			}
			if env.Meta.Flattened > 0 {
				j.step("flattened %s nested objects into dotted keys", thousands(env.Meta.Flattened))
			}
			j.step("kept %s of %s records", thousands(n), thousands(total))
			return j.finish(LevelHead) == nil
		}
		over := tokens - j.budget
		n -= max(1, over*n/tokens)
	}
	return false
}

// recordsFitting returns how many of the first want records, counted one
// by one (plus a separator each), fit in left tokens.
func (j *job) recordsFitting(rs *recordSet, want, left int) int {
	scratch := j.renderer(rs.t)
	n := 0
	for n < want && left > 0 {
		scratch.dst = scratch.dst[:0]
		scratch.record(&rs.recs[rs.order[n]])
		cost := j.s.counter.Count(unsafe.String(unsafe.SliceData(scratch.dst), len(scratch.dst))) + 1
		if cost > left {
			break
		}
		left -= cost
		n++
	}
	return n
}

// headEnvelope is the envelope showing the first n of the records.
func (j *job) headEnvelope(rs *recordSet, n int) Envelope {
	total := len(rs.order)
	r := j.renderer(rs.t)
	r.limit = 0
	rs.render(&r, 0, n, true)
	env := j.base
	env.Data = rendered(r.dst)
	j.meta(&env, &r)
	env.Meta.Truncated = true
	env.Meta.Omitted = total - n
	note := fmt.Sprintf("showing %s of %s records", thousands(n), thousands(total))
	if rules := j.req.Rules; rules.SortBy != "" && j.sorted {
		dir := "highest"
		if rules.order() == Ascending {
			dir = "lowest"
		}
		note = fmt.Sprintf("showing the %s with the %s %s of %s records", thousands(n), dir, rules.SortBy, thousands(total))
	}
	j.notePage(&env, note, n)
	return env
}

// notePage is [job.note] for a page of what is stored: read_result reads
// on from offset.
func (j *job) notePage(env *Envelope, note string, offset int) {
	j.note(env, note, fmt.Sprintf(" and offset %d for more", offset))
}

// note adds a shaping note to the summary, and to the suggestion the ways
// to read on: a narrower query, and, when the whole is stored,
// read_result with its ref, then readOn.
func (j *job) note(env *Envelope, note, readOn string) {
	env.Summary = joinNote(j.summary, note)
	opts := []string{"narrow the query"}
	if env.Meta.Ref != "" {
		opts = append(opts, fmt.Sprintf("call read_result with ref %q%s", env.Meta.Ref, readOn))
	}
	env.Suggestion = joinSentences(j.suggest, Options(opts...))
}

func joinNote(summary, note string) string {
	summary = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(summary), "."))
	if summary == "" {
		return strings.ToUpper(note[:1]) + note[1:]
	}
	return summary + " (" + note + ")"
}

func joinSentences(a, b string) string {
	a = strings.TrimSpace(a)
	switch {
	case a == "":
		return b
	case b == "":
		return a
	case !strings.HasSuffix(a, ".") && !strings.HasSuffix(a, "!") && !strings.HasSuffix(a, "?"):
		a += "."
	}
	return a + " " + b
}

// aggregate describes the records when too few fit: count, schema,
// statistics, a sample. It shrinks the description until it fits.
func (j *job) aggregate(rs *recordSet) error {
	agg := newAggregate(rs)
	total := len(rs.order)
	o := aggOpts{top: j.s.cfg.TopValues, sample: j.s.cfg.Sample, maxFields: len(agg.fields), maxStr: 200}
	var env Envelope
	for step := 0; ; step++ {
		env = j.base
		env.Data = rendered(agg.render(nil, rs, o, j.req.Rules))
		env.Meta.Level = LevelAggregate
		env.Meta.Truncated = true
		shown := min(o.sample, total)
		env.Meta.Omitted = total - shown
		note := fmt.Sprintf("%s records, too many to show: a schema, statistics per field and %s sample records", thousands(total), thousands(shown))
		j.note(&env, note, " (offset, limit, fields, filter) to read the records")
		tokens, _ := j.measure(&env, false)
		if tokens <= j.budget {
			break
		}
		switch {
		case o.sample > 1:
			o.sample--
		case o.top > 1:
			o.top = max(1, o.top/2)
		case o.maxStr > 40:
			o.maxStr /= 2
		case o.sample > 0:
			o.sample = 0
		case o.top > 0:
			o.top = 0
		case o.maxFields > 0:
			o.maxFields = o.maxFields * 2 / 3
		default:
			j.rep.OverBudget = true
		}
		if j.rep.OverBudget {
			break
		}
	}
	j.env = env
	j.rep.Kept = min(o.sample, total)
	j.rep.Omitted = total - j.rep.Kept
	j.step("aggregated %s records over %d fields, with %d sample records", thousands(total), len(agg.fields), j.rep.Kept)
	return j.finish(LevelAggregate)
}

// clip shapes one JSON value too large to show: long strings and nested
// lists are shortened until it fits.
func (j *job) clip(t *tree) error {
	var env Envelope
	for _, lim := range []struct{ str, arr int }{{2000, 50}, {500, 20}, {200, 10}, {80, 5}, {30, 3}, {10, 1}, {1, 1}} {
		r := renderer{t: t, maxStr: lim.str, maxArr: lim.arr}
		root := &t.nodes[t.root]
		if root.kind == kArray {
			r.maxArr = lim.arr
		}
		r.value(root, 1)
		env = j.base
		env.Data = rendered(r.dst)
		j.meta(&env, &r)
		env.Meta.Truncated = true
		j.note(&env, "cut to fit: long strings and lists are shortened", " and the fields you need")
		if tokens, _ := j.measure(&env, false); tokens <= j.budget {
			j.env = env
			j.step("cut long strings to %d characters and lists to %d items", lim.str, lim.arr)
			return j.finish(LevelHead)
		}
	}
	j.rep.OverBudget = true
	j.env = env
	return j.finish(LevelHead)
}

// text shapes text output: whole if it fits, else the first lines.
func (j *job) text(text string) error {
	if j.env.Status == llm.StatusError || j.env.Status == llm.StatusPartial {
		if reduced, tr, ok := ReduceTrace(text); ok {
			j.offload(Stored{Tool: j.req.Tool, Kind: KindText, Data: []byte(text)})
			j.env.Meta.Trace = tr.Language
			j.base.Meta = j.env.Meta
			j.step("reduced a %s stack trace (%d frames) to its first line", tr.Language, tr.Frames)
			text = reduced
		}
	}
	env := j.base
	// A text longer than budget×maxTokenBytes cannot fit whole: it is not
	// rendered (a copy as long as the text) to be measured.
	if len(text) <= j.budget*maxTokenBytes {
		setText(&env, text)
		env.Meta.Level = LevelFull
		if tokens, _ := j.measure(&env, false); tokens <= j.budget {
			j.env = env
			return j.finish(LevelFull)
		}
		env.Meta.Level = ""
	}
	lines := textLines(text)
	if len(lines) <= 1 && len(text) < 64 {
		// Too small to cut: the envelope itself is over the budget.
		j.env = env
		return j.finish(LevelFull)
	}
	j.rep.Records = len(lines)
	// The store copies what it keeps: text's bytes are not copied for it.
	j.offload(Stored{Tool: j.req.Tool, Kind: KindText, Data: unsafe.Slice(unsafe.StringData(text), len(text))})
	env, n := j.textPage(lines, 0, len(lines), nil)
	j.env = env
	j.rep.Kept, j.rep.Omitted = n, len(lines)-n
	j.step("kept %s of %s lines", thousands(n), thousands(len(lines)))
	return j.finish(LevelHead)
}

// textPage returns the envelope showing as many of lines[from:to] as
// fit, and how many that is; note writes its summary note.
func (j *job) textPage(lines []string, from, to int, note func(env *Envelope, shown int)) (Envelope, int) {
	if note == nil {
		note = func(env *Envelope, shown int) {
			msg := fmt.Sprintf("showing lines 1–%s of %s", thousands(shown), thousands(len(lines)))
			if shown == 0 {
				msg = fmt.Sprintf("the first line alone is too long: showing its start; %s lines in all", thousands(len(lines)))
			}
			j.notePage(env, msg, shown)
		}
	}
	build := func(n int, clip int) Envelope {
		env := j.base
		text := strings.Join(lines[from:from+n], "\n")
		if clip > 0 {
			text = clipRunes(lines[from], clip)
		}
		setText(&env, text)
		env.Meta.Truncated = true
		env.Meta.Omitted = len(lines) - from - n
		note(&env, n)
		return env
	}
	empty := build(0, 0)
	base, _ := j.measure(&empty, false)
	left := j.budget - base
	n := 0
	for from+n < to {
		cost := j.s.counter.Count(lines[from+n]) + 1
		if cost > left {
			break
		}
		left -= cost
		n++
	}
	for n > 0 {
		env := build(n, 0)
		tokens, _ := j.measure(&env, false)
		if tokens <= j.budget {
			return env, n
		}
		n -= max(1, (tokens-j.budget)*n/tokens)
	}
	if from >= len(lines) {
		j.rep.OverBudget = true
		return empty, 0
	}
	// Not even one line fits: show the start of it.
	runes := utf8.RuneCountInString(lines[from])
	var env Envelope
	for clip := max(1, (left+base)*2); clip > 0; clip /= 2 {
		env = build(0, min(clip, runes))
		env.Meta.Omitted = len(lines) - from
		if tokens, _ := j.measure(&env, false); tokens <= j.budget {
			return env, 0
		}
	}
	j.rep.OverBudget = true
	return env, 0
}

// setText makes text the data of env, flagging invalid UTF-8 (replaced
// by U+FFFD).
func setText(env *Envelope, text string) {
	b, replaced := jsonx.AppendString(nil, text)
	env.Data = rendered(b)
	if replaced {
		env.Meta.InvalidUTF8 = true
	}
}

// offload puts the full output in the store, once, and records its ref
// on the base envelope.
func (j *job) offload(st Stored) {
	if j.stored || j.s.store == nil {
		return
	}
	j.stored = true
	ref, err := j.s.store.Put(j.ctx, st)
	if err != nil {
		j.rep.StoreError = err
		j.step("could not offload the output: %v", err)
		return
	}
	j.base.Meta.Ref = ref
	j.env.Meta.Ref = ref
	j.step("offloaded the full output as %s", ref)
}

// reduceTrace replaces a stack trace in the error message by its first
// meaningful line, keeping the whole message behind the ref.
func (j *job) reduceTrace() {
	reduced, tr, ok := ReduceTrace(j.env.Error.Message)
	if !ok {
		return
	}
	j.offload(Stored{Tool: j.req.Tool, Kind: KindText, Data: []byte(j.env.Error.Message)})
	j.env.Error.Message = oneLine(reduced)
	if tr.Type != "" && !strings.Contains(j.env.Error.Message, tr.Type) {
		j.env.Error.Message += " (" + tr.Type + ")"
	}
	j.env.Meta.Trace = tr.Language
	if strings.Contains(j.env.Summary, "\n") || len(j.env.Summary) > 300 {
		s, _, _ := ReduceTrace(j.env.Summary)
		j.env.Summary = clipRunes(oneLine(s), 300)
		j.summary = j.env.Summary
	}
	j.step("reduced a %s stack trace (%d frames) to its first line", tr.Language, tr.Frames)
}

// finish sets the level and the final token counts.
func (j *job) finish(level Level) error {
	j.env.Meta.Level = level
	j.env.Meta.TokensBefore = j.before
	tokens, b := j.measure(&j.env, true)
	if tokens > j.budget {
		j.rep.OverBudget = true
	}
	j.shown, j.shownText = j.env, string(b) // what the model will read, rendered once
	return nil
}

// measure renders env and counts its tokens, at env's level (head when
// none is set yet). exact makes TokensAfter the count of the rendering
// that holds it; otherwise TokensAfter is set to the budget, a number of
// about the same width.
func (j *job) measure(env *Envelope, exact bool) (int, []byte) {
	if env.Meta.Level == "" {
		env.Meta.Level = LevelHead
		defer func() { env.Meta.Level = "" }()
	}
	// What fits must not depend on how long the call took: while
	// choosing, a shorter call is measured as if it took
	// durationStandIn, as many digits as any call under 100 s has.
	if d := env.Meta.Duration; !exact && d > 0 && d < durationStandIn {
		env.Meta.Duration = durationStandIn
		defer func() { env.Meta.Duration = d }()
	}
	guess := j.budget
	if exact && j.last > 0 {
		guess = j.last // usually the envelope measured last
	}
	var b []byte
	var n int
	for range 4 {
		env.Meta.TokensAfter = guess
		var err error
		b, err = env.MarshalJSON()
		if err != nil {
			return j.budget + 1, nil
		}
		if len(b) > j.budget*maxTokenBytes {
			n = len(b) / maxTokenBytes
		} else {
			n = j.countRendering(b)
		}
		if !exact || n == guess {
			break
		}
		guess = n
	}
	if !exact {
		env.Meta.TokensAfter = 0
	}
	j.last = n
	return n, b
}

// countFull counts the output pend left together with env, its full
// rendering, whose data is data: when data is the output as given, byte
// for byte, the two share every piece but the first few, and the shared
// ones are counted once. The start of env so counted is kept for
// countRendering. Otherwise the output is counted alone, as settle does.
func (j *job) countFull(env *Envelope, data []byte) {
	defer func() { env.Meta.TokensBefore = j.before }()
	src := j.pending
	if src == nil || !bytes.Equal(data, src) {
		j.settle()
		return
	}
	pc := j.s.counter.(PrefixCounter) // pend checked
	b, err := env.MarshalJSON()
	at := bytes.Index(b, []byte(`,"data":`)) + len(`,"data":`)
	if err != nil || at < len(`,"data":`) || !bytes.HasPrefix(b[at:], data) {
		j.settle()
		return
	}
	// Count the first bytes of the data alone and after the envelope's
	// start, until both counts cut at the same piece: from there the two
	// texts split alike.
	m := min(len(data), syncBytes)
	head, hn := pc.CountPrefix(str(data[:m]))
	start, sn := pc.CountPrefix(str(b[:at+m]))
	if sn != at+hn {
		j.settle()
		return
	}
	mid, mn := pc.CountPrefix(str(data[hn:]))
	cut := hn + mn
	j.setBefore(j.pendBase + head + mid + j.s.counter.Count(str(data[cut:])))
	j.pending = nil
	j.prefix, j.prefixN = b[:at+cut], start+mid
}

// syncBytes is how much of a JSON output countFull counts twice, alone
// and after the envelope's start, to find where the two split alike.
const syncBytes = 256

// minPrefix is the shortest rendering whose start countRendering keeps.
const minPrefix = 1024

// countRendering counts b, a rendered envelope. With a [PrefixCounter],
// it counts the start of b up to its meta once and keeps it: a rendering
// of the same envelope with other counts or another level, its meta
// alone different, is then counted from where that start ends.
func (j *job) countRendering(b []byte) int {
	pc, ok := j.s.counter.(PrefixCounter)
	if !ok {
		return j.s.counter.Count(str(b))
	}
	if len(j.prefix) > 0 && bytes.HasPrefix(b, j.prefix) {
		return j.prefixN + j.s.counter.Count(str(b[len(j.prefix):]))
	}
	cut := bytes.LastIndex(b, []byte(`,"meta":{`))
	if cut < minPrefix {
		return j.s.counter.Count(str(b))
	}
	n, end := pc.CountPrefix(str(b[:cut]))
	j.prefix, j.prefixN = b[:end], n
	return n + j.s.counter.Count(str(b[end:]))
}

// str returns the bytes of b as a string, without copying: b must not
// change while the string is used.
func str(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// durationStandIn is the call duration measure renders in place of a
// shorter one.
const durationStandIn = 99_999 * time.Millisecond

// count counts the tokens of env rendered as it is.
func (j *job) count(env Envelope) int {
	b, err := env.MarshalJSON()
	if err != nil {
		return 0
	}
	return j.countLarge(b)
}

// countLarge counts b exactly up to exactLimit and extrapolates above
// it from three samples: the start, the middle and the end.
func (j *job) countLarge(b []byte) int {
	if len(b) <= exactLimit {
		return j.s.counter.Count(unsafe.String(unsafe.SliceData(b), len(b)))
	}
	tokens, bytes := 0, 0
	for _, at := range []int{0, len(b)/2 - sampleBytes/2, len(b) - sampleBytes} {
		s := runeAligned(b, at, at+sampleBytes)
		tokens += j.s.counter.Count(unsafe.String(unsafe.SliceData(s), len(s)))
		bytes += len(s)
	}
	if bytes == 0 {
		return 0
	}
	return int(float64(tokens) / float64(bytes) * float64(len(b)))
}

// runeAligned returns b[from:to] moved to rune boundaries.
func runeAligned(b []byte, from, to int) []byte {
	for from > 0 && from < len(b) && !utf8.RuneStart(b[from]) {
		from++
	}
	for to < len(b) && to > from && !utf8.RuneStart(b[to]) {
		to--
	}
	return b[from:to]
}

// thousands writes n with thousands separators: 30,000.
func thousands(n int) string { return units.Count(n) }
