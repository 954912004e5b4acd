package otelhook_test

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/goleak"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/otelhook"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/openai"
	"github.com/toolwire/toolwire/session/memory"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type weatherIn struct {
	City string `json:"city"`
}

func tools(booked *atomic.Int32) *tool.Registry {
	r := tool.NewRegistry()
	r.MustAdd(
		tool.MustFunc("get_weather", "Current weather in a city.", func(ctx context.Context, in weatherIn) (string, error) {
			tool.ReportProgress(ctx, tool.Progress{Progress: 1, Total: 2, Message: "asking the station"})
			if in.City != "Paris" {
				return "", tool.Errorf(toolresult.NotFound, "no weather station for %q", in.City)
			}
			return "sunny, 18°C", nil
		}, &tool.FuncOptions{Idempotency: tool.Level2}),
		tool.MustFunc("book_trip", "Books a trip.", func(ctx context.Context, in weatherIn) (string, error) {
			booked.Add(1)
			return "booked " + in.City, nil
		}, &tool.FuncOptions{RequiresApproval: true, Idempotency: tool.Level0}),
	)
	return r
}

// A run with parallel calls (one fails, one is answered without running
// for its bad arguments), a pause for approval, and a resume: the exact
// span tree, and the metrics.
func TestSpans(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Turn{Calls: []llmtest.Call{
			{Name: "get_weather", Args: `{"city":"Paris"}`},
			{Name: "get_weather", Args: `{"city":"Atlantis"}`},
			{Name: "get_weather", Args: `{"town":"Paris"}`},
		}, Usage: llm.Usage{InputTokens: 120, OutputTokens: 30, CacheReadTokens: 100}, Model: "gpt-4.1-2025-04-14"},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "book_trip", Args: `{"city":"Paris"}`}}, Model: "gpt-4.1-2025-04-14"},
		llmtest.Turn{Text: "Booked.", Model: "gpt-4.1-2025-04-14"},
	)
	model, err := openai.NewChat("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: srv.URL + "/v1", APIKey: "sk-test"}})
	must(t, err)
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	h, err := otelhook.New(&otelhook.Options{TracerProvider: tp, MeterProvider: mp, Content: true})
	must(t, err)
	store, err := memory.New(nil)
	must(t, err)
	var booked atomic.Int32
	a, err := toolwire.New(model, &toolwire.Config{Name: "travel", Tools: tools(&booked), Sessions: store, Hooks: []toolwire.Hook{h}})
	must(t, err)

	ctx := context.Background()
	res, _ := a.Run(ctx, "Weather in Paris, then book it.")
	if res == nil || res.Stop != toolwire.Paused {
		t.Fatalf("Run = %+v; want paused", res)
	}
	waiting := res.State.Next.Calls[0].Call.ID
	res, err = a.Resume(ctx, res.Session, &toolwire.Decisions{Calls: map[string]toolwire.Decision{waiting: toolwire.Approve()}})
	must(t, err)
	if res.Stop != toolwire.Answered || booked.Load() != 1 {
		t.Fatalf("Resume = %s with %d bookings; want answered, 1", res.Stop, booked.Load())
	}
	golden.Check(t, filepath.Join("testdata", "spans.txt"), []byte(tree(spans.GetSpans(), res.Session)))

	var rm metricdata.ResourceMetrics
	must(t, reader.Collect(ctx, &rm))
	got := map[string]string{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			got[m.Name] = points(m.Data)
		}
	}
	want := map[string]string{
		"gen_ai.client.operation.duration": "3 in [chat openai gpt-4.1 gpt-4.1-2025-04-14]",
		"gen_ai.client.token.usage":        "3 in [chat openai gpt-4.1 gpt-4.1-2025-04-14 input], 3 in [chat openai gpt-4.1 gpt-4.1-2025-04-14 output]",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("metric %s: %s, want %s", name, got[name], w)
		}
	}
}

// tree renders spans as an indented tree: each span's name, kind, status
// and attributes (sorted; the session id as <session>). Siblings are in
// turn order, the model call first, then calls by id and attempt.
func tree(spans tracetest.SpanStubs, session string) string {
	children := map[string][]tracetest.SpanStub{}
	for _, s := range spans {
		children[s.Parent.SpanID().String()] = append(children[s.Parent.SpanID().String()], s)
	}
	for _, c := range children {
		slices.SortStableFunc(c, func(x, y tracetest.SpanStub) int {
			return cmp.Or(cmp.Compare(attr(x, "toolwire.turn"), attr(y, "toolwire.turn")),
				cmp.Compare(attr(x, "gen_ai.tool.call.id"), attr(y, "gen_ai.tool.call.id")),
				cmp.Compare(attr(x, "toolwire.tool.attempt"), attr(y, "toolwire.tool.attempt")),
				x.StartTime.Compare(y.StartTime))
		})
	}
	var b strings.Builder
	var walk func(s tracetest.SpanStub, depth int)
	walk = func(s tracetest.SpanStub, depth int) {
		ind := strings.Repeat("  ", depth)
		fmt.Fprintf(&b, "%s%s [%s] %s %s\n", ind, s.Name, s.SpanKind, s.Status.Code, s.Status.Description)
		attrs := slices.Clone(s.Attributes)
		slices.SortFunc(attrs, func(x, y attribute.KeyValue) int { return cmp.Compare(x.Key, y.Key) })
		for _, kv := range attrs {
			v := strings.ReplaceAll(kv.Value.String(), session, "<session>")
			v = durationMS.ReplaceAllString(v, `duration_ms$1":<ms>`)
			fmt.Fprintf(&b, "%s    %s = %s\n", ind, kv.Key, v)
		}
		for _, e := range s.Events {
			fmt.Fprintf(&b, "%s    event %s %v\n", ind, e.Name, e.Attributes)
		}
		for _, c := range children[s.SpanContext.SpanID().String()] {
			walk(c, depth+1)
		}
	}
	for _, root := range children["0000000000000000"] {
		walk(root, 0)
	}
	return b.String()
}

// durationMS matches a result's duration, also quoted inside a string.
var durationMS = regexp.MustCompile(`duration_ms(\\?)":\d+`)

func attr(s tracetest.SpanStub, key string) string {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}

// points sums up a histogram's data points: their count and attribute
// values, in a stable order.
func points(d metricdata.Aggregation) string {
	var out []string
	add := func(n uint64, set attribute.Set) {
		var vals []string
		for _, kv := range set.ToSlice() {
			vals = append(vals, kv.Value.String())
		}
		out = append(out, fmt.Sprintf("%d in %v", n, vals))
	}
	switch d := d.(type) {
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			add(p.Count, p.Attributes)
		}
	case metricdata.Histogram[int64]:
		for _, p := range d.DataPoints {
			add(p.Count, p.Attributes)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// scripted calls the tool "ping" until the history holds turns
// answers, then says "Done.", without I/O.
type scripted struct{ turns int }

func (m scripted) Stream(_ context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		if (len(req.Messages)-1)/2 >= m.turns-1 {
			_ = yield(llm.TextDelta{Text: "Done."}, nil) && yield(llm.Finish{Reason: llm.FinishStop}, nil)
			return
		}
		_ = yield(llm.ToolCallDelta{ID: fmt.Sprint("c", len(req.Messages)), Name: "ping", Arguments: fmt.Sprintf(`{"n":%d}`, len(req.Messages))}, nil) &&
			yield(llm.Finish{Reason: llm.FinishToolCalls}, nil)
	}
}
func (scripted) Dialect() string { return "" }

// newScripted returns an agent whose runs take turns turns.
func newScripted(t testing.TB, turns int, hooks ...toolwire.Hook) *toolwire.Agent {
	r := tool.NewRegistry()
	r.MustAdd(tool.MustFunc("ping", "Answers pong.", func(context.Context, struct {
		N int `json:"n"`
	}) (string, error) {
		return "pong", nil
	},
		&tool.FuncOptions{Idempotency: tool.Level2}))
	a, err := toolwire.New(scripted{turns}, &toolwire.Config{Tools: r, Hooks: hooks})
	must(t, err)
	return a
}

// runAllocs is what one run of turns turns allocates, with hooks.
func runAllocs(t testing.TB, turns int, hooks ...toolwire.Hook) float64 {
	a := newScripted(t, turns, hooks...)
	return testing.AllocsPerRun(50, func() {
		if _, err := a.Run(context.Background(), "Hello?"); err != nil {
			t.Fatal(err)
		}
	})
}

// With no SDK installed (the API's no-op providers), the hook allocates
// one context per run and nothing per event: a run costs one allocation
// more than with a hook that does nothing, however many turns and calls
// it has.
func TestNoTracerNoCost(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts; .ci/run runs this test without -race")
	}
	h, err := otelhook.New(&otelhook.Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()})
	must(t, err)
	nothing := toolwire.HookFunc(func(context.Context, toolwire.Event) {})
	for _, turns := range []int{1, 4} {
		if got, want := runAllocs(t, turns, h), runAllocs(t, turns, nothing)+1; got != want {
			t.Errorf("a run of %d turns with the hook and no SDK allocates %v times; want %v, one more than with a hook that does nothing", turns, got, want)
		}
	}
}

// BenchmarkRun measures a run of four turns without I/O: with no hook, with the hook
// and no SDK, and with the hook recording to the SDK.
func BenchmarkRun(b *testing.B) {
	noSDK, err := otelhook.New(&otelhook.Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()})
	must(b, err)
	sdk, err := otelhook.New(&otelhook.Options{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter())),
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())),
	})
	must(b, err)
	for _, c := range []struct {
		name  string
		hooks []toolwire.Hook
	}{{"no-hook", nil}, {"otel-no-sdk", []toolwire.Hook{noSDK}}, {"otel-sdk", []toolwire.Hook{sdk}}} {
		b.Run(c.name, func(b *testing.B) {
			a := newScripted(b, 4, c.hooks...)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a.Run(context.Background(), "Hello?"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
