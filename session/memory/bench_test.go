package memory_test

import (
	"testing"

	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/memory"
	"github.com/toolwire/toolwire/session/sessiontest"
)

// BenchmarkStore is the floor of the database stores' figures: the same
// encoding and checks, no database.
func BenchmarkStore(b *testing.B) {
	sessiontest.Benchmark(b, func(b *testing.B) session.Store {
		s, err := memory.New(nil)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}, nil)
}
