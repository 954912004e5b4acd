package tool_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind: the
// executor promises that nothing it starts outlives it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
