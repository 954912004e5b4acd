package gateway

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/internal/realtraffic"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

// TestRealTraffic sends every recorded body through a gateway with policy
// reject, to the model it was sent to (which a Gemini URL names, and some
// rules depend on): a body the provider answered 200 goes upstream byte for byte;
// a body it answered 400 for a tool-message rule (the names without
// "oos-") is answered 400 by the gateway in the provider's shape, with
// the same verdict as toolwire check; with policy repair it goes
// upstream repaired.
func TestRealTraffic(t *testing.T) {
	dir := realtraffic.Dir(t)
	var mu sync.Mutex
	var got []byte
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = b
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	}))
	defer up.Close()
	reject, _ := newGateway(t, up.URL, Config{Policy: Reject})
	repair, _ := newGateway(t, up.URL, Config{Policy: Repair})
	for _, file := range realtraffic.Bodies(t, "*") {
		rel, _ := filepath.Rel(dir, file)
		kind := strings.Split(rel, string(filepath.Separator))[0]
		d := realtraffic.Dialect(t, file)
		if kind == "rejected" && strings.HasPrefix(filepath.Base(file), "oos-") {
			continue // rejected for a reason outside the tool-message rules
		}
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			model := strings.TrimPrefix(realtraffic.Model(t, file), "models/")
			if model == "" {
				model = "gemini-2.5-flash"
			}
			b0, err := wire.Decode(data, d)
			if err != nil {
				t.Fatal(err)
			}
			b0.SetModel(model)
			rep := struct{ Violations []transcript.Violation }{b0.Check()}
			mu.Lock()
			got = nil
			mu.Unlock()
			resp, b := postTo(t, reject+modelPath(d, model, false), d, data)
			mu.Lock()
			sent := got
			mu.Unlock()
			switch kind {
			case "accepted":
				if resp.StatusCode != 200 || !bytes.Equal(sent, data) {
					t.Fatalf("a body the provider accepted: status %d (%s), sent upstream unchanged: %v", resp.StatusCode, b, bytes.Equal(sent, data))
				}
			case "rejected":
				if resp.StatusCode != 400 || sent != nil {
					t.Fatalf("a body the provider rejected: status %d, sent upstream: %v; want 400 and nothing sent", resp.StatusCode, sent != nil)
				}
				if got, want := resp.Header.Get(RulesHeader), ruleList(rep.Violations); got != want {
					t.Errorf("rules %q, want toolwire check's %q", got, want)
				}
				providerError(t, d, 400, b)
				resp, b = postTo(t, repair+modelPath(d, model, false), d, data)
				if resp.StatusCode != 200 || resp.Header.Get(VerdictHeader) != string(VerdictRepaired) {
					t.Errorf("with repair: status %d, verdict %q: %s", resp.StatusCode, resp.Header.Get(VerdictHeader), b)
				}
			}
		})
	}
}
