package sessiontest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/tool"
)

// Benchmark measures a store, as docs/benchmarks.md reports it:
//
//   - Step8: the checkpoint of one agent turn with 8 tool calls, one
//     commit: the assistant message with the calls, the tool message with
//     the 8 results of about 2 KB each, and the loop's state (about 400
//     bytes). Latency percentiles and steps per second, on a new session
//     and on one that already holds 10,000 messages;
//   - Turn8: the same turn written as the loop writes it, with its
//     write-ahead records: a commit of the assistant message and state,
//     the 8 started records in one write, each finished record (with its
//     result) in its own write, 8 writers in parallel, and a commit of the
//     tool message and state;
//   - Restore: loading a session of 10,000 and of 100,000 messages;
//   - Bytes: what the database writes for a Step8 step and for a Turn8
//     turn, as a ratio to the size of the new messages in the persistence
//     format. It needs written, which runs its argument and returns how
//     many bytes the database wrote meanwhile (the growth of its
//     write-ahead log); it is skipped when written is nil.
//
// open returns a new, empty store for each benchmark.
func Benchmark(b *testing.B, open func(b *testing.B) session.Store, written func(b *testing.B, s session.Store, write func()) int64) {
	b.Run("Step8/history=0", func(b *testing.B) { benchStep(b, open(b), 0) })
	b.Run("Step8/history=10000", func(b *testing.B) { benchStep(b, open(b), 10000) })
	b.Run("Turn8", func(b *testing.B) { benchTurn(b, open(b)) })
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("Restore/messages=%d", n), func(b *testing.B) { benchRestore(b, open(b), n) })
	}
	for _, tc := range []struct {
		name    string
		history int
		write   func(context.Context, session.Store, *session.Session, int, []llm.Message) error
	}{
		{"Bytes/Step8/history=0", 0, writeStep},
		{"Bytes/Step8/history=10000", 10000, writeStep},
		{"Bytes/Turn8", 0, writeTurn},
	} {
		b.Run(tc.name, func(b *testing.B) {
			if written == nil {
				b.Skip("no way to read what the database wrote")
			}
			s := open(b)
			sess := benchSession(b, s, tc.history)
			var db, msgBytes int64
			for i := 0; b.Loop(); i++ {
				msgs := Turn(i, 8, benchResultSize)
				for _, m := range msgs {
					enc, err := llm.Conversation{Messages: []llm.Message{m}}.MarshalJSON()
					if err != nil {
						b.Fatal(err)
					}
					msgBytes += int64(len(enc))
				}
				db += written(b, s, func() {
					if err := tc.write(context.Background(), s, &sess, i, msgs); err != nil {
						b.Fatal(err)
					}
				})
			}
			b.ReportMetric(float64(msgBytes)/float64(b.N), "msg-B/op")
			b.ReportMetric(float64(db)/float64(b.N), "db-B/op")
			b.ReportMetric(float64(db)/float64(msgBytes), "db/msg")
		})
	}
}

// benchResultSize is the size of one tool result of a benchmark step.
const benchResultSize = 2000

// benchState is a loop state of about 400 bytes.
func benchState(step int) jsontext.Value {
	return jsontext.Value(fmt.Sprintf(`{"step":%d,"phase":"model","turn":%d,"usage":{"input":123456,"output":2345,"cache_read":120000},`+
		`"pending":[],"guards":{"repeats":{},"errors":{"lookup":0}},"fit":{"cleared":[],"summarized":0},"budget":{"window":200000,"used":%d},`+
		`"notes":"%s"}`, step, step/2, 1000*step, strings.Repeat("x", 160)))
}

// benchCalls returns the finished call records of a turn's messages.
func benchCalls(msgs []llm.Message) []session.Call {
	calls := msgs[0].ToolCalls()
	results := msgs[1].ToolResults()
	out := make([]session.Call, len(calls))
	for i, c := range calls {
		out[i] = session.Call{ID: c.ID, Tool: c.Name, Idempotency: tool.Level2, Attempt: 1, Arguments: c.Input,
			Result: &results[i], Duration: 42 * time.Millisecond}
	}
	return out
}

// benchSession creates a session holding about history messages, in
// commits of up to 1,000.
func benchSession(b *testing.B, s session.Store, history int) session.Session {
	b.Helper()
	ctx := context.Background()
	sess, err := s.Create(ctx, session.Session{Title: "benchmark"})
	if err != nil {
		b.Fatal(err)
	}
	for turn := 0; sess.Messages < history; {
		var msgs []llm.Message
		for len(msgs) < 1000 && sess.Messages+len(msgs) < history {
			msgs = append(msgs, Turn(turn, 1, 300)...)
			turn++
		}
		if sess, err = s.Commit(ctx, &session.Step{Session: sess.ID, Version: sess.Version, Number: sess.Step + 1, Messages: msgs}); err != nil {
			b.Fatal(err)
		}
	}
	return sess
}

// report adds latency percentiles and a rate to a benchmark's results.
func report(b *testing.B, lat []time.Duration, unit string) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	var total time.Duration
	for _, d := range lat {
		total += d
	}
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(len(lat))/total.Seconds(), unit+"/s")
}

// writeStep commits a turn's messages and state as one step.
func writeStep(ctx context.Context, s session.Store, sess *session.Session, i int, msgs []llm.Message) error {
	next, err := s.Commit(ctx, &session.Step{Session: sess.ID, Version: sess.Version, Number: sess.Step + 1,
		Messages: msgs, State: benchState(i)})
	if err == nil {
		*sess = next
	}
	return err
}

// writeTurn writes a turn as the loop does, with its write-ahead records.
func writeTurn(ctx context.Context, s session.Store, sess *session.Session, i int, msgs []llm.Message) error {
	calls := benchCalls(msgs)
	started := make([]session.Call, len(calls))
	for k, c := range calls {
		c.Result = nil
		started[k] = c
	}
	if err := writeStep(ctx, s, sess, 2*i, msgs[:1]); err != nil {
		return err
	}
	if err := s.Record(ctx, sess.ID, sess.Version, started...); err != nil {
		return err
	}
	errs := make(chan error, len(calls))
	for _, c := range calls {
		go func() { errs <- s.Record(ctx, sess.ID, sess.Version, c) }()
	}
	var first error
	for range calls {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	return writeStep(ctx, s, sess, 2*i+1, msgs[1:])
}

func benchStep(b *testing.B, s session.Store, history int) {
	benchWrites(b, s, history, writeStep, "steps")
}

func benchTurn(b *testing.B, s session.Store) {
	benchWrites(b, s, 0, writeTurn, "turns")
}

// benchWrites times write on Turn8 messages and reports latency
// percentiles and a rate in unit per second.
func benchWrites(b *testing.B, s session.Store, history int, write func(context.Context, session.Store, *session.Session, int, []llm.Message) error, unit string) {
	ctx := context.Background()
	sess := benchSession(b, s, history)
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		msgs := Turn(i, 8, benchResultSize)
		start := time.Now()
		if err := write(ctx, s, &sess, i, msgs); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	report(b, lat, unit)
}

func benchRestore(b *testing.B, s session.Store, n int) {
	sess := benchSession(b, s, n)
	cpu := cpuTime()
	for b.Loop() {
		snap, err := s.Load(context.Background(), sess.ID)
		if err != nil {
			b.Fatal(err)
		}
		if len(snap.Messages) != sess.Messages {
			b.Fatalf("Load = %d messages, want %d", len(snap.Messages), sess.Messages)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(sess.Messages), "ns/message")
	if cpu := cpuTime() - cpu; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(sess.Messages), "cpu-ns/message")
	}
}
