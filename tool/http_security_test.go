package tool_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// call runs one call of t through an executor and returns its outcome.
func call(t *testing.T, ht tool.Tool, args string) tool.Outcome {
	t.Helper()
	return executor(t, nil, ht).Call(context.Background(), llm.ToolCall{ID: "c", Name: ht.Spec().Name, Input: jsontext.Value(args)})
}

// TestHTTPPathSegments: a path placeholder's value never changes which
// path prefix is called. The server is Go's ServeMux, which cleans paths
// and redirects "/api/v1/users/../../admin/profile" to
// "/api/admin/profile"; the handler of /api/ must never be reached.
func TestHTTPPathSegments(t *testing.T) {
	var escaped atomic.Int32
	var mu sync.Mutex
	var seen []string
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1/users/{org}/{team}/{id}/profile", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.PathValue("org")+"|"+r.PathValue("team")+"|"+r.PathValue("id"))
		mu.Unlock()
		_, _ = io.WriteString(w, `{"ok":true}`)
	})
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		escaped.Add(1)
		_, _ = io.WriteString(w, `{"escaped":true}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	spec := tool.Spec{
		Name: "profile", Description: "A user's profile.", Idempotency: tool.Level2,
		Parameters: jsontext.Value(`{"type":"object","properties":{"org":{"type":"string"},"team":{"type":"string"},"id":{"type":"string"}},"required":["org","team","id"]}`),
		HTTP:       &tool.HTTPBinding{Method: "GET", URL: srv.URL + "/api/v1/users/{org}/{team}/{id}/profile", Headers: map[string]string{"X-Api-Key": "k1"}},
	}
	ht, err := tool.NewHTTP(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args    string
		refused string // the parameter the refusal names; "" if the call goes through
		seen    string // what the profile handler saw when it goes through
	}{
		{`{"org":"..","team":"..","id":"admin"}`, "org", ""},
		{`{"org":"acme","team":"..","id":"admin"}`, "team", ""},
		{`{"org":".","team":"dev","id":"7"}`, "org", ""},
		{`{"org":"","team":"dev","id":"7"}`, "org", ""},
		{`{"org":"acme","team":"dev","id":""}`, "id", ""},
		{`{"org":"a/../../..","team":"x","id":"admin"}`, "org", ""},
		{`{"org":"..\\..","team":"x","id":"admin"}`, "org", ""},
		{`{"org":"%2e%2e","team":"%2E%2E","id":"admin"}`, "org", ""},
		{`{"org":"acme","team":"dev","id":"..%2f..%2fadmin"}`, "id", ""},
		{`{"org":"acme","team":"dev.ops","id":"42"}`, "", "acme|dev.ops|42"},
		{`{"org":"a/b","team":"..x","id":"x.."}`, "", "a/b|..x|x.."},
		{`{"org":"a?b#c","team":"50%","id":"sp ace"}`, "", "a?b#c|50%|sp ace"},
	}
	for _, tt := range tests {
		mu.Lock()
		seen = nil
		mu.Unlock()
		o := call(t, ht, tt.args)
		if escaped.Load() != 0 {
			t.Fatalf("Call(%s) reached /api/ outside the template's prefix", tt.args)
		}
		if tt.refused != "" {
			e := o.Envelope.Error
			if e == nil || e.Type != toolresult.InvalidArguments || !strings.Contains(e.Message, tt.refused) {
				t.Errorf("Call(%s) = %s, want invalid_arguments naming %s", tt.args, text(o.Result), tt.refused)
			}
			continue
		}
		mu.Lock()
		got := strings.Join(seen, ",")
		mu.Unlock()
		if o.Result.Status != llm.StatusSuccess || got != tt.seen {
			t.Errorf("Call(%s) = %s, server saw %q, want success with %q", tt.args, text(o.Result), got, tt.seen)
		}
	}
}

// TestHTTPQueryPlaceholders: a query placeholder's value stays one value
// of one parameter; it cannot add parameters or change the fixed ones.
func TestHTTPQueryPlaceholders(t *testing.T) {
	var got url.Values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.Query()
		_, _ = io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	spec := tool.Spec{
		Name: "search", Description: "Search.", Idempotency: tool.Level2,
		Parameters: jsontext.Value(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`),
		HTTP:       &tool.HTTPBinding{Method: "GET", URL: srv.URL + "/search?q={q}&scope=public"},
	}
	ht, err := tool.NewHTTP(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"shoes&scope=internal&admin=true", "a+b c", "x=y", "#frag", "%26admin%3Dtrue", "日本"} {
		got = nil
		args, _ := json.Marshal(map[string]string{"q": q})
		o := call(t, ht, string(args))
		want := url.Values{"q": {q}, "scope": {"public"}}
		if o.Result.Status != llm.StatusSuccess || got.Encode() != want.Encode() {
			t.Errorf("Call(q=%q): server saw %v (%s), want %v", q, got, text(o.Result), want)
		}
	}
}

// TestHTTPFixedParameters: an argument cannot replace or add to a query
// parameter the template fixes, whatever the method.
func TestHTTPFixedParameters(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	for _, method := range []string{"GET", "DELETE", "POST", "PUT", "PATCH"} {
		spec := tool.Spec{
			Name: "orders", Description: "Orders.", Idempotency: tool.Level2,
			Parameters: jsontext.Value(`{"type":"object","properties":{"q":{"type":"string"},"tenant":{"type":"string"}},"required":["q"]}`),
			HTTP:       &tool.HTTPBinding{Method: method, URL: srv.URL + "/orders?tenant=acme&q={q}"},
		}
		ht, err := tool.NewHTTP(spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		hits.Store(0)
		o := call(t, ht, `{"q":"x","tenant":"other-co"}`)
		e := o.Envelope.Error
		if e == nil || e.Type != toolresult.InvalidArguments || !strings.Contains(e.Message, `"tenant"`) || hits.Load() != 0 {
			t.Errorf("%s Call(tenant=other-co) = %s after %d requests, want invalid_arguments naming \"tenant\" and no request", method, text(o.Result), hits.Load())
		}
	}
}

// TestHTTPUndeclaredArguments: arguments the parameters do not declare are
// refused unless the schema allows them explicitly.
func TestHTTPUndeclaredArguments(t *testing.T) {
	var mu sync.Mutex
	var query, body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		query, body = r.URL.RawQuery, string(b)
		mu.Unlock()
		_, _ = io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	tests := []struct {
		method, params, args string
		refused              string // the argument the refusal names; "" if sent
		query, body          string
	}{
		{"GET", `{"type":"object","properties":{"q":{"type":"string"}}}`, `{"q":"x","tenant":"other-co"}`, "tenant", "", ""},
		{"POST", `{"type":"object","properties":{"q":{"type":"string"}}}`, `{"q":"x","admin":true}`, "admin", "", ""},
		{"GET", `{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":true}`, `{"q":"x","tenant":"other-co"}`, "", "q=x&tenant=other-co", ""},
		{"POST", `{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":{"type":"boolean"}}`, `{"q":"x","admin":true}`, "", "", `{"admin":true,"q":"x"}`},
		{"GET", `{"type":"object","allOf":[{"properties":{"q":{"type":"string"}}}]}`, `{"q":"x"}`, "", "q=x", ""},
	}
	for _, tt := range tests {
		ht, err := tool.NewHTTP(tool.Spec{Name: "t", Description: "T.", Idempotency: tool.Level2, Parameters: jsontext.Value(tt.params),
			HTTP: &tool.HTTPBinding{Method: tt.method, URL: srv.URL + "/t"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		query, body = "-", "-"
		mu.Unlock()
		o := call(t, ht, tt.args)
		mu.Lock()
		gotQuery, gotBody := query, body
		mu.Unlock()
		if tt.refused != "" {
			e := o.Envelope.Error
			if e == nil || e.Type != toolresult.InvalidArguments || !strings.Contains(e.Message, `"`+tt.refused+`"`) || gotQuery != "-" {
				t.Errorf("%s %s Call(%s) = %s, want invalid_arguments naming %q and no request", tt.method, tt.params, tt.args, text(o.Result), tt.refused)
			}
			continue
		}
		if o.Result.Status != llm.StatusSuccess || gotQuery != tt.query || gotBody != tt.body {
			t.Errorf("%s %s Call(%s) = %s, server saw query %q body %q, want %q %q", tt.method, tt.params, tt.args, text(o.Result), gotQuery, gotBody, tt.query, tt.body)
		}
	}
}

// TestHTTPRedirects: an HTTP tool follows redirects only within the
// origin (scheme, host, port) of its URL, and the binding's headers never
// reach another origin.
func TestHTTPRedirects(t *testing.T) {
	type hit struct{ path, key string }
	var mu sync.Mutex
	var other []hit
	record := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		other = append(other, hit{r.URL.Path, r.Header.Get("X-Api-Key")})
		mu.Unlock()
		_, _ = io.WriteString(w, `{"other":true}`)
	}
	elsewhere := httptest.NewServer(http.HandlerFunc(record))
	defer elsewhere.Close()
	var self *httptest.Server
	var loops atomic.Int32
	redirector := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/cross":
			http.Redirect(w, r, elsewhere.URL+"/stolen", http.StatusFound)
		case "/localhost":
			// The same server under another host name is another origin.
			http.Redirect(w, r, strings.Replace(self.URL, "127.0.0.1", "localhost", 1)+"/stolen", http.StatusFound)
		case "/same":
			http.Redirect(w, r, "/final", http.StatusFound)
		case "/loop":
			loops.Add(1)
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/stolen":
			record(w, r)
		case "/final":
			_, _ = io.WriteString(w, `{"key":"`+r.Header.Get("X-Api-Key")+`"}`)
		}
	})
	self = httptest.NewServer(redirector)
	defer self.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/downgraded", http.StatusFound)
	}))
	defer tlsSrv.Close()
	permissive := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}

	tests := []struct {
		name   string
		url    string
		client *http.Client
		want   string // in the result: the data, or the error message
		ok     bool
		hits   int // requests the other server should see (never with the key)
	}{
		{"same origin", self.URL + "/same", nil, `{"key":"k1"}`, true, 0},
		{"cross origin", self.URL + "/cross", nil, "redirect", false, 0},
		{"other host name", self.URL + "/localhost", nil, "redirect", false, 0},
		{"too many", self.URL + "/loop", nil, "redirect", false, 0},
		{"https to http", tlsSrv.URL + "/", tlsSrv.Client(), "redirect", false, 0},
		{"own policy", self.URL + "/cross", permissive, `{"other":true}`, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			other = nil
			mu.Unlock()
			spec := tool.Spec{Name: "r", Description: "R.", Idempotency: tool.Level0,
				Parameters: jsontext.Value(`{"type":"object"}`),
				HTTP:       &tool.HTTPBinding{Method: "GET", URL: tt.url, Headers: map[string]string{"X-Api-Key": "k1"}}}
			ht, err := tool.NewHTTP(spec, &tool.HTTPOptions{Client: tt.client})
			if err != nil {
				t.Fatal(err)
			}
			o := call(t, ht, `{}`)
			if got := o.Result.Status == llm.StatusSuccess; got != tt.ok || !strings.Contains(text(o.Result), tt.want) {
				t.Errorf("Call(%s) = %s, want success %v with %q", tt.url, text(o.Result), tt.ok, tt.want)
			}
			if n := loops.Swap(0); n > 6 {
				t.Errorf("Call(%s) followed %d redirects, want at most 5", tt.url, n-1)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(other) != tt.hits {
				t.Errorf("Call(%s): the other server saw %d requests, want %d", tt.url, len(other), tt.hits)
			}
			for _, h := range other {
				if h.key != "" {
					t.Errorf("Call(%s): the other server got X-Api-Key %q on %s", tt.url, h.key, h.path)
				}
			}
		})
	}
}
