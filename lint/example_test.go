package lint_test

import (
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/lint"
	"github.com/toolwire/toolwire/tool"
)

func ExampleTool() {
	r := lint.Tool(tool.Spec{
		Name:        "get_balance",
		Description: "Returns the current balance of one bank account, in cents.",
		Parameters: jsontext.Value(`{
			"type": "object",
			"properties": {"acct_num": {"type": "string", "description": "Bank account number"}},
			"required": ["acct_num"],
			"additionalProperties": false
		}`),
		Returns:     jsontext.Value(`{"type": "object", "properties": {"balance_cents": {"type": "integer"}}}`),
		Idempotency: tool.Level2,
	})
	fmt.Println(r.Tool, r.Score)
	for _, f := range r.Findings {
		fmt.Printf("-%d %s [%s]\n   fix: %s\n", f.Points, f.Path, f.Rule, f.Fix)
	}
	// Output:
	// get_balance 93
	// -3 parameters.properties.acct_num [param-name-abbreviated]
	//    fix: rename it "account_number": models fill spelled-out names more reliably
	// -4 parameters.properties.acct_num [string-unconstrained]
	//    fix: add a "pattern" for the value's exact shape, e.g. "pattern": "^[A-Z0-9]{8}$"
}

func ExampleTools() {
	specs := []tool.Spec{
		{Name: "send_sms", Description: "Sends one text message to one phone number.", Idempotency: tool.Level0},
		{Name: "send_sms", Description: "Sends one text message to one phone number.", Idempotency: tool.Level0},
	}
	for _, r := range lint.Tools(specs) {
		for _, f := range r.Findings {
			fmt.Printf("%s -%d %s\n", r.Tool, f.Points, f.Rule)
		}
	}
	// Output:
	// send_sms -10 returns-missing
	// send_sms -10 returns-missing
	// send_sms -20 name-duplicate
}
