package lint

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// portableName is the tool-name rule every provider accepts
// (docs/provider-rules.md §1): Gemini's first-character rule, OpenAI's and
// Anthropic's character set, and the 64-character limit they share.
var portableName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`)

// maxNameLen is the tool-name length limit of OpenAI (OAI-CC-TOOLNAME-LEN),
// Anthropic's documentation (ANT-TOOLNAME) and Gemini (GEM-NAME).
const maxNameLen = 64

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// checkName enforces the portable tool-name rule and says which provider
// rejects a name that breaks it, and why.
func (c *checker) checkName() {
	name := c.spec.Name
	if portableName.MatchString(name) {
		return
	}
	var problems []string
	rejects := map[string]bool{}
	for _, p := range nameProblems(name) {
		problems = append(problems, p.provider+" ("+p.rule+": "+p.reason+")")
		rejects[p.provider] = true
	}
	msg := sprintf("name %s is rejected by %s", quote(name), strings.Join(problems, "; "))
	var accept []string
	for _, p := range []string{"OpenAI", "Anthropic", "Gemini"} {
		if !rejects[p] {
			accept = append(accept, p)
		}
	}
	switch len(accept) {
	case 1:
		msg += "; only " + accept[0] + " accepts it"
	case 2:
		msg += "; " + accept[0] + " and " + accept[1] + " accept it"
	}
	if name == "" {
		msg = "the tool has no name; every provider requires one"
	}
	c.add(NameInvalid, "name", msg,
		sprintf("rename it to %s: start with a letter or _, then use only letters, digits, _ and -, at most 64 characters (^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$)", quote(portableNameFor(name))))
}

type nameProblem struct{ provider, rule, reason string }

// nameProblems lists, per provider, why it rejects name.
func nameProblems(name string) []nameProblem {
	n := utf8.RuneCountInString(name)
	var out []nameProblem
	// OpenAI Chat and Responses: ^[a-zA-Z0-9_-]+$, at most 64.
	switch {
	case name == "":
		out = append(out, nameProblem{"OpenAI", "OAI-CC-TOOLNAME-PATTERN", "a name is required"})
	case firstBad(name, isNameRune) >= 0:
		out = append(out, nameProblem{"OpenAI", "OAI-CC-TOOLNAME-PATTERN", badRuneReason(name, isNameRune, "letters, digits, _ and -")})
	case n > maxNameLen:
		out = append(out, nameProblem{"OpenAI", "OAI-CC-TOOLNAME-LEN", sprintf("%d characters, the limit is 64", n)})
	}
	// Anthropic: ^[a-zA-Z0-9_-]{1,64}$ in the docs; the API now says {1,128}.
	switch {
	case name == "":
		out = append(out, nameProblem{"Anthropic", "ANT-TOOLNAME", "a name is required"})
	case firstBad(name, isNameRune) >= 0:
		out = append(out, nameProblem{"Anthropic", "ANT-TOOLNAME", badRuneReason(name, isNameRune, "letters, digits, _ and -")})
	case n > 128:
		out = append(out, nameProblem{"Anthropic", "ANT-TOOLNAME", sprintf("%d characters, the limit is 128", n)})
	case n > maxNameLen:
		out = append(out, nameProblem{"Anthropic", "ANT-TOOLNAME", sprintf("%d characters, the documented limit is 64 (the API accepts up to 128)", n)})
	}
	// Gemini: a letter or _ first, then [a-zA-Z0-9_.:-], at most 64.
	switch {
	case name == "":
		out = append(out, nameProblem{"Gemini", "GEM-NAME", "a name is required"})
	case !isGeminiFirst(name[0]):
		r, _ := utf8.DecodeRuneInString(name)
		out = append(out, nameProblem{"Gemini", "GEM-NAME", sprintf("starts with %s, must start with a letter or _", quote(string(r)))})
	case firstBad(name, isGeminiRune) >= 0:
		out = append(out, nameProblem{"Gemini", "GEM-NAME", badRuneReason(name, isGeminiRune, "letters, digits, _, ., : and -")})
	case n > maxNameLen:
		out = append(out, nameProblem{"Gemini", "GEM-NAME", sprintf("%d characters, the limit is 64", n)})
	}
	return out
}

func isNameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

func isGeminiRune(r rune) bool { return isNameRune(r) || r == '.' || r == ':' }

func isGeminiFirst(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_' }

// firstBad returns the byte index of the first rune that ok rejects, or -1.
func firstBad(s string, ok func(rune) bool) int {
	for i, r := range s {
		if !ok(r) {
			return i
		}
	}
	return -1
}

func badRuneReason(s string, ok func(rune) bool, allowed string) string {
	i := firstBad(s, ok)
	r, _ := utf8.DecodeRuneInString(s[i:])
	what := quote(string(r))
	if r == ' ' {
		what = "a space"
	}
	return sprintf("contains %s; only %s are allowed", what, allowed)
}

// portableNameFor derives a name every provider accepts from name.
func portableNameFor(name string) string {
	var b strings.Builder
	underscore := false
	for _, r := range name {
		if isNameRune(r) {
			b.WriteRune(r)
			underscore = r == '_'
			continue
		}
		if !underscore && b.Len() > 0 {
			b.WriteByte('_')
			underscore = true
		}
	}
	s := strings.TrimRight(b.String(), "_")
	if s == "" {
		s = "tool"
	}
	if !isGeminiFirst(s[0]) {
		s = "tool_" + s
	}
	if len(s) > maxNameLen {
		s = strings.TrimRight(s[:maxNameLen], "_-")
	}
	return s
}
