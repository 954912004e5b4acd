package lint

import (
	"bytes"
	"strings"

	"github.com/toolwire/toolwire/tool"
)

// checkToolDescription: the description is how a model chooses a tool.
func (c *checker) checkToolDescription() {
	d := strings.TrimSpace(c.spec.Description)
	switch {
	case d == "":
		c.add(ToolDescriptionMissing, "description", "the tool has no description; the model must guess from the name what it does and when to use it",
			"write one to three sentences: what the tool does, when to use it (and when not to), and what it returns")
		return
	case textLen(d) < minToolDescription:
		c.add(ToolDescriptionShort, "description",
			sprintf("description %s is too short (%d characters, want at least %d) to say what the tool does, when to use it and what it returns", quote(d), textLen(d), minToolDescription),
			"say what the tool does, when to use it (and when not to), and what it returns")
	}
	if terms := vagueTerms(d); len(terms) > 0 {
		c.add(ToolDescriptionVague, "description",
			sprintf("description uses vague wording: %s", quoteList(terms)),
			"replace each vague word with the exact things meant: name the records, fields, cases or values")
	}
}

// checkCompound: one tool, one action. A compound tool cannot be retried,
// approved or reused one half at a time.
func (c *checker) checkCompound() {
	if joiner, first, second, ok := compoundName(c.spec.Name); ok {
		c.add(ToolCompoundAction, "name",
			sprintf("name %s joins two actions with %s: %s and %s", quote(c.spec.Name), quote(joiner), quote(first), quote(second)),
			sprintf("split it into two tools, %s and %s, so that each can be called, retried and approved on its own", quote(first), quote(second)))
		return
	}
	if phrase, ok := compoundDescription(c.spec.Description); ok {
		c.add(ToolCompoundAction, "description",
			sprintf("description chains a second action (%s)", quote(phrase)),
			"split the tool so that each tool does one action; if the second step is an inseparable effect, describe it as a result, not as a step")
	}
}

// readVerbs start the names of tools that typically only read.
var readVerbs = map[string]bool{
	"get": true, "list": true, "search": true, "find": true, "lookup": true,
	"read": true, "fetch": true, "query": true, "retrieve": true,
	"check": true, "describe": true, "show": true, "count": true,
	"validate": true, "verify": true, "estimate": true, "calculate": true,
	"compute": true, "convert": true, "translate": true, "summarize": true,
}

// checkIdempotency: without a level the runtime cannot retry safely.
func (c *checker) checkIdempotency() {
	fix := `set idempotency to "level_0" if a repeat would act twice (send a message, charge a card), "level_1" if a repeat with the same idempotency key is safe, or "level_2" if the tool only reads`
	if words := identWords(c.spec.Name); len(words) > 0 && readVerbs[words[0]] {
		fix = sprintf(`set idempotency to "level_2" if the tool only reads, as its name, starting with %s, suggests; otherwise "level_0" (a repeat acts twice) or "level_1" (safe to repeat with an idempotency key)`, quote(words[0]))
	}
	switch c.spec.Idempotency {
	case tool.Level0, tool.Level1, tool.Level2:
	case "":
		c.add(IdempotencyMissing, "idempotency", "no idempotency level: the runtime must treat every call as unsafe to retry, even a read", fix)
	default:
		c.add(IdempotencyMissing, "idempotency",
			sprintf("idempotency %s is not a level (want level_0, level_1 or level_2)", quote(string(c.spec.Idempotency))), fix)
	}
}

// checkReturns: a declared result schema lets the runtime validate
// results and tells the model what comes back.
func (c *checker) checkReturns() {
	raw := bytes.TrimSpace(c.spec.Returns)
	if len(raw) == 0 || string(raw) == "null" {
		c.add(ReturnsMissing, "returns", "no return schema: the runtime cannot validate results, and the model learns their shape only by calling",
			`declare the JSON Schema of the result (toolwire spec "returns", MCP "outputSchema")`)
		return
	}
	v, err := parse(c.spec.Returns) // not raw: TrimSpace trims more than JSON white space
	if err != nil {
		c.add(SchemaInvalid, "returns", "the return schema cannot be read: "+err.Error(), "make returns a JSON Schema object")
		return
	}
	if v.kind != kindObject && v.kind != kindBool {
		c.add(SchemaInvalid, "returns", sprintf("the return schema is a JSON %s, not a schema", v.kind),
			`make returns a JSON Schema object, e.g. {"type": "object", "properties": {...}}`)
	}
}

// quoteList renders terms as "a", "b", "c".
func quoteList(terms []string) string {
	q := make([]string, len(terms))
	for i, t := range terms {
		q[i] = quote(t)
	}
	return strings.Join(q, ", ")
}

// child returns the dotted path of key inside path. A key that is not a
// plain identifier is written in brackets: properties["first name"].
func child(path, key string) string {
	plain := key != ""
	for _, r := range key {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '$') {
			plain = false
			break
		}
	}
	if !plain {
		return path + "[" + quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// index returns the dotted path of element i inside path.
func index(path string, i int) string { return sprintf("%s.%d", path, i) }
