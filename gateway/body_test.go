package gateway

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/transcript"
)

// TestHeldBodiesUnderLoad sends many different bodies at once through
// the gateway, under each policy, to an upstream that checks each body
// against the sum its client put in a header, and that answers some
// requests before it has read their bodies. A pooled buffer handed to
// two requests at once shows as a wrong sum here, or as a race under
// -race.
func TestHeldBodiesUnderLoad(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Early") == "1" {
			w.WriteHeader(http.StatusOK) // before reading the body
			io.WriteString(w, `{}`)
			return
		}
		b, _ := io.ReadAll(r.Body)
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != r.Header.Get("X-Sum") {
			http.Error(w, "the body is not the one sent", http.StatusConflict)
			return
		}
		io.WriteString(w, `{}`)
	}))
	defer up.Close()
	for _, policy := range []Policy{Pass, Repair, Reject} {
		base, _ := newGateway(t, up.URL, Config{Policy: policy})
		t.Run(string(policy), func(t *testing.T) {
			var wg sync.WaitGroup
			for c := range 8 {
				wg.Go(func() {
					for i := range 12 {
						text := strings.Repeat(fmt.Sprintf("client %d request %d; ", c, i), 40*(1+(c*12+i)%37))
						data := body(t, transcript.OpenAIChat, []llm.Message{llm.User("Go on."), llm.Assistant(llm.Text{Text: text})}, false)
						sum := sha256.Sum256(data)
						req, _ := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(data))
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set("X-Sum", hex.EncodeToString(sum[:]))
						if i%3 == 0 {
							req.Header.Set("X-Early", "1")
						}
						resp, err := http.DefaultClient.Do(req)
						if err != nil {
							t.Error(err)
							return
						}
						b, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						if resp.StatusCode != http.StatusOK {
							t.Errorf("client %d request %d: %d %s", c, i, resp.StatusCode, b)
						}
					}
				})
			}
			wg.Wait()
		})
	}
}

// lateTransport answers each request at once, with the body unread, and
// reads the body only when told: as a transport may, after the answer
// has come back (http.RoundTripper).
type lateTransport struct {
	read chan struct{} // closed to let the bodies be read
	mu   sync.Mutex
	errs []error
	done sync.WaitGroup
}

func (lt *lateTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	lt.done.Go(func() {
		<-lt.read
		_, err := io.ReadAll(r.Body)
		r.Body.Close()
		lt.mu.Lock()
		lt.errs = append(lt.errs, err)
		lt.mu.Unlock()
	})
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{}`)), Request: r}, nil
}

// TestHeldBodyOutlivesNoRead checks that a body's pooled buffer is
// recycled once, when its handler returns, and that the transport cannot
// read it after that: the read fails rather than see another request's
// bytes.
func TestHeldBodyOutlivesNoRead(t *testing.T) {
	recycled := make(chan struct{}, 4)
	defer func(f func(*[]byte)) { recycle = f }(recycle)
	recycle = func(*[]byte) { recycled <- struct{}{} }
	lt := &lateTransport{read: make(chan struct{})}
	base, _ := newGateway(t, "http://upstream.invalid", Config{Policy: Pass, Transport: lt})
	data := body(t, transcript.OpenAIChat, []llm.Message{llm.User("Go on.")}, false)
	resp, b := post(t, base, transcript.OpenAIChat, data, false)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	<-recycled // the handler has returned
	close(lt.read)
	lt.done.Wait()
	if len(lt.errs) != 1 || lt.errs[0] == nil {
		t.Fatalf("the transport's read after the handler returned gave %v, want an error", lt.errs)
	}
	select {
	case <-recycled:
		t.Fatal("the buffer was recycled twice")
	default:
	}
}

// TestUpstreamBodyClose checks that Close waits for a read under way and
// stops the reads after it (run with -race: a read and the recycling of
// its buffer must never overlap).
func TestUpstreamBodyClose(t *testing.T) {
	buf := bytes.Repeat([]byte("x"), 1<<20)
	h := &held{buf: &buf}
	recycledBuf := make(chan struct{})
	defer func(f func(*[]byte)) { recycle = f }(recycle)
	recycle = func(b *[]byte) {
		for i := range *b {
			(*b)[i] = 'y' // what the next request's read would do
		}
		close(recycledBuf)
	}
	body := h.upstream(buf)
	reading := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		p := make([]byte, 64)
		for i := 0; ; i++ {
			n, err := body.Read(p)
			if i == 0 {
				close(reading)
			}
			if bytes.ContainsRune(p[:n], 'y') {
				t.Error("a read saw the buffer after it was recycled")
				return
			}
			if err != nil {
				return
			}
		}
	})
	<-reading // release while the reads go on
	h.release()
	<-recycledBuf
	wg.Wait()
	if _, err := body.Read(make([]byte, 1)); !errors.Is(err, errBodyClosed) {
		t.Errorf("a read after release gave %v, want errBodyClosed", err)
	}
}
