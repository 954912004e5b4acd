// Package transcript knows what each provider accepts in a conversation
// history: Check reports every rule a transcript breaks, with the rule IDs
// of docs/provider-rules.md, and Repair fixes what can be fixed without
// inventing outcomes.
package transcript

import (
	"fmt"
	"strings"
)

// Dialect names a provider API's request format.
type Dialect string

// The dialects toolwire checks and converts.
const (
	OpenAIChat      Dialect = "openai-chat"      // OpenAI Chat Completions
	OpenAIResponses Dialect = "openai-responses" // OpenAI Responses
	Anthropic       Dialect = "anthropic"        // Anthropic Messages
	Gemini          Dialect = "gemini"           // Gemini generateContent
)

// Dialects returns every dialect, in a new slice.
func Dialects() []Dialect { return []Dialect{OpenAIChat, OpenAIResponses, Anthropic, Gemini} }

// ParseDialect returns the dialect named s.
func ParseDialect(s string) (Dialect, error) {
	all := Dialects()
	for _, d := range all {
		if string(d) == s {
			return d, nil
		}
	}
	names := make([]string, len(all))
	for i, d := range all {
		names[i] = string(d)
	}
	return "", fmt.Errorf("transcript: unknown dialect %q (want %s)", s, strings.Join(names, ", "))
}
