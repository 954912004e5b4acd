package jsontree

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func mustParse(t *testing.T, src string, opts *Options) *Tree {
	t.Helper()
	tr, err := Parse([]byte(src), opts)
	if err != nil {
		t.Fatalf("Parse(%q) = %v, want no error", src, err)
	}
	return tr
}

func TestParseErrors(t *testing.T) {
	deep := strings.Repeat("[", 10001)
	tests := []struct {
		in   string
		opts *Options
		want string
	}{
		{``, nil, `invalid JSON at line 1, column 1 (byte 0): empty input`},
		{" \n ", nil, `invalid JSON at line 2, column 2 (byte 3): empty input`},
		{`{"a":1} x`, nil, `invalid JSON at line 1, column 9 (byte 8): unexpected data after the top-level value: 'x'`},
		{`{"a":[1,2}`, nil, `a: invalid JSON at line 1, column 10 (byte 9): want ',' or ']' after an array element, found '}'`},
		{`{"a":[1,2]`, nil, `invalid JSON at line 1, column 11 (byte 10): want ',' or '}' after an object value, found end of input`},
		{`{"a":1,}`, nil, `invalid JSON at line 1, column 8 (byte 7): want an object key, found '}'`},
		{`{a:1}`, nil, `invalid JSON at line 1, column 2 (byte 1): want an object key, found 'a'`},
		{`{"a" 1}`, nil, `invalid JSON at line 1, column 6 (byte 5): want ':' after an object key, found '1'`},
		{`{"a":}`, nil, `a: invalid JSON at line 1, column 6 (byte 5): want a value, found '}'`},
		{`{"a":`, nil, `invalid JSON at line 1, column 6 (byte 5): want a value, found end of input`},
		{`[1,]`, nil, `1: invalid JSON at line 1, column 4 (byte 3): want a value, found ']'`},
		{`[tru]`, nil, `0: invalid JSON at line 1, column 5 (byte 4): want true, found ']'`},
		{`nul`, nil, `invalid JSON at line 1, column 4 (byte 3): want null, found end of input`},
		{`[01]`, nil, `invalid JSON at line 1, column 3 (byte 2): want ',' or ']' after an array element, found '1'`},
		{`-x`, nil, `invalid JSON at line 1, column 2 (byte 1): want a digit in a number, found 'x'`},
		{`1.e5`, nil, `invalid JSON at line 1, column 3 (byte 2): want a digit after the decimal point, found 'e'`},
		{`1e+`, nil, `invalid JSON at line 1, column 4 (byte 3): want a digit in the exponent, found end of input`},
		{`NaN`, nil, `invalid JSON at line 1, column 1 (byte 0): want a value, found 'N'`},
		{`'a'`, nil, `invalid JSON at line 1, column 1 (byte 0): want a value, found '\''`},
		{"\"a\tb\"", nil, `invalid JSON at line 1, column 3 (byte 2): control character byte 0x09 in a string (escape it)`},
		{`"\x"`, nil, `invalid JSON at line 1, column 3 (byte 2): invalid escape \x in a string`},
		{`"\u12g4"`, nil, `invalid JSON at line 1, column 2 (byte 1): invalid \u escape in a string`},
		{`"abc`, nil, `invalid JSON at line 1, column 5 (byte 4): unterminated string`},
		{`"\`, nil, `invalid JSON at line 1, column 3 (byte 2): unterminated string`},
		{"{\n  \"k\": \"\xff\"\n}", nil, `k: invalid JSON at line 2, column 9 (byte 10): invalid UTF-8 in a string`},
		{"\xef\xbb\xbf{}", nil, `invalid JSON at line 1, column 1 (byte 0): want a value, found '\ufeff'`},
		{`[[[1]]]`, &Options{MaxDepth: 2}, `0.0: invalid JSON at line 1, column 3 (byte 2): nesting deeper than 2`},
		{deep, nil, strings.TrimSuffix(strings.Repeat("0.", 10000), ".") + `: invalid JSON at line 1, column 10001 (byte 10000): nesting deeper than 10000`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in), tt.opts)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%.40q) = %v, want a *SyntaxError", tt.in, err)
			continue
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("Parse(%.40q) = %.200s, want %.200s", tt.in, got, tt.want)
		}
		if want := strings.Contains(tt.want, "nesting deeper"); se.TooDeep() != want {
			t.Errorf("Parse(%.40q).TooDeep() = %v, want %v", tt.in, se.TooDeep(), want)
		}
	}
}

func TestMaxDepth(t *testing.T) {
	for _, src := range []string{`[[],[],{},[{}],{"a":[1]},[[2]]]`, `{"a":{},"b":[[]],"c":{"d":[]}}`} {
		if _, err := Parse([]byte(src), &Options{MaxDepth: 3}); err != nil {
			t.Errorf("Parse(%q, MaxDepth 3) = %v, want no error: siblings do not add depth", src, err)
		}
		if _, err := Parse([]byte(src), &Options{MaxDepth: 2}); err == nil {
			t.Errorf("Parse(%q, MaxDepth 2) = nil error, want the nesting limit", src)
		}
	}
}

func TestAllowInvalidUTF8(t *testing.T) {
	src := "{\"k\xff\":\"a\xffb\"}"
	if _, err := Parse([]byte(src), nil); err == nil {
		t.Fatalf("Parse(%q, nil) = nil error, want invalid UTF-8", src)
	}
	tr := mustParse(t, src, &Options{AllowInvalidUTF8: true})
	m := tr.First(tr.Root())
	if got, want := tr.Str(m), "a\xffb"; got != want {
		t.Errorf("Str(%q) = %q, want %q", src, got, want)
	}
	if got, want := tr.Key(m), "k\xff"; got != want {
		t.Errorf("Key(%q) = %q, want %q", src, got, want)
	}
}

func TestNavigation(t *testing.T) {
	src := `{"messages": [ {"role":"user","content":"hi"},
  {"role":"assistant","tool_calls":[{"id":"c\u0031","args":{"a": [1, 2.5e3, true, null]}}]} ], "k\"q": false}`
	tr := mustParse(t, src, nil)
	root := tr.Root()
	msgs := tr.Get(root, "messages")
	if got := tr.Kind(msgs); got != Array {
		t.Fatalf("Kind(messages) = %v, want array", got)
	}
	if got := tr.Len(msgs); got != 2 {
		t.Errorf("Len(messages) = %d, want 2", got)
	}
	m1 := tr.Next(tr.First(msgs))
	id := tr.Get(tr.First(tr.Get(m1, "tool_calls")), "id")
	tests := []struct {
		name, got, want string
	}{
		{"Path(id)", tr.Path(id), "messages.1.tool_calls.0.id"},
		{"Str(id)", tr.Str(id), "c1"},
		{"Raw(id)", string(tr.Raw(id)), `"c\u0031"`},
		{"Key(id)", tr.Key(id), "id"},
		{"Compact(messages)", string(tr.Compact(msgs)), `[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c\u0031","args":{"a":[1,2.5e3,true,null]}}]}]`},
		{"Compact(id)", string(tr.Compact(id)), `"c\u0031"`},
		{"Key(escaped)", tr.Key(tr.Get(root, `k"q`)), `k"q`},
		{"Path(root)", tr.Path(root), ""},
		{"Kind phrase", tr.Kind(tr.Get(root, `k"q`)).Phrase(), "a boolean"},
		{"Raw(key)", func() string {
			r, esc := tr.RawKey(tr.Get(root, `k"q`))
			return string(r) + " " + map[bool]string{true: "escaped"}[esc]
		}(), `k\"q escaped`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if got := tr.Offset(id); src[got:tr.End(id)] != `"c\u0031"` {
		t.Errorf("Offset(id), End(id) = %d, %d, want the span of the id", got, tr.End(id))
	}
	if got := tr.KeyOffset(id); src[got:got+4] != `"id"` {
		t.Errorf("KeyOffset(id) = %d, want the offset of its key", got)
	}
	if got := tr.Index(m1); got != 1 || tr.Parent(m1) != msgs {
		t.Errorf("Index(messages.1), Parent = %d, %d, want 1, %d", got, tr.Parent(m1), msgs)
	}
	if tr.Get(msgs, "x") != None || tr.Get(root, "nope") != None || tr.Next(tr.Get(root, `k"q`)) != None {
		t.Errorf("Get/Next of missing nodes did not return None")
	}
	if !tr.IsTrue(tr.Next(tr.Next(tr.First(tr.Get(tr.Get(tr.First(tr.Get(m1, "tool_calls")), "args"), "a"))))) {
		t.Errorf("IsTrue(true) = false")
	}
}

func TestDuplicate(t *testing.T) {
	many := `{` + strings.Repeat(`"a":0,`, 0)
	for i := range 20 {
		many += `"k` + string(rune('a'+i)) + `":0,`
	}
	many += `"kc":1}`
	tests := []struct {
		in, want string // want: the path of the duplicate, "-" for none
	}{
		{`{"a":1,"b":2}`, "-"},
		{`{"a":1,"b":2,"a":3}`, "a"},
		{`{"x":1,"y":2,"y":3,"x":4}`, "y"},
		{`{"a":1,"\u0061":2}`, "a"},
		{`{"a":{"x":1,"x":2},"a":3}`, "a.x"},
		{`[{"q":1},{"r":1,"s":{"t":1,"t":2}}]`, "1.s.t"},
		{many, "kc"},
		{`"a"`, "-"},
	}
	for _, tt := range tests {
		tr := mustParse(t, tt.in, nil)
		got := "-"
		if d := tr.FirstDuplicate(); d != None {
			got = tr.Path(d)
		}
		if got != tt.want {
			t.Errorf("FirstDuplicate(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	tr := mustParse(t, `{"a":{"x":1,"x":2},"a":3}`, nil)
	if d := tr.Duplicate(tr.Root()); d == None || tr.Index(d) != 1 {
		t.Errorf("Duplicate(root) = %d, want the second member", d)
	}
}

func TestAppendCompact(t *testing.T) {
	tests := []struct{ in, want string }{
		{` { "a" : [ 1 , "x y\" z" ] , "b\\" : "<&>" } `, `{"a":[1,"x y\" z"],"b\\":"<&>"}`},
		{`"\u003c é"`, `"\u003c é"`},
	}
	for _, tt := range tests {
		if got := string(AppendCompact(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("AppendCompact(%q) = %s, want %s", tt.in, got, tt.want)
		}
		tr := mustParse(t, tt.in, nil)
		if got := string(tr.AppendCompact([]byte("x"), tr.Root())); got != "x"+tt.want {
			t.Errorf("Tree.AppendCompact(%q) = %s, want x%s", tt.in, got, tt.want)
		}
	}
}

func TestAppendUnescaped(t *testing.T) {
	tests := []struct{ in, want string }{
		{`plain`, "plain"},
		{`a\"b\\c\/d\b\f\n\r\t`, "a\"b\\c/d\b\f\n\r\t"},
		{`\u00e9\u4e2d`, "é中"},
		{`\ud83d\ude00!`, "😀!"},
		{`\ud83d`, "\ufffd"},
		{`\ud83dx`, "\ufffdx"},
		{`\ud83d\u0041`, "\ufffdA"},
		{`\ude00\ud83d`, "\ufffd\ufffd"},
	}
	for _, tt := range tests {
		if got := string(AppendUnescaped(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("AppendUnescaped(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := unescape([]byte(tt.in)); got != tt.want {
			t.Errorf("unescape(%q) = %q, want %q", tt.in, got, tt.want)
		}
		var want string
		if err := json.Unmarshal([]byte(`"`+tt.in+`"`), &want); err != nil || want != tt.want {
			t.Errorf("json.Unmarshal(%q) = %q, %v, want %q", tt.in, want, err, tt.want)
		}
	}
}

func TestKind(t *testing.T) {
	tests := []struct {
		k            Kind
		name, phrase string
	}{
		{Null, "null", "null"}, {Bool, "boolean", "a boolean"}, {Number, "number", "a number"},
		{String, "string", "a string"}, {Array, "array", "an array"}, {Object, "object", "an object"}, {0, "nothing", "nothing"},
	}
	for _, tt := range tests {
		if tt.k.String() != tt.name || tt.k.Phrase() != tt.phrase {
			t.Errorf("Kind(%d) = %q, %q, want %q, %q", tt.k, tt.k.String(), tt.k.Phrase(), tt.name, tt.phrase)
		}
	}
}

// FuzzParse checks Parse against encoding/json: it accepts exactly what
// json.Valid accepts (invalid UTF-8 only when allowed), [Tree.Value]
// decodes to the same values as a Decoder with UseNumber, spans are exact,
// and Compact compacts the way json.Compact does.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e3,"x\u00e9\n",true,false,null],"b":{}}`, `"\ud83d\ude00"`, ` [ ] `,
		`{"a":1}x`, `{"a" 1}`, `1e400`, "\"\xff\"", `{"a":1,"a":2}`, `[01]`, `"\ud800"`, "{\"k\":\"\t\"}", `-0.0E+1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := json.Valid(data)
		tr, err := Parse(data, &Options{AllowInvalidUTF8: true})
		if valid != (err == nil) {
			t.Fatalf("Parse(%q) error = %v, want an error: %v (as json.Valid)", data, err, !valid)
		}
		strict, serr := Parse(data, nil)
		if serr == nil && !valid {
			t.Fatalf("Parse(%q, nil) = nil error, json.Valid rejects it", data)
		}
		if serr != nil && valid && !strings.Contains(serr.Error(), "UTF-8") {
			t.Fatalf("Parse(%q, nil) = %v, want no error or an invalid UTF-8 error", data, serr)
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(data) {
				t.Fatalf("Parse(%q) error = %#v, want a *SyntaxError within the input", data, err)
			}
			return
		}
		if strict != nil && len(strict.nodes) != len(tr.nodes) {
			t.Fatalf("Parse(%q) strict and lenient trees differ", data)
		}
		want, err := decodeStd(data)
		if err != nil {
			t.Fatalf("json.Decode(%q) = %v after json.Valid accepted it", data, err)
		}
		if got := tr.Value(tr.Root()); !reflect.DeepEqual(got, want) {
			t.Fatalf("Value(%q) = %#v, want %#v (encoding/json)", data, got, want)
		}
		if strict != nil {
			if got := strict.Value(strict.Root()); !reflect.DeepEqual(got, want) {
				t.Fatalf("Value(%q) of the strict tree = %#v, want %#v (encoding/json)", data, got, want)
			}
		}
		if c := tr.First(tr.Root()); c != None {
			want, err := decodeStd(tr.Raw(c))
			if got := tr.Value(c); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("Value(%s) of %q = %#v, want %#v, %v (encoding/json)", tr.Path(c), data, got, want, err)
			}
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			t.Fatal(err)
		}
		if got := tr.Compact(tr.Root()); !bytes.Equal(got, compact.Bytes()) {
			t.Fatalf("Compact(%q) = %s, want %s (json.Compact)", data, got, compact.Bytes())
		}
		for i := range tr.nodes {
			n := Node(i)
			if !json.Valid(tr.Raw(n)) {
				t.Fatalf("Raw(%d) of %q = %q, not a JSON value", i, data, tr.Raw(n))
			}
			if p := tr.Parent(n); p != None && tr.Kind(p) == Object {
				if !json.Valid(data[tr.KeyOffset(n) : int(tr.nodes[n].kend)+1]) {
					t.Fatalf("key of node %d of %q is not a JSON string", i, data)
				}
			}
		}
	})
}

func TestValidObject(t *testing.T) {
	tests := []struct {
		in, trimmed string
		ok          bool
	}{
		{" {\"a\": 1}\n", `{"a": 1}`, true},
		{`{}`, `{}`, true},
		{`[]`, `[]`, false},
		{`{"a":}`, `{"a":}`, false},
		{`{} {}`, `{} {}`, false},
		{``, ``, false},
	}
	for _, tt := range tests {
		got, ok := ValidObject([]byte(tt.in))
		if string(got) != tt.trimmed || ok != tt.ok {
			t.Errorf("ValidObject(%q) = %q, %v, want %q, %v", tt.in, got, ok, tt.trimmed, tt.ok)
		}
	}
}
