package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/sessiontest"
)

// BenchmarkStore runs the store benchmarks on the server of
// TOOLWIRE_TEST_POSTGRES_URL, each in a schema of its own. docs/benchmarks.md
// runs them on a throwaway cluster with fsync on:
// PGFSYNC=on .ci/with-postgres go test ./session/postgres -run '^$' -bench .
func BenchmarkStore(b *testing.B) {
	url := serverURL(b)
	pools := map[session.Store]*pgxpool.Pool{}
	sessiontest.Benchmark(b, func(b *testing.B) session.Store {
		pool := openPool(b, url, newSchema(b, url))
		s := newStore(b, pool)
		pools[s] = pool
		return s
	}, func(b *testing.B, s session.Store, write func()) int64 {
		// The growth of the server's write-ahead log while write runs.
		ctx := context.Background()
		var start string
		if err := pools[s].QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&start); err != nil {
			b.Fatal(err)
		}
		write()
		var n int64
		if err := pools[s].QueryRow(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint", start).Scan(&n); err != nil {
			b.Fatal(err)
		}
		return n
	})
}
