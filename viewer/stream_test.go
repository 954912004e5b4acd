package viewer_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/toolwire/toolwire/viewer"
)

// TestEventParser feeds the viewer's event-stream parser (api.js events)
// bodies cut into chunks at awkward places: inside a field, between the
// \r and \n of a line break, inside a multi-byte character.
func TestEventParser(t *testing.T) {
	hs := httptest.NewServer(http.FileServerFS(viewer.FS()))
	t.Cleanup(hs.Close)
	b := newBrowser(t, artifacts(t))
	b.do("open a page of the viewer's origin", chromedp.Navigate(hs.URL+"/style.css"))
	for _, tc := range []struct {
		name   string
		chunks []string
		want   string // each event as id|type|data|retry, then ;
	}{
		{"one event", []string{"id: 1.1\nevent: turn\ndata: {\"turn\":1}\n\n"}, `1.1|turn|{"turn":1}|0;`},
		{"cut inside a field", []string{"id: 1.", "1\nev", "ent: tu", "rn\ndata: {}\n", "\n"}, `1.1|turn|{}|0;`},
		{"CRLF cut between CR and LF", []string{"id: 2.1\r", "\nevent: done\r", "\ndata: x\r", "\n\r", "\n"}, `2.1|done|x|0;`},
		{"lone CRs", []string{"id: 3.1\revent: a\rdata: y\r\r"}, `3.1|a|y|0;`},
		{"a character cut in two", []string{"data: \xe5\x8c", "\x97\xe4\xba\xac\n\n"}, `|message|北京|0;`},
		{"data on several lines", []string{"data: a\ndata: b\n\n"}, "|message|a\nb|0;"},
		{"comments and retry", []string{": keep-alive\n\nretry: 2000\n\n: x\nid: 4.1\nevent: e\ndata\n\n"}, `|message|undefined|2000;4.1|e||0;`},
		{"the id carries over", []string{"id: 5.1\ndata: a\n\ndata: b\n\n"}, `5.1|message|a|0;5.1|message|b|0;`},
		{"no trailing blank line", []string{"id: 6.1\ndata: lost\n"}, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Each chunk goes in as its bytes, so that a character can be
			// cut in two.
			chunks := make([]string, len(tc.chunks))
			for i, c := range tc.chunks {
				bs := make([]string, len(c))
				for j := range len(c) {
					bs[j] = fmt.Sprint(c[j])
				}
				chunks[i] = "[" + strings.Join(bs, ",") + "]"
			}
			script := fmt.Sprintf(`(async () => {
	const { events } = await import('/api.js');
	const chunks = [%s].map((c) => new Uint8Array(c));
	const body = new ReadableStream({ start(ctl) { for (const c of chunks) ctl.enqueue(c); ctl.close(); } });
	let out = '';
	for await (const ev of events(body)) out += [ev.id, ev.type, String(ev.data), ev.retry].join('|') + ';';
	return out;
})()`, strings.Join(chunks, ", "))
			got := eval[string](b, script, chromedp.EvalAwaitPromise)
			if got != tc.want {
				t.Errorf("events(%q) = %q, want %q", tc.chunks, got, tc.want)
			}
		})
	}
}

// TestFollowReconnects: the viewer's stream reader sends the token, and
// when the connection drops it connects again with the id of the last
// event it got as Last-Event-ID, after the server's retry delay; a
// refusal ends it.
func TestFollowReconnects(t *testing.T) {
	var mu sync.Mutex
	var seen []string // each connection's Authorization and Last-Event-ID
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServerFS(viewer.FS()))
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization")+" / "+r.Header.Get("Last-Event-ID"))
		n := len(seen)
		mu.Unlock()
		switch n {
		case 1:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "retry: 10\n\nid: 1.1\nevent: turn\ndata: {\"turn\":1}\n\nid: 1.2\nevent: text\ndata: {\"text\":\"a\"}\n\n")
		case 2:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, ": keep-alive\n\nid: 2.1\nevent: done\ndata: {\"status\":\"done\"}\n\n")
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"code":"not_found","message":"no session run_x","status":404}}`)
		}
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	b := newBrowser(t, artifacts(t))
	b.do("open a page of the viewer's origin", chromedp.Navigate(hs.URL+"/style.css"))
	got := eval[string](b, `(async () => {
	const api = await import('/api.js');
	api.setToken('tok-1');
	const out = [];
	await new Promise((resolve) => api.follow('/stream', {
		signal: new AbortController().signal,
		onEvent: (ev) => out.push(ev.id + ' ' + ev.type + ' ' + JSON.stringify(ev.data)),
		onState: (state, err) => {
			out.push(state + (err ? ': ' + err.message : ''));
			if (state === 'closed') resolve();
		},
	}));
	return out.join('\n');
})()`, chromedp.EvalAwaitPromise)
	want := `open
1.1 turn {"turn":1}
1.2 text {"text":"a"}
retrying
open
2.1 done {"status":"done"}
retrying
closed: no session run_x`
	if got != want {
		t.Errorf("follow read:\n%s\nwant\n%s", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"Bearer tok-1 / ", "Bearer tok-1 / 1.2", "Bearer tok-1 / 2.1"}; strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("the connections sent:\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}
