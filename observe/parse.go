package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolwire/toolwire/llm"
)

type wireEnvelope struct {
	Status     llm.Status      `json:"status"`
	Summary    string          `json:"summary"`
	Data       json.RawMessage `json:"data"`
	Error      *wireError      `json:"error"`
	Suggestion string          `json:"suggestion"`
	Meta       *wireMeta       `json:"meta"`
}

type wireError struct {
	Type         ErrorType `json:"type"`
	Message      string    `json:"message"`
	Retryable    bool      `json:"retryable"`
	RetryAfterMS int64     `json:"retry_after_ms"`
}

type wireMeta struct {
	Source      string `json:"source"`
	DurationMS  int64  `json:"duration_ms"`
	Truncated   bool   `json:"truncated"`
	Omitted     int    `json:"omitted"`
	Ref         string `json:"ref"`
	Attempts    int    `json:"attempts"`
	Repaired    string `json:"repaired"`
	InvalidUTF8 bool   `json:"invalid_utf8"`

	Level        Level  `json:"level"`
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
	Pruned       int    `json:"pruned"`
	Flattened    int    `json:"flattened"`
	Trace        string `json:"trace"`
}

// Parse reads a rendered envelope back, as a trace viewer or a test does.
// Data comes back as a json.RawMessage. Unknown fields and envelopes that
// do not [Envelope.Validate] are errors.
func Parse(b []byte) (Envelope, error) {
	var w wireEnvelope
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Envelope{}, fmt.Errorf("observe: parse envelope: %w", err)
	}
	if dec.More() {
		return Envelope{}, fmt.Errorf("observe: parse envelope: unexpected data after the envelope")
	}
	e := Envelope{Status: w.Status, Summary: w.Summary, Suggestion: w.Suggestion}
	if w.Data != nil {
		e.Data = w.Data
	}
	if w.Error != nil {
		e.Error = &Error{Type: w.Error.Type, Message: w.Error.Message, Retryable: w.Error.Retryable,
			RetryAfter: time.Duration(w.Error.RetryAfterMS) * time.Millisecond}
	}
	if m := w.Meta; m != nil {
		e.Meta = Meta{Source: m.Source, Duration: time.Duration(m.DurationMS) * time.Millisecond,
			Truncated: m.Truncated, Omitted: m.Omitted, Ref: m.Ref, Attempts: m.Attempts,
			Repaired: m.Repaired, InvalidUTF8: m.InvalidUTF8,
			Level: m.Level, TokensBefore: m.TokensBefore, TokensAfter: m.TokensAfter,
			Pruned: m.Pruned, Flattened: m.Flattened, Trace: m.Trace}
	}
	if err := e.Validate(); err != nil {
		return Envelope{}, err
	}
	return e, nil
}
