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
	mu     sync.Mutex
	log    []string
	fail   bool
	cancel context.CancelFunc // called by Start, before it fails, when set
}

func (r *logRecorder) Start(ctx context.Context, a tool.Attempt) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, fmt.Sprintf("start %s %d key=%v", a.Call.ID, a.Number, a.Key != ""))
	if r.cancel != nil {
		r.cancel()
		return ctx.Err()
	}
	if r.fail {
		return errors.New("disk full")
	}
	return nil
}

func (r *logRecorder) Finish(ctx context.Context, a tool.Attempt, res llm.ToolResult, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cut := ""
	if a.Cut {
		cut = " cut"
	}
	r.log = append(r.log, fmt.Sprintf("finish %s %d %s%s", a.Call.ID, a.Number, res.Status, cut))
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

// An outcome says whether the cancellation of ctx cut its call short,
// and whether the call had started: a fact for the loop, which decides
// what the call becomes. A cut attempt's finished record says it was cut.
func TestCancelledOutcome(t *testing.T) {
	type in struct{}
	started := make(chan struct{}, 1)
	wait := tool.MustFunc("wait", "Waits until cancelled.", func(ctx context.Context, _ in) (string, error) {
		started <- struct{}{}
		<-ctx.Done()
		return "", ctx.Err()
	}, &tool.FuncOptions{Idempotency: tool.Level2})
	release := make(chan struct{})
	deaf := tool.MustFunc("deaf", "Ignores cancellation.", func(ctx context.Context, _ in) (string, error) {
		started <- struct{}{}
		<-release
		return "late", nil
	}, &tool.FuncOptions{Idempotency: tool.Level0})
	quick := tool.MustFunc("quick", "Returns at once.", func(ctx context.Context, _ in) (string, error) {
		return "ok", nil
	}, &tool.FuncOptions{Idempotency: tool.Level0})
	ask := tool.MustFunc("ask", "Needs approval.", func(ctx context.Context, _ in) (string, error) {
		return "ok", nil
	}, &tool.FuncOptions{Idempotency: tool.Level0, RequiresApproval: true})
	reg := tool.NewRegistry()
	reg.MustAdd(wait, deaf, quick, ask)
	approver := tool.ApproverFunc(func(ctx context.Context, _ tool.Spec, _ llm.ToolCall, _ []byte) (bool, string, error) {
		started <- struct{}{}
		<-ctx.Done()
		return false, "", ctx.Err()
	})
	ex, err := tool.NewExecutor(reg, &tool.Config{Grace: 10 * time.Millisecond, Approver: approver})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		close(release)
		if err := ex.Close(context.Background()); err != nil {
			t.Errorf("Close() = %v", err)
		}
	}()
	for _, tc := range []struct {
		name   string
		tool   string
		when   string // "before": ctx is cancelled before Run; "start": by the recorder's Start; "running": once the tool (or approver) started
		want   tool.Cancellation
		status llm.Status
		log    []string
	}{
		{"not cancelled", "quick", "", "", llm.StatusSuccess, []string{"start c 1 key=false", "finish c 1 success"}},
		{"cancelled before Run", "quick", "before", tool.CancelledBeforeStart, llm.StatusError, nil},
		{"cancelled as its start was recorded", "quick", "start", tool.CancelledBeforeStart, llm.StatusError, []string{"start c 1 key=false"}},
		{"cancelled while waiting for approval", "ask", "running", tool.CancelledBeforeStart, llm.StatusError, nil},
		{"cancelled while it ran", "wait", "running", tool.CancelledWhileRunning, llm.StatusError, []string{"start c 1 key=false", "finish c 1 error cut"}},
		{"cancelled while it ran, and it ignored that", "deaf", "running", tool.CancelledWhileRunning, llm.StatusError, []string{"start c 1 key=false", "finish c 1 error cut"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rec := &logRecorder{}
			switch tc.when {
			case "before":
				cancel()
			case "start":
				rec.cancel = cancel
			case "running":
				go func() { <-started; cancel() }()
			}
			out := ex.Call(tool.WithRecorder(ctx, rec), llm.ToolCall{ID: "c", Name: tc.tool, Input: []byte(`{}`)})
			if out.Cancelled != tc.want || out.Result.Status != tc.status {
				t.Errorf("Call(%s).Cancelled = %q (status %s), want %q (status %s)", tc.tool, out.Cancelled, out.Result.Status, tc.want, tc.status)
			}
			if fmt.Sprint(rec.log) != fmt.Sprint(tc.log) {
				t.Errorf("Call(%s) recorded %q, want %q", tc.tool, rec.log, tc.log)
			}
		})
	}
}
