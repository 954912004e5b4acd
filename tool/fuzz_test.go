package tool_test

import (
	"testing"

	"github.com/toolwire/toolwire/tool"
)

// FuzzParseSpecs: ParseSpecs never panics; what it accepts is non-empty,
// and its spec file reads back the same.
func FuzzParseSpecs(f *testing.F) {
	f.Add([]byte(`[{"type":"function","function":{"name":"a","parameters":{"type":"object"}}}]`))
	f.Add([]byte(`{"version":"toolwire/v1","tools":[{"name":"a","timeout":"1s","http":{"url":"https://x/{a}"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		specs, format, err := tool.ParseSpecs(data)
		if err != nil {
			return
		}
		if len(specs) == 0 || format == "" {
			t.Fatalf("ParseSpecs(%q) = %d specs, format %q, no error", data, len(specs), format)
		}
		for _, s := range specs {
			_ = s.Validate() // must not panic on anything ParseSpecs accepts
		}
		out, err := tool.MarshalSpecFile(specs)
		if err != nil {
			t.Fatalf("MarshalSpecFile(ParseSpecs(%q)) error: %v", data, err)
		}
		again, f2, err := tool.ParseSpecs(out)
		if err != nil || f2 != tool.FormatToolwire || len(again) != len(specs) {
			t.Fatalf("ParseSpecs(MarshalSpecFile(ParseSpecs(%q))) = %d specs, %q, %v", data, len(again), f2, err)
		}
	})
}
