package lint

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/tool"
)

// FuzzTool lints arbitrary definitions: lint never panics, the score is
// always 0..100 and equals 100 minus the points deducted (floored at 0),
// and every finding is complete and within its rule's weight and cap.
func FuzzTool(f *testing.F) {
	f.Add("get_forecast", "Returns the forecast.", []byte(goodParams), []byte(goodReturns), "level_2", true)
	f.Add("a.b", "相关 一些 等", []byte(`{"type":"object","properties":{"x":{"$ref":"#/$defs/y"}},"$defs":{"y":{"type":"array"}}}`), []byte(`[]`), "", false)
	f.Add("", "", []byte(`{"type":["string",1],"default":{"a":[1,2]},"enum":[{"a":[1,2]}],"anyOf":[true,false,{}]}`), []byte(nil), "level_9", true)
	rules := map[RuleID]Rule{}
	for _, r := range Rules() {
		rules[r.ID] = r
	}
	f.Fuzz(func(t *testing.T, name, description string, params, returns []byte, idempotency string, strict bool) {
		spec := tool.Spec{Name: name, Description: description, Parameters: jsontext.Value(params),
			Returns: jsontext.Value(returns), Idempotency: tool.Idempotency(idempotency), Strict: strict}
		r := Tool(spec)
		if r.Score < 0 || r.Score > 100 {
			t.Fatalf("Tool(%q, %q).Score = %d, want 0..100", name, params, r.Score)
		}
		if r.Findings == nil {
			t.Fatalf("Tool(%q, %q).Findings = nil, want a slice", name, params)
		}
		sum := 0
		perRule := map[RuleID]int{}
		for _, fd := range r.Findings {
			rule, ok := rules[fd.Rule]
			if !ok {
				t.Fatalf("Tool(%q, %q) finding %+v has an unknown rule", name, params, fd)
			}
			if fd.Path == "" || fd.Message == "" || fd.Fix == "" {
				t.Fatalf("Tool(%q, %q) finding %+v, want path, message and fix", name, params, fd)
			}
			if fd.Points < 0 || fd.Points > rule.Points {
				t.Fatalf("Tool(%q, %q) finding %+v, want 0..%d points", name, params, fd, rule.Points)
			}
			sum += fd.Points
			perRule[fd.Rule] += fd.Points
			if perRule[fd.Rule] > rule.Cap {
				t.Fatalf("Tool(%q, %q) deducts %d for %s, above its cap %d", name, params, perRule[fd.Rule], fd.Rule, rule.Cap)
			}
		}
		if want := max(0, 100-sum); r.Score != want {
			t.Fatalf("Tool(%q, %q).Score = %d, want max(0, 100-%d) = %d", name, params, r.Score, sum, want)
		}
		if got := portableNameFor(name); !portableName.MatchString(got) {
			t.Fatalf("portableNameFor(%q) = %q, which breaks the portable name rule", name, got)
		}
	})
}

// FuzzParse checks the order-keeping JSON parser against the module's one
// strict layer and encoding/json: it accepts exactly what jsonx.Valid
// accepts (up to its depth limit) and decodes to the values encoding/json
// gives.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e3,"x\u00e9\n",true,false,null],"b":{}}`, `"\ud83d\ude00"`, ` [ ] `, `{"a":1}x`, `{"a" 1}`, `1e400`, `"\xff"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parse(data)
		if jsonx.Valid(data) != nil {
			if err == nil {
				t.Fatalf("parse(%q) = %v, want an error: jsonx.Valid rejects it", data, v)
			}
			return
		}
		if err != nil {
			t.Fatalf("parse(%q) = %v, want no error: jsonx.Valid accepts it", data, err)
		}
		var want any
		if err := json.Unmarshal(data, &want); err != nil {
			t.Skip() // e.g. a number out of float64 range
		}
		got := toAny(v)
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(want)
		if string(gotJSON) != string(wantJSON) {
			t.Fatalf("parse(%q) = %s, want %s", data, gotJSON, wantJSON)
		}
	})
}

// toAny converts a parsed value to what json.Unmarshal gives.
func toAny(v *value) any {
	switch v.kind {
	case kindNull:
		return nil
	case kindBool:
		return v.b
	case kindNumber:
		f, _ := strconv.ParseFloat(v.str, 64)
		return f
	case kindString:
		return v.str
	case kindArray:
		out := []any{}
		for _, e := range v.arr {
			out = append(out, toAny(e))
		}
		return out
	}
	out := map[string]any{}
	for _, m := range v.members {
		out[m.key] = toAny(m.val)
	}
	return out
}
