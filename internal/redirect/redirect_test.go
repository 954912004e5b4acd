package redirect

import (
	"errors"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestSameOrigin(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"https://api.example.com/v1", "https://api.example.com/v2?x=1", true},
		{"https://api.example.com/", "https://API.Example.com:443/", true},
		{"HTTP://127.0.0.1/", "http://127.0.0.1:80/x", true},
		{"https://api.example.com/", "http://api.example.com/", false},
		{"http://127.0.0.1:8080/", "http://localhost:8080/", false},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8081/", false},
		{"https://api.example.com/", "https://api.example.com.evil.test/", false},
		{"https://api.example.com/", "https://evil.test@api.example.com/", true},
		{"https://u:p@api.example.com/", "https://evil.test/", false},
	}
	for _, tt := range tests {
		if got := SameOrigin(mustParse(t, tt.a), mustParse(t, tt.b)); got != tt.want {
			t.Errorf("SameOrigin(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestCheck(t *testing.T) {
	first := &http.Request{URL: mustParse(t, "https://api.example.com/v1/x")}
	tests := []struct {
		to   string
		hops int
		want string // a part of the error; "" for none
	}{
		{"https://api.example.com/v2/x", 1, ""},
		{"https://api.example.com:443/v2/x", Max, ""},
		{"https://api.example.com/v2/x", Max + 1, "more than 5 redirects in a row, starting at https://api.example.com"},
		{"http://api.example.com/v1/x", 1, "https://api.example.com redirected to http://api.example.com, from https to http"},
		{"https://evil.test/steal", 1, "https://api.example.com redirected to another origin, https://evil.test; redirects are followed within the origin of the request only"},
		{"https://api.example.com:8443/", 1, "another origin, https://api.example.com:8443"},
	}
	for _, tt := range tests {
		via := make([]*http.Request, tt.hops)
		for i := range via {
			via[i] = first
		}
		err := Check(&http.Request{URL: mustParse(t, tt.to)}, via)
		if tt.want == "" {
			if err != nil {
				t.Errorf("Check(%s after %d) = %v, want nil", tt.to, tt.hops, err)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%s after %d) = %v, want ErrRefused saying %q", tt.to, tt.hops, err, tt.want)
		}
	}
}

// TestClientHeaders: a request to another origin keeps only the generic
// headers, before the caller's own policy sees it; one to the same origin
// keeps them all. The caller's client is not changed.
func TestClientHeaders(t *testing.T) {
	var seen http.Header
	own := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		seen = req.Header.Clone()
		return nil
	}}
	c := Client(own)
	if c == own {
		t.Fatal("Client(c) returned c itself, want a copy")
	}
	first := &http.Request{URL: mustParse(t, "https://api.example.com/")}
	header := func() http.Header {
		return http.Header{"X-Api-Key": {"k"}, "Authorization": {"Bearer k"}, "Referer": {"https://api.example.com/?q=secret"},
			"Accept": {"application/json"}, "User-Agent": {"toolwire"}, "Content-Type": {"application/json"}}
	}
	tests := []struct {
		to   string
		want []string
	}{
		{"https://api.example.com/next", []string{"Accept", "Authorization", "Content-Type", "Referer", "User-Agent", "X-Api-Key"}},
		{"https://other.example.com/", []string{"Accept", "Content-Type", "User-Agent"}},
		{"http://api.example.com/", []string{"Accept", "Content-Type", "User-Agent"}},
	}
	for _, tt := range tests {
		seen = nil
		if err := c.CheckRedirect(&http.Request{URL: mustParse(t, tt.to), Header: header()}, []*http.Request{first}); err != nil {
			t.Fatalf("CheckRedirect(%s) = %v, want the caller's nil", tt.to, err)
		}
		if g, w := strings.Join(slices.Sorted(maps.Keys(seen)), ","), strings.Join(tt.want, ","); g != w {
			t.Errorf("CheckRedirect(%s) left headers %s, want %s", tt.to, g, w)
		}
	}
	if err := Client(nil).CheckRedirect(&http.Request{URL: mustParse(t, "https://evil.test/"), Header: header()}, []*http.Request{first}); !errors.Is(err, ErrRefused) {
		t.Errorf("Client(nil).CheckRedirect(another origin) = %v, want ErrRefused", err)
	}
}
