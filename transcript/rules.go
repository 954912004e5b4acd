package transcript

import "strings"

// Rule IDs, as in docs/provider-rules.md. IDs marked [DERIVED] there were
// added by toolwire where /work/shared/PROVIDER-RULES.md states a
// requirement without naming it.
const (
	// OpenAI Chat Completions.
	ruleCCAnswerAll     RuleID = "OAI-CC-ANSWER-ALL"
	ruleCCNoOrphan      RuleID = "OAI-CC-NO-ORPHAN-RESULT"
	ruleCCResultID      RuleID = "OAI-CC-RESULT-ID-REQUIRED"
	ruleCCDupResult     RuleID = "OAI-CC-DUP-RESULT"
	ruleCCNullContent   RuleID = "OAI-CC-NULL-CONTENT"
	ruleCCToolImage     RuleID = "OAI-CC-TOOL-IMAGE"
	ruleCCToolNamePat   RuleID = "OAI-CC-TOOLNAME-PATTERN"
	ruleCCToolNameLen   RuleID = "OAI-CC-TOOLNAME-LEN"
	ruleCCMaxTools      RuleID = "OAI-CC-MAX-TOOLS"
	ruleCCMaxToolCalls  RuleID = "OAI-CC-MAX-TOOLCALLS"
	ruleCCIDLen         RuleID = "OAI-CC-ID-LEN"
	ruleCCEmptyMessages RuleID = "OAI-CC-EMPTY-MESSAGES"
	ruleCCPartType      RuleID = "OAI-CC-PART-TYPE"
	ruleCCDupTool       RuleID = "OAI-CC-DUP-TOOL" // [DERIVED]

	// OpenAI Responses.
	ruleRSAnswerAll    RuleID = "OAI-RS-ANSWER-ALL"
	ruleRSNoOrphan     RuleID = "OAI-RS-NO-ORPHAN-OUTPUT"
	ruleRSDupItem      RuleID = "OAI-RS-DUP-ITEM"
	ruleRSDupCallID    RuleID = "OAI-RS-DUP-CALLID" // [DERIVED]
	ruleRSReasonPair   RuleID = "OAI-RS-REASONING-PAIR"
	ruleRSReasonFollow RuleID = "OAI-RS-REASONING-FOLLOW"
	ruleRSCallIDLen    RuleID = "OAI-RS-CALLID-LEN"
	ruleRSToolNamePat  RuleID = "OAI-RS-TOOLNAME-PATTERN"
	ruleRSDupTool      RuleID = "OAI-RS-DUP-TOOL" // [DERIVED]

	// Anthropic Messages.
	ruleAntResultNext    RuleID = "ANT-RESULT-NEXT"
	ruleAntResultFirst   RuleID = "ANT-RESULT-FIRST"
	ruleAntNoOrphan      RuleID = "ANT-NO-ORPHAN-RESULT"
	ruleAntUniqueID      RuleID = "ANT-UNIQUE-TOOLUSE-ID"
	ruleAntSingleResult  RuleID = "ANT-SINGLE-RESULT"
	ruleAntIDPattern     RuleID = "ANT-ID-PATTERN"
	ruleAntToolName      RuleID = "ANT-TOOLNAME"
	ruleAntToolUseName   RuleID = "ANT-TOOLUSE-NAME"
	ruleAntTextNonEmpty  RuleID = "ANT-TEXT-NONEMPTY"
	ruleAntTextSpace     RuleID = "ANT-TEXT-WHITESPACE"
	ruleAntUserNonEmpty  RuleID = "ANT-USER-NONEMPTY"
	ruleAntNonEmpty      RuleID = "ANT-NONEMPTY"
	ruleAntFirstUser     RuleID = "ANT-FIRST-USER"
	ruleAntSystemRole    RuleID = "ANT-SYSTEM-ROLE"
	ruleAntThinkingFirst RuleID = "ANT-THINKING-FIRST"
	ruleAntMaxMessages   RuleID = "ANT-MAX-MESSAGES"
	ruleAntNoMessages    RuleID = "ANT-EMPTY-MESSAGES" // [DERIVED]
	ruleAntDupTool       RuleID = "ANT-DUP-TOOL"       // [DERIVED]

	// Gemini generateContent.
	ruleGemRespAfterCall RuleID = "GEM-RESP-AFTER-CALL"
	ruleGemRespCount     RuleID = "GEM-RESP-COUNT"
	ruleGemRespMatch     RuleID = "GEM-RESP-MATCH" // [DERIVED]
	ruleGemCallAfterUser RuleID = "GEM-CALL-AFTER-USER"
	ruleGemNoMix         RuleID = "GEM-NO-MIX"
	ruleGemPartsNonEmpty RuleID = "GEM-PARTS-NONEMPTY"
	ruleGemName          RuleID = "GEM-NAME"
	ruleGemThoughtSig    RuleID = "GEM-THOUGHT-SIG"
	ruleGemMultimodal    RuleID = "GEM-MULTIMODAL-RESP"
	ruleGemOrder         RuleID = "GEM-ORDER"
	ruleGemSystem        RuleID = "GEM-SYSTEM-PLACEMENT" // [DERIVED]
	ruleGemSameRole      RuleID = "GEM-SAME-ROLE"        // [DERIVED]
	ruleGemNoContents    RuleID = "GEM-EMPTY-CONTENTS"   // [DERIVED]
	ruleGemDupTool       RuleID = "GEM-DUP-TOOL"         // [DERIVED]

	// OpenAI strict mode (both OpenAI APIs).
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

	// toolwire's own: the llm transcript breaks the llm package's shape,
	// so no codec can encode it faithfully.
	ruleShape RuleID = "TW-PART-PLACEMENT"
	ruleRole  RuleID = "TW-ROLE"
)

// Provider error texts, from PROVIDER-RULES.md, with placeholders filled in
// by fill. Only texts the rules file gives as observed are here.
const (
	tmplCCAnswerAll   = "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
	tmplCCNoOrphan    = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
	tmplCCResultID    = "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'."
	tmplCCDupResult   = "Invalid parameter: Duplicate value for 'tool_call_id' of '{id}', in messages[{a}] and messages[{b}]."
	tmplCCNullContent = "Invalid value for 'content': expected a string, got null."
	tmplCCToolImage   = "Invalid 'messages[{i}]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL."
	tmplCCToolNameT   = "Invalid 'tools[{k}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
	tmplCCToolNameM   = "Invalid 'messages[{i}].tool_calls[{n}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
	tmplCCToolNameLen = "Invalid 'tools[{k}].function.name': string too long. Expected a string with maximum length 64, but got a string with length {n} instead."
	tmplCCMaxTools    = "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length {n} instead."
	tmplCCMaxCalls    = "Invalid 'messages[{i}].tool_calls': array too long. Expected an array with maximum length 128, but got an array with length {n} instead."
	tmplCCIDLen       = "Invalid 'messages[{i}].tool_calls[{k}].id': string too long. Expected a string with maximum length 40, but got a string with length {n} instead."
	tmplCCEmpty       = "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead."
	// tmplCCPartType is the text OpenAI returned for a recorded body
	// (real-traffic rejected/openai-chat/crewai-content-part-missing-type).
	tmplCCPartType = "Missing required parameter: 'messages[{i}].content[{j}].type'."

	tmplRSAnswerAll    = "No tool output found for function call {id}."
	tmplRSNoOrphan     = "No tool call found for function call output with call_id {id}."
	tmplRSDupItem      = "Duplicate item found with id {id}. Remove duplicate items from your input and try again."
	tmplRSReasonFollow = "Item '{id}' of type 'reasoning' was provided without its required following item."
	tmplRSReasonPair   = "Item '{fc_id}' of type 'function_call' was provided without its required 'reasoning' item: '{rs_id}'."
	tmplRSCallIDLen    = "Invalid 'input[{i}].call_id': string too long. Expected a string with maximum length 64, but got a string with length {n} instead."
	tmplRSToolName     = "Invalid 'tools[{k}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."

	tmplAntResultNext   = "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {ids}. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
	tmplAntNoOrphan     = "messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
	tmplAntUniqueID     = "messages.{i}.content.{j}: `tool_use` ids must be unique"
	tmplAntSingle       = "each tool_use must have a single result. Found multiple `tool_result` blocks with id {id}"
	tmplAntIDPattern    = "messages.{i}.content.{j}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
	tmplAntToolName     = "tools.{k}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"
	tmplAntToolUseName  = "messages.{i}.content.{j}.tool_use.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"
	tmplAntTextNonEmpty = "messages: text content blocks must be non-empty"
	tmplAntTextSpace    = "messages: text content blocks must contain non-whitespace text"
	tmplAntUserNonEmpty = "messages.{i}: user messages must have non-empty content"
	tmplAntNonEmpty     = "messages.{i}: all messages must have non-empty content except for the optional final assistant message"
	tmplAntFirstUser    = `messages: first message must use the "user" role`
	tmplAntSystemRole   = "messages: Unexpected role \"system\". The Messages API accepts a top-level `system` parameter, not \"system\" as an input message role."
	tmplAntThinking     = "messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"

	// Duplicate tool names: not in the research notes; the texts are the
	// providers' own, quoted in anthropics/claude-code#10687 and
	// eclipse-theia/theia#16122 (Anthropic), googleapis/dotnet-genai#189
	// and smarter-sh/smarter#537 (Gemini).
	tmplAntDupTool = "tools: Tool names must be unique."
	tmplGemDupTool = "Duplicate function declaration found: {name}"

	tmplGemRespAfterCall = "Please ensure that function response turn comes immediately after a function call turn."
	tmplGemRespCount     = "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
	tmplGemCallAfterUser = "Please ensure that function call turn comes immediately after a user turn or after a function response turn."
	tmplGemNoMix         = "Please ensure that function call turn contains at least one function_call part which can not be mixed with function_response parts."
	tmplGemPartsEmpty    = "* GenerateContentRequest.contents[{i}].parts: contents.parts must not be empty."
	tmplGemName          = "* GenerateContentRequest.tools[0].function_declarations[{k}].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64."
	tmplGemThoughtSig    = "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:{name}` , position {p}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
	tmplGemMultimodal    = "Unable to submit request because `function_response.parts` is not supported for this model. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/function-calling"

	tmplStrictAddl  = "Invalid schema for function '{name}': In context=({path}), 'additionalProperties' is required to be supplied and to be false."
	tmplStrictProps = "Invalid schema for function '{name}': In context=({path}), object schema missing properties."
	// tmplStrictRequired is the text OpenAI returned for a recorded body
	// (real-traffic rejected/openai-responses/mirascope-strict-required-missing),
	// which the research notes had only from memory.
	tmplStrictRequired = "Invalid schema for function '{name}': In context=({path}), 'required' is required to be supplied and to be an array including every key in properties. Missing '{key}'."
)

// fill replaces each placeholder (kv[0], kv[2], ...) in template with its
// value (kv[1], kv[3], ...), like strings.NewReplacer(kv...).Replace but
// without building a replacer per call: placeholders have the form
// "{name}", and text put in is not scanned again.
func fill(template string, kv ...string) string {
	for k := 0; k < len(kv); k += 2 {
		if !strings.HasPrefix(kv[k], "{") {
			return strings.NewReplacer(kv...).Replace(template)
		}
	}
	var b strings.Builder
	b.Grow(len(template) + 16)
	for i := 0; i < len(template); {
		j := strings.IndexByte(template[i:], '{')
		if j < 0 {
			b.WriteString(template[i:])
			break
		}
		b.WriteString(template[i : i+j])
		i += j
		matched := false
		for k := 0; k+1 < len(kv); k += 2 {
			if strings.HasPrefix(template[i:], kv[k]) {
				b.WriteString(kv[k+1])
				i += len(kv[k])
				matched = true
				break
			}
		}
		if !matched {
			b.WriteByte('{')
			i++
		}
	}
	return b.String()
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
