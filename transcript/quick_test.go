package transcript

import (
	"reflect"
	"testing"
)

// TestQuickCheck checks the quick mode Repair starts and ends with against
// the full Check: the same verdict, only errors the full Check reports, and
// ANT-THINKING-FIRST exactly when the full Check reports it, also when the
// quick check stops before the last turn.
func TestQuickCheck(t *testing.T) {
	state := uint32(5)
	thinkingSeen, stoppedEarly := 0, 0
	for k := 0; k < 3000; k++ {
		data := make([]byte, 64)
		for i := range data {
			state = state*1664525 + 1013904223
			data[i] = byte(state >> 24)
		}
		r := Request{Messages: genTranscript(data), Thinking: k%2 == 0}
		for _, d := range Dialects() {
			full := CheckRequest(r, d)
			quick, _ := check(r, d, true)
			if Accepted(quick) != Accepted(full) {
				t.Fatalf("check(%s, quick) accepted = %v, CheckRequest = %v\n%s", d, Accepted(quick), Accepted(full), render(r.Messages))
			}
			for _, v := range quick {
				if v.Warning {
					t.Fatalf("check(%s, quick) reports the warning %v; want errors only", d, v)
				}
				if !containsViolation(full, v) {
					t.Fatalf("check(%s, quick) reports %v, which CheckRequest does not\n%s", d, v, render(r.Messages))
				}
			}
			if got, want := hasRule(quick, ruleAntThinkingFirst), hasRule(full, ruleAntThinkingFirst); got != want {
				t.Fatalf("check(%s, quick) has ANT-THINKING-FIRST = %v, want %v\n%s", d, got, want, render(r.Messages))
			} else if got {
				thinkingSeen++
			}
			if len(quick) < len(full) {
				stoppedEarly++
			}
		}
		c := checker{msgs: r.Messages, d: Anthropic}
		var turns []antTurn
		for i := firstNonSystem(r.Messages); i < len(r.Messages); i++ {
			if n := len(turns); n > 0 && c.turnRole(turns[n-1]) == antRole(r.Messages[i].Role) && antRole(r.Messages[i].Role) != "system" {
				turns[n-1].end = i + 1
			} else {
				turns = append(turns, antTurn{start: i, end: i + 1})
			}
		}
		if len(turns) > 2 {
			turns = turns[len(turns)-2:]
		}
		if got := c.lastAntTurns(); !reflect.DeepEqual(got, turns) && len(got)+len(turns) > 0 {
			t.Fatalf("lastAntTurns() = %v, want %v\n%s", got, turns, render(r.Messages))
		}
	}
	if thinkingSeen == 0 || stoppedEarly == 0 {
		t.Fatalf("the sweep saw ANT-THINKING-FIRST %d times and stopped early %d times; want both", thinkingSeen, stoppedEarly)
	}
}

func containsViolation(vs []Violation, v Violation) bool {
	for _, w := range vs {
		if w == v {
			return true
		}
	}
	return false
}
