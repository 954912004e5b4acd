package tool_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
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
		name     string // testdata/results/<name>.txtar holds the args and the result
		tool     string
		cfg      tool.Config
		status   llm.Status
		errType  toolresult.ErrorType
		repaired bool
	}{
		{name: "success_typed", tool: "get_weather", status: llm.StatusSuccess},
		{name: "success_summarizer", tool: "search_web", status: llm.StatusSuccess},
		{name: "success_empty", tool: "search_web", status: llm.StatusSuccess},
		{name: "envelope_partial", tool: "list_files", status: llm.StatusPartial},
		{name: "approved", tool: "send_sms", cfg: tool.Config{Approver: approve}, status: llm.StatusSuccess},
		{name: "repaired_trailing_comma", tool: "get_weather", status: llm.StatusSuccess, repaired: true},
		{name: "repaired_single_quotes", tool: "get_weather", status: llm.StatusSuccess, repaired: true},
		{name: "repaired_unclosed_brace", tool: "get_weather", status: llm.StatusSuccess, repaired: true},
		{name: "repaired_truncated_readonly", tool: "get_forecast", status: llm.StatusSuccess, repaired: true},
		{name: "repaired_fence", tool: "get_weather", status: llm.StatusSuccess, repaired: true},
		{name: "repaired_string_encoded", tool: "get_weather", status: llm.StatusSuccess, repaired: true},
		{name: "repaired_empty", tool: "list_files", status: llm.StatusPartial, repaired: true},
		{name: "malformed_truncated_side_effect", tool: "get_weather", status: llm.StatusError, errType: toolresult.MalformedArguments},
		{name: "malformed_missing_colon", tool: "get_weather", status: llm.StatusError, errType: toolresult.MalformedArguments},
		{name: "malformed_python_none", tool: "get_weather", status: llm.StatusError, errType: toolresult.MalformedArguments},
		{name: "malformed_repair_breaks_schema", tool: "get_weather", status: llm.StatusError, errType: toolresult.MalformedArguments},
		{name: "malformed_repair_disabled", tool: "get_weather", cfg: tool.Config{NoRepair: true}, status: llm.StatusError, errType: toolresult.MalformedArguments},
		{name: "malformed_trailing_data", tool: "get_weather", status: llm.StatusError, errType: toolresult.MalformedArguments},
		{name: "invalid_missing_required", tool: "get_weather", status: llm.StatusError, errType: toolresult.InvalidArguments},
		{name: "invalid_many", tool: "search_web", status: llm.StatusError, errType: toolresult.InvalidArguments},
		{name: "invalid_types", tool: "get_weather", status: llm.StatusError, errType: toolresult.InvalidArguments},
		{name: "invalid_pattern", tool: "send_sms", cfg: tool.Config{Approver: approve}, status: llm.StatusError, errType: toolresult.InvalidArguments},
		{name: "invalid_not_object", tool: "get_weather", status: llm.StatusError, errType: toolresult.InvalidArguments},
		{name: "unknown_tool_close", tool: "get_wether", status: llm.StatusError, errType: toolresult.UnknownTool},
		{name: "unknown_tool_several", tool: "search_new", status: llm.StatusError, errType: toolresult.UnknownTool},
		{name: "unknown_tool_lists_all", tool: "get_weathr_forecast", status: llm.StatusError, errType: toolresult.UnknownTool},
		{name: "unknown_tool_none_close", tool: "book_flight", status: llm.StatusError, errType: toolresult.UnknownTool},
		{name: "error_not_found", tool: "get_weather", status: llm.StatusError, errType: toolresult.NotFound},
		{name: "error_rate_limited", tool: "get_weather", status: llm.StatusError, errType: toolresult.RateLimited},
		{name: "error_untyped", tool: "get_weather", status: llm.StatusError, errType: toolresult.InternalError},
		{name: "error_deadline", tool: "get_weather", status: llm.StatusError, errType: toolresult.Timeout},
		{name: "panic", tool: "get_weather", status: llm.StatusError, errType: toolresult.InternalError},
		{name: "output_invalid_partial", tool: "get_weather", status: llm.StatusPartial},
		{name: "output_invalid_error", tool: "get_weather", cfg: tool.Config{InvalidOutput: tool.OutputError}, status: llm.StatusError, errType: toolresult.InternalError},
		{name: "approval_rejected", tool: "send_sms", cfg: tool.Config{Approver: reject}, status: llm.StatusError, errType: toolresult.RejectedByUser},
		{name: "approval_unavailable", tool: "send_sms", cfg: tool.Config{Approver: broken}, status: llm.StatusError, errType: toolresult.PermissionDenied},
		{name: "approval_no_approver", tool: "send_sms", status: llm.StatusError, errType: toolresult.PermissionDenied},
	}
	reg := testRegistry(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join("testdata", "results", tt.name+".txtar")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			args, _ := golden.ParseArchive(data).Get("args")
			args = bytes.TrimSuffix(args, []byte("\n"))
			cfg := tt.cfg
			cfg.BaseBackoff = time.Millisecond
			ex, err := tool.NewExecutor(reg, &cfg)
			if err != nil {
				t.Fatal(err)
			}
			call := llm.ToolCall{ID: "call_" + tt.name, Name: tt.tool, Input: jsontext.Value(args)}
			o := ex.Call(context.Background(), call)
			if o.Result.CallID != call.ID || o.Result.Name != call.Name {
				t.Errorf("Call(%q) answered %q/%q, want %q/%q", tt.name, o.Result.CallID, o.Result.Name, call.ID, call.Name)
			}
			if o.Result.Status != tt.status {
				t.Errorf("Call(%q).Status = %v, want %v", args, o.Result.Status, tt.status)
			}
			var gotType toolresult.ErrorType
			if o.Envelope.Error != nil {
				gotType = o.Envelope.Error.Type
			}
			if gotType != tt.errType {
				t.Errorf("Call(%q) error type = %q, want %q", args, gotType, tt.errType)
			}
			if got := o.Envelope.Meta.Repaired != ""; got != tt.repaired {
				t.Errorf("Call(%q) repaired = %v (%q), want %v", args, got, o.Envelope.Meta.Repaired, tt.repaired)
			}
			// What the model reads parses back as a valid envelope.
			if _, err := toolresult.Parse([]byte(text(o.Result))); err != nil {
				t.Errorf("Call(%q) rendered an invalid envelope: %v", args, err)
			}
			golden.CheckFile(t, path, "result", []byte(stable(o)+"\n"))
		})
	}
}
