package transcript

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestCheckStrictSchema(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []string // "RULE path"
	}{
		{"compliant", `{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":["string","null"],"enum":["c","f",null]}},"required":["city","unit"],"additionalProperties":false}`, nil},
		{"empty", ``, nil},
		{"missing additionalProperties at root", `{"type":"object","properties":{},"required":[]}`,
			[]string{"OAI-STRICT-ADDL p"}},
		{"nested object", `{"type":"object","properties":{"permissions":{"type":"object","properties":{"read":{"type":"boolean"}},"required":["read"]}},"required":["permissions"],"additionalProperties":false}`,
			[]string{"OAI-STRICT-ADDL p.properties.permissions"}},
		{"no properties", `{"type":"object","additionalProperties":false}`,
			[]string{"OAI-STRICT-PROPS p"}},
		{"optional field", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
			[]string{"OAI-STRICT-REQUIRED p"}},
		{"root anyOf", `{"anyOf":[{"type":"object","properties":{},"additionalProperties":false}]}`,
			[]string{"OAI-STRICT-ROOT p"}},
		{"root array", `[1]`, []string{"OAI-STRICT-ROOT p"}},
		{"invalid JSON", `{"type":`, []string{"OAI-STRICT-ROOT p"}},
		{"unsupported keywords", `{"type":"object","properties":{"n":{"type":"string","minLength":1,"format":"uri"},"o":{"oneOf":[{"type":"string"}],"default":"x"}},"required":["n","o"],"additionalProperties":false}`,
			[]string{"OAI-STRICT-KEYWORD p.properties.n.minLength", "OAI-STRICT-FORMAT p.properties.n.format", "OAI-STRICT-KEYWORD p.properties.o.oneOf"}},
		{"default is allowed", `{"type":"object","properties":{"unit":{"type":"string","default":"c"}},"required":["unit"],"additionalProperties":false}`, nil},
		{"array without items", `{"type":"object","properties":{"tags":{"type":"array"}},"required":["tags"],"additionalProperties":false}`,
			[]string{"OAI-STRICT-ITEMS p.properties.tags"}},
		{"array of objects", `{"type":"object","properties":{"xs":{"type":"array","items":{"type":"object","properties":{"a":{"type":"integer"}}}}},"required":["xs"],"additionalProperties":false}`,
			[]string{"OAI-STRICT-ADDL p.properties.xs.items", "OAI-STRICT-REQUIRED p.properties.xs.items"}},
		{"defs and ref siblings", `{"type":"object","properties":{"a":{"$ref":"#/$defs/A","description":"x"}},"required":["a"],"additionalProperties":false,"$defs":{"A":{"type":"object","properties":{}}}}`,
			[]string{"OAI-STRICT-REF-SIBLINGS p.properties.a", "OAI-STRICT-ADDL p.$defs.A"}},
		{"bad type", `{"type":"object","properties":{"a":{"type":"date"}},"required":["a"],"additionalProperties":false}`,
			[]string{"OAI-STRICT-TYPE p.properties.a.type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range CheckStrictSchema("f", jsontext.Value(tt.schema), "p") {
				got = append(got, string(v.Rule)+" "+v.Path)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("CheckStrictSchema(%q) = %q, want %q", tt.schema, got, tt.want)
			}
		})
	}
}

func TestCheckStrictSchemaProviderError(t *testing.T) {
	vs := CheckStrictSchema("set_perms", jsontext.Value(`{"type":"object","properties":{"permissions":{"type":"object","properties":{}}},"required":["permissions"]}`), "tools.0.function.parameters")
	want := []string{
		"Invalid schema for function 'set_perms': In context=(), 'additionalProperties' is required to be supplied and to be false.",
		"Invalid schema for function 'set_perms': In context=('properties', 'permissions'), 'additionalProperties' is required to be supplied and to be false.",
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.ProviderError)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CheckStrictSchema provider errors = %q, want %q", got, want)
	}
	req := CheckStrictSchema("get_current_weather", jsontext.Value(`{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":"string","default":"fahrenheit"}},"required":["location"],"additionalProperties":false}`), "tools.0.parameters")
	wantReq := "Invalid schema for function 'get_current_weather': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'unit'."
	if len(req) != 1 || req[0].Rule != "OAI-STRICT-REQUIRED" || req[0].ProviderError != wantReq {
		t.Errorf("CheckStrictSchema(optional unit) = %v, want one OAI-STRICT-REQUIRED with provider error %q", req, wantReq)
	}
	if vs[1].Path != "tools.0.function.parameters.properties.permissions" {
		t.Errorf("CheckStrictSchema path = %q, want %q", vs[1].Path, "tools.0.function.parameters.properties.permissions")
	}
}

func TestCheckStrictSchemaLimits(t *testing.T) {
	enum := make([]string, 1001)
	for i := range enum {
		enum[i] = "v"
	}
	e, _ := json.Marshal(enum)
	schema := `{"type":"object","properties":{"a":{"type":"string","enum":` + string(e) + `}},"required":["a"],"additionalProperties":false}`
	vs := CheckStrictSchema("f", jsontext.Value(schema), "")
	if len(vs) != 1 || vs[0].Rule != "OAI-STRICT-LIMITS" || vs[0].Path != "properties.a.enum" {
		t.Errorf("CheckStrictSchema(1001 enum values) = %v, want one OAI-STRICT-LIMITS at properties.a.enum", vs)
	}
	deep := `{"type":"string"}`
	for i := 0; i < 11; i++ {
		deep = `{"type":"object","properties":{"x":` + deep + `},"required":["x"],"additionalProperties":false}`
	}
	vs = CheckStrictSchema("f", jsontext.Value(deep), "")
	if len(vs) != 1 || vs[0].Rule != "OAI-STRICT-DEPTH" {
		t.Errorf("CheckStrictSchema(11 levels) = %v, want one OAI-STRICT-DEPTH", vs)
	}
}
