package toolwire

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/toolresult"
)

// canonicalArgs returns a call's arguments in a canonical form, so that
// {"a":1, "b":2} and {"b":2,"a":1} are the same call: compact JSON with
// sorted keys, or a digest of the bytes as sent when they are long or not
// JSON.
func canonicalArgs(raw []byte) string {
	var v any
	out := bytes.TrimSpace(raw)
	if err := json.Unmarshal(raw, &v); err == nil {
		if b, err := json.Marshal(v, json.Deterministic(true), jsontext.EscapeForHTML(false)); err == nil {
			out = b
		}
	}
	if len(out) > 256 {
		sum := sha256.Sum256(out)
		return "sha256:" + hex.EncodeToString(sum[:12])
	}
	return string(out)
}

// resultDigest identifies what a result says, leaving out what changes
// from one call to the next without saying anything new: its meta
// (duration, ref, attempts) and its suggestion.
func resultDigest(env toolresult.Envelope) string {
	env.Meta = toolresult.Meta{}
	env.Suggestion = ""
	b, err := env.MarshalJSON()
	if err != nil {
		b = []byte(env.Summary)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// findRecord returns the record of the call, nil if there is none.
func findRecord(recs []CallRecord, tool, args string) *CallRecord {
	for i := range recs {
		if recs[i].Tool == tool && recs[i].Args == args {
			return &recs[i]
		}
	}
	return nil
}
