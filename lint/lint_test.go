package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/tool"
)

// goodParams is a parameters schema with nothing to improve.
const goodParams = `{
  "type": "object",
  "properties": {
    "city": {"type": "string", "description": "City name in English, e.g. \"Paris\"", "pattern": "^[A-Za-z .'-]{1,80}$"},
    "days": {"type": "integer", "description": "Number of forecast days, from 1 to 7", "minimum": 1, "maximum": 7}
  },
  "required": ["city", "days"],
  "additionalProperties": false
}`

const goodReturns = `{"type": "object", "properties": {"days": {"type": "array"}}}`

// goodSpec returns a tool definition that scores 100.
func goodSpec() tool.Spec {
	return tool.Spec{
		Name:        "get_forecast",
		Description: "Returns the daily weather forecast for one city: temperature range and chance of rain for each day.",
		Parameters:  jsontext.Value(goodParams),
		Returns:     jsontext.Value(goodReturns),
		Idempotency: tool.Level2,
		Strict:      true,
	}
}

// withProp returns goodSpec with one more property, required.
func withProp(name, schema string) tool.Spec {
	s := goodSpec()
	s.Parameters = jsontext.Value(fmt.Sprintf(`{
  "type": "object",
  "properties": {"city": {"type": "string", "description": "City name in English, e.g. \"Paris\"", "pattern": "^[A-Za-z .'-]{1,80}$"}, %q: %s},
  "required": ["city", %q],
  "additionalProperties": false
}`, name, schema, name))
	return s
}

// withParams returns goodSpec with the given parameters schema.
func withParams(schema string) tool.Spec {
	s := goodSpec()
	s.Parameters = jsontext.Value(schema)
	return s
}

// withHTTP returns goodSpec with the given parameters schema, bound to
// an HTTP endpoint.
func withHTTP(schema string) tool.Spec {
	s := withParams(schema)
	s.HTTP = &tool.HTTPBinding{Method: "GET", URL: "https://api.example.com/forecast"}
	return s
}

func with(f func(*tool.Spec)) tool.Spec {
	s := goodSpec()
	f(&s)
	return s
}

func TestGoodSpecScores100(t *testing.T) {
	r := Tool(goodSpec())
	if r.Score != 100 || len(r.Findings) != 0 {
		t.Errorf("Tool(goodSpec()) = %d %v, want 100 and no findings", r.Score, r.Findings)
	}
	if r.Findings == nil {
		t.Errorf("Tool(goodSpec()).Findings = nil, want an empty slice")
	}
}

// find returns the findings of rule in r.
func find(r Report, rule RuleID) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// TestRules has, for every rule, a definition that breaks it (with the
// path of the finding) and a close one that does not.
func TestRules(t *testing.T) {
	tests := []struct {
		name     string
		rule     RuleID
		bad      tool.Spec
		wantPath string
		good     tool.Spec
	}{
		{"name with a dot", NameInvalid, with(func(s *tool.Spec) { s.Name = "get.forecast" }), "name", goodSpec()},
		{"name starting with a digit", NameInvalid, with(func(s *tool.Spec) { s.Name = "3d_render" }), "name", with(func(s *tool.Spec) { s.Name = "_3d_render" })},
		{"name of 65 characters", NameInvalid, with(func(s *tool.Spec) { s.Name = strings.Repeat("a", 65) }), "name", with(func(s *tool.Spec) { s.Name = strings.Repeat("a", 64) })},
		{"empty name", NameInvalid, with(func(s *tool.Spec) { s.Name = "" }), "name", goodSpec()},
		{"name with a space", NameInvalid, with(func(s *tool.Spec) { s.Name = "get forecast" }), "name", with(func(s *tool.Spec) { s.Name = "get-forecast" })},
		{"non-ASCII name", NameInvalid, with(func(s *tool.Spec) { s.Name = "获取天气" }), "name", goodSpec()},

		{"parameters not JSON", SchemaInvalid, withParams(`{"type": "object",`), "parameters", goodSpec()},
		{"parameters an array", SchemaInvalid, withParams(`[]`), "parameters", withParams(`null`)},
		{"root not an object", SchemaInvalid, withParams(`{"type": "string", "pattern": "^a$"}`), "parameters.type", goodSpec()},
		{"property a bare string", SchemaInvalid, withProp("days", `"integer"`), "parameters.properties.days", goodSpec()},
		{"unknown type name", SchemaInvalid, withProp("days", `{"type": "int", "description": "Number of forecast days", "minimum": 1, "maximum": 7}`), "parameters.properties.days.type", goodSpec()},
		{"properties not an object", SchemaInvalid, withParams(`{"type": "object", "properties": [], "additionalProperties": false}`), "parameters.properties", withParams(`{"type": "object", "properties": {}, "additionalProperties": false}`)},
		{"returns not JSON", SchemaInvalid, with(func(s *tool.Spec) { s.Returns = jsontext.Value(`{`) }), "returns", goodSpec()},
		{"returns a string", SchemaInvalid, with(func(s *tool.Spec) { s.Returns = jsontext.Value(`"object"`) }), "returns", goodSpec()},

		{"no tool description", ToolDescriptionMissing, with(func(s *tool.Spec) { s.Description = "  " }), "description", goodSpec()},
		{"short tool description", ToolDescriptionShort, with(func(s *tool.Spec) { s.Description = "Gets the forecast." }), "description", goodSpec()},
		{"short Chinese description", ToolDescriptionShort, with(func(s *tool.Spec) { s.Description = "天气预报" }), "description", with(func(s *tool.Spec) { s.Description = "返回指定城市未来几天的天气预报" })},
		{"vague tool description", ToolDescriptionVague, with(func(s *tool.Spec) {
			s.Description = "Returns the forecast and related information for some city, etc."
		}), "description", goodSpec()},
		{"vague Chinese description", ToolDescriptionVague, with(func(s *tool.Spec) { s.Description = "返回城市的天气、气温等信息，按日期排序" }), "description",
			with(func(s *tool.Spec) {
				s.Description = "返回城市的天气和气温，结果按相关性排序，最高温度等于或高于最低温度"
			})},

		{"compound name", ToolCompoundAction, with(func(s *tool.Spec) { s.Name = "update_profile_and_send_email" }), "name", with(func(s *tool.Spec) { s.Name = "get_name_and_address" })},
		{"compound camelCase name", ToolCompoundAction, with(func(s *tool.Spec) { s.Name = "createUserThenNotify" }), "name", with(func(s *tool.Spec) { s.Name = "createUser" })},
		{"compound description", ToolCompoundAction, with(func(s *tool.Spec) {
			s.Description = "Updates the user's profile, then sends a confirmation email to the user."
		}), "description", with(func(s *tool.Spec) {
			s.Description = "Searches flights between two airports and returns the cheapest ones first."
		})},
		{"description and a side effect", ToolCompoundAction, with(func(s *tool.Spec) {
			s.Description = "Creates the customer record and sends a welcome email."
		}), "description", goodSpec()},

		{"no return schema", ReturnsMissing, with(func(s *tool.Spec) { s.Returns = nil }), "returns", goodSpec()},
		{"null return schema", ReturnsMissing, with(func(s *tool.Spec) { s.Returns = jsontext.Value(`null`) }), "returns", goodSpec()},

		{"no idempotency", IdempotencyMissing, with(func(s *tool.Spec) { s.Idempotency = "" }), "idempotency", with(func(s *tool.Spec) { s.Idempotency = tool.Level0 })},
		{"unknown idempotency", IdempotencyMissing, with(func(s *tool.Spec) { s.Idempotency = "level_3" }), "idempotency", with(func(s *tool.Spec) { s.Idempotency = tool.Level1 })},

		{"no parameter description", ParamDescriptionMissing, withProp("country", `{"type": "string", "pattern": "^[A-Z]{2}$"}`), "parameters.properties.country",
			withProp("country", `{"type": "string", "pattern": "^[A-Z]{2}$", "description": "ISO 3166-1 alpha-2 country code, e.g. \"FR\""}`)},
		{"description not a string", ParamDescriptionMissing, withProp("country", `{"type": "string", "pattern": "^[A-Z]{2}$", "description": 7}`), "parameters.properties.country", goodSpec()},
		{"description through $ref", ParamDescriptionMissing, withParams(`{"type": "object", "properties": {"home": {"$ref": "#/$defs/Place"}}, "required": ["home"], "additionalProperties": false,
			"$defs": {"Place": {"type": "object", "properties": {}, "additionalProperties": false}}}`), "parameters.properties.home",
			withParams(`{"type": "object", "properties": {"home": {"$ref": "#/$defs/Place"}}, "required": ["home"], "additionalProperties": false,
			"$defs": {"Place": {"type": "object", "description": "A place the user has saved", "properties": {}, "additionalProperties": false}}}`)},
		{"nested parameter without description", ParamDescriptionMissing, withProp("stops", `{"type": "array", "description": "Stops on the way, in order", "maxItems": 5,
			"items": {"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}, "required": ["code"], "additionalProperties": false}}`),
			"parameters.properties.stops.items.properties.code", goodSpec()},
		{"short parameter description", ParamDescriptionShort, withProp("country", `{"type": "string", "pattern": "^[A-Z]{2}$", "description": "Country"}`), "parameters.properties.country.description",
			withProp("country", `{"type": "string", "pattern": "^[A-Z]{2}$", "description": "国家代码，例如 FR"}`)},
		{"vague parameter description", ParamDescriptionVague, withProp("fields", `{"type": "string", "enum": ["a", "b"], "description": "Various fields and stuff to include"}`), "parameters.properties.fields.description",
			withProp("fields", `{"type": "string", "enum": ["a", "b"], "description": "Which field to include: a or b"}`)},

		{"abbreviated from the list", ParamNameAbbreviated, withProp("acct_num", `{"type": "string", "pattern": "^[0-9]{8}$", "description": "Bank account number, 8 digits"}`), "parameters.properties.acct_num",
			withProp("account_number", `{"type": "string", "pattern": "^[0-9]{8}$", "description": "Bank account number, 8 digits"}`)},
		{"abbreviated by the heuristic", ParamNameAbbreviated, withProp("mgmt_level", `{"type": "integer", "minimum": 1, "maximum": 5, "description": "Management level from 1 to 5"}`), "parameters.properties.mgmt_level",
			withProp("sku_id", `{"type": "string", "pattern": "^[A-Z0-9]{8}$", "description": "Stock keeping unit id, 8 characters"}`)},
		{"abbreviated camelCase", ParamNameAbbreviated, withProp("usrId", `{"type": "string", "pattern": "^u[0-9]+$", "description": "User id, e.g. \"u123\""}`), "parameters.properties.usrId",
			withProp("sortBy", `{"type": "string", "enum": ["date", "price"], "description": "Sort order of the results"}`)},

		{"no type", ParamTypeMissing, withProp("note", `{"description": "A note for the driver, free text"}`), "parameters.properties.note",
			withProp("note", `{"enum": ["leave at door", "ring"], "description": "A note for the driver"}`)},
		{"schema true", ParamTypeMissing, withProp("note", `true`), "parameters.properties.note", goodSpec()},

		{"unconstrained string", StringUnconstrained, withProp("note", `{"type": "string", "description": "A note for the driver, free text"}`), "parameters.properties.note",
			withProp("note", `{"type": "string", "description": "A note for the driver, free text", "pattern": "^.{0,200}$"}`)},
		{"unconstrained nullable string", StringUnconstrained, withProp("note", `{"type": ["string", "null"], "description": "A note for the driver, free text"}`), "parameters.properties.note",
			withProp("note", `{"type": ["string", "null"], "description": "A note for the driver", "format": "email"}`)},
		{"unconstrained string in anyOf", StringUnconstrained, withProp("note", `{"description": "A note for the driver, free text", "anyOf": [{"type": "string"}, {"type": "null"}]}`), "parameters.properties.note.anyOf.0",
			withProp("note", `{"description": "A note for the driver, free text", "anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]}`)},
		{"unconstrained string items", StringUnconstrained, withProp("tags", `{"type": "array", "description": "Tags to filter on", "maxItems": 5, "items": {"type": "string"}}`), "parameters.properties.tags.items",
			withProp("tags", `{"type": "array", "description": "Tags to filter on", "maxItems": 5, "items": {"type": "string", "maxLength": 20}}`)},

		{"unbounded integer", NumberUnbounded, withProp("limit", `{"type": "integer", "description": "Maximum number of results", "minimum": 1}`), "parameters.properties.limit",
			withProp("limit", `{"type": "integer", "description": "Maximum number of results", "minimum": 1, "exclusiveMaximum": 101}`)},
		{"unbounded number", NumberUnbounded, withProp("price", `{"type": "number", "description": "Price in euros"}`), "parameters.properties.price",
			withProp("price", `{"type": "number", "description": "Price tier in euros", "enum": [10, 20]}`)},

		{"free-form object", ObjectFreeform, withProp("metadata", `{"type": "object", "description": "Metadata to attach to the order"}`), "parameters.properties.metadata",
			withProp("metadata", `{"type": "object", "description": "Metadata to attach to the order", "properties": {}, "additionalProperties": false}`)},
		{"free-form object without type", ObjectFreeform, withProp("metadata", `{"description": "Metadata to attach to the order", "additionalProperties": true}`), "parameters.properties.metadata", goodSpec()},
		{"open object", ObjectOpen, withParams(`{"type": "object", "properties": {}}`), "parameters", withParams(`{"type": "object", "properties": {}, "additionalProperties": false}`)},
		{"open nested object", ObjectOpen, withProp("stop", `{"type": "object", "description": "A stop on the way", "properties": {"code": {"type": "string", "description": "IATA airport code", "pattern": "^[A-Z]{3}$"}}, "additionalProperties": true}`), "parameters.properties.stop",
			withProp("stop", `{"type": "object", "description": "A stop on the way", "properties": {"code": {"type": "string", "description": "IATA airport code", "pattern": "^[A-Z]{3}$"}}, "unevaluatedProperties": false}`)},
		{"map object", ObjectOpen, withProp("labels", `{"type": "object", "description": "Labels as key-value pairs", "additionalProperties": {"type": "string", "maxLength": 50}}`), "parameters.properties.labels", goodSpec()},
		{"open definition", ObjectOpen, withParams(`{"type": "object", "properties": {}, "additionalProperties": false, "$defs": {"Place": {"type": "object", "properties": {}}}}`), "parameters.$defs.Place", goodSpec()},

		{"array without items", ArrayItemsMissing, withProp("tags", `{"type": "array", "description": "Tags to filter on", "maxItems": 5}`), "parameters.properties.tags",
			withProp("tags", `{"type": "array", "description": "Tags to filter on", "maxItems": 5, "prefixItems": [{"type": "string", "enum": ["a"]}]}`)},

		{"default not in enum", DefaultInvalid, withProp("unit", `{"type": "string", "description": "Temperature unit", "enum": ["celsius", "fahrenheit"], "default": "kelvin"}`), "parameters.properties.unit.default",
			withProp("unit", `{"type": "string", "description": "Temperature unit", "enum": ["celsius", "fahrenheit"], "default": "celsius"}`)},
		{"default above maximum", DefaultInvalid, withProp("limit", `{"type": "integer", "description": "Maximum number of results", "minimum": 1, "maximum": 50, "default": 100}`), "parameters.properties.limit.default",
			withProp("limit", `{"type": "integer", "description": "Maximum number of results", "minimum": 1, "maximum": 50, "default": 50}`)},
		{"default below minimum", DefaultInvalid, withProp("limit", `{"type": "integer", "description": "Maximum number of results", "minimum": 1, "maximum": 50, "default": 0}`), "parameters.properties.limit.default", goodSpec()},
		{"default of the wrong type", DefaultInvalid, withProp("limit", `{"type": "integer", "description": "Maximum number of results", "minimum": 1, "maximum": 50, "default": "10"}`), "parameters.properties.limit.default",
			withProp("limit", `{"type": "number", "description": "Maximum number of results", "minimum": 1, "maximum": 50, "default": 10.5}`)},
		{"default not an integer", DefaultInvalid, withProp("limit", `{"type": "integer", "description": "Maximum number of results", "minimum": 1, "maximum": 50, "default": 2.5}`), "parameters.properties.limit.default", goodSpec()},
		{"default against pattern", DefaultInvalid, withProp("country", `{"type": "string", "description": "Country code, e.g. \"FR\"", "pattern": "^[A-Z]{2}$", "default": "fr"}`), "parameters.properties.country.default",
			withProp("country", `{"type": "string", "description": "Country code, e.g. \"FR\"", "pattern": "^[A-Z]{2}$", "default": "FR"}`)},
		{"default too long", DefaultInvalid, withProp("code", `{"type": "string", "description": "Discount code to apply", "maxLength": 4, "default": "SUMMER"}`), "parameters.properties.code.default",
			withProp("code", `{"type": "string", "description": "Discount code to apply", "maxLength": 6, "default": "SUMMER"}`)},
		{"default not a multiple", DefaultInvalid, withProp("step", `{"type": "number", "description": "Step in degrees", "minimum": 0, "maximum": 1, "multipleOf": 0.1, "default": 0.25}`), "parameters.properties.step.default",
			withProp("step", `{"type": "number", "description": "Step in degrees", "minimum": 0, "maximum": 1, "multipleOf": 0.1, "default": 0.3}`)},
		{"default not the const", DefaultInvalid, withProp("mode", `{"const": "fast", "description": "Search mode, always fast", "default": "slow"}`), "parameters.properties.mode.default",
			withProp("mode", `{"const": "fast", "description": "Search mode, always fast", "default": "fast"}`)},
		{"default below exclusiveMinimum", DefaultInvalid, withProp("ratio", `{"type": "number", "description": "Ratio of the two values", "exclusiveMinimum": 0, "maximum": 1, "default": 0}`), "parameters.properties.ratio.default", goodSpec()},

		{"unresolved $ref", RefUnresolved, withProp("home", `{"$ref": "#/$defs/Place", "description": "The user's home address"}`), "parameters.properties.home.$ref",
			withParams(`{"type": "object", "properties": {"home": {"$ref": "#/$defs/Place", "description": "The user's home address"}}, "required": ["home"], "additionalProperties": false,
			"$defs": {"Place": {"type": "object", "properties": {}, "additionalProperties": false}}}`)},
		{"remote $ref", RefUnresolved, withProp("home", `{"$ref": "https://example.com/place.json", "description": "The user's home address"}`), "parameters.properties.home.$ref",
			withProp("home", `{"$ref": "#", "description": "The user's home address"}`)},

		{"strict with maxLength (OAI-STRICT-KEYWORD)", StrictRejected, withProp("note", `{"type": "string", "description": "A note for the driver, free text", "maxLength": 200}`), "parameters.properties.note.maxLength",
			withProp("note", `{"type": "string", "description": "A note for the driver, free text", "pattern": "^.{0,200}$"}`)},
		{"strict with an optional property (OAI-STRICT-REQUIRED)", StrictRejected, withParams(`{"type": "object", "properties": {"days": {"type": "integer", "description": "Number of forecast days", "minimum": 1, "maximum": 7}}, "additionalProperties": false}`), "parameters",
			withParams(`{"type": "object", "properties": {"days": {"type": ["integer", "null"], "description": "Number of forecast days", "minimum": 1, "maximum": 7}}, "required": ["days"], "additionalProperties": false}`)},
		{"strict with an open object (OAI-STRICT-ADDL)", StrictRejected, withParams(`{"type": "object", "properties": {}}`), "parameters", withParams(`{"type": "object", "properties": {}, "additionalProperties": false}`)},
		{"HTTP tool open to any argument", HTTPArgumentsOpen, withHTTP(`{"type": "object", "properties": {}, "additionalProperties": true}`), "parameters.additionalProperties",
			withHTTP(`{"type": "object", "properties": {}, "additionalProperties": false}`)},
		{"HTTP tool with a map of arguments", HTTPArgumentsOpen, withHTTP(`{"type": "object", "properties": {}, "additionalProperties": {"type": "string", "maxLength": 20}}`), "parameters.additionalProperties",
			withHTTP(`{"type": "object", "properties": {}}`)},
		{"HTTP tool with pattern properties", HTTPArgumentsOpen, withHTTP(`{"type": "object", "properties": {}, "patternProperties": {"^x-": {"type": "string", "maxLength": 20}}, "additionalProperties": false}`), "parameters.patternProperties",
			with(func(s *tool.Spec) {
				s.Parameters = jsontext.Value(`{"type": "object", "properties": {}, "additionalProperties": true}`)
			})},
		{"not strict, with a oneOf (OAI-STRICT-KEYWORD)", StrictIncompatible, with(func(s *tool.Spec) {
			*s = withProp("unit", `{"description": "Temperature unit", "oneOf": [{"const": "celsius"}, {"const": "fahrenheit"}]}`)
			s.Strict = false
		}), "parameters.properties.unit.oneOf", goodSpec()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := Tool(tt.bad)
			fs := find(bad, tt.rule)
			if len(fs) == 0 {
				t.Fatalf("Tool(%s) has no %s finding; got %v", tt.bad.Parameters, tt.rule, bad.Findings)
			}
			if fs[0].Path != tt.wantPath {
				t.Errorf("Tool(%s) %s path = %q, want %q", tt.bad.Name, tt.rule, fs[0].Path, tt.wantPath)
			}
			for _, f := range fs {
				if f.Message == "" || f.Fix == "" {
					t.Errorf("Tool(%s) %s finding = %+v, want a message and a fix", tt.bad.Name, tt.rule, f)
				}
			}
			if bad.Score >= 100 {
				t.Errorf("Tool(%s).Score = %d, want below 100", tt.bad.Name, bad.Score)
			}
			if good := find(Tool(tt.good), tt.rule); len(good) > 0 {
				t.Errorf("Tool(good %s) = %v, want no %s finding", tt.good.Name, good, tt.rule)
			}
		})
	}
}

// TestStrictAllowsDefault checks that a default is no strict-mode finding:
// OpenAI accepts strict schemas that set one (recorded 200s in the
// real-traffic corpus, on both OpenAI APIs).
func TestStrictAllowsDefault(t *testing.T) {
	for _, strict := range []bool{true, false} {
		spec := withProp("unit", `{"type": "string", "description": "Temperature unit", "enum": ["celsius", "fahrenheit"], "default": "celsius"}`)
		spec.Strict = strict
		for _, rule := range []RuleID{StrictRejected, StrictIncompatible} {
			if fs := find(Tool(spec), rule); len(fs) > 0 {
				t.Errorf("Tool(strict=%v, with a default) = %v, want no %s finding", strict, fs, rule)
			}
		}
	}
}
