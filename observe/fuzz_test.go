package observe_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/observe"
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
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte, budget16 uint16, declared bool) {
		sh, err := observe.NewShaper(budget.Estimator{}, observe.NewMemoryStore(0).NumberRefs(), nil)
		if err != nil {
			t.Fatal(err)
		}
		tokens := 20 + int(budget16)%4000
		out, err := sh.Shape(ctx, observe.Success("tool returned output", observe.Raw(data)), observe.Request{Tool: "t", Budget: tokens, JSON: declared})
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
		env, err := observe.Parse([]byte(text))
		if err != nil {
			t.Fatalf("Shape(%q) rendered %s, which does not parse: %v", data, text, err)
		}
		if out.Report.TokensAfter > tokens && !out.Report.OverBudget {
			t.Fatalf("Shape(%q) = %d tokens, over %d, without OverBudget", data, out.Report.TokensAfter, tokens)
		}
		if env.Meta.Omitted > 0 && env.Meta.Ref != "" {
			if _, err := sh.Page(ctx, observe.PageRequest{Ref: env.Meta.Ref, Offset: out.Report.Kept}, tokens); err != nil && out.Report.Records > 0 {
				t.Fatalf("Page after Shape(%q) (kept %d of %d): %v", data, out.Report.Kept, out.Report.Records, err)
			}
		}
	})
}
