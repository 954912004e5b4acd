package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/internal/orders"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

type doc struct {
	ID    int     `json:"id"`
	Title string  `json:"title"`
	Score float64 `json:"score"`
	Body  string  `json:"body"`
}

// TestExecutorShapes runs a tool whose contract keeps the five
// best-scored documents, and a tool returning 3,000 orders, through an
// executor with a shaper, then pages through the omitted orders with
// read_result.
func TestExecutorShapes(t *testing.T) {
	ctr := budget.Estimator{}
	sh, err := toolresult.NewShaper(ctr, toolresult.NewMemoryStore(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	type query struct {
		Q string `json:"q" minLength:"1"`
	}
	search := tool.MustFunc("search_docs", "Searches the documentation and returns every matching document.",
		func(ctx context.Context, in query) ([]doc, error) {
			out := make([]doc, 40)
			for i := range out {
				out[i] = doc{ID: i + 1, Title: fmt.Sprintf("doc %d", i+1), Score: float64((i*37)%40) / 40, Body: strings.Repeat("text ", 30)}
			}
			return out, nil
		}, &tool.FuncOptions{Idempotency: tool.Level2, Shape: toolresult.Rules{Fields: []string{"id", "title", "score"}, SortBy: "score", MaxRecords: 5}})
	list := tool.MustFunc("list_orders", "Lists every order of the shop, oldest first, as order records.",
		func(ctx context.Context, in query) (jsontext.Value, error) { return orders.Generate(3000, 1), nil },
		&tool.FuncOptions{Idempotency: tool.Level2})
	rr, err := tool.ReadResult(sh)
	if err != nil {
		t.Fatal(err)
	}
	reg := tool.NewRegistry()
	reg.MustAdd(search)
	reg.MustAdd(list)
	reg.MustAdd(rr)
	ex, err := tool.NewExecutor(reg, &tool.Config{Shaper: sh})
	if err != nil {
		t.Fatal(err)
	}
	outs := ex.RunWithin(context.Background(), []llm.ToolCall{
		{ID: "c1", Name: "search_docs", Input: jsontext.Value(`{"q":"budget"}`)},
		{ID: "c2", Name: "list_orders", Input: jsontext.Value(`{"q":"all"}`)},
	}, 4000)

	top := outs[0]
	var hits []doc
	if err := json.Unmarshal(top.Envelope.Data.(jsontext.Value), &hits); err != nil {
		t.Fatal(err)
	}
	if len(hits) != 5 || hits[0].Score != 0.975 || hits[4].Score != 0.875 || hits[0].Body != "" {
		t.Errorf("search_docs shaped to %+v, want the five best-scored, without body", hits)
	}
	if top.Shaping == nil || top.Shaping.Budget != 2000 || top.Envelope.Meta.Level != toolresult.LevelHead {
		t.Errorf("search_docs shaping = %+v, want level head in a budget of 2000 (half of 4000)", top.Shaping)
	}

	o := outs[1]
	m := o.Envelope.Meta
	if m.Level != toolresult.LevelHead || m.Ref == "" || m.TokensAfter > 2000 {
		t.Fatalf("list_orders meta = %+v, want head with a ref within 2000 tokens", m)
	}
	shown := 3000 - m.Omitted
	ids := map[string]bool{}
	offset := shown
	for offset < 3000 {
		args := fmt.Sprintf(`{"ref":%q,"offset":%d}`, m.Ref, offset)
		page := ex.RunWithin(context.Background(), []llm.ToolCall{{ID: "p", Name: "read_result", Input: jsontext.Value(args)}}, 3000)[0]
		if page.Result.Status != llm.StatusSuccess {
			t.Fatalf("read_result(%s) = %s", args, page.Result.Content[0].(llm.Text).Text)
		}
		if page.Shaping != nil {
			t.Error("read_result's page was shaped again by the executor")
		}
		var recs []struct{ ID string }
		if err := json.Unmarshal(page.Envelope.Data.(jsontext.Value), &recs); err != nil {
			t.Fatal(err)
		}
		for i, r := range recs {
			want := fmt.Sprintf("o-%05d", offset+i+1)
			if r.ID != want || ids[r.ID] {
				t.Fatalf("read_result record %d = %s, want %s once", offset+i, r.ID, want)
			}
			ids[r.ID] = true
		}
		offset += len(recs)
	}
	if len(ids) != m.Omitted {
		t.Errorf("read_result returned %d records, want the %d omitted", len(ids), m.Omitted)
	}

	bad := ex.Call(context.Background(), llm.ToolCall{ID: "x", Name: "read_result", Input: jsontext.Value(`{"ref":"r999"}`)})
	if bad.Envelope.Error == nil || bad.Envelope.Error.Type != toolresult.NotFound {
		t.Errorf("read_result(unknown ref) = %+v, want not_found", bad.Envelope)
	}
	past := ex.Call(context.Background(), llm.ToolCall{ID: "y", Name: "read_result", Input: jsontext.Value(fmt.Sprintf(`{"ref":%q,"offset":5000}`, m.Ref))})
	if past.Envelope.Error == nil || past.Envelope.Error.Type != toolresult.InvalidArguments || !strings.Contains(past.Envelope.Error.Message, "past the end") {
		t.Errorf("read_result(offset past the end) = %+v, want invalid_arguments saying so", past.Envelope)
	}
}

func TestSpecShape(t *testing.T) {
	specs, _, err := tool.ParseSpecs([]byte(`{"version":"toolwire/v1","tools":[{"name":"search_docs","description":"Searches the docs and returns hits.","parameters":{"type":"object"},"shape":{"fields":["title","score"],"sort_by":"score","order":"desc","max_records":5}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got := specs[0].Shape
	if got.SortBy != "score" || got.Order != toolresult.Descending || got.MaxRecords != 5 || len(got.Fields) != 2 {
		t.Errorf("ParseSpecs shape = %+v", got)
	}
	b, err := tool.MarshalSpecFile(specs)
	if err != nil || !strings.Contains(string(b), `"sort_by": "score"`) {
		t.Errorf("MarshalSpecFile = %s, %v; want the shape written back", b, err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"order":"up","sort_by":"x"}`, `tools.0.shape: order "up" is not "desc" or "asc"`},
		{`{"max_records":-1}`, "max_records -1 is negative"},
		{`{"fields":"title"}`, "tools.0.shape.fields: is a string, want an array"},
		{`{"colour":1}`, "colour"},
	} {
		_, _, err := tool.ParseSpecs([]byte(`{"version":"toolwire/v1","tools":[{"name":"t","parameters":{"type":"object"},"shape":` + tc.in + `}]}`))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSpecs(shape %s) = %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
	if err := (tool.Spec{Name: "t", Shape: toolresult.Rules{Order: toolresult.Ascending}}).Validate(); err == nil || !strings.Contains(err.Error(), "shape: order is set but sort_by is not") {
		t.Errorf("Validate(order without sort_by) = %v", err)
	}
}
