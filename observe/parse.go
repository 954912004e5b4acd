package observe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/toolwire/toolwire/internal/jsontree"
	"github.com/toolwire/toolwire/llm"
)

// Parse reads a rendered envelope back, as a trace viewer or a test does.
// Data comes back as a json.RawMessage holding the data's bytes as they
// are. Unknown fields, a field given twice, a value of the wrong type and
// envelopes that do not [Envelope.Validate] are errors, which name the
// field ("observe: parse envelope: meta.duration_ms: want an integer, got
// a string"), or the line, column and byte offset of what is not JSON. A
// null field is the same as none.
func Parse(b []byte) (Envelope, error) {
	t, err := jsontree.Parse(b, &jsontree.Options{AllowInvalidUTF8: true})
	if err != nil {
		return Envelope{}, fmt.Errorf("observe: parse envelope: %w", err)
	}
	p := parser{t: t}
	e := p.envelope(t.Root())
	if p.err != nil {
		return Envelope{}, fmt.Errorf("observe: parse envelope: %w", p.err)
	}
	if err := e.Validate(); err != nil {
		return Envelope{}, err
	}
	return e, nil
}

// parser reads an envelope from its tree, keeping the first error.
type parser struct {
	t   *jsontree.Tree
	err error
}

func (p *parser) fail(n jsontree.Node, format string, args ...any) {
	if p.err == nil {
		msg := fmt.Sprintf(format, args...)
		if path := p.t.Path(n); path != "" {
			msg = path + ": " + msg
		}
		p.err = errors.New(msg)
	}
}

// object calls f with each member of n, an object, and reports a member
// f does not know or one given twice. fields lists the known keys, for
// the error.
func (p *parser) object(n jsontree.Node, what, fields string, f func(key string, v jsontree.Node) bool) {
	t := p.t
	if t.Kind(n) != jsontree.Object {
		p.fail(n, "want %s (an object), got %s", what, t.Kind(n).Phrase())
		return
	}
	if d := t.Duplicate(n); d != jsontree.None {
		p.fail(d, "given twice")
		return
	}
	for m := t.First(n); m != jsontree.None && p.err == nil; m = t.Next(m) {
		if t.Kind(m) == jsontree.Null {
			continue // as if absent
		}
		if !f(t.Key(m), m) {
			p.fail(n, "unknown field %q (%s has %s)", t.Key(m), what, fields)
		}
	}
}

func (p *parser) str(n jsontree.Node) string {
	if p.t.Kind(n) != jsontree.String {
		p.fail(n, "want a string, got %s", p.t.Kind(n).Phrase())
		return ""
	}
	return p.t.Str(n)
}

func (p *parser) boolean(n jsontree.Node) bool {
	if p.t.Kind(n) != jsontree.Bool {
		p.fail(n, "want true or false, got %s", p.t.Kind(n).Phrase())
		return false
	}
	return p.t.IsTrue(n)
}

func (p *parser) integer(n jsontree.Node) int64 {
	if p.t.Kind(n) != jsontree.Number {
		p.fail(n, "want an integer, got %s", p.t.Kind(n).Phrase())
		return 0
	}
	raw := p.t.Raw(n)
	v, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		p.fail(n, "want an integer, got %s", raw)
	}
	return v
}

func (p *parser) envelope(n jsontree.Node) Envelope {
	var e Envelope
	p.object(n, "an envelope", "status, summary, data, error, suggestion and meta", func(key string, v jsontree.Node) bool {
		switch key {
		case "status":
			e.Status = llm.Status(p.str(v))
		case "summary":
			e.Summary = p.str(v)
		case "data":
			e.Data = json.RawMessage(bytes.Clone(p.t.Raw(v)))
		case "error":
			e.Error = p.error(v)
		case "suggestion":
			e.Suggestion = p.str(v)
		case "meta":
			e.Meta = p.meta(v)
		default:
			return false
		}
		return true
	})
	return e
}

func (p *parser) error(n jsontree.Node) *Error {
	var e Error
	p.object(n, "error", "type, message, retryable and retry_after_ms", func(key string, v jsontree.Node) bool {
		switch key {
		case "type":
			e.Type = ErrorType(p.str(v))
		case "message":
			e.Message = p.str(v)
		case "retryable":
			e.Retryable = p.boolean(v)
		case "retry_after_ms":
			e.RetryAfter = time.Duration(p.integer(v)) * time.Millisecond
		default:
			return false
		}
		return true
	})
	return &e
}

func (p *parser) meta(n jsontree.Node) Meta {
	var m Meta
	p.object(n, "meta", "source, duration_ms, truncated, omitted, ref, attempts, repaired, invalid_utf8, level, tokens_before, tokens_after, pruned, flattened and trace", func(key string, v jsontree.Node) bool {
		switch key {
		case "source":
			m.Source = p.str(v)
		case "duration_ms":
			m.Duration = time.Duration(p.integer(v)) * time.Millisecond
		case "truncated":
			m.Truncated = p.boolean(v)
		case "omitted":
			m.Omitted = int(p.integer(v))
		case "ref":
			m.Ref = p.str(v)
		case "attempts":
			m.Attempts = int(p.integer(v))
		case "repaired":
			m.Repaired = p.str(v)
		case "invalid_utf8":
			m.InvalidUTF8 = p.boolean(v)
		case "level":
			m.Level = Level(p.str(v))
		case "tokens_before":
			m.TokensBefore = int(p.integer(v))
		case "tokens_after":
			m.TokensAfter = int(p.integer(v))
		case "pruned":
			m.Pruned = int(p.integer(v))
		case "flattened":
			m.Flattened = int(p.integer(v))
		case "trace":
			m.Trace = p.str(v)
		default:
			return false
		}
		return true
	})
	return m
}
