package transcript

import "strings"

// openAIReasoning says whether an OpenAI model's function calls come with
// reasoning items, which a replay must carry (OAI-RS-REASONING-PAIR).
type openAIReasoning uint8

const (
	// reasoningUnknown: a model the table does not know.
	reasoningUnknown openAIReasoning = iota
	// reasoningNever: not a reasoning model (gpt-4o, gpt-4.1, ...).
	reasoningNever
	// reasoningAlways: the model always reasons before it answers or
	// calls (o1, o3, o4-mini, gpt-5, gpt-5-mini, gpt-5-nano, ...), even at
	// its lowest effort ("minimal").
	reasoningAlways
	// reasoningOnRequest: the model reasons only when the request sets a
	// reasoning effort other than "none" (gpt-5.1 and later, whose default
	// effort is "none").
	reasoningOnRequest
)

// openAIModels is the table of docs/provider-rules.md ("OpenAI reasoning
// models"), by model name prefix; the first match wins. A model name
// matches a prefix when it is the prefix, or goes on with "-" or ".".
var openAIModels = []struct {
	prefix string
	kind   openAIReasoning
}{
	{"gpt-5-chat", reasoningNever}, // the ChatGPT model: no reasoning
	{"gpt-5.", reasoningOnRequest}, // gpt-5.1, gpt-5.2, ... (gpt-5.1-chat included: effort none)
	{"gpt-5", reasoningAlways},     // gpt-5, gpt-5-mini, gpt-5-nano, gpt-5-pro, gpt-5-codex
	{"o1", reasoningAlways},
	{"o3", reasoningAlways},
	{"o4", reasoningAlways},
	{"codex-mini", reasoningAlways},
	{"gpt-4o", reasoningNever},
	{"gpt-4", reasoningNever}, // gpt-4, gpt-4.1, gpt-4.1-mini, ...
	{"gpt-3.5", reasoningNever},
	{"chatgpt-4o", reasoningNever},
}

// openAIReasoningOf returns what the table says of model.
func openAIReasoningOf(model string) openAIReasoning {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:] // "openai/gpt-5" as a gateway names it
	}
	for _, e := range openAIModels {
		rest, ok := strings.CutPrefix(m, e.prefix)
		if !ok {
			continue
		}
		if rest == "" || strings.HasSuffix(e.prefix, ".") || rest[0] == '-' || rest[0] == '.' {
			return e.kind
		}
	}
	return reasoningUnknown
}

// reasons reports whether, by the table, the calls of a request for model
// with the given reasoning effort come with reasoning items: yes, no, or
// not known (the model is not in the table).
func reasons(model, effort string) (yes, known bool) {
	switch openAIReasoningOf(model) {
	case reasoningAlways:
		return true, true
	case reasoningNever:
		return false, true
	case reasoningOnRequest:
		if effort == "" && strings.Contains(strings.ToLower(model), "codex") {
			return false, false // the codex models' default effort is not "none"
		}
		return effort != "" && effort != "none", true
	}
	return false, false
}
