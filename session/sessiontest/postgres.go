package sessiontest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// PostgresURL returns the URL of the PostgreSQL server the tests use,
// TOOLWIRE_TEST_POSTGRES_URL (.ci/run and .ci/with-postgres start one and
// set it), once ping reaches it. Without a reachable server the test fails
// in CI (CI=true) and is skipped elsewhere, saying how to run it.
func PostgresURL(t testing.TB, ping func(ctx context.Context, url string) error) string {
	t.Helper()
	url := os.Getenv("TOOLWIRE_TEST_POSTGRES_URL")
	unusable := func(why string) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %s: the PostgreSQL tests must run in CI (.ci/run starts a cluster)", why)
		}
		t.Skipf("%s; run the tests under .ci/with-postgres (e.g. .ci/with-postgres go test ./session/postgres) to test against a throwaway cluster", why)
	}
	if url == "" {
		unusable("TOOLWIRE_TEST_POSTGRES_URL is not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := ping(ctx, url); err != nil {
		unusable(fmt.Sprintf("PostgreSQL at TOOLWIRE_TEST_POSTGRES_URL is not reachable: %v", err))
	}
	return url
}
