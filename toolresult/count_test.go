package toolresult_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

// tally counts tokens with an exact counter and adds up the bytes it was
// given to count, through Count and CountPrefix.
type tally struct {
	c     *budget.Exact
	mu    sync.Mutex
	bytes int
}

func (t *tally) add(s string) {
	t.mu.Lock()
	t.bytes += len(s)
	t.mu.Unlock()
}

func (t *tally) Count(s string) int {
	t.add(s)
	return t.c.Count(s)
}

func (t *tally) CountPrefix(s string) (int, int) {
	t.add(s)
	return t.c.CountPrefix(s)
}

// plain hides CountPrefix: the shaper counts every rendering whole.
type plain struct{ c toolresult.Counter }

func (p plain) Count(s string) int { return p.c.Count(s) }

// lookupRecords is what the loop benchmark's lookup tool returns: n
// records with nothing to prune or flatten, 20 KB for 210.
func lookupRecords(n int) []byte {
	var b strings.Builder
	b.WriteByte('[')
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"key":"k-%d","name":"record-%06d","category":"cat-%02d","value":%d,"active":%t}`, i, i, i, i%10, i*7919%100000, i%3 != 0)
	}
	b.WriteByte(']')
	return []byte(b.String())
}

// TestShapeCountsOnce: a result that fits is counted once, however many
// times shaping renders it (to choose, then with its final token count
// and duration): the bytes the counter reads are those of the tool
// message, plus those of the output as given when shaping changed it,
// plus a little. Each result is the same, to the byte, as with a counter
// that counts every rendering whole.
func TestShapeCountsOnce(t *testing.T) {
	ex := exact(t)
	records := lookupRecords(210)
	doc, err := toolresult.ParseJSON(records)
	if err != nil {
		t.Fatal(err)
	}
	orders20 := dataSet(t, "orders-20.json")
	withDuration := toolresult.Success("lookup(key=k): 210 records", doc)
	withDuration.Meta.Duration = 1234567
	withDuration.Meta.Source = "lookup"
	tests := []struct {
		name    string
		env     toolresult.Envelope
		budget  int
		changed bool // shaping changed the output: it is counted as given too
	}{
		{"parsed records", toolresult.Success("lookup(key=k): 210 records", doc), 16000, false},
		{"raw records", toolresult.Success("lookup(key=k): 210 records", json.RawMessage(records)), 16000, false},
		{"with a duration", withDuration, 16000, false},
		{"pruned and flattened", toolresult.Success("search_orders(city=any): 20 orders", json.RawMessage(orders20)), 2000, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctr := &tally{c: ex}
			sh, err := toolresult.NewShaper(ctr, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			req := toolresult.Request{Tool: "lookup", Budget: tc.budget}
			got, err := sh.Shape(context.Background(), tc.env, req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Report.Level != toolresult.LevelFull {
				t.Fatalf("Shape(%s) level = %s, want full", tc.name, got.Report.Level)
			}
			text := got.Result("call_1", "lookup").Content[0].(llm.Text).Text
			if n := ex.Count(text); n != got.Report.TokensAfter {
				t.Errorf("Shape(%s) tokens_after = %d, but the message counts %d", tc.name, got.Report.TokensAfter, n)
			}
			limit := len(text) + 1024
			if tc.changed {
				limit += len(orders20)
			}
			if ctr.bytes > limit {
				t.Errorf("Shape(%s) counted %d bytes for a %d-byte message, want at most %d", tc.name, ctr.bytes, len(text), limit)
			}
			whole, _ := toolresult.NewShaper(plain{ex}, nil, nil)
			want, err := whole.Shape(context.Background(), tc.env, req)
			if err != nil {
				t.Fatal(err)
			}
			wantText := want.Result("call_1", "lookup").Content[0].(llm.Text).Text
			if text != wantText || !reflect.DeepEqual(got.Report, want.Report) {
				t.Errorf("Shape(%s) =\n%s\n%+v\nwith CountPrefix, want as with Count alone\n%s\n%+v", tc.name, text, got.Report, wantText, want.Report)
			}
		})
	}
}

// TestShapePrefixCounterSame: every golden case shapes to the same
// message and report with a counter that counts prefixes once as with
// one that counts every rendering whole.
func TestShapePrefixCounterSame(t *testing.T) {
	ex := exact(t)
	for _, tc := range shapeCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			shape := func(c toolresult.Counter) (string, toolresult.Report) {
				sh, err := toolresult.NewShaper(c, toolresult.NewMemoryStore(0).NumberRefs(), tc.cfg)
				if err != nil {
					t.Fatal(err)
				}
				out, err := sh.Shape(context.Background(), tc.env, tc.req)
				if err != nil {
					t.Fatal(err)
				}
				return out.Result("call_1", tc.req.Tool).Content[0].(llm.Text).Text, out.Report
			}
			got, gotRep := shape(ex)
			want, wantRep := shape(plain{ex})
			if got != want || !reflect.DeepEqual(gotRep, wantRep) {
				t.Errorf("Shape(%s) =\n%s\n%+v\nwith CountPrefix, want as with Count alone\n%s\n%+v", tc.name, got, gotRep, want, wantRep)
			}
		})
	}
}
