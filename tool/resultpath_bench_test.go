package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/internal/orders"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// order is one record of internal/orders, as a Go type whose encoding is
// the generator's bytes exactly.
type order struct {
	ID       string       `json:"id"`
	Status   string       `json:"status"`
	Customer string       `json:"customer"`
	VIP      *bool        `json:"vip"`
	Address  orderAddress `json:"address"`
	Total    float64      `json:"total"`
	Note     *string      `json:"note"`
	Tags     []string     `json:"tags,omitzero"`
}

type orderAddress struct {
	City string `json:"city"`
}

// benchOrders returns n orders and their JSON encoding, which is
// orders.Generate(n, 1) byte for byte.
func benchOrders(b *testing.B, n int) ([]order, []byte) {
	data := orders.Generate(n, 1)
	var recs []order
	if err := json.Unmarshal(data, &recs); err != nil {
		b.Fatal(err)
	}
	again, err := json.Marshal(recs)
	if err != nil || !bytes.Equal(again, data) {
		b.Fatalf("the orders do not encode back to their own bytes (%v)", err)
	}
	return recs, data
}

// BenchmarkResultPath takes a 3 MB result (30,000 orders) from a Func
// tool's return value to the tool message the model reads, as the agent
// runs it: an executor with a shaper counting exact o200k tokens and a
// memory store. Its baseline, in the same run, is one json.Unmarshal of
// the same bytes into an any: the result path should cost at most twice
// that.
func BenchmarkResultPath(b *testing.B) {
	const n = 30_000
	b.Run("baseline-json.Unmarshal-any", func(b *testing.B) {
		_, data := benchOrders(b, n)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("func-to-message", func(b *testing.B) {
		recs, data := benchOrders(b, n)
		counter, err := budget.NewExact(budget.O200kBase)
		if err != nil {
			b.Fatal(err)
		}
		sh, err := toolresult.NewShaper(counter, toolresult.NewMemoryStore(0), nil)
		if err != nil {
			b.Fatal(err)
		}
		list := tool.MustFunc("list_orders", "Lists every order of the shop, oldest first.",
			func(ctx context.Context, in struct{}) ([]order, error) { return recs, nil },
			&tool.FuncOptions{Idempotency: tool.Level2})
		reg := tool.NewRegistry()
		reg.MustAdd(list)
		ex, err := tool.NewExecutor(reg, &tool.Config{Shaper: sh})
		if err != nil {
			b.Fatal(err)
		}
		call := llm.ToolCall{ID: "c1", Name: "list_orders", Input: jsontext.Value(`{}`)}
		ctx := context.Background()
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			o := ex.Call(ctx, call)
			if o.Result.Status != llm.StatusSuccess || o.Shaping == nil || o.Shaping.Records != n {
				b.Fatalf("Call(list_orders) = %s, shaping %+v", o.Result.Status, o.Shaping)
			}
		}
	})
}
