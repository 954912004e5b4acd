package toolresult_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

// duplicateName returns the JSON pointer of the first member name that
// appears twice in one object of b, or "" when no name does. It reads b
// leniently (duplicate names and invalid UTF-8 allowed) so that it sees
// every name, whatever a strict reader would make of them.
func duplicateName(b []byte) (string, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var names []map[string]bool // the names seen in each open object
	for {
		kind, n := dec.StackIndex(dec.StackDepth())
		isName := kind == '{' && n%2 == 0
		tok, err := dec.ReadToken()
		if errors.Is(err, io.EOF) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		switch tok.Kind() {
		case '{':
			names = append(names, map[string]bool{})
		case '[':
			names = append(names, nil)
		case '}', ']':
			names = names[:len(names)-1]
		case '"':
			if isName {
				seen := names[len(names)-1]
				if seen[tok.String()] {
					return string(dec.StackPointer()), nil
				}
				seen[tok.String()] = true
			}
		}
	}
}

// checkEnvelope fails t unless text, a rendered tool message, parses with
// the strict envelope parser and repeats no member name in any object.
func checkEnvelope(t *testing.T, what, text string) {
	t.Helper()
	if _, err := toolresult.Parse([]byte(text)); err != nil {
		t.Errorf("%s rendered %s, which Parse refuses: %v", what, text, err)
	}
	dup, err := duplicateName([]byte(text))
	if err != nil {
		t.Errorf("%s rendered %s, which is not JSON: %v", what, text, err)
	} else if dup != "" {
		t.Errorf("%s rendered %s, which repeats the member name %s", what, text, dup)
	}
}

// shapeJSON shapes in, declared JSON, and returns the result and its
// tool message, checked by checkEnvelope.
func shapeJSON(t *testing.T, sh *toolresult.Shaper, in string, budget int, rules toolresult.Rules) (toolresult.Shaped, string) {
	t.Helper()
	out, err := sh.Shape(context.Background(), toolresult.Success("t", jsontext.Value(in)), toolresult.Request{Tool: "t", Budget: budget, Rules: rules})
	if err != nil {
		t.Fatalf("Shape(%q): %v", in, err)
	}
	text := out.Result("c", "t").Content[0].(llm.Text).Text
	checkEnvelope(t, fmt.Sprintf("Shape(%q, budget %d, %+v)", in, budget, rules), text)
	return out, text
}

// TestFlattenNeverDuplicates holds the flattening rule: a nested object
// is written as dotted keys only when no other member of the same object
// has a name that starts with its key and a dot. Then no key appears
// twice, and every dotted key names one path.
func TestFlattenNeverDuplicates(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"issue example", `{"user":{"role":"guest"},"user.role":"admin"}`,
			`{"user":{"role":"guest"},"user.role":"admin"}`},
		{"reverse order", `{"user.role":"admin","user":{"role":"guest"}}`,
			`{"user.role":"admin","user":{"role":"guest"}}`},
		{"deeper, literal at the top", `{"a":{"b":{"c":1}},"a.b.c":2}`,
			`{"a":{"b.c":1},"a.b.c":2}`},
		{"dotted keys at both levels", `{"a":{"b.c":1},"a.b":{"c":2}}`,
			`{"a":{"b.c":1},"a.b":{"c":2}}`},
		{"a dotted key that starts a flattened path", `{"a":{"b":{"c":1}},"a.b":{"c":2}}`,
			`{"a":{"b.c":1},"a.b":{"c":2}}`},
		{"a dotted key sharing the first segment only", `{"user":{"role":"guest"},"user.name":"bob"}`,
			`{"user":{"role":"guest"},"user.name":"bob"}`},
		{"collision inside a nested object", `{"o":{"a":{"b":1},"a.b":2},"n":1}`,
			`{"o":{"a":{"b":1},"a.b":2},"n":1}`},
		{"keys with dots at several levels", `{"x":{"y.z":{"w":1}},"x.y":{"z.w":2},"p":{"q":{"r.s":3}}}`,
			`{"x":{"y.z":{"w":1}},"x.y":{"z.w":2},"p.q":{"r.s":3}}`},
		{"an empty dotted member still names its path", `{"a":{"b":{"c":1},"b.c":null}}`,
			`{"a":{"b":{"c":1}}}`},
		{"no dotted key: flattened as before", `{"user":{"role":"guest"},"id":7}`,
			`{"user.role":"guest","id":7}`},
		{"an escaped dot", `{"user":{"role":"guest"},"user\u002erole":"admin"}`,
			`{"user":{"role":"guest"},"user.role":"admin"}`},
		{"an escaped nested key", `{"\u0075ser":{"role":"guest"},"user.role":"admin"}`,
			`{"user":{"role":"guest"},"user.role":"admin"}`},
		{"invalid UTF-8 in the nested key", "{\"a\xff\":{\"b\":1},\"a\\ufffd.b\":2}",
			"{\"a\uFFFD\":{\"b\":1},\"a\uFFFD.b\":2}"},
		{"invalid UTF-8 replaced byte by byte", "{\"k\xff\xff\":1,\"k\\ufffd\":2}",
			"{\"k\uFFFD\uFFFD\":1,\"k\uFFFD\":2}"},
		{"records: per record", `[{"user":{"role":"guest"},"user.role":"admin"},{"user":{"role":"guest"}}]`,
			`[{"user":{"role":"guest"},"user.role":"admin"},{"user.role":"guest"}]`},
		{"records in a wrapper", `{"total":2,"items":[{"a":{"b":1},"a.b":2},{"a":{"b":3}}]}`,
			`{"total":2,"items":[{"a":{"b":1},"a.b":2},{"a.b":3}]}`},
	}
	sh, err := toolresult.NewShaper(budget.Estimator{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, text := shapeJSON(t, sh, tc.in, 4000, toolresult.Rules{})
			if out.Report.Level != toolresult.LevelFull {
				t.Fatalf("Shape(%q) level = %s, want full", tc.in, out.Report.Level)
			}
			env, err := toolresult.Parse([]byte(text))
			if err != nil {
				t.Fatal(err) // reported by shapeJSON
			}
			if got := string(env.Data.(jsontext.Value)); got != tc.want {
				t.Errorf("Shape(%q) data = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

// ambiguous holds records whose dotted paths could mean more than one
// member.
const ambiguous = `[
	{"id":0,"user":{"role":"guest"},"user.role":"admin"},
	{"id":1,"user":{"role":"admin"}},
	{"id":2,"a":{"b.c":1},"a.b":{"c":2}},
	{"id":3,"a.b":{"x":1},"a":{"b":{"c":3}}},
	{"id":4,"a":{"b":{"c":4}}},
	{"id":5,"a":{"":5}}
]`

// pageRecords returns the records of one page of data (all of it, at a
// large budget), read with req.
func pageRecords(t *testing.T, data string, req toolresult.PageRequest) []string {
	t.Helper()
	store := toolresult.NewMemoryStore(0)
	ref, err := store.Put(context.Background(), toolresult.Stored{Tool: "t", Kind: toolresult.KindJSON, Data: []byte(data)})
	if err != nil {
		t.Fatal(err)
	}
	sh, err := toolresult.NewShaper(budget.Estimator{}, store, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Ref = ref
	out, err := sh.Page(context.Background(), req, 8000)
	if err != nil {
		t.Fatalf("Page(%+v): %v", req, err)
	}
	checkEnvelope(t, fmt.Sprintf("Page(%+v)", req), out.Result("c", "read_result").Content[0].(llm.Text).Text)
	var recs []jsontext.Value
	if err := json.Unmarshal(out.Envelope.Data.(jsontext.Value), &recs); err != nil {
		t.Fatalf("Page(%+v) data %s: %v", req, out.Envelope.Data, err)
	}
	got := make([]string, len(recs))
	for i, r := range recs {
		got[i] = string(r)
	}
	return got
}

// TestDottedPathResolution holds how a dotted path (fields, filter,
// sort_by) picks one member: at each object, the member whose whole name
// is the rest of the path, else the one with the longest name that
// starts the rest followed by a dot; the choice is not revisited.
func TestDottedPathResolution(t *testing.T) {
	tests := []struct {
		path string
		want []string // the value per record of ambiguous, "" when none
	}{
		// The literal key wins over the nested path; without one, the
		// nested path is read.
		{"user.role", []string{`"admin"`, `"admin"`, "", "", "", ""}},
		// "a.b" is a longer name than "a": it is taken, and the path
		// ends there when "a.b" has no "c" (record 3).
		{"a.b.c", []string{"", "", "2", "", "4", ""}},
		{"a.b", []string{"", "", `{"c":2}`, `{"x":1}`, `{"c":4}`, ""}},
		// A trailing dot names the empty key.
		{"a.", []string{"", "", "", "", "", "5"}},
	}
	for _, tc := range tests {
		got := pageRecords(t, ambiguous, toolresult.PageRequest{Fields: []string{tc.path}})
		if len(got) != len(tc.want) {
			t.Fatalf("Page(fields %q) = %d records, want %d", tc.path, len(got), len(tc.want))
		}
		for i, rec := range got {
			want := "{}"
			if tc.want[i] != "" {
				key, _ := json.Marshal(tc.path)
				want = "{" + string(key) + ":" + tc.want[i] + "}"
			}
			if rec != want {
				t.Errorf("Page(fields %q) record %d = %s, want %s", tc.path, i, rec, want)
			}
		}
	}

	filters := []struct {
		path, value string
		want        []string // ids
	}{
		{"user.role", `"admin"`, []string{"0", "1"}},
		{"user.role", `"guest"`, nil},
		{"a.b.c", `2`, []string{"2"}},
		{"a.b.c", `1`, nil},
		{"a.b.c", `3`, nil},
	}
	for _, tc := range filters {
		got := pageRecords(t, ambiguous, toolresult.PageRequest{Fields: []string{"id"}, Filter: toolresult.Filter{tc.path: jsontext.Value(tc.value)}})
		var ids []string
		for _, rec := range got {
			ids = append(ids, strings.TrimSuffix(strings.TrimPrefix(rec, `{"id":`), "}"))
		}
		if fmt.Sprint(ids) != fmt.Sprint(tc.want) {
			t.Errorf("Page(filter %s=%s) = ids %v, want %v", tc.path, tc.value, ids, tc.want)
		}
	}
}

// TestFieldsNamedTwice holds that a field asked for twice (by a contract
// or by read_result's arguments) is shown once.
func TestFieldsNamedTwice(t *testing.T) {
	got := pageRecords(t, ambiguous, toolresult.PageRequest{Limit: 1, Fields: []string{"id", "user.role", "id", "user.role"}})
	if want := `{"id":0,"user.role":"admin"}`; len(got) != 1 || got[0] != want {
		t.Errorf("Page(fields id, user.role, id, user.role) = %v, want [%s]", got, want)
	}
	sh, _ := toolresult.NewShaper(budget.Estimator{}, nil, nil)
	out, _ := shapeJSON(t, sh, `[{"id":1,"a":{"b":2}}]`, 4000, toolresult.Rules{Fields: []string{"a.b", "id", "a.b"}})
	if got, want := string(out.Envelope.Data.(jsontext.Value)), `[{"a.b":2,"id":1}]`; got != want {
		t.Errorf("Shape(fields a.b, id, a.b) data = %s, want %s", got, want)
	}
}

// aggregated shapes records to the aggregate level and returns its data.
func aggregated(t *testing.T, records []string) map[string]any {
	t.Helper()
	sh, err := toolresult.NewShaper(budget.Estimator{}, nil, &toolresult.Config{MinRecords: len(records)})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := shapeJSON(t, sh, "["+strings.Join(records, ",")+"]", 900, toolresult.Rules{})
	if out.Report.Level != toolresult.LevelAggregate {
		t.Fatalf("Shape(%d records) level = %s, want aggregate", len(records), out.Report.Level)
	}
	var agg map[string]any
	if err := json.Unmarshal(out.Envelope.Data.(jsontext.Value), &agg); err != nil {
		t.Fatal(err)
	}
	return agg
}

func repeat(n int, f func(i int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// TestAggregateNames holds that an aggregate names each field once, by
// the dotted path that reads it.
func TestAggregateNames(t *testing.T) {
	long := strings.Repeat("lorem ipsum ", 20)
	t.Run("literal and nested", func(t *testing.T) {
		// Even records hold both user.role members: the literal one is
		// what the path reads, and user is described as one object.
		agg := aggregated(t, repeat(40, func(i int) string {
			if i%2 == 0 {
				return fmt.Sprintf(`{"id":%d,"user":{"role":"guest"},"user.role":"admin","note":%q}`, i, long)
			}
			return fmt.Sprintf(`{"id":%d,"user":{"role":"guest"},"note":%q}`, i, long)
		}))
		fields, _ := agg["fields"].(map[string]any)
		role, _ := fields["user.role"].(map[string]any)
		if got, want := fmt.Sprint(role["top"]), "map[admin:20 guest:20]"; got != want {
			t.Errorf("aggregate fields[user.role].top = %s, want %s (aggregate %v)", got, want, agg)
		}
		if schema, _ := agg["schema"].(string); !strings.Contains(schema, "user:object,") || strings.Count(schema, "user.role:") != 1 {
			t.Errorf("aggregate schema = %q, want user.role once and user:object", schema)
		}
	})
	t.Run("top values cut alike", func(t *testing.T) {
		// Two values that differ after their first 200 characters show
		// as one cut value.
		agg := aggregated(t, repeat(40, func(i int) string {
			return fmt.Sprintf(`{"id":%d,"s":"%s%d"}`, i, strings.Repeat("x", 250), i%2)
		}))
		fields, _ := agg["fields"].(map[string]any)
		s, _ := fields["s"].(map[string]any)
		top, _ := s["top"].(map[string]any)
		if len(top) != 1 {
			t.Fatalf("aggregate fields[s].top = %v, want one cut value", s["top"])
		}
		for _, c := range top {
			if c != 40.0 {
				t.Errorf("aggregate fields[s].top = %v, want the cut value 40 times", top)
			}
		}
	})
	t.Run("odd names", func(t *testing.T) {
		// Scalars (described as "(value)") beside a member named so,
		// an empty key, and keys whose invalid UTF-8 renders alike.
		recs := repeat(30, func(i int) string { return fmt.Sprintf(`"%s%d"`, long, i) })
		recs = append(recs, `{"(value)":1}`, `{"":{"x":2}}`, "{\"a\xff\":3}", "{\"a\xfe\":4}", "{\"a\\ufffd\":5}")
		agg := aggregated(t, recs)
		fields, _ := agg["fields"].(map[string]any)
		if _, ok := fields[".x"]; !ok {
			t.Errorf("aggregate fields = %v, want .x", fields)
		}
		a, _ := fields["a\uFFFD"].(map[string]any)
		if a["min"] != 3.0 || a["max"] != 5.0 {
			t.Errorf("aggregate fields[a\uFFFD] = %v, want min 3 and max 5", a)
		}
	})
}

// randomJSON writes a random JSON value at most depth levels deep, with
// member names chosen to collide when flattened.
func randomJSON(r *rand.Rand, b *strings.Builder, depth int) {
	names := []string{"a", "b", "c", "a.b", "b.c", "a.b.c", "", ".", "a.", ".b", "user", "role", "user.role", `\u0061.b`, "k\xff\xff", `k\ufffd`}
	// same maps a name to its decoded form: an object holds each once.
	same := map[string]string{`\u0061.b`: "a.b", `k\ufffd`: "k\uFFFD"}
	switch k := r.IntN(10); {
	case depth == 0 || k < 3:
		switch r.IntN(4) {
		case 0:
			fmt.Fprintf(b, "%d", r.IntN(3))
		case 1:
			fmt.Fprintf(b, `"%s"`, strings.Repeat("v", r.IntN(3)))
		case 2:
			b.WriteString("null")
		default:
			b.WriteString("{}")
		}
	case k < 8:
		b.WriteByte('{')
		used := map[string]bool{}
		for i, n := 0, r.IntN(5); i < n; i++ {
			name := names[r.IntN(len(names))]
			key := name
			if s, ok := same[name]; ok {
				key = s
			}
			if used[key] {
				continue
			}
			used[key] = true
			if len(used) > 1 {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, `"%s":`, name)
			randomJSON(r, b, depth-1)
		}
		b.WriteByte('}')
	default:
		b.WriteByte('[')
		for i, n := 0, r.IntN(6); i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			randomJSON(r, b, depth-1)
		}
		b.WriteByte(']')
	}
}

// TestShapeNeverDuplicatesNames is the property behind the flattening
// rule: whatever the input, every observation and every page, at every
// level, parses with the strict envelope parser and repeats no member
// name in any object.
func TestShapeNeverDuplicatesNames(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 7))
	fieldSets := [][]string{nil, {"a.b", "a", "a.b", "user.role", "a.b.c", "a."}}
	for i := range 400 {
		var b strings.Builder
		switch i % 3 {
		case 0: // records
			b.WriteByte('[')
			for j, n := 0, 1+r.IntN(12); j < n; j++ {
				if j > 0 {
					b.WriteByte(',')
				}
				randomJSON(r, &b, 4)
			}
			b.WriteByte(']')
		case 1: // records in a wrapper
			b.WriteString(`{"total":9,"items":[`)
			for j, n := 0, 1+r.IntN(12); j < n; j++ {
				if j > 0 {
					b.WriteByte(',')
				}
				randomJSON(r, &b, 4)
			}
			b.WriteString("]}")
		default:
			randomJSON(r, &b, 5)
		}
		in := b.String()
		for _, fields := range fieldSets {
			sh, err := toolresult.NewShaper(budget.Estimator{}, toolresult.NewMemoryStore(0), &toolresult.Config{MinRecords: 3})
			if err != nil {
				t.Fatal(err)
			}
			for _, tokens := range []int{3000, 250, 90} {
				out, _ := shapeJSON(t, sh, in, tokens, toolresult.Rules{Fields: fields})
				ref := out.Envelope.Meta.Ref
				if ref == "" {
					continue
				}
				req := toolresult.PageRequest{Ref: ref, Fields: []string{"a.b.c", "a", "a.b.c"}, Filter: toolresult.Filter{"a.b": jsontext.Value("1")}}
				for _, req := range []toolresult.PageRequest{{Ref: ref}, req} {
					page, err := sh.Page(context.Background(), req, tokens)
					if err != nil {
						continue // a single value has no records to filter
					}
					checkEnvelope(t, fmt.Sprintf("Page(%+v) of %q", req, in), page.Result("c", "read_result").Content[0].(llm.Text).Text)
				}
			}
		}
		if t.Failed() {
			t.Fatalf("input %d: %q", i, in)
		}
	}
}
