#!/usr/bin/env bash
# Runs every benchmark recorded in docs/benchmarks.md, with the settings
# used there, and writes the raw output to bench/out/<date>.txt.
# Compare figures as ratios within one run: shared machines are noisy.
# Usage: bench/run.sh [count]   (default count 5)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
mkdir -p bench/out
out=bench/out/$(date -u +%Y%m%dT%H%M%SZ).txt
{
  echo "# $(go version) on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') ($(nproc) cores), load $(cut -d' ' -f1-3 /proc/loadavg)"
  go test ./llm -run '^$' -bench . -benchmem -count "$count"
  go test ./transcript -run '^$' -bench . -benchmem -count "$count" -benchtime 10x
  go test ./provider/... -run '^$' -bench . -benchmem -count "$count" -benchtime 10x
  go test ./tool -run '^$' -bench . -benchmem -count "$count"
  go test ./lint -run '^$' -bench . -benchmem -count "$count"
  go test -p 1 ./session/memory ./session/sqlite -run '^$' -bench . -benchtime 3s -count "$count"
  PGFSYNC=on .ci/with-postgres go test ./session/postgres -run '^$' -bench . -benchtime 3s -count "$count"
  go test ./toolresult -run '^$' -bench Shape -benchmem -count "$count" -benchtime 5x
  go test ./budget -run '^$' -bench . -benchmem -count "$count" -benchtime 5x
} 2>&1 | tee "$out"
echo "wrote $out"
