package lint

import (
	"strings"

	"github.com/toolwire/toolwire/transcript"
)

// strictFixes says how to fix each strict-mode rule of
// docs/provider-rules.md §6, by rule ID.
var strictFixes = map[string]string{
	"OAI-STRICT-ADDL":         `set "additionalProperties": false on this object`,
	"OAI-STRICT-PROPS":        `add "properties" ("properties": {} for an object with none)`,
	"OAI-STRICT-REQUIRED":     `list every property in "required"; make an optional one nullable, e.g. "type": ["string", "null"]`,
	"OAI-STRICT-ROOT":         `make the root {"type": "object", "properties": {...}}; move alternatives into a property`,
	"OAI-STRICT-TYPE":         `use one of string, number, integer, boolean, object, array, null`,
	"OAI-STRICT-FORMAT":       `use a supported format (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid) or a pattern`,
	"OAI-STRICT-ITEMS":        `add "items" with the type of the array's elements`,
	"OAI-STRICT-REF-SIBLINGS": `wrap the reference as {"anyOf": [{"$ref": ...}]} or move its siblings into the referenced schema`,
	"OAI-STRICT-DEPTH":        `flatten the schema to at most 10 levels of nested objects`,
	"OAI-STRICT-LIMITS":       `shrink the schema: at most 5,000 properties, 1,000 enum values and 120,000 characters of names and values`,
}

// checkStrict reports what OpenAI strict mode would reject, using
// transcript.CheckStrictSchema, the one implementation of those rules.
// A tool that asks for strict mode breaks a request with each of them
// ([StrictRejected]); any other tool is only less portable
// ([StrictIncompatible]): the Responses API and the agent SDKs turn strict
// mode on by default.
func (c *checker) checkStrict() {
	for _, v := range transcript.CheckStrictSchema(c.spec.Name, c.spec.Parameters, "parameters") {
		msg := strictMessage(c.spec.Name, v)
		fix := strictFix(v)
		if c.spec.Strict {
			c.add(StrictRejected, v.Path, "strict is set, and OpenAI rejects the schema: "+msg, fix)
		} else {
			c.add(StrictIncompatible, v.Path, "strict mode would reject the schema: "+msg,
				fix+", so that the tool also works where strict mode is on (the Responses API's default)")
		}
	}
}

// strictMessage is the violation's message without the tool name and
// location, which the finding already carries, and with the rule ID.
func strictMessage(name string, v transcript.Violation) string {
	msg := v.Message
	if rest, ok := strings.CutPrefix(msg, "tool "+name+", schema "); ok {
		if _, after, ok := strings.Cut(rest, ": "); ok {
			msg = after
		}
	}
	return string(v.Rule) + ": " + msg
}

// strictFix says how to fix one strict-mode violation.
func strictFix(v transcript.Violation) string {
	if v.Rule == "OAI-STRICT-KEYWORD" {
		keyword := v.Path[strings.LastIndexByte(v.Path, '.')+1:]
		switch keyword {
		case "oneOf":
			return `use "anyOf" instead of "oneOf"`
		case "minLength", "maxLength":
			return sprintf(`replace %s with a "pattern", e.g. "^.{1,200}$"`, quote(keyword))
		case "allOf":
			return `merge the "allOf" schemas into one`
		}
		return sprintf("remove %s and say what it meant in the description", quote(keyword))
	}
	if fix, ok := strictFixes[string(v.Rule)]; ok {
		return fix
	}
	return "change the schema to the subset strict mode accepts (docs/provider-rules.md §6)"
}
