package lint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolwire/toolwire/tool"
)

// benchSpecs returns n tool definitions cycling through the good and bad
// examples (8 tools, 2 to 7 parameters each, nested arrays and $defs).
func benchSpecs(b *testing.B, n int) []tool.Spec {
	var all []tool.Spec
	for _, f := range []string{"good.json", "bad.json"} {
		data, err := os.ReadFile(filepath.Join("..", "examples", "tools", f))
		if err != nil {
			b.Fatal(err)
		}
		specs, _, err := tool.ParseSpecs(data)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, specs...)
	}
	out := make([]tool.Spec, n)
	for i := range out {
		out[i] = all[i%len(all)]
	}
	return out
}

// BenchmarkTools100 lints a set of 100 tools, as toolwire lint does for
// one file.
func BenchmarkTools100(b *testing.B) {
	specs := benchSpecs(b, 100)
	b.ReportAllocs()
	for b.Loop() {
		Tools(specs)
	}
}

// BenchmarkToolGood lints one well-defined tool with nothing to report.
func BenchmarkToolGood(b *testing.B) {
	spec := benchSpecs(b, 2)[1] // search_flights
	b.ReportAllocs()
	for b.Loop() {
		Tool(spec)
	}
}

// BenchmarkUnmarshalBaseline100 only decodes the same 100 parameter
// schemas with encoding/json into any: the floor that Tools100 is compared
// with, as a ratio, in one run.
func BenchmarkUnmarshalBaseline100(b *testing.B) {
	specs := benchSpecs(b, 100)
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range specs {
			var v any
			if err := json.Unmarshal(s.Parameters, &v); err != nil {
				b.Fatal(err)
			}
		}
	}
}
