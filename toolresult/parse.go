package toolresult

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
)

// Parse reads a rendered envelope back, as a trace viewer or a test does.
// Data comes back as a jsontext.Value holding the data's bytes as they
// are. Unknown fields, a field given twice, a value of the wrong type and
// envelopes that do not [Envelope.Validate] are errors, which name the
// field ("toolresult: parse envelope: meta.duration_ms: want an integer, got
// a string"), or the line, column and byte offset of what is not JSON. A
// null field is the same as none.
func Parse(b []byte) (Envelope, error) {
	// One pass: the decoder checks the syntax of what the parser reads,
	// and the bytes are checked again, for the place of a syntax error,
	// only when the parse fails or leaves something after the envelope.
	p := parser{dec: jsonx.NewDecoder(b)}
	e := p.envelope()
	if p.err != nil || p.dec.StackDepth() != 0 || jsonx.End(p.dec, b) != nil {
		if err := jsonx.Valid(b); err != nil {
			return Envelope{}, fmt.Errorf("toolresult: parse envelope: %w", jsonx.Error("", llm.Dotted, b, err))
		}
	}
	if p.err != nil {
		return Envelope{}, fmt.Errorf("toolresult: parse envelope: %w", p.err)
	}
	if err := e.Validate(); err != nil {
		return Envelope{}, err
	}
	return e, nil
}

// parser reads an envelope from a decoder of valid, strict JSON (no name
// given twice), keeping the first error. Each read method reads one
// value; after an error, nothing more is read.
type parser struct {
	dec *jsontext.Decoder
	err error
}

// fail records the first error, at path (dotted).
func (p *parser) fail(path, format string, args ...any) {
	if p.err == nil {
		msg := fmt.Sprintf(format, args...)
		if path != "" {
			msg = path + ": " + msg
		}
		p.err = errors.New(msg)
	}
}

// path returns the dotted path of the value just read.
func (p *parser) path() string {
	return strings.Join(slices.Collect(p.dec.StackPointer().Tokens()), ".")
}

// object reads an object, calling f with each member's name once the
// name is read; f reads the value. A member f does not know is an error.
// fields lists the known names, for the error.
func (p *parser) object(what, fields string, f func(key string) bool) {
	path := p.path()
	if k := p.dec.PeekKind(); k != '{' {
		p.fail(path, "want %s (an object), got %s", what, jsonx.KindPhrase(k))
		return
	}
	_, _ = p.dec.ReadToken()
	for p.err == nil && p.dec.PeekKind() == '"' {
		tok, _ := p.dec.ReadToken()
		key := tok.String()
		if p.dec.PeekKind() == 'n' {
			_ = p.dec.SkipValue() // as if absent
			continue
		}
		if !f(key) {
			p.fail(path, "unknown field %q (%s has %s)", key, what, fields)
		}
	}
	if p.err == nil {
		_, _ = p.dec.ReadToken()
	}
}

func (p *parser) str() string {
	if k := p.dec.PeekKind(); k != '"' {
		_ = p.dec.SkipValue()
		p.fail(p.path(), "want a string, got %s", jsonx.KindPhrase(k))
		return ""
	}
	tok, _ := p.dec.ReadToken()
	return tok.String()
}

func (p *parser) boolean() bool {
	tok, _ := p.dec.ReadToken()
	if k := tok.Kind(); k != 't' && k != 'f' {
		p.fail(p.path(), "want true or false, got %s", jsonx.KindPhrase(k))
		return false
	}
	return tok.Bool()
}

func (p *parser) integer() int64 {
	k := p.dec.PeekKind()
	raw, _ := p.dec.ReadValue()
	if k != '0' {
		p.fail(p.path(), "want an integer, got %s", jsonx.KindPhrase(k))
		return 0
	}
	v, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		p.fail(p.path(), "want an integer, got %s", raw)
	}
	return v
}

func (p *parser) envelope() Envelope {
	var e Envelope
	p.object("an envelope", "status, summary, data, error, suggestion and meta", func(key string) bool {
		switch key {
		case "status":
			e.Status = llm.Status(p.str())
		case "summary":
			e.Summary = p.str()
		case "data":
			raw, _ := p.dec.ReadValue()
			e.Data = jsontext.Value(bytes.Clone(raw))
		case "error":
			e.Error = p.error()
		case "suggestion":
			e.Suggestion = p.str()
		case "meta":
			e.Meta = p.meta()
		default:
			return false
		}
		return true
	})
	return e
}

func (p *parser) error() *Error {
	var e Error
	p.object("error", "type, message, retryable and retry_after_ms", func(key string) bool {
		switch key {
		case "type":
			e.Type = ErrorType(p.str())
		case "message":
			e.Message = p.str()
		case "retryable":
			e.Retryable = p.boolean()
		case "retry_after_ms":
			e.RetryAfter = time.Duration(p.integer()) * time.Millisecond
		default:
			return false
		}
		return true
	})
	return &e
}

func (p *parser) meta() Meta {
	var m Meta
	p.object("meta", "source, duration_ms, truncated, omitted, ref, attempts, repaired, invalid_utf8, level, tokens_before, tokens_after, pruned, flattened and trace", func(key string) bool {
		switch key {
		case "source":
			m.Source = p.str()
		case "duration_ms":
			m.Duration = time.Duration(p.integer()) * time.Millisecond
		case "truncated":
			m.Truncated = p.boolean()
		case "omitted":
			m.Omitted = int(p.integer())
		case "ref":
			m.Ref = p.str()
		case "attempts":
			m.Attempts = int(p.integer())
		case "repaired":
			m.Repaired = p.str()
		case "invalid_utf8":
			m.InvalidUTF8 = p.boolean()
		case "level":
			m.Level = Level(p.str())
		case "tokens_before":
			m.TokensBefore = int(p.integer())
		case "tokens_after":
			m.TokensAfter = int(p.integer())
		case "pruned":
			m.Pruned = int(p.integer())
		case "flattened":
			m.Flattened = int(p.integer())
		case "trace":
			m.Trace = p.str()
		default:
			return false
		}
		return true
	})
	return m
}
