package tool

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kaptinlin/jsonrepair"
	"github.com/toolwire/toolwire/internal/jsonx"
)

// maxRepair bounds the arguments a repair is attempted on; larger
// malformed input is reported, not repaired.
const maxRepair = 64 << 10

// repairArgs tries a conservative repair of malformed JSON arguments. The
// repair itself is done by the jsonrepair library; repairArgs then checks
// that it is unambiguous: the repaired text must be the original with only
// these edits, and must be valid JSON:
//
//   - a markdown code fence around the whole input removed;
//   - a comma removed where the next non-space character is } or ] or the
//     end of the input (a trailing comma);
//   - single quotes that delimit strings replaced by double quotes (the
//     strings must hold no double quote or escape that would change);
//   - at the very end of the input, an unterminated string closed and
//     unclosed brackets closed, in order.
//
// Anything else the library would do (insert missing values or commas,
// quote bare words, convert Python constants, drop comments) is a guess,
// and repairArgs reports failure. The caller then validates the result
// against the schema, so that a repair is used only when it also makes
// sense for the tool. It returns the repaired JSON and a description of
// the edits.
//
// truncated reports that the repair closed an unterminated string: the
// last value was probably cut off.
func repairArgs(in []byte) (out []byte, what string, truncated, ok bool) {
	src := bytes.TrimSpace(in)
	if len(src) == 0 || len(src) > maxRepair {
		return nil, "", false, false
	}
	var notes []string
	if inner, fenced := stripFence(src); fenced {
		src = inner
		notes = append(notes, "removed a markdown code fence")
		if jsonx.Valid(src) == nil {
			return src, strings.Join(notes, "; "), false, true
		}
	}
	repaired, err := jsonrepair.Repair(string(src))
	if err != nil {
		return nil, "", false, false
	}
	r := bytes.TrimSpace([]byte(repaired))
	edits, truncated, ok := verifyEdits(src, r)
	if !ok || jsonx.Valid(r) != nil {
		return nil, "", false, false
	}
	notes = append(notes, edits...)
	if len(notes) == 0 {
		return nil, "", false, false
	}
	return r, strings.Join(notes, "; "), truncated, true
}

// stripFence removes a markdown code fence (```json ... ```) around the
// whole input.
func stripFence(b []byte) ([]byte, bool) {
	if !bytes.HasPrefix(b, []byte("```")) || !bytes.HasSuffix(b, []byte("```")) || len(b) < 6 {
		return nil, false
	}
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return nil, false
	}
	lang := strings.TrimSpace(string(b[3:nl]))
	if lang != "" && lang != "json" && lang != "JSON" {
		return nil, false
	}
	inner := bytes.TrimSpace(b[nl+1 : len(b)-3])
	if len(inner) == 0 {
		return nil, false
	}
	return inner, true
}

// verifyEdits checks that r is o with only the edits repairArgs allows,
// and describes them.
func verifyEdits(o, r []byte) (notes []string, closedString, ok bool) {
	const (
		none = iota
		double
		single
	)
	state, escaped := none, false
	commas, quotes := 0, 0
	i, j := 0, 0
	for i < len(o) {
		c := o[i]
		switch {
		case j < len(r) && r[j] == c && !(c == '\'' && state != double):
			// unchanged byte
		case j < len(r) && c == '\'' && r[j] == '"' && !escaped && state != double:
			quotes++
		case c == ',' && state == none && closesNext(o[i+1:]):
			commas++
			i++
			continue
		default:
			return nil, false, false
		}
		// Track strings in the original.
		switch {
		case escaped:
			escaped = false
		case state != none && c == '\\':
			escaped = true
		case state == none && c == '"':
			state = double
		case state == none && c == '\'':
			state = single
		case state == double && c == '"', state == single && c == '\'':
			state = none
		}
		i++
		j++
	}
	// What the repair appended at the very end.
	tail := r[j:]
	brackets := 0
	for k, c := range tail {
		switch {
		case c == '"' && k == 0 && state != none:
			closedString = true
		case c == '}' || c == ']':
			brackets++
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
		default:
			return nil, false, false
		}
	}
	if state != none && !closedString {
		return nil, false, false
	}
	if quotes > 0 {
		notes = append(notes, "replaced single quotes with double quotes")
	}
	if commas == 1 {
		notes = append(notes, "removed a trailing comma")
	} else if commas > 1 {
		notes = append(notes, fmt.Sprintf("removed %d trailing commas", commas))
	}
	switch {
	case closedString && brackets > 0:
		notes = append(notes, fmt.Sprintf("closed an unterminated string and %s at the end", plural(brackets, "bracket")))
	case closedString:
		notes = append(notes, "closed an unterminated string at the end")
	case brackets > 0:
		notes = append(notes, fmt.Sprintf("closed %s at the end", plural(brackets, "unclosed bracket")))
	}
	return notes, closedString, true
}

// closesNext reports whether the next non-space byte of b closes a
// container, or b has nothing but space left.
func closesNext(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) == 0 || b[0] == '}' || b[0] == ']'
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
