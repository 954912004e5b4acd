package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/gateway"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// TestGatewayRecordView checks that a session holding a record of
// toolwire gateway, in the same store, is shown with its record and no
// timeline (its state is no run's checkpoint).
func TestGatewayRecordView(t *testing.T) {
	h := newHarness(t, options{})
	up := llmtest.NewServer(t, llmtest.Turn{Text: "ok"})
	g, err := gateway.New(&gateway.Config{OpenAI: up.URL, Store: h.store})
	must(t, err)
	gw := httptest.NewServer(g)
	defer gw.Close()
	body := `{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_9","content":"sunny"},{"role":"user","content":"and?"}]}`
	resp, err := http.Post(gw.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	must(t, err)
	resp.Body.Close()
	id := resp.Header.Get(gateway.RecordHeader)
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("through the gateway: %d, record %q", resp.StatusCode, id)
	}
	type recordView struct {
		Session struct {
			Agent string `json:"agent"`
		} `json:"session"`
		Turns         []any           `json:"turns"`
		GatewayRecord *gateway.Record `json:"gateway_record"`
	}
	view := decode[recordView](t, h.do("GET", "/v1/sessions/"+id, "", ""), http.StatusOK)
	if view.Session.Agent != gateway.RecordAgent || len(view.Turns) != 0 || view.GatewayRecord == nil ||
		view.GatewayRecord.Verdict != gateway.VerdictRepaired || view.GatewayRecord.Violations[0].Rule != "OAI-CC-NO-ORPHAN-RESULT" {
		t.Errorf("view = %+v", view)
	}
	if evs := h.events(id, ""); len(evs) != 0 {
		t.Errorf("the record's event stream = %s, want none", types(evs))
	}
}
