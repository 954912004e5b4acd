package toolresult

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/internal/orders"
	"github.com/toolwire/toolwire/llm"
)

// quarterCounter counts a token per 4 bytes (the budget package, which
// imports this one, has the real counters).
type quarterCounter struct{}

func (quarterCounter) Count(s string) int { return (len(s) + 3) / 4 }

// jsonCases are values a tool may return, compact or not, with escapes,
// invalid UTF-8 and white space around them.
var jsonCases = []string{
	`null`, `true`, `0`, `-1.5e3`, `""`, `"a\"b\u00e9\ud800"`, `[]`, `{}`,
	`[1,2,3]`, `{"a":{"b":[null,{}]},"c":""}`,
	" { \"a\" : [ 1 , 2 ] ,\n\t\"b\" : { } } ",
	"  [\"x\"]\n",
	"{\"k\xff\":\"v\xfe\xfd\"}",
	"[ \"a\xff\" , 1 ]",
	`{"html":"<b>&amp;</b>","sep":"\u2028"}`,
	`{"a.b":1,"a":{"b":2}}`,
}

// TestJSONRendersAsRawMessage holds a parsed JSON to what it replaces:
// rendered in an envelope, the same bytes as the jsontext.Value of its
// source (json.Compact, invalid UTF-8 replaced), and decoded, the same
// value as the strict reader's.
func TestJSONRendersAsRawMessage(t *testing.T) {
	for _, src := range jsonCases {
		v, err := ParseJSON([]byte(src))
		if err != nil {
			t.Fatalf("ParseJSON(%q): %v", src, err)
		}
		if got := string(v.Bytes()); got != src {
			t.Errorf("ParseJSON(%q).Bytes() = %q, want the source", src, got)
		}
		got, gotReplaced, err := encodeData(v)
		want, wantReplaced, ok := compactJSON([]byte(src))
		if err != nil || !ok || string(got) != string(want) || gotReplaced != wantReplaced {
			t.Errorf("encodeData(ParseJSON(%q)) = %q, %v, %v; want %q, %v as a jsontext.Value", src, got, gotReplaced, err, want, wantReplaced)
		}
		if m, _ := v.MarshalJSON(); string(m) != string(want) {
			t.Errorf("ParseJSON(%q).MarshalJSON() = %q, want %q", src, m, want)
		}
		wantEnv, _ := Success("s", jsontext.Value(src)).MarshalJSON()
		if gotEnv, _ := Success("s", v).MarshalJSON(); string(gotEnv) != string(wantEnv) {
			t.Errorf("Success(ParseJSON(%q)) renders %s, want %s", src, gotEnv, wantEnv)
		}
		val, err := v.Value()
		wantVal, wantErr := jsonx.DecodeAny([]byte(src))
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(val, wantVal) {
			t.Errorf("ParseJSON(%q).Value() = %#v, %v; want %#v, %v", src, val, err, wantVal, wantErr)
		}
		n, ok := v.ArrayLen()
		var elems []any
		_ = json.Unmarshal([]byte(src), &elems) // encoding/json reads invalid UTF-8
		if ok != (elems != nil) || n != len(elems) {
			t.Errorf("ParseJSON(%q).ArrayLen() = %d, %v; want %d, %v", src, n, ok, len(elems), elems != nil)
		}
	}
	for _, bad := range []string{``, `{"a":1,"a":2}`, `[1,`, `1 2`} {
		if _, err := ParseJSON([]byte(bad)); err == nil {
			t.Errorf("ParseJSON(%q) succeeded, want an error", bad)
		}
	}
}

// FuzzParseJSON holds ParseJSON to the readers it stands in for, on any
// bytes: what it parses renders as json.Compact writes it (invalid UTF-8
// replaced) and decodes as the strict reader decodes it; what it refuses
// is not JSON, or repeats a name.
func FuzzParseJSON(f *testing.F) {
	for _, c := range jsonCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte(`[1,`))
	f.Add([]byte("\"\\ud800\xff\""))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseJSON(b)
		want, wantReplaced, ok := compactJSON(b)
		if err != nil {
			if ok && jsonx.Valid(bytes.ToValidUTF8(b, []byte("\uFFFD"))) == nil {
				t.Fatalf("ParseJSON(%q) = %v, but it is strict JSON", b, err)
			}
			return
		}
		got, gotReplaced := v.render()
		if !ok || string(got) != string(want) || gotReplaced != wantReplaced {
			t.Fatalf("ParseJSON(%q) renders %q, %v; json.Compact %q, %v, %v", b, got, gotReplaced, want, wantReplaced, ok)
		}
		val, err := v.Value()
		wantVal, wantErr := jsonx.DecodeAny(b)
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(val, wantVal) {
			t.Fatalf("ParseJSON(%q).Value() = %#v, %v; the strict reader %#v, %v", b, val, err, wantVal, wantErr)
		}
	})
}

// TestShapeParsedJSON checks that a result given parsed is shaped as its
// bytes would be.
func TestShapeParsedJSON(t *testing.T) {
	data := orders.Generate(500, 1)
	for _, budget := range []int{100, 800, 40000} {
		for _, src := range append([]string{string(data)}, jsonCases...) {
			results := make([]string, 2)
			for i, d := range []func() any{
				func() any { return jsontext.Value(src) },
				func() any { v, _ := ParseJSON([]byte(src)); return v },
			} {
				sh, err := NewShaper(quarterCounter{}, NewMemoryStore(0).NumberRefs(), nil)
				if err != nil {
					t.Fatal(err)
				}
				out, err := sh.Shape(context.Background(), Success("list()", d()), Request{Tool: "list", Budget: budget})
				if err != nil {
					t.Fatalf("Shape(%.40q): %v", src, err)
				}
				results[i] = out.Result("c", "list").Content[0].(llm.Text).Text
			}
			if results[0] != results[1] {
				t.Errorf("Shape(ParseJSON(%.40q), budget %d) = %.300s\nwant as a jsontext.Value %.300s", src, budget, results[1], results[0])
			}
		}
	}
}

// TestAggregateHugeNumbers shapes records whose numbers overflow a
// float64 into an aggregate: its statistics must stay JSON (the shaper's
// renderings are written as they are, not compacted and checked again).
func TestAggregateHugeNumbers(t *testing.T) {
	var b []byte
	b = append(b, '[')
	for i := range 200 {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":"x","v":1e999,"w":-1e999,"m":1.5e308,"s":"`+strings.Repeat("lorem ipsum ", 20)+`"}`...)
	}
	b = append(b, ']')
	sh, err := NewShaper(quarterCounter{}, NewMemoryStore(0).NumberRefs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := sh.Shape(context.Background(), Success("list()", jsontext.Value(b)), Request{Tool: "list", Budget: 250})
	if err != nil {
		t.Fatal(err)
	}
	text := out.Result("c", "list").Content[0].(llm.Text).Text
	env, err := Parse([]byte(text))
	if err != nil || out.Report.Level != LevelAggregate || env.Status != "success" || !strings.Contains(text, `"v":{`) {
		t.Fatalf("Shape(200 records of huge numbers) = %s (level %s): %v", text, out.Report.Level, err)
	}
}

// TestShapedResultRendersEnvelope checks that Shaped.Result, which reuses
// the rendering shaping measured, renders what Envelope holds, also after
// a caller changed it.
func TestShapedResultRendersEnvelope(t *testing.T) {
	data := orders.Generate(300, 1)
	sh, err := NewShaper(quarterCounter{}, NewMemoryStore(0).NumberRefs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	env := Success("list()", jsontext.Value(data))
	env.Meta.Duration = 1234 * time.Millisecond
	out, err := sh.Shape(context.Background(), env, Request{Tool: "list", Budget: 800})
	if err != nil {
		t.Fatal(err)
	}
	if out.text == "" {
		t.Fatal("Shape kept no rendering to reuse")
	}
	changes := map[string]func(s *Shaped){
		"unchanged":       func(s *Shaped) {},
		"summary":         func(s *Shaped) { s.Envelope.Summary = "changed" },
		"meta":            func(s *Shaped) { s.Envelope.Meta.Duration = 7 * time.Millisecond },
		"data":            func(s *Shaped) { s.Envelope.Data = jsontext.Value(`[1]`) },
		"data resliced":   func(s *Shaped) { d := s.Envelope.Data.(jsontext.Value); s.Envelope.Data = d[:1:1] },
		"error":           func(s *Shaped) { s.Envelope.Status, s.Envelope.Error = "partial", &Error{Type: Timeout, Message: "m"} },
		"data as a value": func(s *Shaped) { s.Envelope.Data = []int{1} },
	}
	for name, change := range changes {
		s := out
		change(&s)
		got := s.Result("c", "list")
		want := s.Envelope.Result("c", "list")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Result = %v, want %v", name, got, want)
		}
	}
}
