package transcript

import "fmt"

// A RuleID names a rule of docs/provider-rules.md, such as
// "ANT-RESULT-NEXT". IDs are stable: scripts may match on them.
type RuleID string

// A Violation is one thing a provider would reject (or, for portability
// rules, might reject) in a request.
type Violation struct {
	// Rule is the rule's ID in docs/provider-rules.md, e.g. "ANT-RESULT-NEXT".
	Rule RuleID
	// Path locates the offending value in the provider's request body, in
	// dotted form: "messages.4.content.0", "input.3", "contents.2.parts.0",
	// "tools.1.function.name".
	Path string
	// Message explains the problem in plain words, with the ids involved.
	Message string
	// ProviderError is the error text the provider returns for it, with ids
	// and indices filled in, when that text is known; else "".
	ProviderError string
	// Warning marks a portability rule: some deployments reject it, the
	// provider itself accepts it.
	Warning bool
}

func (v Violation) String() string {
	return fmt.Sprintf("%s: %s: %s", v.Path, v.Rule, v.Message)
}

// A Warning reports something a conversion could not carry over exactly.
type Warning struct {
	Path    string // where in the source, dotted
	Message string
}

func (w Warning) String() string {
	if w.Path == "" {
		return w.Message
	}
	return w.Path + ": " + w.Message
}
