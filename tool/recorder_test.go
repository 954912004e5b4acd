package tool_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// logRecorder logs what a Recorder is told.
type logRecorder struct {
	mu   sync.Mutex
	log  []string
	fail bool
}

func (r *logRecorder) Start(ctx context.Context, a tool.Attempt) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, fmt.Sprintf("start %s %d key=%v", a.Call.ID, a.Number, a.Key != ""))
	if r.fail {
		return errors.New("disk full")
	}
	return nil
}

func (r *logRecorder) Finish(ctx context.Context, a tool.Attempt, res llm.ToolResult, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, fmt.Sprintf("finish %s %d %s", a.Call.ID, a.Number, res.Status))
}

// The Recorder hears about every attempt, before it runs and after it
// returns; a Start that fails keeps the tool from running.
func TestRecorder(t *testing.T) {
	type in struct{}
	runs := 0
	flaky := tool.MustFunc("flaky", "Fails once.", func(ctx context.Context, _ in) (string, error) {
		runs++
		if runs == 1 {
			return "", tool.Errorf(toolresult.RateLimited, "slow down")
		}
		return "ok", nil
	}, &tool.FuncOptions{Idempotency: tool.Level1})
	reg := tool.NewRegistry()
	reg.MustAdd(flaky)
	ex, err := tool.NewExecutor(reg, &tool.Config{BaseBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	calls := []llm.ToolCall{{ID: "c1", Name: "flaky", Input: []byte(`{}`)}, {ID: "c2", Name: "nope", Input: []byte(`{}`)}}
	rec := &logRecorder{}
	out := ex.Run(tool.WithRecorder(context.Background(), rec), calls)
	want := []string{"start c1 1 key=true", "finish c1 1 error", "start c1 2 key=true", "finish c1 2 success"}
	if fmt.Sprint(rec.log) != fmt.Sprint(want) || out[0].Result.Status != llm.StatusSuccess {
		t.Errorf("recorded %q (result %s), want %q", rec.log, out[0].Result.Status, want)
	}
	runs = 1
	rec = &logRecorder{fail: true}
	out = ex.Run(tool.WithRecorder(context.Background(), rec), calls[:1])
	if runs != 1 || out[0].Envelope.Error == nil || out[0].Envelope.Error.Type != toolresult.InternalError {
		t.Errorf("after a failed Start: runs %d, result %+v; want no run and internal_error", runs, out[0].Envelope)
	}
}
