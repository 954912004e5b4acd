package wire

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/provider/internal/codectest"
	"github.com/toolwire/toolwire/transcript"
)

// arrayKey is the member of a full body of each dialect that holds its
// messages.
var arrayKey = map[transcript.Dialect]string{
	transcript.OpenAIChat: "messages", transcript.OpenAIResponses: "input",
	transcript.Anthropic: "messages", transcript.Gemini: "contents",
}

// TestJudgeAgrees holds a Judge to Violations on every body of the corpus,
// in every dialect, as a conversation sends it: its messages one more at
// a time, each body judged after the one before; and after a body cut at
// each of its messages, judged first. It wants the Judge to have continued
// from a body it read, not judged whole, for most Chat bodies.
func TestJudgeAgrees(t *testing.T) {
	continued := 0
	for name, data := range skimCorpus(t) {
		for _, d := range transcript.Dialects() {
			s, ok := codectest.SplitArray(data, arrayKey[d])
			if !ok || s.Head[0] != '{' || codecs[d].after == nil {
				// Judged whole, as Violations judges it.
				judgeAgrees(t, fmt.Sprintf("%s as %s", name, d), NewJudge(1<<30), data, d)
				continue
			}
			grow := NewJudge(1 << 30)
			for k := range len(s.Elems) + 1 {
				judgeAgrees(t, fmt.Sprintf("%s as %s, %d messages", name, d, k), grow, s.Join(s.Elems[:k]), d)
				cut := NewJudge(1 << 30)
				cut.Violations(s.Join(s.Elems[:k]), d, modelOf[d])
				judgeAgrees(t, fmt.Sprintf("%s as %s, after %d messages", name, d, k), cut, s.Join(s.Elems), d)
				continued += cut.Stats().Continued
			}
		}
	}
	if continued < 50 {
		t.Fatalf("only %d bodies were judged from where an earlier one left off: the test does not test the Judge", continued)
	}
	t.Logf("%d bodies continued", continued)
}

func judgeAgrees(t *testing.T, name string, j *Judge, data []byte, d transcript.Dialect) {
	t.Helper()
	judgeAgreesFor(t, name, j, data, d, modelOf[d])
}

// modelOf is the model TestJudgeAgrees gives a body of each dialect whose
// rules depend on it and whose body may not name it: Gemini's, in its URL.
var modelOf = map[transcript.Dialect]string{transcript.Gemini: "gemini-3-pro-preview"}

func judgeAgreesFor(t *testing.T, name string, j *Judge, data []byte, d transcript.Dialect, model string) {
	t.Helper()
	want, wantErr := ViolationsFor(data, d, model)
	got, err := j.Violations(data, d, model)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("%s: error %v, want %v", name, err, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: judged\n%v\nwant\n%v", name, got, want)
	}
}

// conversation returns the Chat body of an agent's history after n rounds
// of a call and its result, each result long enough to be skimmed; broken
// leaves call k unanswered.
func conversation(id string, n, broken int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"model":"gpt-4.1","messages":[{"role":"user","content":"Which orders were refunded? (%s)"}`, id)
	for k := range n {
		fmt.Fprintf(&b, `,{"role":"assistant","tool_calls":[{"id":"%s_%d","type":"function","function":{"name":"search_orders","arguments":"{\"page\":%d}"}}]}`, id, k, k)
		if k != broken {
			fmt.Fprintf(&b, `,{"role":"tool","tool_call_id":"%s_%d","content":"%s"}`, id, k, strings.Repeat("refunded; ", 40))
		}
	}
	b.WriteString(`],"tools":[{"type":"function","function":{"name":"search_orders","parameters":{"type":"object"}}}]}`)
	return []byte(b.String())
}

// TestJudgeConversations judges the bodies of several conversations sent
// at once, interleaved, one of them broken half-way, and wants each
// verdict Violations', each body after the first of its conversation
// continued from the one before, and the Judge's bounds kept.
func TestJudgeConversations(t *testing.T) {
	const convs, rounds = 6, 12
	j := NewJudge(1 << 30)
	var wg sync.WaitGroup
	for c := range convs {
		wg.Go(func() {
			broken := -1
			if c == 0 {
				broken = rounds / 2
			}
			for n := range rounds {
				judgeAgrees(t, fmt.Sprintf("conversation %d, round %d", c, n), j, conversation(fmt.Sprintf("c%d", c), n, broken), transcript.OpenAIChat)
			}
		})
	}
	wg.Wait()
	if s := j.Stats(); s.Whole != convs || s.Continued != convs*(rounds-1) {
		t.Fatalf("stats %+v, want %d whole and %d continued", s, convs, convs*(rounds-1))
	}

	// A body that continues one the Judge read but does not read itself
	// (not JSON, or not a message where one belongs) gets the error of
	// the whole body, and a good one after it is continued again.
	base := conversation("e", 3, -1)
	judgeAgrees(t, "a body read", j, base, transcript.OpenAIChat)
	cut := len(base) - len(`],"tools":[{"type":"function","function":{"name":"search_orders","parameters":{"type":"object"}}}]}`)
	for _, bad := range []string{`,{"role":"user","content":"x"`, `,{"content":"no role"}`, `,{"role":"user","content":"ok"}]}x`} {
		data := append(append(bytes.Clone(base[:cut]), bad...), base[cut:]...)
		if _, err := Violations(data, transcript.OpenAIChat); err == nil {
			t.Fatalf("the broken body reads: %s", data)
		}
		judgeAgrees(t, "broken after a body read", j, data, transcript.OpenAIChat)
	}
	before := j.Stats()
	judgeAgrees(t, "good after broken", j, conversation("e", 4, -1), transcript.OpenAIChat)
	if after := j.Stats(); after.Continued != before.Continued+1 {
		t.Errorf("the good body after broken ones was not continued: %+v then %+v", before, after)
	}

	// A Judge too small for one conversation's messages forgets all but
	// the last body it read, and judges as well.
	small := NewJudge(1)
	for n := range 3 {
		judgeAgrees(t, fmt.Sprintf("small, round %d", n), small, conversation("s", n, 1), transcript.OpenAIChat)
	}
	if len(small.recent) != 1 {
		t.Fatalf("a Judge of 1 byte holds %d prefixes", len(small.recent))
	}
	// A Judge of no bytes remembers nothing.
	none := NewJudge(0)
	none.Violations(conversation("n", 2, -1), transcript.OpenAIChat, "")
	if len(none.recent) != 0 || none.Stats() != (JudgeStats{}) {
		t.Fatalf("a Judge of 0 bytes holds %d prefixes, stats %+v", len(none.recent), none.Stats())
	}
}

// FuzzJudge: for any body cut at any of its messages, in each dialect the
// Judge continues, a Judge that read the first part judges the whole as
// Violations does, and judges it again the same.
func FuzzJudge(f *testing.F) {
	for _, data := range skimCorpus(f) {
		f.Add(data, uint8(1))
	}
	f.Add(conversation("f", 3, 1), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		for _, d := range transcript.Dialects() {
			s, ok := codectest.SplitArray(data, arrayKey[d])
			if !ok || len(s.Head) == 0 || s.Head[0] != '{' || codecs[d].after == nil {
				continue
			}
			cut := min(int(k), len(s.Elems))
			j := NewJudge(1 << 30)
			j.Violations(s.Join(s.Elems[:cut]), d, modelOf[d])
			judgeAgrees(t, string(d), j, s.Join(s.Elems), d)
			judgeAgrees(t, string(d)+", again", j, s.Join(s.Elems), d)
		}
	})
}

// BenchmarkJudge judges an agent's Chat history of about 1 MB (results of
// about 400 bytes) as it grows by a call and its result per body: whole
// with Violations, and by a Judge that read the body before.
func BenchmarkJudge(b *testing.B) {
	rounds := 1 << 20 / 700
	bodies := make([][]byte, 64)
	for i := range bodies {
		bodies[i] = conversation("c", rounds+i, -1)
	}
	for _, name := range []string{"whole", "judge"} {
		b.Run(name, func(b *testing.B) {
			j := NewJudge(1 << 30)
			if name == "whole" {
				j = nil
			}
			j.Violations(bodies[0], transcript.OpenAIChat, "")
			b.SetBytes(int64(len(bodies[0])))
			i := 1
			for b.Loop() {
				if i == len(bodies) {
					b.StopTimer()
					i = 1
					j.Violations(bodies[0], transcript.OpenAIChat, "")
					b.StartTimer()
				}
				vs, err := j.Violations(bodies[i], transcript.OpenAIChat, "")
				if err != nil || !transcript.Accepted(vs) {
					b.Fatal(err, vs)
				}
				i++
			}
		})
	}
}
