package gateway

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/transcript"
)

// TestStreamingPassesThrough checks that the gateway copies a streamed
// answer as it comes: the client reads the first chunk while the
// upstream has not yet sent the last one (it sends it only when the test
// says the client has the first).
func TestStreamingPassesThrough(t *testing.T) {
	for _, d := range transcript.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			firstSeen := make(chan struct{})
			lastSent := make(chan struct{})
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(200)
				io.WriteString(w, "data: {\"chunk\":1}\n\n")
				w.(http.Flusher).Flush()
				select {
				case <-firstSeen:
				case <-r.Context().Done():
					return
				}
				io.WriteString(w, "data: {\"chunk\":2}\n\n")
				close(lastSent)
			}))
			defer up.Close()
			base, _ := newGateway(t, up.URL, Config{})
			req, _ := http.NewRequest("POST", base+pathOf(d, true), bytes.NewReader(body(t, d, okHistory("sunny"), true)))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			got := make(chan string, 1)
			go func() {
				line, _ := br.ReadString('\n')
				got <- line
			}()
			select {
			case line := <-got:
				if line != "data: {\"chunk\":1}\n" {
					t.Fatalf("first line = %q", line)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the first chunk did not reach the client while the upstream held back the last one: the gateway buffers")
			}
			select {
			case <-lastSent:
				t.Fatal("the last chunk was sent before the client read the first")
			default:
			}
			close(firstSeen)
			rest, _ := io.ReadAll(br)
			if want := "\ndata: {\"chunk\":2}\n\n"; string(rest) != want {
				t.Errorf("rest = %q, want %q", rest, want)
			}
			if v := resp.Header.Get(VerdictHeader); v != string(VerdictAccepted) {
				t.Errorf("%s = %q", VerdictHeader, v)
			}
		})
	}
}

// TestLargeBodies sends bodies of 1 MB and 10 MB, accepted and broken,
// through the gateway to the conformance server.
func TestLargeBodies(t *testing.T) {
	for _, size := range []int{1 << 20, 10 << 20} {
		big := strings.Repeat("x", size)
		for _, d := range []transcript.Dialect{transcript.OpenAIChat, transcript.Anthropic} {
			accepted := body(t, d, okHistory(big), false)
			broken := body(t, d, append(okHistory(big), llm.Assistant(call("call_9", "get_weather", `{}`)), llm.User("?")), false)
			for name, data := range map[string][]byte{"accepted": accepted, "broken": broken} {
				t.Run(fmt.Sprintf("%s/%s/%dMiB", d, name, size>>20), func(t *testing.T) {
					up := llmtest.NewServer(t, llmtest.Turn{Text: "ok"})
					base, _ := newGateway(t, up.URL, Config{})
					resp, b := post(t, base, d, data, false)
					if resp.StatusCode != 200 {
						t.Fatalf("status %d: %.300s", resp.StatusCode, b)
					}
					reqs := up.Requests()
					if len(reqs) != 1 {
						t.Fatalf("the upstream got %d requests", len(reqs))
					}
					if name == "accepted" && !bytes.Equal(reqs[0].Body, data) {
						t.Errorf("an accepted body was changed on the way (%d bytes sent, %d received)", len(data), len(reqs[0].Body))
					}
					if name == "broken" && resp.Header.Get(VerdictHeader) != string(VerdictRepaired) {
						t.Errorf("verdict %q, want repaired", resp.Header.Get(VerdictHeader))
					}
				})
			}
		}
	}
}

// TestBrowserPages checks that a gateway without a token refuses what a
// page of another site, open in a browser on the machine, sends it
// (net/http's CrossOriginProtection), and any host name but loopback's
// (DNS rebinding), in each provider's shape, while a client that is not a
// browser goes through; with a token, any host name is answered.
func TestBrowserPages(t *testing.T) {
	ok := make([]llmtest.Turn, 8) // the requests that go through: two per dialect
	for i := range ok {
		ok[i] = llmtest.Turn{Text: "ok"}
	}
	up := llmtest.NewServer(t, ok...)
	open, _ := newGateway(t, up.URL, Config{})
	guarded, _ := newGateway(t, up.URL, Config{Token: "s3cret"})
	for _, d := range transcript.Dialects() {
		data := body(t, d, okHistory("sunny"), false)
		for _, tc := range []struct {
			name   string
			base   string
			header []string
			status int
			says   string
		}{
			{"a client", open, nil, 200, ""},
			{"a page of another site", open, []string{"Sec-Fetch-Site", "cross-site"}, 403, "Sec-Fetch-Site: cross-site"},
			{"an old browser's page", open, []string{"Origin", "https://evil.example"}, 403, "https://evil.example"},
			{"a rebound host name", open, []string{"Host", "evil.example:8787"}, 403, "evil.example:8787"},
			{"a host name, with a token", guarded, []string{"Host", "gw.example:8787", TokenHeader, "s3cret"}, 200, ""},
			{"a page of another site, with a token", guarded, []string{"Sec-Fetch-Site", "cross-site", TokenHeader, "s3cret"}, 403, "cross-site"},
		} {
			t.Run(string(d)+"/"+tc.name, func(t *testing.T) {
				before := len(up.Requests())
				resp, b := post(t, tc.base, d, data, false, tc.header...)
				if resp.StatusCode != tc.status {
					t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, b)
				}
				sent := len(up.Requests()) - before
				if tc.status == 200 {
					if sent != 1 {
						t.Errorf("the upstream got %d requests, want 1", sent)
					}
					return
				}
				if sent != 0 {
					t.Errorf("the upstream got %d requests, want none", sent)
				}
				msg, detail := providerError(t, d, tc.status, b)
				if detail.Error != codeCrossOrigin || !strings.Contains(msg, tc.says) {
					t.Errorf("toolwire.error %q, message %q: want %s naming %q", detail.Error, msg, codeCrossOrigin, tc.says)
				}
			})
		}
	}
}

// TestRefusals checks the answers the gateway makes itself, in each
// provider's shape: a body too large, invalid JSON, a body of another
// shape, a wrong path or method, a missing token.
func TestRefusals(t *testing.T) {
	up := llmtest.NewServer(t)
	base, _ := newGateway(t, up.URL, Config{MaxBody: 4096, Token: "s3cret"})
	tok := []string{TokenHeader, "s3cret"}
	for _, d := range transcript.Dialects() {
		cases := []struct {
			name   string
			data   []byte
			header []string
			status int
			code   string
		}{
			{"too-large", body(t, d, okHistory(strings.Repeat("x", 5000)), false), tok, 413, codeTooLarge},
			{"invalid-json", []byte(`{"messages": [`), tok, 400, codeInvalidBody},
			{"not-an-object", []byte(`"hello"`), tok, 400, codeInvalidBody},
			{"no-token", body(t, d, okHistory("sunny"), false), nil, 401, codeUnauthorized},
			{"wrong-token", body(t, d, okHistory("sunny"), false), []string{TokenHeader, "s3cre"}, 401, codeUnauthorized},
		}
		for _, tc := range cases {
			t.Run(string(d)+"/"+tc.name, func(t *testing.T) {
				resp, b := post(t, base, d, tc.data, false, tc.header...)
				if resp.StatusCode != tc.status {
					t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, b)
				}
				_, detail := providerError(t, d, tc.status, b)
				if detail.Error != tc.code {
					t.Errorf("toolwire.error = %q, want %q", detail.Error, tc.code)
				}
				if v := resp.Header.Get(VerdictHeader); v != string(VerdictError) {
					t.Errorf("%s = %q, want error", VerdictHeader, v)
				}
			})
		}
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests, want none", n)
	}
	for _, tc := range []struct {
		method, path string
		status       int
		gemini       bool
	}{
		{"POST", "/v1/embeddings", 404, false},
		{"GET", "/v1/models", 404, false},
		{"POST", "/v1beta/models/gemini-2.5-flash:countTokens", 404, true},
		{"POST", "/v1beta/models/gemini-2.5-flash", 404, true},
		{"GET", "/v1/chat/completions", 405, false},
		{"GET", "/v1beta/models/gemini-2.5-flash:generateContent", 405, true},
	} {
		req, _ := http.NewRequest(tc.method, base+tc.path, strings.NewReader("{}"))
		req.Header.Set(TokenHeader, "s3cret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s %s = %d, want %d: %s", tc.method, tc.path, resp.StatusCode, tc.status, b)
			continue
		}
		d := transcript.OpenAIChat
		if tc.gemini {
			d = transcript.Gemini
		}
		msg, _ := providerError(t, d, tc.status, b)
		if !strings.Contains(msg, tc.path) {
			t.Errorf("%s %s: message %q does not name the path", tc.method, tc.path, msg)
		}
	}
}

// TestPassForwardsUnreadable checks that policy pass sends upstream what
// it cannot read, and the upstream's answer comes back.
func TestPassForwardsUnreadable(t *testing.T) {
	up := llmtest.NewServer(t)
	base, _ := newGateway(t, up.URL, Config{Policy: Pass})
	resp, b := post(t, base, transcript.OpenAIChat, []byte(`{"messages": [`), false)
	if resp.StatusCode != 400 || resp.Header.Get(VerdictHeader) != string(VerdictUnreadable) {
		t.Errorf("status %d, verdict %q, want the upstream's 400, unreadable: %s", resp.StatusCode, resp.Header.Get(VerdictHeader), b)
	}
	if reqs := up.Requests(); len(reqs) != 1 || reqs[0].Rejected == "" {
		t.Errorf("the upstream got %+v, want the one request, which it refused", reqs)
	}
}

// TestUpstreamFailures checks the answers to an upstream that cannot be
// reached, resets the connection, does not answer in time, or goes
// silent in the middle of a stream.
func TestUpstreamFailures(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	reset := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		conn.(*net.TCPConn).SetLinger(0)
		conn.Close()
	}))
	defer reset.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	defer close(release) // before the servers close, which waits for their handlers
	for _, tc := range []struct {
		name     string
		upstream string
		status   int
		code     string
	}{
		{"hang", hang.URL, 504, codeTimeout},
		{"reset", reset.URL, 502, codeUnreachable},
		{"unreachable", closed, 502, codeUnreachable},
	} {
		for _, d := range transcript.Dialects() {
			t.Run(tc.name+"/"+string(d), func(t *testing.T) {
				base, _ := newGateway(t, tc.upstream, Config{UpstreamTimeout: 100 * time.Millisecond})
				resp, b := post(t, base, d, body(t, d, okHistory("sunny"), false), false, "x-goog-api-key", "AIzaSECRET")
				if resp.StatusCode != tc.status {
					t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, b)
				}
				_, detail := providerError(t, d, tc.status, b)
				if detail.Error != tc.code {
					t.Errorf("toolwire.error = %q, want %q", detail.Error, tc.code)
				}
			})
		}
	}
	t.Run("silent-stream", func(t *testing.T) {
		release := make(chan struct{})
		silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {}\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer silent.Close()
		defer close(release)
		base, _ := newGateway(t, silent.URL, Config{IdleTimeout: 100 * time.Millisecond})
		req, _ := http.NewRequest("POST", base+pathOf(transcript.OpenAIChat, true), bytes.NewReader(body(t, transcript.OpenAIChat, okHistory("sunny"), true)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil || string(b) != "data: {}\n\n" {
			t.Errorf("read %q, %v; want the first event, then an error: the stream is cut", b, err)
		}
	})
}

// TestKeysPassThrough checks that the provider's key reaches the upstream
// in the header the client sent it in (or Gemini's ?key=), that the
// gateway's token does not, and that neither is logged.
func TestKeysPassThrough(t *testing.T) {
	const key = "sk-live-SECRET-4242"
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for _, tc := range []struct {
		d      transcript.Dialect
		header string
		value  string
		query  bool
	}{
		{transcript.OpenAIChat, "Authorization", "Bearer " + key, false},
		{transcript.OpenAIResponses, "Authorization", "Bearer " + key, false},
		{transcript.Anthropic, "x-api-key", key, false},
		{transcript.Gemini, "x-goog-api-key", key, false},
		{transcript.Gemini, "", "", true},
	} {
		t.Run(string(tc.d)+"/"+orDash(tc.header), func(t *testing.T) {
			up := llmtest.NewServer(t, llmtest.Turn{Text: "ok"})
			up.APIKey = key
			base, _ := newGateway(t, up.URL, Config{Token: "gw-token", Logger: logger})
			data := body(t, tc.d, append(okHistory("sunny"), llm.Assistant(call("call_2", "x", "{}"))), false) // repaired on the way
			url := base + pathOf(tc.d, false)
			if tc.query {
				url += "?key=" + key
			}
			req, _ := http.NewRequest("POST", url, bytes.NewReader(data))
			if tc.header != "" {
				req.Header.Set(tc.header, tc.value)
			}
			req.Header.Set(TokenHeader, "gw-token")
			req.Header.Set("anthropic-version", "2023-06-01")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			reqs := up.Requests()
			if len(reqs) != 1 {
				t.Fatalf("upstream got %d requests", len(reqs))
			}
			if got := reqs[0].Header.Get(TokenHeader); got != "" {
				t.Errorf("the upstream got the gateway's token %q", got)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(logs.String(), "SECRET") || strings.Contains(logs.String(), "gw-token") {
		t.Errorf("the log holds a key or the token:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "verdict=repaired") {
		t.Errorf("the log has no verdict:\n%s", logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// TestServeNeedsToken checks that Serve refuses an address off loopback
// without a token, as toolwire serve does.
func TestServeNeedsToken(t *testing.T) {
	g, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skipf("cannot listen on every interface here: %v", err)
	}
	if err := g.Serve(context.Background(), ln, time.Second); err == nil || !strings.Contains(err.Error(), "needs a token") {
		t.Errorf("Serve on %s without a token = %v, want a refusal", ln.Addr(), err)
	}
}

// TestUnrepairable checks that policy repair refuses, in the provider's
// shape, a body its repair cannot make acceptable without guessing (a
// call with two different results), listing what is left.
func TestUnrepairable(t *testing.T) {
	up := llmtest.NewServer(t)
	base, _ := newGateway(t, up.URL, Config{Policy: Repair})
	msgs := []llm.Message{llm.User("Weather in Paris?"), llm.Assistant(call("call_1", "get_weather", `{"city":"Paris"}`)),
		llm.Tool(result("call_1", "get_weather", "sunny")), llm.Tool(result("call_1", "get_weather", "rain")), llm.User("Which one?")}
	resp, b := post(t, base, transcript.OpenAIChat, body(t, transcript.OpenAIChat, msgs, false), false)
	if resp.StatusCode != 400 || resp.Header.Get(VerdictHeader) != string(VerdictRejected) {
		t.Fatalf("status %d, verdict %q: %s", resp.StatusCode, resp.Header.Get(VerdictHeader), b)
	}
	msg, detail := providerError(t, transcript.OpenAIChat, 400, b)
	if detail.Error != codeUnrepairable || detail.Fixable == nil || *detail.Fixable || len(detail.Violations) == 0 || !strings.Contains(msg, "cannot fix it without guessing") {
		t.Errorf("message %q, detail %+v", msg, detail)
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests", n)
	}
}
