package gateway

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/transcript"
)

var refPattern = regexp.MustCompile(`r-[a-z2-7]{14}`)

// bigHistory is a history whose one tool result lists n orders.
func bigHistory(n int) []llm.Message {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"o-%05d","status":"%s","total_cents":%d}`, i, []string{"paid", "refunded", "shipped"}[i%3], 1000+i)
	}
	b.WriteString("]")
	return []llm.Message{
		llm.User("How many orders were refunded?"),
		llm.Assistant(call("call_1", "search_orders", `{}`)),
		llm.Tool(result("call_1", "search_orders", b.String())),
	}
}

// TestShaping checks shaping in every dialect: a large tool result goes
// upstream shaped, behind a ref, with a read_result tool added; the same
// request shapes to the same bytes again; when the model calls
// read_result, the gateway answers it with the page and asks again, and
// the client gets only the final answer; a streamed request is not
// shaped.
func TestShaping(t *testing.T) {
	for _, d := range transcript.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			store := newStore(t)
			up := llmtest.NewServer(t, llmtest.Turn{Text: "first"})
			base, _ := newGateway(t, up.URL, Config{Store: store, Routes: map[transcript.Dialect]Route{d: {Shape: &Shaping{Budget: 1000}}}})
			data := body(t, d, bigHistory(3000), false)
			resp, b := post(t, base, d, data, false)
			if resp.StatusCode != 200 || resp.Header.Get(ShapedHeader) != "1 results, 0 reads" {
				t.Fatalf("status %d, %s %q: %.300s", resp.StatusCode, ShapedHeader, resp.Header.Get(ShapedHeader), b)
			}
			sent := up.Requests()[0].Body
			if len(sent)*5 > len(data) || !strings.Contains(string(sent), "read_result") {
				t.Fatalf("the body sent upstream is %d bytes of %d, read_result offered: %v", len(sent), len(data), strings.Contains(string(sent), "read_result"))
			}
			ref := refPattern.FindString(string(sent))
			if ref == "" {
				t.Fatalf("no ref in the shaped body: %.600s", sent)
			}
			up.Add(llmtest.Turn{Calls: []llmtest.Call{{Name: "read_result", Args: fmt.Sprintf(`{"ref":%q,"offset":100,"limit":5}`, ref)}}},
				llmtest.Turn{Text: "1000 orders were refunded."})
			resp, b = post(t, base, d, data, false)
			if resp.StatusCode != 200 || resp.Header.Get(ShapedHeader) != "1 results, 1 reads" {
				t.Fatalf("status %d, %s %q: %.300s", resp.StatusCode, ShapedHeader, resp.Header.Get(ShapedHeader), b)
			}
			if !strings.Contains(string(b), "1000 orders were refunded.") || strings.Contains(string(b), "read_result") {
				t.Errorf("the client got %s, want the final answer alone", b)
			}
			reqs := up.Requests()
			if len(reqs) != 3 {
				t.Fatalf("the upstream got %d requests, want 3", len(reqs))
			}
			if string(reqs[1].Body) != string(sent) {
				t.Errorf("the same request was shaped to other bytes the second time")
			}
			last := string(reqs[2].Body)
			if !strings.Contains(last, "o-00100") || !strings.Contains(last, "o-00104") || strings.Contains(last, "o-00105") {
				t.Errorf("the continuation does not hold the page of records 100-104: %.2000s", last[len(sent)-200:])
			}
			id := resp.Header.Get(RecordHeader)
			tr, err := store.(session.Catalog).Show(context.Background(), id)
			if err != nil {
				t.Fatalf("record %q: %v", id, err)
			}
			rec, err := ParseRecord(tr.Steps[0].State)
			if err != nil || rec.Verdict != VerdictShaped || rec.Reads != 1 || len(rec.Shaped) != 1 || len(rec.Diff) == 0 {
				t.Errorf("record %+v, %v", rec, err)
			}
			// Streamed: shaped too, and answered as a stream
			// (TestShapingStreamed).
			up.Add(llmtest.Turn{Text: "streamed"})
			resp, b = post(t, base, d, body(t, d, bigHistory(3000), true), true)
			reqs = up.Requests()
			if resp.StatusCode != 200 || resp.Header.Get(ShapedHeader) != "1 results, 0 reads" || !isEventStream(resp.Header) {
				t.Errorf("a streamed request: status %d, %s %q, Content-Type %q, %d bytes sent", resp.StatusCode, ShapedHeader, resp.Header.Get(ShapedHeader), resp.Header.Get("Content-Type"), len(reqs[3].Body))
			}
			if !strings.Contains(string(reqs[3].Body), ref) || !strings.Contains(string(b), "streame") {
				t.Errorf("the streamed request was not shaped, or its answer lost: %s", b)
			}
		})
	}
}

// TestShapingGeminiArrayStream checks that a Gemini stream without
// alt=sse, a JSON array streamed, which the gateway does not join, is
// forwarded unshaped.
func TestShapingGeminiArrayStream(t *testing.T) {
	d := transcript.Gemini
	up := llmtest.NewServer(t, llmtest.Turn{Text: "whole"})
	base, _ := newGateway(t, up.URL, Config{Routes: map[transcript.Dialect]Route{d: {Shape: &Shaping{Budget: 1000}}}})
	data := body(t, d, bigHistory(3000), true)
	req, err := http.NewRequest(http.MethodPost, base+"/v1beta/models/gemini-2.5-flash:streamGenerateContent", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if reqs := up.Requests(); len(reqs) != 1 || len(reqs[0].Body) != len(data) || resp.Header.Get(ShapedHeader) != "" {
		t.Errorf("%d requests upstream, %s %q", len(reqs), ShapedHeader, resp.Header.Get(ShapedHeader))
	}
}

// TestShapingMaxReads checks that past Shaping.MaxReads rounds the
// gateway answers read_result with an error that tells the model to
// answer, and that a call made beside read_result stays in the
// continuation, answered with an error that says it was not run (the
// model makes it again).
func TestShapingMaxReads(t *testing.T) {
	d := transcript.Anthropic
	up := llmtest.NewServer(t, llmtest.Turn{Text: "first"})
	base, _ := newGateway(t, up.URL, Config{Routes: map[transcript.Dialect]Route{d: {Shape: &Shaping{Budget: 1000, MaxReads: 1}}}})
	data := body(t, d, bigHistory(3000), false)
	post(t, base, d, data, false)
	ref := refPattern.FindString(string(up.Requests()[0].Body))
	read := llmtest.Call{Name: "read_result", Args: fmt.Sprintf(`{"ref":%q,"offset":10}`, ref)}
	up.Add(llmtest.Turn{Calls: []llmtest.Call{read, {Name: "search_orders", Args: `{"status":"refunded"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{read}},
		llmtest.Turn{Text: "done"})
	resp, b := post(t, base, d, data, false)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"done"`) || resp.Header.Get(ShapedHeader) != "1 results, 2 reads" {
		t.Fatalf("status %d, %s %q: %s", resp.StatusCode, ShapedHeader, resp.Header.Get(ShapedHeader), b)
	}
	reqs := up.Requests()
	if second := string(reqs[2].Body); !strings.Contains(second, `search_orders was not run: it was called with read_result`) {
		t.Errorf("the call beside read_result is not answered as not run: %.800s", second[len(reqs[1].Body)-300:])
	}
	if last := string(reqs[3].Body); !strings.Contains(last, "at most 1 times per request") {
		t.Errorf("the second read was not refused: %.500s", last[len(last)-500:])
	}
}
