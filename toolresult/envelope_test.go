package toolresult

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
)

type flight struct {
	Number string    `json:"number"`
	Depart time.Time `json:"depart"`
	Seats  []string  `json:"seats"`
	Price  *price    `json:"price,omitempty"`
}

type price struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

func renderCases() map[string]Envelope {
	depart := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	cases := map[string]Envelope{
		"success": Success("get_weather(city=Paris): 18°C and sunny", map[string]any{"temp_c": 18, "sky": "sunny", "city": "Paris"}),
		"empty":   Empty("search_flights(from=PAR, to=NYC, date=2026-12-01): no flights found"),
		"partial": Partial("fetch_prices(3 tickers): AAPL and MSFT found; GOOG missing: upstream timed out",
			map[string]float64{"AAPL": 231.5, "MSFT": 418.2}),
		"chinese": Success("查询天气(城市=北京)：晴，气温 3°C", map[string]string{"城市": "北京", "天气": "晴"}),
		"html_in_data": Success("fetch_page(url=https://example.com): 1 script tag found",
			map[string]string{"html": `<script>alert("x")</script> & <b>bold</b>`}),
		"invalid_utf8_summary": Success("read_file(path=a.bin): "+string([]byte{0xff, 0xfe})+" bytes", nil),
		"invalid_utf8_data":    Success("read_file(path=a.txt): 1 line", map[string]string{"line": "ok " + string([]byte{0xc3})}),
		"invalid_utf8_raw":     Success("read_file(path=b.txt): 1 line", jsontext.Value("{\"line\":\"x\xff\"}")),
		"real_replacement_char": Success("read_file(path=c.txt): one U+FFFD kept as is",
			map[string]string{"text": "a\uFFFDb", "escaped": `\ufffd`}),
		"nested": Success("search_flights(from=PAR, to=NYC): 2 flights", []flight{
			{Number: "AF22", Depart: depart, Seats: []string{"12A", "12B"}, Price: &price{Amount: 612.4, Currency: "EUR"}},
			{Number: "DL401", Depart: depart.Add(3 * time.Hour), Seats: []string{}},
		}),
		"raw_data":          Success("lookup(id=7): found", jsontext.Value("{ \"b\": 1,\n  \"a\": [1, 2] }")),
		"multiline_summary": Success("list_files(dir=/tmp):\n3 files\tfound  ", []string{"a", "b", "c"}),
		"full_meta": {
			Status: llm.StatusPartial, Summary: "search_docs(q=retry): 20 of 340 results shown",
			Data:       []string{"doc-1", "doc-2"},
			Suggestion: Options("fetch the rest with ref r-91", "narrow the query"),
			Meta: Meta{Source: "docs-index", Duration: 1234 * time.Millisecond, Truncated: true,
				Omitted: 320, Ref: "r-91", Attempts: 2, Repaired: "closed an unterminated string"},
		},
		"rate_limited": {
			Status: llm.StatusError, Summary: "get_quote(ticker=AAPL): the quotes API is rate limited",
			Error:      &Error{Type: RateLimited, Message: "429 from quotes API", Retryable: true, RetryAfter: 6 * time.Second},
			Suggestion: Options("retry in 6 s", "use the backup source"),
			Meta:       Meta{Source: "quotes-api", Duration: 87 * time.Millisecond},
		},
	}
	for _, typ := range ErrorTypes() {
		cases["error_"+string(typ)] = Failure(typ, "lookup(id=7) failed: "+string(typ))
	}
	return cases
}

func TestRenderGolden(t *testing.T) {
	for name, e := range renderCases() {
		t.Run(name, func(t *testing.T) {
			got, err := e.MarshalJSON()
			if err != nil {
				t.Fatalf("MarshalJSON() error: %v", err)
			}
			if !json.Valid(got) {
				t.Fatalf("MarshalJSON() = %s, not valid JSON", got)
			}
			golden.Check(t, filepath.Join("testdata", "envelope", name+".json"), got)

			again, _ := e.MarshalJSON()
			if string(again) != string(got) {
				t.Errorf("rendering twice differs:\n%s\n%s", got, again)
			}
		})
	}
}

func TestRenderProperties(t *testing.T) {
	cases := renderCases()
	tests := []struct {
		name        string
		contains    []string
		notContains []string
	}{
		{"chinese", []string{"北京", "查询天气"}, []string{`\u`}},
		{"html_in_data", []string{`<script>`, `&`}, []string{`\u003c`, `\u0026`}},
		{"invalid_utf8_summary", []string{"\uFFFD", `"invalid_utf8":true`}, nil},
		{"invalid_utf8_data", []string{`"invalid_utf8":true`}, nil},
		{"invalid_utf8_raw", []string{"x\uFFFD", `"invalid_utf8":true`}, nil},
		{"real_replacement_char", []string{"a\uFFFDb"}, []string{"invalid_utf8"}},
		{"multiline_summary", []string{`"summary":"list_files(dir=/tmp): 3 files found"`}, nil},
		{"raw_data", []string{`"data":{"b":1,"a":[1,2]}`}, nil},
		{"success", []string{`"data":{"city":"Paris","sky":"sunny","temp_c":18}`}, []string{`"error"`}},
		{"empty", []string{`"status":"success"`, `"data":[]`}, []string{`"error"`}},
		{"rate_limited", []string{`"retry_after_ms":6000`, `"retryable":true`, `"suggestion":"You could retry in 6 s or use the backup source."`}, nil},
	}
	for _, tt := range tests {
		got, err := cases[tt.name].MarshalJSON()
		if err != nil {
			t.Fatalf("%s: MarshalJSON() error: %v", tt.name, err)
		}
		for _, s := range tt.contains {
			if !strings.Contains(string(got), s) {
				t.Errorf("%s: MarshalJSON() = %s, want it to contain %s", tt.name, got, s)
			}
		}
		for _, s := range tt.notContains {
			if strings.Contains(string(got), s) {
				t.Errorf("%s: MarshalJSON() = %s, want no %s", tt.name, got, s)
			}
		}
	}
}

func TestRenderKeyOrder(t *testing.T) {
	got, err := renderCases()["full_meta"].MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{`"status"`, `"summary"`, `"data"`, `"suggestion"`, `"meta"`, `"source"`, `"duration_ms"`, `"truncated"`, `"omitted"`, `"ref"`}
	last := -1
	for _, k := range keys {
		i := strings.Index(string(got), k)
		if i <= last {
			t.Fatalf("key %s out of order in %s", k, got)
		}
		last = i
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		e    Envelope
		want string // substring of the error; "" for valid
	}{
		{"ok", Success("x: done", nil), ""},
		{"bad status", Envelope{Status: "ok", Summary: "x"}, `status "ok"`},
		{"no summary", Envelope{Status: llm.StatusSuccess, Summary: " \n"}, "summary is empty"},
		{"error without Error", Envelope{Status: llm.StatusError, Summary: "x failed"}, "needs an Error"},
		{"success with Error", Envelope{Status: llm.StatusSuccess, Summary: "x", Error: &Error{Type: Timeout}}, "cannot carry an Error"},
		{"partial with Error", Envelope{Status: llm.StatusPartial, Summary: "x", Error: &Error{Type: Timeout}}, ""},
		{"unknown type", Failure("oops", "x failed"), `error type "oops"`},
		{"negative retry", Envelope{Status: llm.StatusError, Summary: "x", Error: &Error{Type: Timeout, RetryAfter: -1}}, "negative"},
	}
	for _, tt := range tests {
		err := tt.e.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: Validate() = %v, want nil", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: Validate() = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

func TestResultNeverFails(t *testing.T) {
	tests := []struct {
		name string
		e    Envelope
		want string
	}{
		{"invalid envelope", Envelope{Status: llm.StatusError, Summary: "x"}, "needs an Error"},
		{"unencodable data", Success("x", map[string]any{"ch": make(chan int)}), "unsupported type"},
		{"invalid raw data", Success("x", jsontext.Value("{")), "not valid JSON"},
	}
	for _, tt := range tests {
		r := tt.e.Result("call_1", "lookup")
		if r.CallID != "call_1" || r.Name != "lookup" || r.Status != llm.StatusError {
			t.Errorf("%s: Result() = %+v, want an error result for call_1/lookup", tt.name, r)
		}
		text := r.Content[0].(llm.Text).Text
		env, err := Parse([]byte(text))
		if err != nil {
			t.Fatalf("%s: Parse(%s) error: %v", tt.name, text, err)
		}
		if env.Error.Type != InternalError || !strings.Contains(env.Error.Message, tt.want) {
			t.Errorf("%s: Result() error = %+v, want internal_error mentioning %q", tt.name, env.Error, tt.want)
		}
	}
}

func TestResultStatusAndContent(t *testing.T) {
	for name, e := range renderCases() {
		r := e.Result("c1", "tool")
		if r.Status != e.Status {
			t.Errorf("%s: Result().Status = %q, want %q", name, r.Status, e.Status)
		}
		if r.IsError() != (e.Status == llm.StatusError) {
			t.Errorf("%s: Result().IsError() = %v, want %v", name, r.IsError(), e.Status == llm.StatusError)
		}
		want, _ := e.MarshalJSON()
		if len(r.Content) != 1 || r.Content[0].(llm.Text).Text != string(want) {
			t.Errorf("%s: Result().Content = %v, want one text part %s", name, r.Content, want)
		}
	}
}

func TestParseRoundTrip(t *testing.T) {
	for name, e := range renderCases() {
		b, err := e.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: Parse(%s) error: %v", name, b, err)
		}
		again, err := back.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(b) {
			t.Errorf("%s: render(Parse(x)) = %s, want %s", name, again, b)
		}
	}
}

func TestOptions(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"retry later."}, "You could retry later."},
		{[]string{"retry in 6 s", "use the backup source"}, "You could retry in 6 s or use the backup source."},
		{[]string{"a", "b", "c"}, "You could a, b or c."},
	}
	for _, tt := range tests {
		if got := Options(tt.in...); got != tt.want {
			t.Errorf("Options(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, e := range renderCases() {
		b, _ := e.MarshalJSON()
		f.Add(b)
	}
	f.Add([]byte(`{"status":"error","summary":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Parse(b)
		if err != nil {
			return
		}
		out, err := e.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON of a parsed envelope failed: %v", err)
		}
		if _, err := Parse(out); err != nil {
			t.Fatalf("Parse(render(Parse(x))) failed: %v\n%s", err, out)
		}
	})
}

// TestEmptyWithoutSummary checks that Empty("") renders the success the
// protocol says an empty result is, not an internal_error for the
// missing summary.
func TestEmptyWithoutSummary(t *testing.T) {
	for _, summary := range []string{"", "  \n"} {
		r := Empty(summary).Result("c1", "search")
		text := r.Content[0].(llm.Text).Text
		want := `{"status":"success","summary":"` + EmptySummary + `","data":[]}`
		if r.Status != llm.StatusSuccess || text != want {
			t.Errorf("Empty(%q).Result() = %s %s, want success %s", summary, r.Status, text, want)
		}
	}
}

// TestParseMalformed holds Parse, which reads an envelope in one pass, to
// the verdict of a strict JSON check first: every prefix of a rendered
// envelope, and each with a byte spoiled, is refused, and a syntax error
// is reported where jsonx.Valid finds it.
func TestParseMalformed(t *testing.T) {
	for _, e := range renderCases() {
		b, err := e.MarshalJSON()
		if err != nil {
			continue
		}
		for n := range len(b) {
			if _, err := Parse(b[:n]); err == nil {
				t.Errorf("Parse(%s) = nil error, want one (truncated)", b[:n])
			}
		}
		for i := range b {
			spoiled := bytes.Clone(b)
			spoiled[i] = '}'
			_, err := Parse(spoiled)
			if verr := jsonx.Valid(spoiled); verr != nil {
				want := "toolresult: parse envelope: " + jsonx.Error("", llm.Dotted, spoiled, verr).Error()
				if err == nil || err.Error() != want {
					t.Errorf("Parse(%s) = %v, want %s", spoiled, err, want)
				}
			}
		}
	}
}

// TestRawMessageData: encoding/json's RawMessage as Data is raw JSON, as
// jsontext.Value is: compacted, its key order kept.
func TestRawMessageData(t *testing.T) {
	for _, data := range []any{json.RawMessage(`{"b": 1, "a": [true]}`), jsontext.Value(`{"b": 1, "a": [true]}`)} {
		b, err := Success("s", data).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"status":"success","summary":"s","data":{"b":1,"a":[true]}}`; string(b) != want {
			t.Errorf("Success(%T).MarshalJSON() = %s, want %s", data, b, want)
		}
	}
}
