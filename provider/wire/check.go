package wire

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/transcript"
)

// A Verdict is the judgement of a body in one dialect.
type Verdict struct {
	// Dialect is the dialect the body was judged in.
	Dialect transcript.Dialect
	// Violations are what the provider would reject (and warnings), in
	// body order, with paths into the body.
	Violations []transcript.Violation
	// Left, for a rejected body, is what [Body.Fix] leaves of it: the
	// violations the repaired body still has, empty when the repair clears
	// every one. It is nil for an accepted body.
	Left []transcript.Violation
	// Unrepaired is, for a rejected body, Repair's *transcript.RepairError
	// when it cannot fix everything without guessing (a conflicting
	// duplicate result), with paths into the body; else nil.
	Unrepaired error
}

// Accepted reports whether the provider would accept the body: every
// violation is a warning.
func (v *Verdict) Accepted() bool { return transcript.Accepted(v.Violations) }

// Fixable reports whether [Body.Fix] makes the body one the provider
// accepts.
func (v *Verdict) Fixable() bool { return transcript.Accepted(v.Left) }

// A Report is the verdict on a request body: in its dialect, or, when its
// shape fits several (see [Detection]), in each of them.
//
// For an ambiguous body, Dialect is "", Candidates holds the verdict in
// each dialect the body reads as, Violations holds all of theirs in that
// order (their rule IDs name the dialect), and the body is accepted only
// when every candidate accepts it: the safe reading, since its sender's
// provider is one of them.
type Report struct {
	Verdict
	// Detected says why Dialect was chosen when it was detected, or why
	// the body is ambiguous; "" when the caller named the dialect.
	Detected string
	// Candidates are the verdicts of an ambiguous body, one per dialect it
	// reads as; nil otherwise.
	Candidates []Verdict
}

// Fixable reports whether [Fix] makes the body one the provider accepts:
// for an ambiguous body, in each candidate dialect.
func (r *Report) Fixable() bool {
	if r.Candidates == nil {
		return r.Verdict.Fixable()
	}
	for i := range r.Candidates {
		if !r.Candidates[i].Fixable() {
			return false
		}
	}
	return true
}

// Check decodes data as a request body of dialect d, or of the dialect
// [Detect] finds when d is "", and judges it, including what [Fix] would
// leave of a rejected body. An error means the body could not be read as
// a request of that dialect (it says what and where); a body that reads but
// breaks a rule is a Report that is not accepted.
//
// A body whose shape fits several dialects is judged in each one it reads
// as; when only one of them reads it, it is that dialect's.
func Check(data []byte, d transcript.Dialect) (*Report, error) { return CheckFor(data, d, "") }

// CheckFor is [Check] for a body whose request names its model elsewhere
// than in the body (a Gemini URL; "" says nothing): see [Body.SetModel].
func CheckFor(data []byte, d transcript.Dialect, model string) (*Report, error) {
	if d != "" {
		b, err := Decode(data, d)
		if err != nil {
			return nil, fmt.Errorf("as %s: %w", d, err)
		}
		b.SetModel(model)
		return &Report{Verdict: b.verdict()}, nil
	}
	det, err := Detect(data)
	if err != nil {
		return nil, err
	}
	if !det.Ambiguous() {
		b, err := Decode(data, det.Dialect)
		if err != nil {
			return nil, fmt.Errorf("as %s (detected: %s): %w", det.Dialect, det.Reason, err)
		}
		b.SetModel(model)
		return &Report{Verdict: b.verdict(), Detected: det.Reason}, nil
	}
	rep := &Report{}
	readers, errs := eachReader(data, det, func(b *Body) {
		b.SetModel(model)
		rep.Candidates = append(rep.Candidates, b.verdict())
	})
	if len(readers) == 0 {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	rep.Detected = narrowed(det, readers, errs)
	if len(readers) == 1 {
		rep.Verdict, rep.Candidates = rep.Candidates[0], nil
		return rep, nil
	}
	for _, c := range rep.Candidates {
		rep.Violations = append(rep.Violations, c.Violations...)
		if c.Left != nil {
			rep.Left = append(rep.Left, c.Left...)
		}
	}
	return rep, nil
}

// verdict judges b, and for a rejected body, runs the repair to see what
// it leaves. b is spent: it holds the repaired messages after.
func (b *Body) verdict() Verdict {
	v := Verdict{Dialect: b.dialect, Violations: b.Check()}
	if v.Accepted() {
		return v
	}
	f, err := b.fix(nil, v.Violations)
	if err != nil {
		// The repaired body could not be written or read back: a defect,
		// reported as what is left.
		v.Left = v.Violations
		v.Unrepaired = err
		return v
	}
	if v.Left, err = f.verify(); err != nil {
		v.Left = v.Violations
	}
	if v.Left == nil {
		v.Left = []transcript.Violation{}
	}
	v.Unrepaired = f.Unrepaired
	return v
}

// Check returns the codec's wire violations, those of the body's
// top-level fields (a field the API does not document, an option out of
// its range) and transcript's, in body order, with paths into the body.
func (b *Body) Check() []transcript.Violation {
	vs := append([]transcript.Violation(nil), b.c.wire()...)
	vs = append(vs, checkFields(b.dialect, b.c.top())...)
	for _, v := range transcript.CheckRequest(b.request(), b.dialect) {
		vs = append(vs, b.inBody(v))
	}
	transcript.SortViolations(vs)
	return vs
}

// inBody returns v, found on the body's llm form, with its path and the
// paths its texts name translated into paths of the body.
func (b *Body) inBody(v transcript.Violation) transcript.Violation {
	v.Path = b.c.bodyPath(v.Path)
	v.Message = bodyText(v.Message, b.c.bodyPath)
	v.ProviderError = bodyText(v.ProviderError, b.c.bodyPath)
	return v
}

// pathInText finds what reads as a path into a body's message array in the
// text of a violation or a change: "messages.3", "input.2.content.1", or the
// index form of provider errors, "messages[3]".
var pathInText = regexp.MustCompile(`\b(messages|input|contents)(?:\.\d+(?:\.(?:content|output|parts|tool_calls)\.\d+)?|\[(\d+)\])`)

// bodyText rewrites the paths text names with bodyPath.
func bodyText(text string, bodyPath func(string) string) string {
	ms := pathInText.FindAllStringSubmatchIndex(text, -1)
	if ms == nil {
		return text
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(text[last:m[0]])
		last = m[1]
		tok := text[m[0]:m[1]]
		if m[4] < 0 {
			b.WriteString(bodyPath(tok))
			continue
		}
		// messages[3]: translate messages.3, and write the index back.
		name := text[m[2]:m[3]]
		idx, ok := strings.CutPrefix(bodyPath(name+"."+text[m[4]:m[5]]), name+".")
		if !ok || strings.Contains(idx, ".") {
			b.WriteString(tok)
			continue
		}
		b.WriteString(name + "[" + idx + "]")
	}
	b.WriteString(text[last:])
	return b.String()
}

// Fixed is a repaired request body.
type Fixed struct {
	// Dialect is the body's dialect.
	Dialect transcript.Dialect
	// Detected says why Dialect was chosen when it was detected, else "".
	Detected string
	// Body is the repaired body, in the same dialect, with its other fields
	// kept. When there was nothing to repair it is the input itself.
	Body []byte
	// Found are the violations of the input body.
	Found []transcript.Violation
	// Changes are the repairs made, with paths into the input body.
	Changes []transcript.Change
	// Warnings are what the encoder could not write exactly.
	Warnings []provider.Warning
	// Unrepaired is Repair's *transcript.RepairError when it could not fix
	// everything without guessing (a conflicting duplicate result), else
	// nil. Its problems have paths into the input body.
	Unrepaired error
	// Violations are what Body still breaks, as read back.
	Violations []transcript.Violation

	wire    []transcript.Violation // the input's wire violations, to say how re-encoding cleared them
	reread  bool                   // Body must be read back for Violations
	dialect transcript.Dialect
	model   string // the input's SetModel
}

// Accepted reports whether the provider would accept the repaired body.
func (f *Fixed) Accepted() bool { return transcript.Accepted(f.Violations) }

// ErrInternal is wrapped by the errors of a defect rather than of bad
// input: a repaired or converted body that cannot be written or read back.
var ErrInternal = errors.New("wire: internal error (please report it)")

// ActionReencode is the action of a change that re-encoding made: a
// violation the codec found while decoding, written back in the form the
// provider accepts.
const ActionReencode transcript.Action = "re-encode"

// Fix repairs the body by p (nil: transcript's default policy), writes what
// the codec found on the wire in the form the provider accepts, and returns
// the repaired body with what was done. Every value the repair left as it
// was keeps the bytes it had in the decoded body, white space included: an
// accepted body comes back byte for byte. The Body keeps its repaired
// messages. An error means the repaired body could not be written or read
// back: a defect, not bad input.
func (b *Body) Fix(p *transcript.Policy) (*Fixed, error) {
	f, err := b.fix(p, b.Check())
	if err != nil {
		return nil, err
	}
	if _, err := f.verify(); err != nil {
		return nil, err
	}
	return f, nil
}

// fix repairs b, whose violations are found, and writes the repaired body;
// [Fixed.verify] reads it back. Between the two, b is no longer needed, so
// that a caller that drops it holds only the input and the output while
// the output is read back.
func (b *Body) fix(p *transcript.Policy, found []transcript.Violation) (*Fixed, error) {
	f := &Fixed{Dialect: b.dialect, Found: found, dialect: b.dialect, model: b.model}
	repaired, changes, rerr := transcript.RepairRequest(b.request(), b.dialect, p)
	// Repair names places in the transcript as it was decoded: translate
	// them into the input body's paths.
	for i, c := range changes {
		c.Path = b.c.bodyPath(c.Path)
		c.Reason = bodyText(c.Reason, b.c.bodyPath)
		changes[i] = c
	}
	var re *transcript.RepairError
	if errors.As(rerr, &re) {
		for i, v := range re.Problems {
			re.Problems[i] = b.inBody(v)
		}
	}
	f.Changes, f.Unrepaired, f.wire = changes, rerr, b.c.wire()
	if len(changes) == 0 && len(f.wire) == 0 && b.src != nil {
		// Nothing to repair or to write in another form: the body is the
		// input, and its verdict is the input's.
		f.Body, f.Violations = b.src, found
		return f, nil
	}
	b.c.set(repaired)
	b.c.fixWire()
	src := b.src
	out, warns, err := b.c.encode()
	// b is not used from here on: a caller that drops it lets its decoded
	// messages go while the output is spliced.
	if err != nil {
		return nil, fmt.Errorf("%w: encode the repaired body: %v", ErrInternal, err)
	}
	if src != nil {
		// What the repair left as it was keeps its bytes.
		out = splice(src, out)
	}
	f.Body, f.Warnings, f.reread = out, warns, true
	return f, nil
}

// verify reads the repaired body back, sets f.Violations to what it still
// breaks, and adds a change for each wire violation that re-encoding
// cleared. It returns f.Violations.
func (f *Fixed) verify() ([]transcript.Violation, error) {
	if !f.reread {
		return f.Violations, nil
	}
	again, err := Decode(f.Body, f.dialect)
	if err != nil {
		return nil, fmt.Errorf("%w: the repaired body does not decode: %v", ErrInternal, err)
	}
	again.SetModel(f.model)
	f.Violations, f.reread = again.Check(), false
	// Wire violations vanish by re-encoding; say how.
	for _, v := range f.wire {
		if !hasViolation(f.Violations, v) {
			f.Changes = append(f.Changes, wireChange(v))
		}
	}
	return f.Violations, nil
}

// Fix decodes data as a request body of dialect d (detected when d is "")
// and repairs it by p, as [Body.Fix]. A body whose shape fits several
// dialects that read it is an *[AmbiguousError]: a repair depends on the
// dialect.
func Fix(data []byte, d transcript.Dialect, p *transcript.Policy) (*Fixed, error) {
	return FixFor(data, d, p, "")
}

// FixFor is [Fix] for a body whose request names its model elsewhere than
// in the body (a Gemini URL; "" says nothing): see [Body.SetModel].
func FixFor(data []byte, d transcript.Dialect, p *transcript.Policy, model string) (*Fixed, error) {
	b, why, err := decodeOne(data, d)
	if err != nil {
		return nil, err
	}
	b.SetModel(model)
	f, err := b.fix(p, b.Check())
	if err != nil {
		return nil, err
	}
	b = nil // let the decoded input go before the output is read back
	if _, err := f.verify(); err != nil {
		return nil, err
	}
	f.Detected = why
	return f, nil
}

// decodeOne decodes data as dialect d, or as the one dialect Detect finds
// that reads it when d is "", and says why that dialect when it detected
// it.
func decodeOne(data []byte, d transcript.Dialect) (*Body, string, error) {
	if d != "" {
		b, err := Decode(data, d)
		if err != nil {
			return nil, "", fmt.Errorf("as %s: %w", d, err)
		}
		return b, "", nil
	}
	det, err := Detect(data)
	if err != nil {
		return nil, "", err
	}
	if !det.Ambiguous() {
		b, err := Decode(data, det.Dialect)
		if err != nil {
			return nil, "", fmt.Errorf("as %s (detected: %s): %w", det.Dialect, det.Reason, err)
		}
		return b, det.Reason, nil
	}
	var found *Body
	readers, errs := eachReader(data, det, func(b *Body) {
		if found == nil {
			found = b
		}
	})
	switch len(readers) {
	case 0:
		return nil, "", errors.New(strings.Join(errs, "; "))
	case 1:
		return found, narrowed(det, readers, errs), nil
	}
	det.Reason = narrowed(det, readers, errs)
	det.Candidates, det.Dialect = readers, readers[0]
	return nil, "", &AmbiguousError{Detection: det}
}

// eachReader decodes data as each candidate of an ambiguous det, one at a
// time, and calls f with each body that reads; a candidate that cannot
// read it is not one. It returns the dialects that read it, and why each
// other did not.
func eachReader(data []byte, det Detection, f func(*Body)) (readers []transcript.Dialect, errs []string) {
	for _, c := range det.Candidates {
		b, err := Decode(data, c)
		if err != nil {
			errs = append(errs, fmt.Sprintf("as %s: %v", c, err))
			continue
		}
		readers = append(readers, c)
		f(b)
	}
	return readers, errs
}

// narrowed is the reason of an ambiguous detection whose candidates the
// codecs narrowed to readers: those that could not read the body, errs,
// are named with why.
func narrowed(det Detection, readers []transcript.Dialect, errs []string) string {
	if len(errs) == 0 {
		return det.Reason
	}
	who := "only " + string(readers[0]) + " reads"
	if len(readers) > 1 {
		var s dialects
		for _, r := range readers {
			s |= 1 << slices.Index(transcript.Dialects(), r)
		}
		who = "only " + s.String() + " read"
	}
	return fmt.Sprintf("%s, and %s it (%s)", det.Reason, who, strings.Join(errs, "; "))
}

// wireChange describes how re-encoding with fixWire cleared v, one of the
// violations a codec found while decoding.
func wireChange(v transcript.Violation) transcript.Change {
	c := transcript.Change{Rule: v.Rule, Path: v.Path, Action: ActionReencode, Reason: "written back in a form the provider accepts: " + v.Message}
	switch v.Rule {
	case "ANT-SYSTEM-ROLE":
		c.Action = transcript.ActionMerge
		c.Reason = `moved the text of this role "system" message into the top-level system field, in order after the system text before it`
	case "ANT-MAX-TOKENS":
		c.Reason = `added "max_tokens": 4096 (4096 more than thinking.budget_tokens when thinking has a budget), the only fix: the Messages API requires the field and the body had none; set the limit you want`
	case "GEM-PARTS-NONEMPTY":
		c.Action = transcript.ActionDrop
		c.Reason = "left out this part, which has no data field (and its content, had it no other part)"
	case "OAI-CC-JSON-TYPE", "OAI-RS-JSON-TYPE", "ANT-JSON-TYPE":
		c.Reason = "wrote the value, which was JSON of another type, as the string the API takes, holding that JSON"
	case "GEM-ROLE":
		c.Reason = `wrote the role "assistant" as "model", Gemini's role for the model's turns`
	case "GEM-RESPONSE-OBJECT":
		c.Reason = `wrapped the response, which is not an object, as {"output": <the response>}`
	case "OAI-CC-PART-TYPE":
		c.Reason = `wrote this part, which had no "type" and held only text, as {"type":"text","text":...}`
	case "OAI-CC-EMPTY-TOOLCALLS":
		c.Action = transcript.ActionDrop
		c.Reason = "left out the empty tool_calls array"
	case "OAI-RS-REASONING-FOLLOW":
		c.Action = transcript.ActionDrop
		c.Reason = "left out the reasoning item: the item after it has no id, so it is not the stored item the reasoning belongs to"
	}
	return c
}

func hasViolation(vs []transcript.Violation, v transcript.Violation) bool {
	for _, x := range vs {
		if x.Rule == v.Rule && x.Path == v.Path {
			return true
		}
	}
	return false
}

// Converted is a body converted to another dialect.
type Converted struct {
	// From is the dialect converted from.
	From transcript.Dialect
	// Detected says why From was chosen when it was detected, else "".
	Detected string
	// Body is the converted body.
	Body []byte
	// Warnings are what could not be carried over exactly: the source's
	// other top-level fields, unmodeled data, wire violations of the
	// source, and what the target's encoder could not write.
	Warnings []provider.Warning
	// Violations are the rules of the target the converted body breaks, as
	// read back.
	Violations []transcript.Violation
	// Left is what [Fix] leaves of Violations, as [Verdict.Left]: empty
	// when it repairs them all, nil when there are none.
	Left []transcript.Violation
}

// Convert decodes data as a request body of dialect from (detected when
// from is "", as in [Fix]) and converts it to dialect to, as
// [Body.Convert].
func Convert(data []byte, from, to transcript.Dialect) (*Converted, error) {
	b, why, err := decodeOne(data, from)
	if err != nil {
		return nil, err
	}
	c, err := b.Convert(to)
	if err != nil {
		return nil, err
	}
	c.Detected = why
	return c, nil
}

// Convert writes the body's conversation, tools included, in dialect to.
// Converting to the body's own dialect writes it back.
func (b *Body) Convert(to transcript.Dialect) (*Converted, error) {
	var out []byte
	var warns []provider.Warning
	var err error
	if to == b.dialect {
		out, warns, err = b.c.encode()
	} else {
		req := b.conversation()
		kept, lost := b.c.extras()
		opts, optWarns, rest := convertOptions(b.c.top(), b.dialect, to)
		rest = append(rest, kept...)
		if len(rest) > 0 {
			warns = append(warns, provider.Warning{Message: fmt.Sprintf("not converted (set them for %s yourself): %s", to, strings.Join(rest, ", "))})
		}
		warns = append(warns, optWarns...)
		for _, w := range lost {
			warns = append(warns, provider.Warning{Path: w.Path, Message: "lost in conversion: " + w.Message})
		}
		for _, v := range b.c.wire() {
			warns = append(warns, provider.Warning{Path: v.Path, Message: fmt.Sprintf("%s in the source (%s) is not carried over", v.Rule, v.Message)})
		}
		if req.Thinking {
			warns = append(warns, provider.Warning{Message: fmt.Sprintf("extended thinking was on in the source; %s has its own setting for it", to)})
			req.Thinking = false
		}
		var nb *Body
		if nb, err = New(to, req, b.c.bare()); err != nil {
			return nil, err
		}
		nb.c.addTop(opts)
		var enc []provider.Warning
		out, enc, err = nb.c.encode()
		warns = append(warns, enc...)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: encode as %s: %v", ErrInternal, to, err)
	}
	c := &Converted{From: b.dialect, Body: out, Warnings: warns}
	if back, err := Decode(out, to); err == nil {
		v := back.verdict()
		c.Violations, c.Left = v.Violations, v.Left
	}
	return c, nil
}
