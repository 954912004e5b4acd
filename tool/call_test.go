package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/observe"
	"github.com/toolwire/toolwire/tool"
)

// TestCallGolden renders every path of validate-and-call into the exact
// tool message the model reads.
func TestCallGolden(t *testing.T) {
	reject := tool.ApproverFunc(func(ctx context.Context, spec tool.Spec, call llm.ToolCall, args []byte) (bool, string, error) {
		return false, "not to that number", nil
	})
	broken := tool.ApproverFunc(func(ctx context.Context, spec tool.Spec, call llm.ToolCall, args []byte) (bool, string, error) {
		return false, "", errors.New("approval service unreachable")
	})
	approve := tool.ApproverFunc(func(ctx context.Context, spec tool.Spec, call llm.ToolCall, args []byte) (bool, string, error) {
		return true, "", nil
	})
	tests := []struct {
		name     string
		tool     string
		args     string
		cfg      tool.Config
		status   llm.Status
		errType  observe.ErrorType
		repaired bool
	}{
		{name: "success_typed", tool: "get_weather", args: `{"city": "Paris"}`, status: llm.StatusSuccess},
		{name: "success_summarizer", tool: "search_web", args: `{"query": "golang"}`, status: llm.StatusSuccess},
		{name: "success_empty", tool: "search_web", args: `{"query": "nothing"}`, status: llm.StatusSuccess},
		{name: "envelope_partial", tool: "list_files", args: `{}`, status: llm.StatusPartial},
		{name: "approved", tool: "send_sms", args: `{"to": "+33612345678", "text": "hi"}`, cfg: tool.Config{Approver: approve}, status: llm.StatusSuccess},
		{name: "repaired_trailing_comma", tool: "get_weather", args: `{"city": "Paris", "days": 2,}`, status: llm.StatusSuccess, repaired: true},
		{name: "repaired_single_quotes", tool: "get_weather", args: `{'city': 'Paris'}`, status: llm.StatusSuccess, repaired: true},
		{name: "repaired_unclosed_brace", tool: "get_weather", args: `{"city": "Paris", "units": "fahrenheit"`, status: llm.StatusSuccess, repaired: true},
		{name: "repaired_truncated_readonly", tool: "get_forecast", args: `{"city": "Lyo`, status: llm.StatusSuccess, repaired: true},
		{name: "repaired_fence", tool: "get_weather", args: "```json\n{\"city\": \"Oslo\"}\n```", status: llm.StatusSuccess, repaired: true},
		{name: "repaired_string_encoded", tool: "get_weather", args: `"{\"city\": \"Rome\"}"`, status: llm.StatusSuccess, repaired: true},
		{name: "repaired_empty", tool: "list_files", args: ``, status: llm.StatusPartial, repaired: true},
		{name: "malformed_truncated_side_effect", tool: "get_weather", args: `{"city": "Lyo`, status: llm.StatusError, errType: observe.MalformedArguments},
		{name: "malformed_missing_colon", tool: "get_weather", args: "{\n  \"city\" \"Paris\"\n}", status: llm.StatusError, errType: observe.MalformedArguments},
		{name: "malformed_python_none", tool: "get_weather", args: `{"city": None}`, status: llm.StatusError, errType: observe.MalformedArguments},
		{name: "malformed_repair_breaks_schema", tool: "get_weather", args: `{"city": "Paris", "days": 99,}`, status: llm.StatusError, errType: observe.MalformedArguments},
		{name: "malformed_repair_disabled", tool: "get_weather", args: `{"city": "Paris",}`, cfg: tool.Config{NoRepair: true}, status: llm.StatusError, errType: observe.MalformedArguments},
		{name: "malformed_trailing_data", tool: "get_weather", args: `{"city": "Paris"} {"city": "Rome"}`, status: llm.StatusError, errType: observe.MalformedArguments},
		{name: "invalid_missing_required", tool: "get_weather", args: `{"units": "celsius"}`, status: llm.StatusError, errType: observe.InvalidArguments},
		{name: "invalid_many", tool: "search_web", args: `{"query": "", "limit": 999, "lang": "en", "limt": 3}`, status: llm.StatusError, errType: observe.InvalidArguments},
		{name: "invalid_types", tool: "get_weather", args: `{"city": 7, "units": "kelvin", "days": 2.5}`, status: llm.StatusError, errType: observe.InvalidArguments},
		{name: "invalid_pattern", tool: "send_sms", args: `{"to": "0612345678", "text": "hi"}`, cfg: tool.Config{Approver: approve}, status: llm.StatusError, errType: observe.InvalidArguments},
		{name: "invalid_not_object", tool: "get_weather", args: `["Paris"]`, status: llm.StatusError, errType: observe.InvalidArguments},
		{name: "unknown_tool_close", tool: "get_wether", args: `{}`, status: llm.StatusError, errType: observe.UnknownTool},
		{name: "unknown_tool_several", tool: "search_new", args: `{}`, status: llm.StatusError, errType: observe.UnknownTool},
		{name: "unknown_tool_lists_all", tool: "get_weathr_forecast", args: `{}`, status: llm.StatusError, errType: observe.UnknownTool},
		{name: "unknown_tool_none_close", tool: "book_flight", args: `{}`, status: llm.StatusError, errType: observe.UnknownTool},
		{name: "error_not_found", tool: "get_weather", args: `{"city": "Atlantis"}`, status: llm.StatusError, errType: observe.NotFound},
		{name: "error_rate_limited", tool: "get_weather", args: `{"city": "Busy"}`, status: llm.StatusError, errType: observe.RateLimited},
		{name: "error_untyped", tool: "get_weather", args: `{"city": "Broken"}`, status: llm.StatusError, errType: observe.InternalError},
		{name: "error_deadline", tool: "get_weather", args: `{"city": "Slow"}`, status: llm.StatusError, errType: observe.Timeout},
		{name: "panic", tool: "get_weather", args: `{"city": "Panic"}`, status: llm.StatusError, errType: observe.InternalError},
		{name: "output_invalid_partial", tool: "get_weather", args: `{"city": "Bad"}`, status: llm.StatusPartial},
		{name: "output_invalid_error", tool: "get_weather", args: `{"city": "Bad"}`, cfg: tool.Config{InvalidOutput: tool.OutputError}, status: llm.StatusError, errType: observe.InternalError},
		{name: "approval_rejected", tool: "send_sms", args: `{"to": "+33612345678", "text": "hi"}`, cfg: tool.Config{Approver: reject}, status: llm.StatusError, errType: observe.RejectedByUser},
		{name: "approval_unavailable", tool: "send_sms", args: `{"to": "+33612345678", "text": "hi"}`, cfg: tool.Config{Approver: broken}, status: llm.StatusError, errType: observe.PermissionDenied},
		{name: "approval_no_approver", tool: "send_sms", args: `{"to": "+33612345678", "text": "hi"}`, status: llm.StatusError, errType: observe.PermissionDenied},
	}
	reg := testRegistry(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.BaseBackoff = time.Millisecond
			ex, err := tool.NewExecutor(reg, &cfg)
			if err != nil {
				t.Fatal(err)
			}
			call := llm.ToolCall{ID: "call_" + tt.name, Name: tt.tool, Input: json.RawMessage(tt.args)}
			o := ex.Call(context.Background(), call)
			if o.Result.CallID != call.ID || o.Result.Name != call.Name {
				t.Errorf("Call(%q) answered %q/%q, want %q/%q", tt.name, o.Result.CallID, o.Result.Name, call.ID, call.Name)
			}
			if o.Result.Status != tt.status {
				t.Errorf("Call(%q).Status = %v, want %v", tt.args, o.Result.Status, tt.status)
			}
			var gotType observe.ErrorType
			if o.Envelope.Error != nil {
				gotType = o.Envelope.Error.Type
			}
			if gotType != tt.errType {
				t.Errorf("Call(%q) error type = %q, want %q", tt.args, gotType, tt.errType)
			}
			if got := o.Envelope.Meta.Repaired != ""; got != tt.repaired {
				t.Errorf("Call(%q) repaired = %v (%q), want %v", tt.args, got, o.Envelope.Meta.Repaired, tt.repaired)
			}
			// What the model reads parses back as a valid envelope.
			if _, err := observe.Parse([]byte(text(o.Result))); err != nil {
				t.Errorf("Call(%q) rendered an invalid envelope: %v", tt.args, err)
			}
			golden.Check(t, filepath.Join("testdata", "results", tt.name+".json"), []byte(stable(o)))
		})
	}
}
