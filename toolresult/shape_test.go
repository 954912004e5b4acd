package toolresult_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/internal/orders"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

func exact(t testing.TB) *budget.Exact {
	t.Helper()
	c, err := budget.NewExact(budget.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func dataSet(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "shape", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDataSetsUpToDate keeps the committed data sets identical to what
// their generator writes (go run ./internal/orders/gendata toolresult/testdata/shape).
func TestDataSetsUpToDate(t *testing.T) {
	for _, s := range orders.Sets() {
		if got := dataSet(t, s.Name); !bytes.Equal(got, s.Data()) {
			t.Errorf("testdata/shape/%s differs from its generator; run go run ./internal/orders/gendata toolresult/testdata/shape", s.Name)
		}
	}
}

func pngImage(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, x%h, color.RGBA{R: 200, A: 255})
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

type shapeCase struct {
	name  string
	env   toolresult.Envelope
	req   toolresult.Request
	cfg   *toolresult.Config
	level toolresult.Level
	input string // what the case feeds, for the golden file
}

func shapeCases(t testing.TB) []shapeCase {
	orders20 := dataSet(t, "orders-20.json")
	orders30k := dataSet(t, "orders-30000.json")
	docs := dataSet(t, "documents-200.json")
	log := dataSet(t, "service-2000.log")
	python, err := os.ReadFile("testdata/traces/python.txt")
	if err != nil {
		t.Fatal(err)
	}
	long := `{"id":"doc-1","title":"Handbook","body":"` + strings.Repeat("All work and no play. ", 2000) + `","sections":[` + strings.Repeat(`{"h":"x"},`, 200) + `{"h":"end"}]}`
	failure := toolresult.Failure(toolresult.InternalError, string(python))
	failure.Summary = "load_orders(day=2026-12-01) failed"
	return []shapeCase{
		{name: "full", input: "orders-20.json",
			env: toolresult.Success("search_orders(city=any): 20 orders", jsontext.Value(orders20)), req: toolresult.Request{Tool: "search_orders", Budget: 2000}, level: toolresult.LevelFull},
		{name: "head", input: "orders-30000.json",
			env: toolresult.Success("search_orders(city=any): 30,000 orders", jsontext.Value(orders30k)), req: toolresult.Request{Tool: "search_orders", Budget: 2000}, level: toolresult.LevelHead},
		{name: "aggregate", input: "orders-30000.json, MinRecords 20",
			env: toolresult.Success("search_orders(city=any): 30,000 orders", jsontext.Value(orders30k)), req: toolresult.Request{Tool: "search_orders", Budget: 700}, cfg: &toolresult.Config{MinRecords: 20}, level: toolresult.LevelAggregate},
		{name: "top5", input: "documents-200.json, rules: the five best-scored, title/url/score",
			env: toolresult.Success("search_docs(q=agent context budget): 200 hits", jsontext.Value(docs)),
			req: toolresult.Request{Tool: "search_docs", Budget: 2000, Rules: toolresult.Rules{Fields: []string{"title", "url", "score"}, SortBy: "score", MaxRecords: 5}}, level: toolresult.LevelHead},
		{name: "wrapper", input: "documents-200.json",
			env: toolresult.Success("search_docs(q=agent context budget): 200 hits", jsontext.Value(docs)), req: toolresult.Request{Tool: "search_docs", Budget: 800}, level: toolresult.LevelHead},
		{name: "text", input: "service-2000.log",
			env: toolresult.Success("tail_log(service=orders-api)", string(log)), req: toolresult.Request{Tool: "tail_log", Budget: 600}, level: toolresult.LevelHead},
		{name: "raw-text", input: "service-2000.log as raw output",
			env: toolresult.Success("tail_log(service=orders-api)", toolresult.Raw(log[:400])), req: toolresult.Request{Tool: "tail_log", Budget: 600}, level: toolresult.LevelFull},
		{name: "trace", input: "testdata/traces/python.txt as the error message",
			env: failure, req: toolresult.Request{Tool: "load_orders", Budget: 600}, level: toolresult.LevelFull},
		{name: "clip", input: "one 44 KB document",
			env: toolresult.Success("get_doc(id=doc-1)", jsontext.Value(long)), req: toolresult.Request{Tool: "get_doc", Budget: 300}, level: toolresult.LevelHead},
		{name: "image-inline", input: "a 64×48 PNG, policy inline",
			env: toolresult.Success("screenshot(url=https://example.com)", toolresult.Raw(pngImage(64, 48))), req: toolresult.Request{Tool: "screenshot", Budget: 2000, Images: toolresult.InlineImages}, level: toolresult.LevelFull},
		{name: "image-describe", input: "a 64×48 PNG, policy describe",
			env: toolresult.Success("screenshot(url=https://example.com)", toolresult.Raw(pngImage(64, 48))), req: toolresult.Request{Tool: "screenshot", Budget: 2000}, level: toolresult.LevelFull},
		{name: "binary", input: "a PDF",
			env: toolresult.Success("fetch_invoice(id=42)", toolresult.Blob{MediaType: "application/pdf", Data: []byte("%PDF-1.7\n" + strings.Repeat("\x00\x01binary", 100))}), req: toolresult.Request{Tool: "fetch_invoice", Budget: 600}, level: toolresult.LevelFull},
		{name: "empty", input: "[]",
			env: toolresult.Empty("search_orders(city=Atlantis): no orders"), req: toolresult.Request{Tool: "search_orders", Budget: 600}, level: toolresult.LevelFull},
	}
}

// TestShapeGolden shapes fixed data sets at every level and pins the
// tool message and the report in testdata/shape/NAME.txtar.
func TestShapeGolden(t *testing.T) {
	ctr := exact(t)
	for _, tc := range shapeCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			sh, err := toolresult.NewShaper(ctr, toolresult.NewMemoryStore(0).NumberRefs(), tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			out, err := sh.Shape(context.Background(), tc.env, tc.req)
			if err != nil {
				t.Fatalf("Shape: %v", err)
			}
			if out.Report.Level != tc.level {
				t.Errorf("Shape(%s) level = %s, want %s", tc.name, out.Report.Level, tc.level)
			}
			if out.Report.TokensAfter > out.Report.Budget || out.Report.OverBudget {
				t.Errorf("Shape(%s) = %d tokens, over the budget of %d", tc.name, out.Report.TokensAfter, out.Report.Budget)
			}
			res := out.Result("call_1", tc.req.Tool)
			text := res.Content[0].(llm.Text).Text
			if n := ctr.Count(text); n != out.Envelope.Meta.TokensAfter {
				t.Errorf("Shape(%s) meta.tokens_after = %d, but the message counts %d", tc.name, out.Envelope.Meta.TokensAfter, n)
			}
			if _, err := toolresult.Parse([]byte(text)); err != nil {
				t.Errorf("Shape(%s) rendered an envelope Parse refuses: %v", tc.name, err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "input: %s\nbudget: %d\nrules: %+v\nimages: %q\n", tc.input, tc.req.Budget, tc.req.Rules, tc.req.Images)
			fmt.Fprintf(&b, "-- tool message --\n%s\n", text)
			for _, p := range res.Content[1:] {
				img := p.(llm.Image)
				fmt.Fprintf(&b, "-- image part --\n%s, %d bytes\n", img.MediaType, len(img.Data))
			}
			r := out.Report
			fmt.Fprintf(&b, "-- report --\nlevel: %s\ntokens: %d -> %d (budget %d)\nrecords: %d, kept %d, omitted %d\nref: %s\n", r.Level, r.TokensBefore, r.TokensAfter, r.Budget, r.Records, r.Kept, r.Omitted, r.Ref)
			for _, s := range r.Steps {
				fmt.Fprintf(&b, "step: %s\n", s)
			}
			golden.Check(t, filepath.Join("testdata", "shape", tc.name+".txtar"), []byte(b.String()))
		})
	}
}

// TestShapeIgnoresDuration holds that how many records a result keeps
// does not depend on how long its call took (a 3 ms call and a 40 s one
// render "duration_ms" with different widths).
func TestShapeIgnoresDuration(t *testing.T) {
	ctr := exact(t)
	orders := dataSet(t, "orders-30000.json")
	var kept []int
	// At a budget of 1,015 tokens the 3 ms call's one narrower number
	// used to let one more record in.
	for _, d := range []time.Duration{3 * time.Millisecond, 850 * time.Millisecond, 40 * time.Second} {
		sh, err := toolresult.NewShaper(ctr, toolresult.NewMemoryStore(0).NumberRefs(), nil)
		if err != nil {
			t.Fatal(err)
		}
		env := toolresult.Success("search_orders(city=any): 30,000 orders", jsontext.Value(orders))
		env.Meta.Duration = d
		out, err := sh.Shape(context.Background(), env, toolresult.Request{Tool: "search_orders", Budget: 1015})
		if err != nil {
			t.Fatal(err)
		}
		if out.Report.TokensAfter > out.Report.Budget {
			t.Errorf("duration %v: %d tokens, over the budget of %d", d, out.Report.TokensAfter, out.Report.Budget)
		}
		kept = append(kept, out.Report.Kept)
	}
	if kept[0] != kept[1] || kept[1] != kept[2] {
		t.Errorf("records kept for calls of 3 ms, 850 ms, 40 s = %v, want the same", kept)
	}
}

// TestShapeRulesThatDoNotApply: a shaping rule that the output gives no
// hold to is not claimed as done; Report.Unapplied says why.
func TestShapeRulesThatDoNotApply(t *testing.T) {
	recs := `[{"id":1,"total":5},{"id":2,"total":7,"price":3},{"id":3}]`
	tests := []struct {
		name      string
		data      string
		rules     toolresult.Rules
		unapplied []string
		noStep    string // no step may claim this
	}{
		{name: "sort_by on no record", data: recs, rules: toolresult.Rules{SortBy: "cost"},
			unapplied: []string{"sort_by cost: no record has the field cost, so the records keep the tool's order"}, noStep: "sorted"},
		{name: "sort_by on some records", data: recs, rules: toolresult.Rules{SortBy: "price"},
			unapplied: []string{"sort_by price: 2 of 3 records lack the field price; they come last"}},
		{name: "field on no record", data: recs, rules: toolresult.Rules{Fields: []string{"id", "nope"}},
			unapplied: []string{"fields: no record has the field nope"}},
		{name: "no records", data: `{"answer":42}`, rules: toolresult.Rules{SortBy: "id", MaxRecords: 2},
			unapplied: []string{"sort_by and max_records: the output holds no list of records, so they do not apply"}, noStep: "sorted"},
		{name: "every rule applies", data: recs, rules: toolresult.Rules{SortBy: "id", Fields: []string{"total"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh, err := toolresult.NewShaper(exact(t), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			out, err := sh.Shape(context.Background(), toolresult.Success("list", jsontext.Value(tt.data)),
				toolresult.Request{Tool: "list", Budget: 2000, Rules: tt.rules})
			if err != nil {
				t.Fatal(err)
			}
			if got := out.Report.Unapplied; fmt.Sprint(got) != fmt.Sprint(tt.unapplied) {
				t.Errorf("Shape(%s, %+v).Report.Unapplied = %q, want %q", tt.data, tt.rules, got, tt.unapplied)
			}
			for _, s := range out.Report.Steps {
				if tt.noStep != "" && strings.Contains(s, tt.noStep) {
					t.Errorf("Shape(%s, %+v) claims %q", tt.data, tt.rules, s)
				}
			}
		})
	}
}

// TestShapeLargeTextMemory: a large text output is shaped without copies
// of it beyond the one the store keeps: not converted to a string, not
// rendered whole to learn that it does not fit.
func TestShapeLargeTextMemory(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 20<<20; i++ {
		fmt.Fprintf(&b, "2026-01-01T00:00:00Z INFO request handled path=/api/v1/orders/%d status=200\n", i)
	}
	text := []byte(b.String())
	sh, err := toolresult.NewShaper(exact(t), toolresult.NewMemoryStore(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	env := toolresult.Success("logs", toolresult.Raw(text))
	req := toolresult.Request{Tool: "logs", Budget: 2000}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := sh.Shape(context.Background(), env, req)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if out.Report.Level != toolresult.LevelHead {
		t.Fatalf("Shape(20 MB of text).Report.Level = %s, want head", out.Report.Level)
	}
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(len(text))*2; got > limit {
		t.Errorf("Shape(%d bytes of text) allocated %d bytes, want at most %d (2× the input: the store's copy, the line index)", len(text), got, limit)
	}
}
