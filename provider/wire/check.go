package wire

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/toolwire/toolwire/transcript"
)

// A Report is the verdict on a request body.
type Report struct {
	// Dialect is the dialect the body was judged in.
	Dialect transcript.Dialect
	// Detected says why Dialect was chosen when it was detected, else "".
	Detected string
	// Violations are what the provider would reject (and warnings), in
	// body order, with paths into the body.
	Violations []transcript.Violation
}

// Accepted reports whether the provider would accept the body: every
// violation is a warning.
func (r *Report) Accepted() bool { return transcript.Accepted(r.Violations) }

// Check decodes data as a request body of dialect d, or of the dialect
// [Detect] finds when d is "", and judges it. An error means the body could
// not be read as a request of that dialect (it says what and where); a body
// that reads but breaks a rule is a Report that is not accepted.
func Check(data []byte, d transcript.Dialect) (*Report, error) {
	why := ""
	if d == "" {
		det, err := Detect(data)
		if err != nil {
			return nil, err
		}
		d, why = det.Dialect, det.Reason
	}
	b, err := Decode(data, d)
	if err != nil {
		return nil, fmt.Errorf("as %s: %w", d, err)
	}
	return &Report{Dialect: d, Detected: why, Violations: b.Check()}, nil
}

// Check returns the codec's wire violations and transcript's, in body
// order, with paths into the body.
func (b *Body) Check() []transcript.Violation {
	vs := append([]transcript.Violation(nil), b.c.wire()...)
	for _, v := range transcript.CheckRequest(b.c.request(), b.dialect) {
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
	// Body is the repaired body, in the same dialect, with its other fields
	// kept.
	Body []byte
	// Changes are the repairs made, with paths into the input body.
	Changes []transcript.Change
	// Warnings are what the encoder could not write exactly.
	Warnings []transcript.Warning
	// Unrepaired is Repair's *transcript.RepairError when it could not fix
	// everything without guessing (a conflicting duplicate result), else
	// nil. Its problems have paths into the input body.
	Unrepaired error
	// Violations are what Body still breaks, as read back.
	Violations []transcript.Violation
}

// Accepted reports whether the provider would accept the repaired body.
func (f *Fixed) Accepted() bool { return transcript.Accepted(f.Violations) }

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
	repaired, changes, rerr := transcript.RepairRequest(b.c.request(), b.dialect, p)
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
	wire := b.c.wire()
	b.c.set(repaired)
	b.c.fixWire()
	out, warns, err := b.c.encode()
	if err != nil {
		return nil, fmt.Errorf("wire: encode the repaired body: %w", err)
	}
	if b.src != nil {
		// What the repair left as it was keeps its bytes.
		out = splice(b.src, out)
	}
	again, err := Decode(out, b.dialect)
	if err != nil {
		return nil, fmt.Errorf("wire: the repaired body does not decode: %w", err)
	}
	after := again.Check()
	// Wire violations vanish by re-encoding; say how.
	for _, v := range wire {
		if !hasViolation(after, v) {
			changes = append(changes, wireChange(v))
		}
	}
	return &Fixed{Body: out, Changes: changes, Warnings: warns, Unrepaired: rerr, Violations: after}, nil
}

// Fix decodes data as a request body of dialect d (detected when d is "")
// and repairs it by p, as [Body.Fix].
func Fix(data []byte, d transcript.Dialect, p *transcript.Policy) (*Fixed, error) {
	if d == "" {
		det, err := Detect(data)
		if err != nil {
			return nil, err
		}
		d = det.Dialect
	}
	b, err := Decode(data, d)
	if err != nil {
		return nil, fmt.Errorf("as %s: %w", d, err)
	}
	return b.Fix(p)
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
	// Body is the converted body.
	Body []byte
	// Warnings are what could not be carried over exactly: the source's
	// other top-level fields, unmodeled data, wire violations of the
	// source, and what the target's encoder could not write.
	Warnings []transcript.Warning
	// Violations are the rules of the target the converted body breaks, as
	// read back; toolwire check --fix repairs them.
	Violations []transcript.Violation
}

// Convert writes the body's conversation, tools included, in dialect to.
// Converting to the body's own dialect writes it back.
func (b *Body) Convert(to transcript.Dialect) (*Converted, error) {
	var out []byte
	var warns []transcript.Warning
	var err error
	if to == b.dialect {
		out, warns, err = b.c.encode()
	} else {
		req := b.conversation()
		fields, lost := b.c.extras()
		if len(fields) > 0 {
			warns = append(warns, transcript.Warning{Message: fmt.Sprintf("not converted (set them for %s yourself): %s", to, strings.Join(fields, ", "))})
		}
		for _, w := range lost {
			warns = append(warns, transcript.Warning{Path: w.Path, Message: "lost in conversion: " + w.Message})
		}
		for _, v := range b.c.wire() {
			warns = append(warns, transcript.Warning{Path: v.Path, Message: fmt.Sprintf("%s in the source (%s) is not carried over", v.Rule, v.Message)})
		}
		if req.Thinking {
			warns = append(warns, transcript.Warning{Message: fmt.Sprintf("extended thinking was on in the source; %s has its own setting for it", to)})
			req.Thinking = false
		}
		var nb *Body
		if nb, err = New(to, req, b.c.bare()); err != nil {
			return nil, err
		}
		var enc []transcript.Warning
		out, enc, err = nb.c.encode()
		warns = append(warns, enc...)
	}
	if err != nil {
		return nil, fmt.Errorf("wire: encode as %s: %w", to, err)
	}
	c := &Converted{Body: out, Warnings: warns}
	if back, err := Decode(out, to); err == nil {
		c.Violations = back.Check()
	}
	return c, nil
}
