package wire

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/names"
	"github.com/toolwire/toolwire/transcript"
)

// The rules on a body's top-level fields, documented in
// docs/provider-rules.md.
const (
	ruleChatUnknownField transcript.RuleID = "OAI-CC-UNKNOWN-FIELD"
	ruleRespUnknownField transcript.RuleID = "OAI-RS-UNKNOWN-FIELD"
	ruleAntUnknownField  transcript.RuleID = "ANT-UNKNOWN-FIELD"
	ruleGemUnknownField  transcript.RuleID = "GEM-UNKNOWN-FIELD"

	ruleChatRange transcript.RuleID = "OAI-CC-OPTION-RANGE"
	ruleRespRange transcript.RuleID = "OAI-RS-OPTION-RANGE"
	ruleAntRange  transcript.RuleID = "ANT-OPTION-RANGE"
	ruleGemRange  transcript.RuleID = "GEM-OPTION-RANGE"
)

// A fieldRules is what one dialect's API documents for a request's
// top-level fields.
type fieldRules struct {
	unknown, outOfRange transcript.RuleID
	// known are the top-level fields of a request (Gemini's in
	// lowerCamelCase: it reads snake_case too).
	known []string
	// bounds are the ranges of its numeric options.
	bounds []bound
}

// A bound is the range the provider documents for a numeric option.
type bound struct {
	// at is where the dialect keeps the option, as in [option]: a
	// top-level field, or a member of one ("generationConfig.topP").
	at     string
	lo, hi float64
	// hasHi is set when the option has an upper bound.
	hasHi bool
	// below is the provider's recorded error text for a value below lo,
	// with {value} for the value: a rejection. "" makes such a value a
	// warning: the range is documented, the provider's answer is not
	// recorded.
	below string
}

// atLeast and between return the bound of the option at path.
func atLeast(at string, lo float64) bound     { return bound{at: at, lo: lo} }
func between(at string, lo, hi float64) bound { return bound{at: at, lo: lo, hi: hi, hasHi: true} }

// fieldRulesOf are each dialect's field rules. The known fields are the
// json names of the official SDKs' request types (openai-go
// ChatCompletionNewParams and responses.ResponseNewParams, anthropic-sdk-go
// MessageNewParams and BetaMessageNewParams; see
// provider/internal/sdkcompat), plus "stream", which the SDKs set by the
// method called, and Anthropic's sampling options (temperature, top_k,
// top_p: documented, and sent in recorded bodies the API answered 200);
// Gemini's are the members of GenerateContentRequest, Vertex AI's labels
// included.
var fieldRulesOf = map[transcript.Dialect]*fieldRules{
	transcript.OpenAIChat: {unknown: ruleChatUnknownField, outOfRange: ruleChatRange,
		known: []string{"audio", "frequency_penalty", "function_call", "functions", "logit_bias", "logprobs",
			"max_completion_tokens", "max_tokens", "messages", "metadata", "modalities", "model", "moderation", "n",
			"parallel_tool_calls", "prediction", "presence_penalty", "prompt_cache_key", "prompt_cache_options",
			"prompt_cache_retention", "reasoning_effort", "response_format", "safety_identifier", "seed",
			"service_tier", "stop", "store", "stream", "stream_options", "temperature", "tool_choice", "tools",
			"top_logprobs", "top_p", "user", "verbosity", "web_search_options"},
		bounds: []bound{atLeast("max_completion_tokens", 1), atLeast("max_tokens", 1), atLeast("n", 1),
			between("temperature", 0, 2), between("top_p", 0, 1), between("presence_penalty", -2, 2),
			between("frequency_penalty", -2, 2), between("top_logprobs", 0, 20)},
	},
	transcript.OpenAIResponses: {unknown: ruleRespUnknownField, outOfRange: ruleRespRange,
		known: []string{"access_programs", "background", "context_management", "conversation", "image", "include",
			"input", "instructions", "max_output_tokens", "max_tool_calls", "metadata", "model", "moderation",
			"parallel_tool_calls", "previous_response_id", "prompt", "prompt_cache_key", "prompt_cache_options",
			"prompt_cache_retention", "reasoning", "safety_identifier", "service_tier", "store", "stream",
			"stream_options", "temperature", "text", "tool_choice", "tools", "top_logprobs", "top_p", "truncation", "user"},
		bounds: []bound{
			// Recorded 400s: real-traffic
			// rejected/openai-responses/oos-mirascope-max-output-tokens-below-min
			// and oos-pai-temperature-below-min.
			{at: "max_output_tokens", lo: 16, below: "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got {value} instead."},
			{at: "temperature", lo: 0, hi: 2, hasHi: true, below: "Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got {value} instead."},
			between("top_p", 0, 1), between("top_logprobs", 0, 20)},
	},
	transcript.Anthropic: {unknown: ruleAntUnknownField, outOfRange: ruleAntRange,
		known: []string{"billing_policy", "cache_control", "compaction", "container", "context_management",
			"diagnostics", "fallback_credit_token", "fallbacks", "inference_geo", "max_tokens", "mcp_servers",
			"messages", "metadata", "model", "output_config", "output_format", "service_tier", "speed",
			"stop_sequences", "stream", "system", "temperature", "thinking", "thread", "tool_choice", "tools",
			"top_k", "top_p"},
		bounds: []bound{atLeast("max_tokens", 1), between("temperature", 0, 1), between("top_p", 0, 1),
			atLeast("thinking.budget_tokens", 1024)},
	},
	transcript.Gemini: {unknown: ruleGemUnknownField, outOfRange: ruleGemRange,
		known: []string{"cachedContent", "contents", "generationConfig", "labels", "model", "safetySettings",
			"systemInstruction", "toolConfig", "tools"},
		bounds: []bound{atLeast("generationConfig.maxOutputTokens", 1), between("generationConfig.temperature", 0, 2),
			between("generationConfig.topP", 0, 1), atLeast("generationConfig.topK", 1),
			atLeast("generationConfig.candidateCount", 1)},
	},
}

// checkFields returns the violations of the top-level fields of a body of
// dialect d: each field its API does not document (a warning: a
// compatible server may read it as its own option), and each numeric
// option outside the range the provider documents.
func checkFields(d transcript.Dialect, fields []topField) []transcript.Violation {
	rules := fieldRulesOf[d]
	if rules == nil {
		return nil
	}
	canon := canonOf(d)
	var vs []transcript.Violation
	for _, f := range fields {
		if !slices.Contains(rules.known, canon(f.Key)) {
			vs = append(vs, transcript.Violation{Rule: rules.unknown, Path: f.Key, Warning: true,
				Message: unknownField(d, f.Key, canon(f.Key), rules.known)})
		}
	}
	for _, b := range rules.bounds {
		top, member, nested := strings.Cut(b.at, ".")
		for _, f := range fields {
			if canon(f.Key) != top {
				continue
			}
			if !nested {
				vs = b.judge(vs, d, rules.outOfRange, f.Key, f.Value)
				continue
			}
			ms, _ := objectMembers(f.Value)
			for _, m := range ms {
				if canon(m.Key) == member {
					vs = b.judge(vs, d, rules.outOfRange, f.Key+"."+m.Key, m.Value)
				}
			}
		}
	}
	return vs
}

// judge appends to vs the violation of the option at path, whose JSON is
// v, when v is a number outside b. A value that is not a number is not
// judged: what its type should be is the API's to say.
func (b bound) judge(vs []transcript.Violation, d transcript.Dialect, rule transcript.RuleID, path string, v []byte) []transcript.Violation {
	if jsontext.Value(v).Kind() != '0' {
		return vs
	}
	raw := strings.TrimSpace(string(v))
	n, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return vs
	}
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	var msg, provider string
	switch {
	case n < b.lo:
		msg = fmt.Sprintf("%s is %s; the %s API takes at least %s", path, raw, d, num(b.lo))
		provider = strings.ReplaceAll(b.below, "{value}", raw)
	case b.hasHi && n > b.hi:
		msg = fmt.Sprintf("%s is %s; the %s API takes at most %s", path, raw, d, num(b.hi))
	default:
		return vs
	}
	v2 := transcript.Violation{Rule: rule, Path: path, ProviderError: provider}
	if provider == "" {
		v2.Warning = true
		msg += ", and the provider is likely to reject it"
	}
	v2.Message = msg
	return append(vs, v2)
}

// unknownField says that key (canon, in the dialect's spelling) is not a
// field of a request of dialect d, with the field meant when one is near.
func unknownField(d transcript.Dialect, key, canon string, known []string) string {
	msg := fmt.Sprintf("%q is not a field of an %s request", key, d)
	if at, other := optionElsewhere(d, canon); at != "" {
		return msg + fmt.Sprintf("; did you mean %q?", at)
	} else if other != "" {
		return msg + fmt.Sprintf(" (it is an option of %s, which %s does not have)", other, d)
	}
	if near := nearest(canon, known); near != "" {
		return msg + fmt.Sprintf("; did you mean %q?", near)
	}
	return msg + "; the API may reject it (a compatible server may read it as its own option)"
}

// optionElsewhere finds key among the names of the generation options in
// every dialect (a whole path, or its last member, as
// generationConfig.temperature's temperature): it returns where d keeps
// that option, or, when d has none, a dialect that has it.
func optionElsewhere(d transcript.Dialect, key string) (at string, other transcript.Dialect) {
	for _, o := range options {
		for _, od := range transcript.Dialects() {
			for _, p := range o.at[od] {
				if p != key && p[strings.LastIndex(p, ".")+1:] != key {
					continue
				}
				if len(o.at[d]) > 0 {
					return o.at[d][0], ""
				}
				return "", od
			}
		}
	}
	return "", ""
}

// nearest returns the name in known that key most likely misspells, or
// "": the one at the least edit distance, when that is small for key's
// length, comparing names in lower case without underscores (maxTokens is
// max_tokens).
func nearest(key string, known []string) string {
	fold := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	k := fold(key)
	limit := 1
	if len(k) > 5 {
		limit = 2
	}
	best, bestD := "", limit+1
	for _, c := range known {
		if d := names.Distance(k, fold(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
