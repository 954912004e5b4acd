package toolwire_test

import (
	"testing"

	"github.com/toolwire/toolwire"
)

// TestStepCancelledRefitKeepsRefit: a model call made to refit after a
// context-length error, then cancelled, is to be made again as a refit.
func TestStepCancelledRefitKeepsRefit(t *testing.T) {
	a, err := toolwire.New(fakeModel{}, nil)
	must(t, err)
	s := a.Start("List every item.")
	s, _, err = a.Step(s, toolwire.ModelOutcome{Failure: &toolwire.ModelFailure{Kind: toolwire.FailContextLength, Message: "too long"}})
	must(t, err)
	if !s.Next.Refit || s.Next.Kind != toolwire.CallModel {
		t.Fatalf("after a context-length error, Next = %+v, want a model call with Refit", s.Next)
	}
	for _, cancel := range []toolwire.FailureKind{toolwire.FailCancelled, toolwire.FailDeadline} {
		n, _, err := a.Step(s, toolwire.ModelOutcome{Failure: &toolwire.ModelFailure{Kind: cancel, Message: string(cancel)}})
		must(t, err)
		if n.Next.Kind != toolwire.CallModel || !n.Next.Refit {
			t.Errorf("Step(refit call, %v).Next = %+v, want the same refit call again", cancel, n.Next)
		}
	}
}
