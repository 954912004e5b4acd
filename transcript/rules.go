package transcript

import "strings"

// The rules of toolwire's own: the llm transcript breaks the llm
// package's shape, so no codec can encode it faithfully; or the dialect
// is not one toolwire knows. IDs marked [DERIVED] in docs/provider-rules.md
// were added by toolwire where the provider rules (docs/provider-rules.md)
// state a requirement without naming it; each dialect's file holds its own.
const (
	ruleShape   RuleID = "TW-PART-PLACEMENT"
	ruleRole    RuleID = "TW-ROLE"
	ruleDialect RuleID = "TW-DIALECT"
)

// OpenAI strict mode, in both OpenAI APIs (CheckStrictSchema).
const (
	ruleStrictAddl        RuleID = "OAI-STRICT-ADDL"
	ruleStrictProps       RuleID = "OAI-STRICT-PROPS"
	ruleStrictRequired    RuleID = "OAI-STRICT-REQUIRED"
	ruleStrictRoot        RuleID = "OAI-STRICT-ROOT"         // [DERIVED]
	ruleStrictKeyword     RuleID = "OAI-STRICT-KEYWORD"      // [DERIVED]
	ruleStrictType        RuleID = "OAI-STRICT-TYPE"         // [DERIVED]
	ruleStrictFormat      RuleID = "OAI-STRICT-FORMAT"       // [DERIVED]
	ruleStrictItems       RuleID = "OAI-STRICT-ITEMS"        // [DERIVED]
	ruleStrictRefSiblings RuleID = "OAI-STRICT-REF-SIBLINGS" // [DERIVED]
	ruleStrictDepth       RuleID = "OAI-STRICT-DEPTH"        // [DERIVED]
	ruleStrictLimits      RuleID = "OAI-STRICT-LIMITS"       // [DERIVED]
)

// The provider's error texts for strict mode, with placeholders for fill.
const (
	tmplStrictAddl  = "Invalid schema for function '{name}': In context=({path}), 'additionalProperties' is required to be supplied and to be false."
	tmplStrictProps = "Invalid schema for function '{name}': In context=({path}), object schema missing properties."
	// tmplStrictRequired is the text OpenAI returned for a recorded body
	// (the rejected case mirascope-strict-required-missing of the corpus
	// provider/wire's RealTraffic test replays), which
	// docs/provider-rules.md had only from memory.
	tmplStrictRequired = "Invalid schema for function '{name}': In context=({path}), 'required' is required to be supplied and to be an array including every key in properties. Missing '{key}'."
)

// openAIDupTool is what both OpenAI APIs do with a tool defined under an
// earlier one's name: they take the request (a warning), and the model
// sees both, so a call may name either.
func openAIDupTool(rule RuleID) dupToolRule {
	return dupToolRule{rule: rule, warning: true,
		say: "; OpenAI accepts it, but a call names either one: give each tool its own name"}
}

// fill replaces each placeholder (kv[0], kv[2], ...) in a provider's error
// text with its value (kv[1], kv[3], ...).
func fill(template string, kv ...string) string {
	return strings.NewReplacer(kv...).Replace(template)
}

// Accepted reports whether a provider would accept a request with these
// violations: true when every one of them is a portability warning.
func Accepted(vs []Violation) bool {
	for _, v := range vs {
		if !v.Warning {
			return false
		}
	}
	return true
}
