package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

func executor(t *testing.T, cfg *tool.Config, tools ...tool.Tool) *tool.Executor {
	t.Helper()
	reg := tool.NewRegistry()
	reg.MustAdd(tools...)
	ex, err := tool.NewExecutor(reg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

func calls(name string, n int, args string) []llm.ToolCall {
	out := make([]llm.ToolCall, n)
	for i := range out {
		out[i] = llm.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: name, Input: jsontext.Value(args)}
	}
	return out
}

// Results come back in call order whatever order the calls finish in.
func TestRunOrder(t *testing.T) {
	sleepy := newFake("sleepy", tool.Level2, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
		var in struct{ MS int }
		_ = json.Unmarshal(args, &in)
		time.Sleep(time.Duration(in.MS) * time.Millisecond)
		return toolresult.Success(fmt.Sprintf("slept %d", in.MS), in.MS), nil
	})
	ex := executor(t, nil, sleepy)
	var cs []llm.ToolCall
	for i, ms := range []int{40, 30, 20, 10, 0} {
		cs = append(cs, llm.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "sleepy", Input: jsontext.Value(fmt.Sprintf(`{"MS": %d}`, ms))})
	}
	out := ex.Run(context.Background(), cs)
	if len(out) != len(cs) {
		t.Fatalf("Run(5 calls) returned %d outcomes, want 5", len(out))
	}
	for i, o := range out {
		if o.Result.CallID != cs[i].ID {
			t.Errorf("Run()[%d].CallID = %q, want %q", i, o.Result.CallID, cs[i].ID)
		}
		want := fmt.Sprintf("slept %d", []int{40, 30, 20, 10, 0}[i])
		if o.Envelope.Summary != want {
			t.Errorf("Run()[%d].Summary = %q, want %q", i, o.Envelope.Summary, want)
		}
	}
}

// No more than MaxParallel calls run at once, and they do run in parallel.
func TestRunBoundedConcurrency(t *testing.T) {
	for _, limit := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			var cur, peak, starts atomic.Int32
			gate := make(chan struct{})
			var started sync.WaitGroup
			started.Add(limit)
			tl := newFake("work", tool.Level2, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
				n := cur.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				if starts.Add(1) <= int32(limit) {
					started.Done()
				}
				<-gate
				cur.Add(-1)
				return toolresult.Success("ok", nil), nil
			})
			ex := executor(t, &tool.Config{MaxParallel: limit}, tl)
			done := make(chan []tool.Outcome)
			go func() { done <- ex.Run(context.Background(), calls("work", 3*limit, `{}`)) }()
			started.Wait() // exactly `limit` calls are running at once
			close(gate)
			out := <-done
			if got := peak.Load(); got != int32(limit) {
				t.Errorf("Run with MaxParallel %d: peak concurrency = %d, want %d", limit, got, limit)
			}
			for i, o := range out {
				if o.Result.Status != llm.StatusSuccess {
					t.Errorf("Run()[%d].Status = %v, want success", i, o.Result.Status)
				}
			}
		})
	}
}

// A tool that honours its context times out with its own Timeout.
func TestCallTimeout(t *testing.T) {
	slow := newFake("slow", tool.Level0, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
		<-ctx.Done()
		return toolresult.Envelope{}, ctx.Err()
	})
	slow.spec.Timeout = 20 * time.Millisecond
	var n atomic.Int32
	slow2 := newFake("slow_read", tool.Level2, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
		n.Add(1)
		<-ctx.Done()
		return toolresult.Envelope{}, ctx.Err()
	})
	slow2.spec.Timeout = 10 * time.Millisecond
	ex := executor(t, &tool.Config{BaseBackoff: time.Millisecond, MaxAttempts: 3}, slow, slow2)
	out := ex.Run(context.Background(), []llm.ToolCall{{ID: "a", Name: "slow", Input: jsontext.Value(`{}`)}, {ID: "b", Name: "slow_read", Input: jsontext.Value(`{}`)}})
	want := []string{
		`{"status":"error","summary":"slow() failed: timeout: the tool did not finish within 20ms","error":{"type":"timeout","message":"the tool did not finish within 20ms","retryable":false},"suggestion":"You could check whether the action took effect before calling slow again.","meta":{"source":"slow"}}`,
		`{"status":"error","summary":"slow_read() failed: timeout: the tool did not finish within 10ms","error":{"type":"timeout","message":"the tool did not finish within 10ms","retryable":true},"meta":{"source":"slow_read","attempts":3}}`,
	}
	for i, o := range out {
		if got := stable(o); got != want[i] {
			t.Errorf("Run()[%d] =\n%s\nwant\n%s", i, got, want[i])
		}
	}
	if n.Load() != 3 {
		t.Errorf("level_2 tool that times out ran %d times, want 3", n.Load())
	}
}

// Cancelling the context cancels every unfinished call, promptly, and
// nothing keeps running.
func TestRunCancel(t *testing.T) {
	var started sync.WaitGroup
	started.Add(2)
	wait := newFake("wait", tool.Level2, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
		started.Done()
		<-ctx.Done()
		return toolresult.Envelope{}, ctx.Err()
	})
	quick := newFake("quick", tool.Level2, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
		return toolresult.Success("quick done", nil), nil
	})
	ex := executor(t, &tool.Config{MaxParallel: 2}, wait, quick)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		started.Wait()
		cancel()
	}()
	cs := append(calls("wait", 2, `{}`), llm.ToolCall{ID: "q", Name: "quick", Input: jsontext.Value(`{}`)})
	out := ex.Run(ctx, cs)
	for i := 0; i < 2; i++ {
		if e := out[i].Envelope.Error; e == nil || e.Type != toolresult.Cancelled {
			t.Errorf("Run()[%d] = %s, want a cancelled result", i, text(out[i].Result))
		}
	}
	// The third call was queued behind the limit when ctx was cancelled.
	if e := out[2].Envelope.Error; e == nil || e.Type != toolresult.Cancelled {
		t.Errorf("Run()[2] = %s, want cancelled (never started)", text(out[2].Result))
	}
	if err := ex.Close(context.Background()); err != nil {
		t.Errorf("Close() = %v, want nil", err)
	}
}

// A tool that ignores its context does not hold up the run: after Grace
// the executor reports it and moves on; Close waits for it.
func TestCallHangingTool(t *testing.T) {
	release := make(chan struct{})
	hang := newFake("hang", tool.Level0, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
		<-release // ignores ctx
		return toolresult.Success("late", nil), nil
	})
	hang.spec.Timeout = 10 * time.Millisecond
	ex := executor(t, &tool.Config{Grace: 10 * time.Millisecond}, hang)
	o := ex.Call(context.Background(), llm.ToolCall{ID: "h", Name: "hang", Input: jsontext.Value(`{}`)})
	want := `{"status":"error","summary":"hang() failed: timeout: the tool did not finish within 10ms and did not stop; its outcome is unknown","error":{"type":"timeout","message":"the tool did not finish within 10ms and did not stop; its outcome is unknown","retryable":false},"suggestion":"You could check whether the action took effect before calling hang again.","meta":{"source":"hang"}}`
	if got := stable(o); got != want {
		t.Errorf("Call(hang) =\n%s\nwant\n%s", got, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	err := ex.Close(ctx)
	cancel()
	if err == nil || !strings.Contains(err.Error(), "1 tool calls ignored cancellation") {
		t.Errorf("Close() while the tool hangs = %v, want an error counting 1 straggler", err)
	}
	close(release)
	if err := ex.Close(context.Background()); err != nil {
		t.Errorf("Close() after the tool returned = %v, want nil", err)
	}
}

// Retries follow the idempotency level.
func TestRetriesByLevel(t *testing.T) {
	tests := []struct {
		level     tool.Idempotency
		failures  int // failures before success
		errType   toolresult.ErrorType
		wantCalls int
		wantOK    bool
	}{
		{tool.Level0, 1, toolresult.UpstreamError, 1, false}, // never retried, even when it fails
		{"", 1, toolresult.UpstreamError, 1, false},          // undeclared counts as level_0
		{tool.Level1, 2, toolresult.UpstreamError, 3, true},
		{tool.Level2, 2, toolresult.Timeout, 3, true},
		{tool.Level2, 5, toolresult.UpstreamError, 3, false}, // MaxAttempts
		{tool.Level2, 5, toolresult.NotFound, 1, false},      // not retryable
		{tool.Level2, 5, toolresult.InvalidArguments, 1, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s_%s_%d", tt.level, tt.errType, tt.failures), func(t *testing.T) {
			var n atomic.Int32
			var mu sync.Mutex
			var keys []string
			f := newFake("flaky", tt.level, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
				ci, _ := tool.CallInfoFrom(ctx)
				mu.Lock()
				keys = append(keys, ci.IdempotencyKey)
				mu.Unlock()
				if int(n.Add(1)) != ci.Attempt {
					t.Errorf("CallInfo.Attempt = %d, want %d", ci.Attempt, n.Load())
				}
				if int(n.Load()) <= tt.failures {
					return toolresult.Envelope{}, tool.Errorf(tt.errType, "attempt %d failed", n.Load())
				}
				return toolresult.Success("ok", nil), nil
			})
			ex := executor(t, &tool.Config{BaseBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}, f)
			o := ex.Call(context.Background(), llm.ToolCall{ID: "c", Name: "flaky", Input: jsontext.Value(`{}`)})
			if got := int(n.Load()); got != tt.wantCalls {
				t.Errorf("level %q: tool ran %d times, want %d", tt.level, got, tt.wantCalls)
			}
			if got := o.Result.Status == llm.StatusSuccess; got != tt.wantOK {
				t.Errorf("level %q: success = %v, want %v (%s)", tt.level, got, tt.wantOK, text(o.Result))
			}
			wantAttempts := tt.wantCalls
			if wantAttempts == 1 {
				wantAttempts = 0 // rendered only when more than one
			}
			if o.Envelope.Meta.Attempts != wantAttempts {
				t.Errorf("level %q: meta.attempts = %d, want %d", tt.level, o.Envelope.Meta.Attempts, wantAttempts)
			}
			for i, k := range keys {
				switch {
				case tt.level == tool.Level1 && (k == "" || k != keys[0]):
					t.Errorf("level_1 attempt %d key = %q, want the same non-empty key %q on every attempt", i+1, k, keys[0])
				case tt.level != tool.Level1 && k != "":
					t.Errorf("level %q attempt %d key = %q, want none", tt.level, i+1, k)
				}
			}
		})
	}
}

// Every level_1 call gets its own key.
func TestIdempotencyKeysPerCall(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	f := newFake("charge", tool.Level1, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
		mu.Lock()
		ci, _ := tool.CallInfoFrom(ctx)
		seen[ci.IdempotencyKey] = true
		mu.Unlock()
		return toolresult.Success("charged", nil), nil
	})
	ex := executor(t, nil, f)
	ex.Run(context.Background(), calls("charge", 5, `{}`))
	if len(seen) != 5 {
		t.Errorf("5 level_1 calls used %d distinct keys, want 5", len(seen))
	}
}

// retry_after is waited out when short, and handed to the model when long.
func TestRetryAfter(t *testing.T) {
	var n atomic.Int32
	var first, second time.Time
	f := newFake("quota", tool.Level2, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
		if n.Add(1) == 1 {
			first = time.Now()
			return toolresult.Envelope{}, &tool.Error{Type: toolresult.RateLimited, Message: "slow down", RetryAfter: 30 * time.Millisecond}
		}
		second = time.Now()
		return toolresult.Success("ok", nil), nil
	})
	ex := executor(t, &tool.Config{BaseBackoff: time.Millisecond}, f)
	o := ex.Call(context.Background(), llm.ToolCall{ID: "c", Name: "quota", Input: jsontext.Value(`{}`)})
	if o.Result.Status != llm.StatusSuccess || n.Load() != 2 {
		t.Fatalf("Call(quota) = %s after %d runs, want success after 2", text(o.Result), n.Load())
	}
	if gap := second.Sub(first); gap < 30*time.Millisecond {
		t.Errorf("retry came %v after a retry_after of 30ms, want at least 30ms", gap)
	}

	n.Store(0)
	long := newFake("quota_long", tool.Level2, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
		n.Add(1)
		return toolresult.Envelope{}, &tool.Error{Type: toolresult.RateLimited, Message: "come back in an hour", RetryAfter: time.Hour}
	})
	ex = executor(t, nil, long)
	o = ex.Call(context.Background(), llm.ToolCall{ID: "c", Name: "quota_long", Input: jsontext.Value(`{}`)})
	if n.Load() != 1 || o.Envelope.Error == nil || o.Envelope.Error.RetryAfter != time.Hour {
		t.Errorf("Call(quota_long) ran %d times and returned %s, want 1 run and retry_after_ms 3600000", n.Load(), text(o.Result))
	}
}

// One failing call never hides the others: success, error, timeout and
// panic all come back, each with its own id.
func TestRunMixed(t *testing.T) {
	ok := newFake("ok", tool.Level2, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
		return toolresult.Success("fine", 1), nil
	})
	fail := newFake("fail", tool.Level0, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
		return toolresult.Envelope{}, tool.Errorf(toolresult.PermissionDenied, "not yours")
	})
	slow := newFake("slow", tool.Level0, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
		<-ctx.Done()
		return toolresult.Envelope{}, ctx.Err()
	})
	slow.spec.Timeout = 5 * time.Millisecond
	boom := newFake("boom", tool.Level0, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
		panic("boom")
	})
	ex := executor(t, nil, ok, fail, slow, boom)
	cs := []llm.ToolCall{
		{ID: "1", Name: "boom", Input: jsontext.Value(`{}`)},
		{ID: "2", Name: "ok", Input: jsontext.Value(`{}`)},
		{ID: "3", Name: "slow", Input: jsontext.Value(`{}`)},
		{ID: "4", Name: "fail", Input: jsontext.Value(`{}`)},
		{ID: "5", Name: "nope", Input: jsontext.Value(`{}`)},
		{ID: "6", Name: "ok", Input: jsontext.Value(`{oops`)},
	}
	out := ex.Run(context.Background(), cs)
	want := []toolresult.ErrorType{toolresult.InternalError, "", toolresult.Timeout, toolresult.PermissionDenied, toolresult.UnknownTool, toolresult.MalformedArguments}
	for i, o := range out {
		var got toolresult.ErrorType
		if o.Envelope.Error != nil {
			got = o.Envelope.Error.Type
		}
		if got != want[i] || o.Result.CallID != cs[i].ID || o.Result.Name != cs[i].Name {
			t.Errorf("Run()[%d] = %s/%s %q, want %s/%s %q", i, o.Result.CallID, o.Result.Name, got, cs[i].ID, cs[i].Name, want[i])
		}
	}
	if msg := llm.Tool(tool.Results(out)...); len(msg.ToolResults()) != len(cs) {
		t.Errorf("Results() gave %d results, want %d", len(msg.ToolResults()), len(cs))
	}
}

func TestConfig(t *testing.T) {
	c := (*tool.Config)(nil).WithDefaults()
	if c.MaxParallel != 8 || c.Timeout != 30*time.Second || c.MaxAttempts != 3 || c.Grace != time.Second || c.InvalidOutput != tool.OutputPartial {
		t.Errorf("WithDefaults() = %+v, want the documented defaults", c)
	}
	bad := []struct {
		cfg  tool.Config
		want string
	}{
		{tool.Config{MaxParallel: -1}, "MaxParallel is negative"},
		{tool.Config{Timeout: -time.Second, Grace: -1}, "Timeout is negative; Grace is negative"},
		{tool.Config{InvalidOutput: "drop"}, `InvalidOutput "drop" is not "partial" or "error"`},
		{tool.Config{BaseBackoff: time.Minute}, "MaxBackoff 5s is below BaseBackoff 1m0s"},
	}
	for _, tt := range bad {
		_, err := tool.NewExecutor(tool.NewRegistry(), &tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewExecutor(%+v) = %v, want an error containing %q", tt.cfg, err, tt.want)
		}
	}
	if _, err := tool.NewExecutor(nil, nil); err == nil {
		t.Errorf("NewExecutor(nil, nil) = nil error, want one")
	}
}
