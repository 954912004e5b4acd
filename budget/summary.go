package budget

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
)

// Summary writes the deterministic summary of removed rounds that the
// [Fitter] uses without a [Summarizer]: one line per call with its
// arguments, its status and its one-line outcome (and ref), what the
// assistant said between calls, and what is still open — the calls that
// failed or did only part of the work.
func Summary(rounds []llm.Message) string {
	results := map[string]llm.ToolResult{}
	for _, m := range rounds {
		for _, p := range m.Parts {
			if r, ok := p.(llm.ToolResult); ok {
				results[r.CallID] = r
			}
		}
	}
	var b strings.Builder
	var open []string
	calls := 0
	for _, m := range rounds {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llm.Text:
				if t := firstLine(p.Text, 200); t != "" {
					who := "The assistant said"
					if m.Role != llm.RoleAssistant {
						who = "Note"
					}
					fmt.Fprintf(&b, "- %s: %s\n", who, t)
				}
			case llm.ToolCall:
				calls++
				brief := callBrief(p)
				r, ok := results[p.ID]
				if !ok {
					fmt.Fprintf(&b, "- %s: no result recorded\n", brief)
					open = append(open, brief+" has no result")
					continue
				}
				status, outcome, ref := outcomeOf(r)
				line := fmt.Sprintf("- %s → %s: %s", brief, status, outcome)
				if ref != "" {
					line += " [ref " + ref + "]"
				}
				b.WriteString(line + "\n")
				if status != llm.StatusSuccess {
					open = append(open, fmt.Sprintf("%s (%s: %s)", brief, status, outcome))
				}
			}
		}
	}
	head := fmt.Sprintf("%d tool call(s):\n", calls)
	if len(open) == 0 {
		return head + b.String() + "Still open: nothing; every call succeeded."
	}
	return head + b.String() + "Still open: " + strings.Join(open, "; ") + "."
}

// outcomeOf reads a result's status, one-line outcome and ref from its
// envelope, or from its first line when it holds none.
func outcomeOf(r llm.ToolResult) (llm.Status, string, string) {
	status := r.Status
	if !status.Valid() {
		status = llm.StatusSuccess
	}
	env, ok := resultEnvelope(r)
	if !ok {
		return status, firstLine(r.Text(), 160), ""
	}
	outcome := firstLine(env.Summary, 160)
	if env.Error != nil && !strings.Contains(outcome, string(env.Error.Type)) {
		outcome += " (" + string(env.Error.Type) + ")"
	}
	return env.Status, outcome, env.Meta.Ref
}

// callBrief writes a call as name(key=value, ...): at most four
// arguments, each value cut to 24 characters.
func callBrief(c llm.ToolCall) string {
	args := briefArgs(c.Input)
	return c.Name + "(" + args + ")"
}

func briefArgs(input []byte) string {
	dec := jsontext.NewDecoder(bytes.NewReader(input))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return firstLine(string(input), 40)
	}
	var parts []string
	for dec.PeekKind() != '}' && dec.PeekKind() != 0 {
		tok, err := dec.ReadToken()
		if err != nil {
			break
		}
		name := tok.String() // before the next read invalidates tok
		v, err := dec.ReadValue()
		if err != nil {
			break
		}
		if len(parts) == 4 {
			parts = append(parts, "…")
			break
		}
		val := string(v)
		switch v.Kind() {
		case '"':
			var t jsontext.Value = v
			if u, err := jsontext.AppendUnquote(nil, t); err == nil {
				val = string(u)
			}
		case '{', '[':
			val = string(v[:1]) + "…" + map[byte]string{'{': "}", '[': "]"}[v[0]]
		}
		parts = append(parts, name+"="+firstLine(val, 24))
	}
	return strings.Join(parts, ", ")
}
