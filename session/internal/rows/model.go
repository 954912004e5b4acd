package rows

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
)

// maxModelText bounds a model's spec and base URL.
const maxModelText = 1024

// CheckModel reports whether m may be stored with a session. Its errors
// never repeat a password the base URL holds.
func CheckModel(m session.Model) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: model: "+format, append([]any{session.ErrInvalid}, args...)...)
	}
	if len(m.Spec) > maxModelText || hasControl(m.Spec) {
		return bad("the model spec is longer than %d bytes or holds a control character", maxModelText)
	}
	if m.BaseURL != "" {
		u, err := url.Parse(m.BaseURL)
		switch {
		case len(m.BaseURL) > maxModelText || hasControl(m.BaseURL) || err != nil:
			return bad("the base URL is longer than %d bytes, holds a control character or does not parse", maxModelText)
		case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
			return bad("the base URL %s is not an absolute http or https URL", u.Redacted())
		}
		if _, has := u.User.Password(); has {
			return bad("the base URL %s holds a password; a session never stores one: store it without", u.Redacted())
		}
	}
	o := m.Options
	switch {
	case o.Temperature != nil && (*o.Temperature < 0 || *o.Temperature > 2 || *o.Temperature != *o.Temperature):
		return bad("temperature %v is outside [0, 2]", *o.Temperature)
	case o.MaxOutputTokens < 0:
		return bad("max output tokens %d is negative", o.MaxOutputTokens)
	case !o.Effort.Valid():
		return bad("effort %q is not minimal, low, medium or high", o.Effort)
	case o.Timeout < 0 || o.IdleTimeout < 0:
		return bad("a timeout is negative (%v, idle %v)", o.Timeout, o.IdleTimeout)
	case o.MaxTurns < 0:
		return bad("max turns %d is negative", o.MaxTurns)
	}
	return nil
}

func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) {
			return true
		}
	}
	return false
}

// CopyModel returns m with a temperature of its own, so that neither the
// caller nor the store changes the other's.
func CopyModel(m session.Model) session.Model {
	if t := m.Options.Temperature; t != nil {
		v := *t
		m.Options.Temperature = &v
	}
	return m
}

// modelOptionsJSON is how [session.ModelOptions] is stored: one JSON
// object, its zero fields left out, durations in nanoseconds.
type modelOptionsJSON struct {
	Temperature     *float64 `json:"temperature,omitempty"`
	MaxOutputTokens int      `json:"max_output_tokens,omitzero"`
	Effort          string   `json:"effort,omitzero"`
	TimeoutNS       int64    `json:"timeout_ns,omitzero"`
	IdleTimeoutNS   int64    `json:"idle_timeout_ns,omitzero"`
	MaxTurns        int      `json:"max_turns,omitzero"`
}

// EncodeModelOptions encodes o for storage; nil for the zero options.
func EncodeModelOptions(o session.ModelOptions) []byte {
	if o == (session.ModelOptions{}) {
		return nil
	}
	b, err := json.Marshal(modelOptionsJSON{Temperature: o.Temperature, MaxOutputTokens: o.MaxOutputTokens, Effort: string(o.Effort),
		TimeoutNS: int64(o.Timeout), IdleTimeoutNS: int64(o.IdleTimeout), MaxTurns: o.MaxTurns}, json.Deterministic(true))
	if err != nil {
		panic("rows: encoding model options: " + err.Error()) // plain numbers and a string: cannot fail
	}
	return b
}

// DecodeModelOptions decodes what [EncodeModelOptions] wrote, strictly:
// an unknown member, a duplicate or a value that [CheckModel] refuses is
// an error. nil decodes to the zero options.
func DecodeModelOptions(b []byte) (session.ModelOptions, error) {
	if b == nil {
		return session.ModelOptions{}, nil
	}
	var in modelOptionsJSON
	opts := append([]json.Options{json.RejectUnknownMembers(true)}, jsonx.Strict()...)
	if err := json.Unmarshal(b, &in, opts...); err != nil {
		return session.ModelOptions{}, err
	}
	o := session.ModelOptions{Temperature: in.Temperature, MaxOutputTokens: in.MaxOutputTokens, Effort: llm.Effort(in.Effort),
		Timeout: time.Duration(in.TimeoutNS), IdleTimeout: time.Duration(in.IdleTimeoutNS), MaxTurns: in.MaxTurns}
	if err := CheckModel(session.Model{Options: o}); err != nil {
		return session.ModelOptions{}, errors.New(strings.TrimPrefix(err.Error(), session.ErrInvalid.Error()+": "))
	}
	return o, nil
}
