// Package callid is the one scheme by which toolwire gives a tool call a
// new id: transcript.Repair uses it for the ids a dialect refuses, and the
// provider encoders for the ids of a body converted from another dialect
// (docs/dialect-mapping.md, "Tool-call ids"). The same input always gets
// the same id:
//
//   - a call without an id gets [Made]: a prefix ("call_", "toolu_"), its
//     message index, "_" and its part index;
//   - an id with bytes the dialect refuses gets [Sanitize]: each run of
//     them becomes one "_", and a short hash of the original id follows,
//     so that two ids that sanitize alike stay apart;
//   - an id too long gets [Shorten]: its start and the hash;
//   - an id another call or result already has gets [Unique]: "_2", "_3",
//     ... after it.
//
// The call and its results always get the same new id.
package callid

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"unicode/utf8"
)

// Made returns the id of a call without one: prefix, the index of its
// message, "_" and the index of the part in it.
func Made(prefix string, msg, part int) string {
	return prefix + strconv.Itoa(msg) + "_" + strconv.Itoa(part)
}

// HashSuffix returns "_" and the first 8 hex digits of the SHA-256 of id,
// which keeps two ids that a rewrite makes alike apart.
func HashSuffix(id string) string {
	sum := sha256.Sum256([]byte(id))
	return "_" + hex.EncodeToString(sum[:4])
}

// Safe reports whether c may appear in a sanitized id: [a-zA-Z0-9_-].
func Safe(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// Sanitize returns id with each run of bytes outside [a-zA-Z0-9_-]
// replaced by one "_", without leading and trailing "_", and
// [HashSuffix](id) after it; fallback stands for an id that leaves
// nothing.
func Sanitize(id, fallback string) string {
	b := make([]byte, 0, len(id)+9)
	under := false
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case Safe(c):
			b = append(b, c)
			under = false
		case !under:
			b = append(b, '_')
			under = true
		}
	}
	start, end := 0, len(b)
	for start < end && b[start] == '_' {
		start++
	}
	for end > start && b[end-1] == '_' {
		end--
	}
	s := string(b[start:end])
	if s == "" {
		s = fallback
	}
	return s + HashSuffix(id)
}

// Shorten returns an id of at most max-3 bytes for id, which is longer:
// its start, cut at a character boundary, and [HashSuffix](id), leaving
// room for the suffix of [Unique].
func Shorten(id string, max int) string {
	suffix := HashSuffix(id)
	n := max - 3 - len(suffix)
	if n <= 0 {
		return suffix[1:]
	}
	for n > 0 && !utf8.RuneStart(id[n]) {
		n--
	}
	return id[:n] + suffix
}

// Unique returns base if taken does not have it, else base with "_2",
// "_3", ... after it, the first that taken does not have; and adds it to
// taken. With max > 0, base is cut (at a character boundary) so that the
// id has at most max bytes.
func Unique(base string, taken map[string]bool, max int) string {
	id := cut(base, max)
	for k := 2; taken[id]; k++ {
		suffix := "_" + strconv.Itoa(k)
		id = cut(base, max-len(suffix)) + suffix
	}
	taken[id] = true
	return id
}

// cut returns s cut to at most max bytes at a character boundary; s when
// max <= 0 or s fits.
func cut(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
