// Package lint scores tool definitions the way a model will experience
// them. [Tool] gives a [tool.Spec] a score from 0 to 100 and explains every
// deduction as a [Finding]: a stable rule id, the path of the offending
// value inside the definition, the points deducted, what is wrong and a
// concrete fix.
//
// A score starts at 100. Each finding deducts its rule's points (see
// [Rules]); each rule also has a cap per tool, so that one systemic problem
// (thirty unconstrained strings) cannot hide every other one. Findings past
// a rule's cap are still reported, with Points 0. The score never drops
// below 0, and when it is above 0 it equals 100 minus the sum of the
// findings' Points.
//
// Rules about what a provider rejects cite the rule IDs of
// docs/provider-rules.md (OAI-CC-TOOLNAME-PATTERN, ANT-TOOLNAME, GEM-NAME,
// OAI-STRICT-ADDL, ...). docs/lint.md explains each rule, its weight and
// the reasoning behind it.
//
// Lint never fails: a definition it cannot read (parameters that are not
// JSON, a schema nested too deeply) is itself a finding.
// All functions are safe for concurrent use.
package lint

import (
	"github.com/toolwire/toolwire/tool"
)

// RuleID names a lint rule. IDs are stable: scripts may match on them.
type RuleID string

// The rules, in the order [Rules] lists them. docs/lint.md has the
// rationale and fixes.
const (
	// NameInvalid: the name breaks some provider's tool-name rule.
	NameInvalid RuleID = "name-invalid"
	// NameDuplicate: two tools in one set share a name ([Tools] only).
	NameDuplicate RuleID = "name-duplicate"
	// SchemaInvalid: the parameters or returns schema cannot be used.
	SchemaInvalid RuleID = "schema-invalid"
	// ToolDescriptionMissing: the tool has no description.
	ToolDescriptionMissing RuleID = "tool-description-missing"
	// ToolDescriptionShort: the tool's description is too short to say
	// what it does and when to use it.
	ToolDescriptionShort RuleID = "tool-description-short"
	// ToolDescriptionVague: the tool's description uses vague words.
	ToolDescriptionVague RuleID = "tool-description-vague"
	// ToolCompoundAction: the tool does two actions ("update_x_and_send_y").
	ToolCompoundAction RuleID = "tool-compound-action"
	// ReturnsMissing: no return schema is declared.
	ReturnsMissing RuleID = "returns-missing"
	// IdempotencyMissing: no (or an unknown) idempotency level.
	IdempotencyMissing RuleID = "idempotency-missing"
	// ParamDescriptionMissing: a parameter has no description.
	ParamDescriptionMissing RuleID = "param-description-missing"
	// ParamDescriptionShort: a parameter's description is too short.
	ParamDescriptionShort RuleID = "param-description-short"
	// ParamDescriptionVague: a parameter's description uses vague words.
	ParamDescriptionVague RuleID = "param-description-vague"
	// ParamNameAbbreviated: a parameter name is abbreviated ("acct_num").
	ParamNameAbbreviated RuleID = "param-name-abbreviated"
	// ParamTypeMissing: a parameter accepts any JSON value.
	ParamTypeMissing RuleID = "param-type-missing"
	// StringUnconstrained: a string has no pattern, enum, format or
	// maxLength.
	StringUnconstrained RuleID = "string-unconstrained"
	// NumberUnbounded: a number or integer lacks a minimum or a maximum.
	NumberUnbounded RuleID = "number-unbounded"
	// ObjectFreeform: an object declares no properties at all.
	ObjectFreeform RuleID = "object-freeform"
	// ObjectOpen: an object does not set "additionalProperties": false.
	ObjectOpen RuleID = "object-open"
	// ArrayItemsMissing: an array does not say what its items are.
	ArrayItemsMissing RuleID = "array-items-missing"
	// DefaultInvalid: a default value fails its own schema.
	DefaultInvalid RuleID = "default-invalid"
	// RefUnresolved: a $ref points nowhere inside the definition.
	RefUnresolved RuleID = "ref-unresolved"
	// StrictRejected: the tool asks for strict mode and OpenAI would
	// reject its schema.
	StrictRejected RuleID = "strict-rejected"
	// StrictIncompatible: the tool does not ask for strict mode, and its
	// schema could not be used with it.
	StrictIncompatible RuleID = "strict-incompatible"
	// HTTPArgumentsOpen: an HTTP tool's parameters admit arguments they do
	// not declare, which the tool sends to its endpoint.
	HTTPArgumentsOpen RuleID = "http-arguments-open"
)

// Rule describes one lint rule: what it checks and how much it weighs.
type Rule struct {
	ID RuleID
	// Points is what one finding of this rule deducts.
	Points int
	// Cap is the most this rule deducts from one tool, whatever the number
	// of findings.
	Cap int
	// Summary says in one line what the rule checks.
	Summary string
}

// Rules returns every rule, in a stable order. The slice is new on every
// call; changing it changes nothing in the package.
func Rules() []Rule {
	return []Rule{
		{NameInvalid, 30, 30, "the tool name breaks the tool-name rule of OpenAI, Anthropic or Gemini"},
		{NameDuplicate, 20, 20, "another tool in the same set has the same name"},
		{SchemaInvalid, 40, 40, "the parameters or returns schema is not valid JSON, not an object schema, or not a schema at all"},
		{ToolDescriptionMissing, 20, 20, "the tool has no description"},
		{ToolDescriptionShort, 10, 10, "the tool description is too short to say what the tool does and when to use it"},
		{ToolDescriptionVague, 8, 8, "the tool description uses vague words (related, some, etc, stuff, various, 相关, 一些, 等)"},
		{ToolCompoundAction, 15, 15, "the tool performs two actions joined by and/then"},
		{ReturnsMissing, 10, 10, "the tool declares no return schema"},
		{IdempotencyMissing, 10, 10, "the tool declares no idempotency level, so the runtime cannot know whether a retry is safe"},
		{ParamDescriptionMissing, 5, 20, "a parameter has no description"},
		{ParamDescriptionShort, 2, 8, "a parameter description is too short"},
		{ParamDescriptionVague, 2, 8, "a parameter description uses vague words"},
		{ParamNameAbbreviated, 3, 9, "a parameter name is abbreviated"},
		{ParamTypeMissing, 5, 15, "a parameter declares no type, so any JSON value is accepted"},
		{StringUnconstrained, 4, 16, "a string accepts any text: no pattern, enum, const, format or maxLength"},
		{NumberUnbounded, 4, 12, "a number or integer has no minimum or no maximum"},
		{ObjectFreeform, 8, 16, "an object declares no properties, so the model must invent its shape"},
		{ObjectOpen, 3, 9, "an object does not set \"additionalProperties\": false"},
		{ArrayItemsMissing, 5, 10, "an array does not declare its items"},
		{DefaultInvalid, 10, 20, "a default value violates its own type, enum, const, bounds, length or pattern"},
		{RefUnresolved, 10, 20, "a $ref does not resolve inside the definition"},
		{StrictRejected, 10, 30, "the tool sets strict, and OpenAI strict mode would reject its schema"},
		{StrictIncompatible, 2, 6, "the schema could not be used in OpenAI strict mode (the Responses API's default)"},
		{HTTPArgumentsOpen, 10, 10, "an HTTP tool's parameters admit arguments they do not declare, which the tool sends to its endpoint"},
	}
}

// Report is the verdict on one tool.
type Report struct {
	// Tool is the tool's name as written in the definition.
	Tool string
	// Score is 0 (unusable) to 100 (nothing to improve).
	Score int
	// Findings lists every problem found: the tool's own fields first,
	// then its parameters in the order they are written, then the OpenAI
	// strict-mode findings, then (from [Tools]) a duplicate name.
	// Empty, not nil, when there is nothing to report.
	Findings []Finding
}

// Finding is one problem in a tool definition.
type Finding struct {
	// Rule is the rule's stable id.
	Rule RuleID
	// Path locates the offending value inside the definition, in dotted
	// form relative to the tool: "name", "description",
	// "parameters.properties.acct_num",
	// "parameters.$defs.Address.properties.zip". A key that is not a plain
	// identifier is quoted: parameters.properties["first name"].
	Path string
	// Points is what this finding deducted from the score: the rule's
	// points, or less (down to 0) once the rule's cap for the tool is
	// reached.
	Points int
	// Message says what is wrong, naming the values involved.
	Message string
	// Fix says what to change.
	Fix string
}

// Tool scores one tool definition.
func Tool(spec tool.Spec) Report {
	c := &checker{spec: spec}
	c.run()
	return c.report()
}

// Tools scores a set of tool definitions, as sent together in one request:
// each report is [Tool]'s, plus a [NameDuplicate] finding on each tool
// whose name an earlier tool already uses. Reports are in the order of
// specs.
func Tools(specs []tool.Spec) []Report {
	reports := make([]Report, len(specs))
	first := make(map[string]int, len(specs))
	for i, spec := range specs {
		c := &checker{spec: spec}
		c.run()
		if j, ok := first[spec.Name]; ok {
			c.add(NameDuplicate, "name",
				sprintf("name %s is also the name of tool %d in this set; the model cannot tell the two apart, and providers reject or mishandle repeated tool names", quote(spec.Name), j),
				"give each tool a unique name that says what it does, or merge the two definitions")
		} else {
			first[spec.Name] = i
		}
		reports[i] = c.report()
	}
	return reports
}

// checker collects the findings on one tool.
type checker struct {
	spec     tool.Spec
	findings []Finding
	params   *value // the parsed parameters schema, for $ref resolution
}

func (c *checker) add(rule RuleID, path, message, fix string) {
	c.findings = append(c.findings, Finding{Rule: rule, Path: path, Message: message, Fix: fix})
}

// report applies the weights and caps and computes the score.
func (c *checker) report() Report {
	rules := Rules()
	left := make([]int, len(rules)) // what each rule may still deduct
	for i, r := range rules {
		left[i] = r.Cap
	}
	total := 0
	findings := make([]Finding, len(c.findings))
	for i, f := range c.findings {
		r := 0
		for rules[r].ID != f.Rule {
			r++
		}
		p := min(rules[r].Points, left[r])
		left[r] -= p
		f.Points = p
		total += p
		findings[i] = f
	}
	return Report{Tool: c.spec.Name, Score: max(0, 100-total), Findings: findings}
}

func (c *checker) run() {
	c.checkName()
	c.checkToolDescription()
	c.checkCompound()
	c.checkIdempotency()
	c.checkReturns()
	c.checkParameters()
}
