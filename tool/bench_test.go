package tool_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// BookIn is a typical 5-field input.
type BookIn struct {
	From  string `json:"from" pattern:"^[A-Z]{3}$"`
	To    string `json:"to" pattern:"^[A-Z]{3}$"`
	Date  string `json:"date" format:"date"`
	Seats int    `json:"seats" minimum:"1" maximum:"9"`
	Class string `json:"class,omitempty" enum:"economy|business|first" default:"economy"`
}

// BookOut is its result.
type BookOut struct {
	ID    string `json:"id"`
	Price int    `json:"price"`
}

// benchBook calls the book_flight tool of reg with input through an
// executor with the default config, b.N times, each call succeeding.
func benchBook(b *testing.B, reg *tool.Registry, input string) {
	ex, err := tool.NewExecutor(reg, nil)
	if err != nil {
		b.Fatal(err)
	}
	call := llm.ToolCall{ID: "c", Name: "book_flight", Input: jsontext.Value(input)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if o := ex.Call(ctx, call); o.Result.Status != llm.StatusSuccess {
			b.Fatal(o.Envelope.Summary)
		}
	}
}

// BenchmarkValidateAndCall measures the executor's own overhead per call
// (parse, validate, defaults, decode, output validation, rendering) for a
// 5-field schema; the tool does no work.
func BenchmarkValidateAndCall(b *testing.B) {
	reg := tool.NewRegistry()
	reg.MustAdd(tool.MustFunc("book_flight", "Book a flight.", func(ctx context.Context, in BookIn) (BookOut, error) {
		return BookOut{ID: "bk_1", Price: 420}, nil
	}, &tool.FuncOptions{Idempotency: tool.Level1}))
	benchBook(b, reg, `{"from": "CDG", "to": "JFK", "date": "2026-12-01", "seats": 2, "class": "business"}`)
}

// BenchmarkValidateAndCallDefaults is BenchmarkValidateAndCall with the
// optional field left out, so that its default is filled in.
func BenchmarkValidateAndCallDefaults(b *testing.B) {
	reg := tool.NewRegistry()
	reg.MustAdd(tool.MustFunc("book_flight", "Book a flight.", func(ctx context.Context, in BookIn) (BookOut, error) {
		if in.Class != "economy" {
			b.Fatalf("Class = %q, want the default", in.Class)
		}
		return BookOut{ID: "bk_1", Price: 420}, nil
	}, &tool.FuncOptions{Idempotency: tool.Level1}))
	benchBook(b, reg, `{"from": "CDG", "to": "JFK", "date": "2026-12-01", "seats": 2}`)
}

// BenchmarkParallel8x100ms runs 8 calls of a 100 ms tool per batch; with
// MaxParallel 8 a batch takes about 100 ms of wall time, not 800.
func BenchmarkParallel8x100ms(b *testing.B) {
	reg := tool.NewRegistry()
	reg.MustAdd(tool.MustFunc("slow", "Take 100 ms.", func(ctx context.Context, in struct{}) (int, error) {
		time.Sleep(100 * time.Millisecond)
		return 1, nil
	}, nil))
	ex, err := tool.NewExecutor(reg, &tool.Config{MaxParallel: 8})
	if err != nil {
		b.Fatal(err)
	}
	calls := make([]llm.ToolCall, 8)
	for i := range calls {
		calls[i] = llm.ToolCall{ID: "c", Name: "slow", Input: jsontext.Value(`{}`)}
	}
	ctx := context.Background()
	for b.Loop() {
		start := time.Now()
		ex.Run(ctx, calls)
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "wall-ms/batch")
	}
}

// BenchmarkCallNoSchema is the executor's fixed cost (lookup, per-attempt
// context and goroutine, rendering) with nothing to validate: a baseline
// for the ratio.
func BenchmarkCallNoSchema(b *testing.B) {
	reg := tool.NewRegistry()
	reg.MustAdd(newFake("noop", tool.Level2, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
		return toolresult.Success("ok", nil), nil
	}))
	ex, err := tool.NewExecutor(reg, nil)
	if err != nil {
		b.Fatal(err)
	}
	call := llm.ToolCall{ID: "c", Name: "noop", Input: jsontext.Value(`{}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ex.Call(ctx, call)
	}
}

// BenchmarkFuncCallDirect is validation, defaults, decoding and encoding
// of the 5-field tool without the executor.
func BenchmarkFuncCallDirect(b *testing.B) {
	f := tool.MustFunc("book_flight", "Book a flight.", func(ctx context.Context, in BookIn) (BookOut, error) {
		return BookOut{ID: "bk_1", Price: 420}, nil
	}, nil)
	args := jsontext.Value(`{"from": "CDG", "to": "JFK", "date": "2026-12-01", "seats": 2}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Call(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
}
