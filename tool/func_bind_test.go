package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// Touchy is a field type whose JSON methods are the program's own: it
// panics when decoded from "boom" and takes its time to encode.
type Touchy string

func (t *Touchy) UnmarshalJSON(b []byte) error {
	if string(b) == `"boom"` {
		panic("touchy cannot decode boom")
	}
	return json.Unmarshal(b, (*string)(t))
}

func (t Touchy) MarshalJSON() ([]byte, error) {
	if t == "slow" {
		time.Sleep(300 * time.Millisecond)
	}
	return json.Marshal(string(t))
}

// A Func whose types have JSON methods of their own runs them in the
// attempt's goroutine: a panic there is an internal_error, and a method
// that blocks is bounded by the tool's timeout.
func TestFuncJSONMethods(t *testing.T) {
	type in struct {
		V Touchy `json:"v"`
	}
	type out struct {
		V Touchy `json:"v"`
	}
	f := tool.MustFunc("touchy", "Echo a touchy value.", func(ctx context.Context, in in) (out, error) {
		return out(in), nil
	}, &tool.FuncOptions{Timeout: 20 * time.Millisecond})
	ex := executor(t, &tool.Config{Grace: 10 * time.Millisecond}, f)
	tests := []struct {
		args    string
		status  llm.Status
		errType toolresult.ErrorType
		message string
	}{
		{`{"v": "ok"}`, llm.StatusSuccess, "", ""},
		{`{"v": "boom"}`, llm.StatusError, toolresult.InternalError, "the tool failed unexpectedly (panic: touchy cannot decode boom)"},
		{`{"v": "slow"}`, llm.StatusError, toolresult.Timeout, "did not finish within 20ms and did not stop"},
	}
	for _, tt := range tests {
		o := ex.Call(context.Background(), llm.ToolCall{ID: "c", Name: "touchy", Input: jsontext.Value(tt.args)})
		if o.Result.Status != tt.status {
			t.Errorf("Call(%s).Status = %v, want %v (%s)", tt.args, o.Result.Status, tt.status, text(o.Result))
			continue
		}
		if tt.errType == "" {
			continue
		}
		if e := o.Envelope.Error; e == nil || e.Type != tt.errType || !strings.Contains(e.Message, tt.message) {
			t.Errorf("Call(%s).Error = %+v, want %s containing %q", tt.args, e, tt.errType, tt.message)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := ex.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// Every attempt of a retried Func decodes the arguments afresh: what fn
// did to its input on one attempt is not seen by the next.
func TestFuncRetryDecodesAgain(t *testing.T) {
	type in struct {
		Tags []string `json:"tags"`
	}
	var n atomic.Int32
	f := tool.MustFunc("tagger", "Tag things.", func(ctx context.Context, in in) ([]string, error) {
		if in.Tags[0] != "a" {
			t.Errorf("attempt %d: Tags[0] = %q, want %q", n.Load()+1, in.Tags[0], "a")
		}
		in.Tags[0] = "changed"
		if n.Add(1) == 1 {
			return nil, tool.Errorf(toolresult.UpstreamError, "try again")
		}
		return in.Tags, nil
	}, &tool.FuncOptions{Idempotency: tool.Level2})
	ex := executor(t, &tool.Config{BaseBackoff: time.Millisecond, MaxBackoff: time.Millisecond}, f)
	o := ex.Call(context.Background(), llm.ToolCall{ID: "c", Name: "tagger", Input: jsontext.Value(`{"tags": ["a", "b"]}`)})
	if o.Result.Status != llm.StatusSuccess || n.Load() != 2 {
		t.Errorf("Call(tagger) = %v after %d attempts, want success after 2 (%s)", o.Result.Status, n.Load(), text(o.Result))
	}
}

// Defaults reach every kind of tool: the JSON a hand-written tool and an
// approver get, and the input of a Func, whether decoded from the
// validated value or from JSON.
func TestDefaultsReachEveryTool(t *testing.T) {
	const params = `{"type": "object", "properties": {"city": {"type": "string"}, "units": {"type": "string", "default": "celsius"}}, "required": ["city"]}`
	var gotArgs, gotApproved string
	raw := newFake("raw", tool.Level0, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
		gotArgs = string(args)
		return toolresult.Success("ok", nil), nil
	})
	raw.spec.Parameters = jsontext.Value(params)
	raw.spec.RequiresApproval = true
	type plainIn struct {
		City  string `json:"city"`
		Units string `json:"units,omitempty" default:"celsius"`
	}
	type touchyIn struct {
		City  Touchy `json:"city"`
		Units string `json:"units,omitempty" default:"celsius"`
	}
	plain := tool.MustFunc("plain", "d", func(ctx context.Context, in plainIn) (string, error) { return in.City + "/" + in.Units, nil }, nil)
	touchy := tool.MustFunc("touchy", "d", func(ctx context.Context, in touchyIn) (string, error) { return string(in.City) + "/" + in.Units, nil }, nil)
	// Extra properties allowed: "CITY" reaches json.Unmarshal, which
	// matches it to City without regard to case.
	folded := tool.MustFunc("folded", "d", func(ctx context.Context, in plainIn) (string, error) { return in.City + "/" + in.Units, nil },
		&tool.FuncOptions{Parameters: jsontext.Value(`{"type": "object", "properties": {"units": {"type": "string", "default": "celsius"}}}`)})
	approver := tool.ApproverFunc(func(ctx context.Context, spec tool.Spec, call llm.ToolCall, args []byte) (bool, string, error) {
		gotApproved = string(args)
		return true, "", nil
	})
	ex := executor(t, &tool.Config{Approver: approver}, raw, plain, touchy, folded)
	tests := []struct {
		name, args, want string
	}{
		{"raw", `{"city": "Nice"}`, ""},
		{"plain", `{"city": "Nice"}`, `"Nice/celsius"`},
		{"plain", `{"city": "Nice", "units": "kelvin"}`, `"Nice/kelvin"`},
		{"touchy", `{"city": "Nice"}`, `"Nice/celsius"`},
		{"folded", `{"CITY": "Nice"}`, `"Nice/celsius"`},
	}
	for _, tt := range tests {
		o := ex.Call(context.Background(), llm.ToolCall{ID: "c", Name: tt.name, Input: jsontext.Value(tt.args)})
		if o.Result.Status != llm.StatusSuccess {
			t.Errorf("Call(%s, %s) = %s", tt.name, tt.args, text(o.Result))
			continue
		}
		if tt.want == "" {
			continue
		}
		if got := string(o.Envelope.Data.(jsontext.Value)); got != tt.want {
			t.Errorf("Call(%s, %s) data = %s, want %s", tt.name, tt.args, got, tt.want)
		}
	}
	if want := `{"city":"Nice","units":"celsius"}`; gotArgs != want || gotApproved != want {
		t.Errorf("raw tool got %s and its approver %s, want %s for both", gotArgs, gotApproved, want)
	}
}
