package toolresult_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/toolresult"
)

// pageAll reads every page of ref from offset on and returns the pages'
// records (or lines), in order.
func pageAll(t *testing.T, sh *toolresult.Shaper, req toolresult.PageRequest, budget int) []jsontext.Value {
	t.Helper()
	var got []jsontext.Value
	for pages := 0; ; pages++ {
		if pages > 100_000 {
			t.Fatal("read_result never reached the end")
		}
		out, err := sh.Page(context.Background(), req, budget)
		if err != nil {
			t.Fatalf("Page(%+v): %v", req, err)
		}
		if out.Report.TokensAfter > budget {
			t.Fatalf("Page(%+v) = %d tokens, over the budget of %d", req, out.Report.TokensAfter, budget)
		}
		data := out.Envelope.Data.(jsontext.Value)
		var recs []jsontext.Value
		if data[0] == '"' {
			var s string
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(s, "\n") {
				b, _ := json.Marshal(l)
				recs = append(recs, b)
			}
		} else if err := json.Unmarshal(data, &recs); err != nil {
			t.Fatalf("page data %s: %v", data, err)
		}
		if len(recs) == 0 {
			t.Fatalf("Page(%+v) returned no record", req)
		}
		got = append(got, recs...)
		if out.Envelope.Meta.Omitted == 0 {
			if out.Envelope.Meta.Level != toolresult.LevelFull || out.Envelope.Suggestion != "" {
				t.Errorf("last page: level %s, suggestion %q; want full and no suggestion", out.Envelope.Meta.Level, out.Envelope.Suggestion)
			}
			return got
		}
		next := req.Offset + len(recs)
		if !strings.Contains(out.Envelope.Suggestion, "offset "+itoa(next)) {
			t.Fatalf("page at %d suggests %q, want offset %d", req.Offset, out.Envelope.Suggestion, next)
		}
		req.Offset = next
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func field(t *testing.T, rec jsontext.Value, key string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec, &m); err != nil {
		t.Fatalf("record %s: %v", rec, err)
	}
	return m[key]
}

// TestReadResultPagesOmitted pages through every offloaded result with
// the records the observation omitted: exactly those, in order, with no
// gap or duplicate.
//
// It counts with the estimator: paging must be right whatever the
// counter, and exact counting of 4 MB twice is slow.
func TestReadResultPagesOmitted(t *testing.T) {
	ctr := budget.Estimator{}
	orders := dataSet(t, "orders-30000.json")
	docs := dataSet(t, "documents-200.json")
	log := dataSet(t, "service-2000.log")

	var all []map[string]any
	if err := json.Unmarshal(orders, &all); err != nil {
		t.Fatal(err)
	}
	var hits struct{ Hits []map[string]any }
	if err := json.Unmarshal(docs, &hits); err != nil {
		t.Fatal(err)
	}
	byScore := slices.Clone(hits.Hits)
	slices.SortStableFunc(byScore, func(a, b map[string]any) int {
		return -compareFloat(a["score"].(float64), b["score"].(float64))
	})
	lines := strings.Split(strings.TrimSuffix(string(log), "\n"), "\n")

	tests := []struct {
		name   string
		env    toolresult.Envelope
		req    toolresult.Request
		page   int // budget of each page
		key    string
		want   func(i int) any // the key of the i-th record of the whole result
		total  int
		filter toolresult.Filter
	}{
		{name: "orders", env: toolresult.Success("search_orders", jsontext.Value(orders)), req: toolresult.Request{Tool: "search_orders", Budget: 2000},
			page: 16000, key: "id", total: len(all), want: func(i int) any { return all[i]["id"] }},
		{name: "top documents", env: toolresult.Success("search_docs", jsontext.Value(docs)),
			req:  toolresult.Request{Tool: "search_docs", Budget: 1000, Rules: toolresult.Rules{SortBy: "score", MaxRecords: 5, Fields: []string{"rank", "score"}}},
			page: 300, key: "rank", total: len(byScore), want: func(i int) any { return byScore[i]["rank"] }},
		{name: "log lines", env: toolresult.Success("tail_log", string(log)), req: toolresult.Request{Tool: "tail_log", Budget: 600},
			page: 900, total: len(lines), want: func(i int) any { return lines[i] }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh, err := toolresult.NewShaper(ctr, toolresult.NewMemoryStore(0).NumberRefs(), nil)
			if err != nil {
				t.Fatal(err)
			}
			out, err := sh.Shape(context.Background(), tt.env, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			m := out.Envelope.Meta
			if m.Ref == "" || m.Omitted == 0 {
				t.Fatalf("Shape kept everything (meta %+v); the case needs omitted records", m)
			}
			shown := tt.total - m.Omitted
			got := pageAll(t, sh, toolresult.PageRequest{Ref: m.Ref, Offset: shown}, tt.page)
			if len(got) != m.Omitted {
				t.Fatalf("paging returned %d records, want the %d omitted", len(got), m.Omitted)
			}
			for i, rec := range got {
				var k any
				if tt.key == "" {
					_ = json.Unmarshal(rec, &k)
				} else {
					k = field(t, rec, tt.key)
				}
				if w := tt.want(shown + i); k != w {
					t.Fatalf("record %d of the pages is %v, want %v", shown+i, k, w)
				}
			}
		})
	}
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestReadResultFilterAndErrors(t *testing.T) {
	ctr := exact(t)
	orders := dataSet(t, "orders-30000.json")
	var all []map[string]any
	if err := json.Unmarshal(orders, &all); err != nil {
		t.Fatal(err)
	}
	var paid []any
	for _, o := range all {
		if o["status"] == "paid" && o["address"].(map[string]any)["city"] == "北京" {
			paid = append(paid, o["id"])
		}
	}
	sh, _ := toolresult.NewShaper(ctr, toolresult.NewMemoryStore(0).NumberRefs(), nil)
	out, err := sh.Shape(context.Background(), toolresult.Success("search_orders", jsontext.Value(orders)), toolresult.Request{Tool: "search_orders", Budget: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ref := out.Envelope.Meta.Ref
	filter := toolresult.Filter{"status": jsontext.Value(`"paid"`), "address.city": jsontext.Value(`"北京"`)}
	got := pageAll(t, sh, toolresult.PageRequest{Ref: ref, Filter: filter, Fields: []string{"id", "total"}}, 4000)
	if len(got) != len(paid) {
		t.Fatalf("filtered paging returned %d records, want %d", len(got), len(paid))
	}
	for i, rec := range got {
		if id := field(t, rec, "id"); id != paid[i] {
			t.Fatalf("filtered record %d = %v, want %v", i, id, paid[i])
		}
		if s := field(t, rec, "status"); s != nil {
			t.Fatalf("record %s shows status, but fields asked for id and total only", rec)
		}
	}
	for _, tc := range []struct {
		req  toolresult.PageRequest
		want error
	}{
		{toolresult.PageRequest{Ref: "r99"}, toolresult.ErrNotFound},
		{toolresult.PageRequest{Ref: ref, Offset: 30_000}, toolresult.ErrBadPage},
		{toolresult.PageRequest{Ref: ref, Offset: -1}, toolresult.ErrBadPage},
		{toolresult.PageRequest{Ref: ref, Filter: toolresult.Filter{"status": jsontext.Value(`{`)}}, toolresult.ErrBadPage},
	} {
		if _, err := sh.Page(context.Background(), tc.req, 1000); !errors.Is(err, tc.want) {
			t.Errorf("Page(%+v) = %v, want %v", tc.req, err, tc.want)
		}
	}
}
