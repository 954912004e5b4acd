package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/provider"
)

// TestDoRedirects: a provider client follows redirects only within the
// origin of its base URL, and its key headers never reach another origin,
// whatever client the caller passes.
func TestDoRedirects(t *testing.T) {
	type hit struct{ path, key, goog string }
	var mu sync.Mutex
	var other []hit
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		other = append(other, hit{r.URL.Path, r.Header.Get("X-Api-Key"), r.Header.Get("X-Goog-Api-Key")})
		mu.Unlock()
		io.WriteString(w, "elsewhere")
	}))
	defer elsewhere.Close()
	self := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/cross":
			http.Redirect(w, r, elsewhere.URL+"/stolen", http.StatusTemporaryRedirect)
		case "/same":
			http.Redirect(w, r, "/final", http.StatusTemporaryRedirect)
		case "/final":
			io.WriteString(w, "key="+r.Header.Get("X-Api-Key"))
		}
	}))
	defer self.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/downgraded", http.StatusTemporaryRedirect)
	}))
	defer tlsSrv.Close()
	permissive := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}

	tests := []struct {
		name   string
		url    string
		client *http.Client
		want   string // the body read, or a part of the error
		hits   int    // requests the other server should see, never with a key
	}{
		{"same origin", self.URL + "/same", nil, "key=k1", 0},
		{"cross origin", self.URL + "/cross", nil, "redirect refused", 0},
		{"https to http", tlsSrv.URL + "/", tlsSrv.Client(), "redirect refused", 0},
		{"caller's policy", self.URL + "/cross", permissive, "elsewhere", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			other = nil
			mu.Unlock()
			c, err := Open("op", provider.Options{BaseURL: tt.url, Header: http.Header{"X-Api-Key": {"k1"}, "X-Goog-Api-Key": {"k2"}},
				HTTPClient: tt.client, MaxRetries: -1}, "", &testErrors)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			resp, err := c.Do(context.Background(), Post(c.URL(""), c.Header(), []byte(`{}`)))
			if err != nil {
				got = err.Error()
			} else {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				got = string(b)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("Do(%s) = %q, want %q", tt.url, got, tt.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(other) != tt.hits {
				t.Errorf("Do(%s): the other server saw %d requests, want %d", tt.url, len(other), tt.hits)
			}
			for _, h := range other {
				if h.key != "" || h.goog != "" {
					t.Errorf("Do(%s): the other server got x-api-key %q, x-goog-api-key %q on %s", tt.url, h.key, h.goog, h.path)
				}
			}
		})
	}
	if permissive.CheckRedirect == nil {
		t.Error("Open changed the caller's http.Client")
	}
}

// TestAnswerLimit: a whole JSON answer larger than MaxAnswerBytes fails
// with an error naming the limit; one at the limit is read. A stream has
// no overall limit (each event has its own).
func TestAnswerLimit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", r.Header.Get("Want-Type"))
		n := 1000
		if r.URL.Path == "/big" {
			n = 1001
		}
		io.WriteString(w, `"`+strings.Repeat("a", n-2)+`"`)
	}))
	defer srv.Close()
	tests := []struct {
		path, ctype string
		want        string // a part of the error; "" for none
	}{
		{"/fits", "application/json", ""},
		{"/big", "application/json", "the answer is too large: more than 1000 bytes, the limit for a whole JSON answer"},
	}
	for _, tt := range tests {
		c, err := New("op", provider.Options{}, &testErrors)
		if err != nil {
			t.Fatal(err)
		}
		c.maxAnswer = 1000
		resp, err := c.Do(context.Background(), func(ctx context.Context) (*http.Request, error) {
			r, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+tt.path, nil)
			r.Header.Set("Want-Type", tt.ctype)
			return r, err
		})
		if err != nil {
			t.Fatal(err)
		}
		var n int
		err = Read(resp, func(data []byte) error { n = len(data); return nil }, nil, nil)
		resp.Body.Close()
		if tt.want == "" {
			if err != nil || n != 1000 {
				t.Errorf("Read(%s) = %d bytes, %v, want 1000 bytes", tt.path, n, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrTooLarge) {
			t.Errorf("Read(%s) = %v, want an error saying %q", tt.path, err, tt.want)
		}
	}
	if c, _ := New("op", provider.Options{}, &testErrors); c.maxAnswer != 64<<20 {
		t.Errorf("default largest answer = %d, want 64 MiB", c.maxAnswer)
	}
}
