package transcript

import (
	"strconv"
	"strings"
)

// Anthropic's rules that depend on the model, as a table of model
// families (docs/provider-rules.md, "Anthropic model families"). A rule
// keyed on the model is an error for a family known to reject what it
// checks, nothing for a family known to accept it, and a warning for any
// other model, and when the request names none.

// antVerdict is what a model family does with a request shape.
type antVerdict uint8

const (
	antUnknown antVerdict = iota // no evidence either way: a warning
	antRejects
	antAccepts
)

// antFamily is a row of the table: the models of a family from a version
// on, up to the next row of the same family.
type antFamily struct {
	name         string // "opus", "sonnet", "haiku", "fable", "mythos"; "" before Claude 4 (claude-3-5-sonnet, claude-2.1, claude-instant-1.2)
	major, minor int    // the first version the row covers
	// midSystem is the verdict on a role "system" message after the
	// conversation started (ANT-SYSTEM-ROLE).
	midSystem antVerdict
}

// antFamilies is the table, each family's rows in ascending version.
// Evidence (docs/provider-rules.md): every model up to Claude 4.0 rejected
// a role "system" message with the "Unexpected role" error when the API had
// no such role (PROVIDER-RULES.md ANT-SYSTEM-ROLE: ChainForge#271, 2024;
// cursor-claude-connector#3, Claude Sonnet 4, July 2025). Anthropic
// documents mid-conversation system messages for Claude Opus 4.8, Opus 5,
// Fable 5 and Mythos 5 (SOURCES.md; the corpus holds opus-4-8 bodies
// answered 200). For the families released between (Claude 4.1 to 4.7,
// Sonnet 4.5, Haiku 4.5) and for Sonnet 5 (reports disagree) there is no
// recorded answer: a warning.
var antFamilies = []antFamily{
	{name: "", major: 0, minor: 0, midSystem: antRejects}, // Claude 1, 2, Instant, 3, 3.5, 3.7
	{name: "opus", major: 4, minor: 0, midSystem: antRejects},
	{name: "opus", major: 4, minor: 1, midSystem: antUnknown},
	{name: "opus", major: 4, minor: 8, midSystem: antAccepts},
	{name: "opus", major: 4, minor: 9, midSystem: antUnknown},
	{name: "opus", major: 5, minor: 0, midSystem: antAccepts},
	{name: "sonnet", major: 4, minor: 0, midSystem: antRejects},
	{name: "sonnet", major: 4, minor: 1, midSystem: antUnknown},
	{name: "fable", major: 5, minor: 0, midSystem: antAccepts},
	{name: "mythos", major: 5, minor: 0, midSystem: antAccepts},
}

// antModel is a model name read into its family and version.
type antModel struct {
	name         string
	major, minor int
}

// parseAntModel reads a Claude model name: "claude-sonnet-4-5-20250929",
// "claude-opus-4-8", "claude-sonnet-4-0", "claude-3-5-sonnet-latest",
// "claude-2.1", "claude-instant-1.2", and the platforms' forms of them
// ("anthropic.claude-sonnet-4-5-20250929-v1:0" on Bedrock,
// "claude-sonnet-4@20250514" on Vertex AI, "anthropic/claude-sonnet-4.5"
// on gateways). It reports false for a name it cannot read.
func parseAntModel(model string) (antModel, bool) {
	s := strings.ToLower(model)
	k := strings.LastIndex(s, "claude-")
	if k < 0 {
		return antModel{}, false
	}
	s = s[k+len("claude-"):]
	if c := strings.IndexAny(s, ":@"); c >= 0 {
		s = s[:c]
	}
	toks := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '.' })
	num := func(i int) (int, bool) {
		if i >= len(toks) || len(toks[i]) > 2 {
			return 0, false // a date (20250514) is no version number
		}
		n, err := strconv.Atoi(toks[i])
		return n, err == nil
	}
	var m antModel
	i := 0
	if _, ok := num(0); !ok {
		// claude-sonnet-4-5, claude-instant-1.2
		m.name = toks[0]
		if m.name == "instant" {
			m.name = ""
		}
		i = 1
	}
	major, ok := num(i)
	if !ok {
		return antModel{}, false
	}
	m.major = major
	if minor, ok := num(i + 1); ok {
		m.minor = minor
	}
	switch {
	case m.major < 4:
		m.name = "" // claude-3-5-sonnet: one row for the families before Claude 4
	case m.name == "":
		return antModel{}, false // "claude-4-sonnet" is no Anthropic model name
	}
	return m, true
}

// antFamilyOf returns the row of the table that covers model, or false
// for a model the table does not know.
func antFamilyOf(model string) (antFamily, bool) {
	m, ok := parseAntModel(model)
	if !ok {
		return antFamily{}, false
	}
	found, at := antFamily{}, false
	for _, f := range antFamilies {
		if f.name == m.name && (f.major < m.major || f.major == m.major && f.minor <= m.minor) {
			found, at = f, true
		}
	}
	return found, at
}

// antMidSystem returns the verdict of model on a role "system" message
// after the conversation started.
func antMidSystem(model string) antVerdict {
	f, ok := antFamilyOf(model)
	if !ok {
		return antUnknown
	}
	return f.midSystem
}
