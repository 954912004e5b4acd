package tool_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

func httpSpec(name, method, url string, level tool.Idempotency) tool.Spec {
	return tool.Spec{
		Name: name, Description: "An HTTP tool.", Idempotency: level,
		Parameters: jsontext.Value(`{"type":"object","properties":{"id":{"type":"string"},"q":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},"n":{"type":"integer"}},"required":["id"]}`),
		HTTP:       &tool.HTTPBinding{Method: method, URL: url, Headers: map[string]string{"X-Api-Key": "k1"}},
	}
}

func TestHTTPStatuses(t *testing.T) {
	tests := []struct {
		status     int
		header     string
		body       string
		wantStatus llm.Status
		wantType   toolresult.ErrorType
		retryable  bool
		retryAfter time.Duration
	}{
		{200, "", `{"ok": true}`, llm.StatusSuccess, "", false, 0},
		{204, "", ``, llm.StatusSuccess, "", false, 0},
		{200, "", `plain text`, llm.StatusSuccess, "", false, 0},
		{429, "7", `{"error": {"message": "too many requests"}}`, llm.StatusError, toolresult.RateLimited, true, 7 * time.Second},
		{404, "", `{"message": "no such item"}`, llm.StatusError, toolresult.NotFound, false, 0},
		{410, "", ``, llm.StatusError, toolresult.NotFound, false, 0},
		{401, "", `unauthorized`, llm.StatusError, toolresult.PermissionDenied, false, 0},
		{403, "", ``, llm.StatusError, toolresult.PermissionDenied, false, 0},
		{409, "", `{"detail": "version mismatch"}`, llm.StatusError, toolresult.Conflict, false, 0},
		{422, "", `{"message": "id must be numeric"}`, llm.StatusError, toolresult.InvalidArguments, false, 0},
		{500, "", `oops`, llm.StatusError, toolresult.UpstreamError, true, 0},
		{503, "2", ``, llm.StatusError, toolresult.UpstreamError, true, 2 * time.Second},
		{504, "", ``, llm.StatusError, toolresult.Timeout, false, 0}, // level_0: a timeout may have taken effect
		{418, "", ``, llm.StatusError, toolresult.UpstreamError, false, 0},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.header != "" {
					w.Header().Set("Retry-After", tt.header)
				}
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			ht, err := tool.NewHTTP(httpSpec("get_item", "GET", srv.URL+"/items/{id}", tool.Level0), nil)
			if err != nil {
				t.Fatal(err)
			}
			ex := executor(t, nil, ht)
			o := ex.Call(context.Background(), llm.ToolCall{ID: "c", Name: "get_item", Input: jsontext.Value(`{"id": "7"}`)})
			if o.Result.Status != tt.wantStatus {
				t.Fatalf("HTTP %d: status = %v, want %v (%s)", tt.status, o.Result.Status, tt.wantStatus, text(o.Result))
			}
			if tt.wantType == "" {
				return
			}
			e := o.Envelope.Error
			if e.Type != tt.wantType || e.Retryable != tt.retryable || e.RetryAfter != tt.retryAfter {
				t.Errorf("HTTP %d: error = %+v, want type %s, retryable %v, retry after %v", tt.status, e, tt.wantType, tt.retryable, tt.retryAfter)
			}
			if !strings.Contains(e.Message, "GET 127.0.0.1") {
				t.Errorf("HTTP %d: message %q does not say which request failed", tt.status, e.Message)
			}
		})
	}
}

func TestHTTPRequestShape(t *testing.T) {
	type seen struct {
		method, path, query, body, key, apiKey, ctype string
	}
	var mu sync.Mutex
	var got []seen
	fails := 1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, string(b), r.Header.Get("Idempotency-Key"), r.Header.Get("X-Api-Key"), r.Header.Get("Content-Type")})
		fail := r.Method == "POST" && fails > 0
		if fail {
			fails--
		}
		mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		_, _ = io.WriteString(w, `{"done": true}`)
	}))
	defer srv.Close()
	get, err := tool.NewHTTP(httpSpec("find", "GET", srv.URL+"/v1/{id}/items", tool.Level2), nil)
	if err != nil {
		t.Fatal(err)
	}
	post, err := tool.NewHTTP(httpSpec("create", "POST", srv.URL+"/v1/{id}", tool.Level1), nil)
	if err != nil {
		t.Fatal(err)
	}
	ex := executor(t, &tool.Config{BaseBackoff: time.Millisecond}, get, post)
	o := ex.Call(context.Background(), llm.ToolCall{ID: "g", Name: "find", Input: jsontext.Value(`{"id": "a b/c", "q": "x&y", "tags": ["p", "q"], "n": 3}`)})
	if o.Result.Status != llm.StatusSuccess || o.Envelope.Meta.Source != strings.TrimPrefix(srv.URL, "http://") {
		t.Errorf("GET call = %s, want success from %s", text(o.Result), srv.URL)
	}
	o = ex.Call(context.Background(), llm.ToolCall{ID: "p", Name: "create", Input: jsontext.Value(`{"id": "42", "q": "<b>", "n": 1}`)})
	if o.Result.Status != llm.StatusSuccess || o.Envelope.Meta.Attempts != 2 {
		t.Errorf("POST call = %s, want success after 2 attempts", text(o.Result))
	}
	if len(got) != 3 {
		t.Fatalf("server saw %d requests, want 3", len(got))
	}
	if g := got[0]; g.method != "GET" || g.path != "/v1/a%20b%2Fc/items" || g.query != "n=3&q=x%26y&tags=p&tags=q" || g.body != "" || g.key != "" || g.apiKey != "k1" {
		t.Errorf("GET request = %+v", g)
	}
	if p := got[1]; p.method != "POST" || p.path != "/v1/42" || p.body != `{"n":1,"q":"<b>"}` || p.ctype != "application/json" || !strings.HasPrefix(p.key, "idem_") {
		t.Errorf("POST request = %+v", p)
	}
	if got[1].key != got[2].key {
		t.Errorf("retry sent Idempotency-Key %q, first attempt %q; want the same key", got[2].key, got[1].key)
	}
}

func TestNewHTTPErrors(t *testing.T) {
	tests := []struct {
		spec tool.Spec
		want string
	}{
		{tool.Spec{Name: "a"}, `tool: new http tool "a": the spec has no HTTP binding`},
		{httpSpec("a", "FETCH", "https://x.example/{id}", ""), `tool: new http tool: tool a: http.method: "FETCH" is not one of GET, POST, PUT, PATCH, DELETE`},
		{httpSpec("a", "GET", "ftp://x.example/{id}", ""), `tool: new http tool: tool a: http.url: "ftp://x.example/{id}" is not an absolute http or https URL`},
		{httpSpec("a", "GET", "https://x.example/{nope}", ""), `tool: new http tool: tool a: http.url: placeholder {nope} names no property of the parameters`},
		{httpSpec("a", "GET", "https://x.example/{q}", ""), `tool: new http tool: tool a: http.url: placeholder {q} names an optional property without a default; make it required`},
		{httpSpec("a", "GET", "https://{id}.example/x", ""), `tool: new http tool: tool a: http.url: placeholder {id} is in the scheme, host or port: an argument would choose the server; put placeholders in the path or in query values only`},
		{httpSpec("a", "GET", "https://x.example:{id}/x", ""), `tool: new http tool: tool a: http.url: placeholder {id} is in the scheme, host or port: an argument would choose the server; put placeholders in the path or in query values only`},
		{httpSpec("a", "GET", "https://x.example/x?{id}=1", ""), `tool: new http tool: tool a: http.url: placeholder {id} is in a query parameter's name; put placeholders in query values only`},
		{httpSpec("a", "GET", "https://x.example/x#{id}", ""), `tool: new http tool: tool a: http.url: placeholder {id} is in the fragment, which is never sent; put placeholders in the path or in query values only`},
		{httpSpec("a", "GET", "https://x.example/v1/../admin/{id}", ""), `tool: new http tool: tool a: http.url: the path has a ".." segment; write the path the server should see`},
	}
	for _, tt := range tests {
		_, err := tool.NewHTTP(tt.spec, nil)
		if err == nil || err.Error() != tt.want {
			t.Errorf("NewHTTP(%s %v) = %v, want %q", tt.spec.Name, tt.spec.HTTP, err, tt.want)
		}
	}
}

// A transport failure is an upstream_error; an unreachable host never
// panics or hangs.
func TestHTTPTransportError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	ht, err := tool.NewHTTP(httpSpec("down", "GET", url+"/{id}", tool.Level0), nil)
	if err != nil {
		t.Fatal(err)
	}
	o := executor(t, nil, ht).Call(context.Background(), llm.ToolCall{ID: "c", Name: "down", Input: jsontext.Value(`{"id": "1"}`)})
	if e := o.Envelope.Error; e == nil || e.Type != toolresult.UpstreamError || !strings.Contains(e.Message, "GET 127.0.0.1") {
		t.Errorf("Call(down) = %s, want upstream_error naming the request", text(o.Result))
	}
}
