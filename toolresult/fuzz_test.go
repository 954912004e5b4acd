package toolresult_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

// FuzzShape feeds arbitrary bytes to the shaper as a tool's raw output,
// declared JSON or not, and holds it to its contract: no panic; an error
// only for output declared JSON that is not; otherwise an envelope that
// parses back, within the budget unless the report says it could not
// be, whose pages can be read.
func FuzzShape(f *testing.F) {
	for _, name := range []string{"orders-20.json"} {
		b, err := os.ReadFile("testdata/shape/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(300), false)
	}
	python, _ := os.ReadFile("testdata/traces/python.txt")
	f.Add(python, uint16(100), false)
	f.Add([]byte(`{"total":3,"data":[{"a":null,"b":{"c":{"d":1}}},{"a":"","b":[]},{"e":"\u00e9\ud800"}]}`), uint16(60), true)
	f.Add([]byte("\x89PNG\r\n\x1a\n\x00\x00"), uint16(200), false)
	f.Add([]byte("a\xffb\nline2\n"), uint16(40), false)
	f.Add([]byte(`[1,2,3`), uint16(50), true)
	f.Add([]byte(`{"a":1,"a":2}`), uint16(50), false)
	f.Add([]byte(""), uint16(10), false)
	// Names that flattening could repeat (issue 24, item 7).
	f.Add([]byte(`{"user":{"role":"guest"},"user.role":"admin"}`), uint16(300), true)
	f.Add([]byte(`[{"a":{"b":{"c":1}},"a.b.c":2},{"a":{"b.c":1},"a.b":{"c":2}},{"o":{"a":{"b":1},"a.b":2}}]`), uint16(400), true)
	f.Add([]byte("{\"k\xff\xff\":1,\"k\\ufffd\":2,\"q\xff\":{\"x\":{\"y\":3}},\"q\\ufffd.x.y\":4}"), uint16(300), false)
	f.Add([]byte(`{"total":3,"items":[{"":{"x":1},".x":2},{"(value)":1},7,{"s":"`+strings.Repeat("x", 300)+`1"},{"s":"`+strings.Repeat("x", 300)+`2"}]}`), uint16(30), true)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte, budget16 uint16, declared bool) {
		sh, err := toolresult.NewShaper(budget.Estimator{}, toolresult.NewMemoryStore(0).NumberRefs(), nil)
		if err != nil {
			t.Fatal(err)
		}
		tokens := 20 + int(budget16)%4000
		out, err := sh.Shape(ctx, toolresult.Success("tool returned output", toolresult.Raw(data)), toolresult.Request{Tool: "t", Budget: tokens, JSON: declared})
		if err != nil {
			if !declared {
				t.Fatalf("Shape(%q) failed on output not declared JSON: %v", data, err)
			}
			// The strict layer refuses duplicate names; invalid UTF-8 is
			// replaced, not refused.
			if jsontext.Value(bytes.ToValidUTF8(data, []byte("\uFFFD"))).IsValid() {
				t.Fatalf("Shape(%q) refused valid JSON: %v", data, err)
			}
			return
		}
		res := out.Result("c", "t")
		text := res.Content[0].(llm.Text).Text
		env, err := toolresult.Parse([]byte(text))
		if err != nil {
			t.Fatalf("Shape(%q) rendered %s, which does not parse: %v", data, text, err)
		}
		if dup, err := duplicateName([]byte(text)); dup != "" || err != nil {
			t.Fatalf("Shape(%q) rendered %s, which repeats the member name %s (%v)", data, text, dup, err)
		}
		if out.Report.TokensAfter > tokens && !out.Report.OverBudget {
			t.Fatalf("Shape(%q) = %d tokens, over %d, without OverBudget", data, out.Report.TokensAfter, tokens)
		}
		if env.Meta.Omitted > 0 && env.Meta.Ref != "" {
			if _, err := sh.Page(ctx, toolresult.PageRequest{Ref: env.Meta.Ref, Offset: out.Report.Kept}, tokens); err != nil && out.Report.Records > 0 {
				t.Fatalf("Page after Shape(%q) (kept %d of %d): %v", data, out.Report.Kept, out.Report.Records, err)
			}
		}
	})
}

// FuzzReadResult reads a stored JSON output with arbitrary dotted paths
// as read_result's fields and filter, and holds the pages to the
// contract: no panic, and an error or a page that parses with the strict
// envelope parser and repeats no member name.
func FuzzReadResult(f *testing.F) {
	f.Add([]byte(ambiguous), "user.role", "id", uint16(200))
	f.Add([]byte(`[{"a":{"b":{"c":1}},"a.b.c":2},{"a.b":{"c":3}},{"a":{"":4}}]`), "a.", "a.b", uint16(50))
	f.Add([]byte(`{"total":2,"items":[{"x.y":{"z":1},"x":{"y":{"z":2}}},{"x":{"y.z":3}}]}`), "x.y.z", "x.y.z", uint16(30))
	f.Add([]byte("[{\"k\xff\":{\"b\":1},\"k\\ufffd.b\":2}]"), "k\ufffd.b", "", uint16(100))
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte, field, filter string, budget16 uint16) {
		store := toolresult.NewMemoryStore(0)
		ref, err := store.Put(ctx, toolresult.Stored{Tool: "t", Kind: toolresult.KindJSON, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		sh, err := toolresult.NewShaper(budget.Estimator{}, store, nil)
		if err != nil {
			t.Fatal(err)
		}
		req := toolresult.PageRequest{Ref: ref, Fields: []string{field, filter, field}}
		if filter != "" {
			req.Filter = toolresult.Filter{filter: jsontext.Value("1")}
		}
		out, err := sh.Page(ctx, req, 20+int(budget16)%4000)
		if err != nil {
			return // not JSON, or a single value to filter: said in the error
		}
		text := out.Result("c", "read_result").Content[0].(llm.Text).Text
		if _, err := toolresult.Parse([]byte(text)); err != nil {
			t.Fatalf("Page(%+v) of %q rendered %s, which does not parse: %v", req, data, text, err)
		}
		if dup, err := duplicateName([]byte(text)); dup != "" || err != nil {
			t.Fatalf("Page(%+v) of %q rendered %s, which repeats the member name %s (%v)", req, data, text, dup, err)
		}
	})
}
