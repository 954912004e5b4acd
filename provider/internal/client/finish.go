package client

import "github.com/toolwire/toolwire/llm"

// Finishes are a provider's finish reasons and what each means in llm's
// terms: data, one value per provider, read by [Finishes.Of], as [Errors]
// are for failed answers.
type Finishes map[string]llm.FinishReason

// Of returns the finish of an answer whose provider said raw: the reason
// f lists for raw, else a stop; and a stop of an answer that made tool
// calls (calls) is a tool-call finish, for the servers that say "stop", or
// nothing, after calls.
func (f Finishes) Of(raw string, calls bool) llm.Finish {
	reason, ok := f[raw]
	if !ok {
		reason = llm.FinishStop
	}
	if reason == llm.FinishStop && calls {
		reason = llm.FinishToolCalls
	}
	return llm.Finish{Reason: reason, Raw: raw}
}
