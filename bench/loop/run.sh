#!/usr/bin/env bash
# The loop benchmark (docs/benchmarks.md): toolwire's loop (bench/loop) and
# the floor, a hand-written Go loop (bench/loop/floor), each against a fresh
# conformance server with zero model latency (bench/loop/server), in two
# scenarios:
#   a: 50 rounds x 8 parallel calls, 20 KB results (210 records)
#   b: 10 rounds x 1 call, 30,000 records (~3 MB)
# For each run it prints the peer's JSON line and its CPU time (user+sys)
# and peak memory as /usr/bin/time measures them, then the ratios of
# toolwire to the floor. Usage: bench/loop/run.sh [count] [stream]
# (default 3 runs each, not streamed; "stream" streams the answers).
# ESTIMATE=1 adds a run of toolwire counting tokens with the calibrated
# estimator instead of the exact o200k tokenizer (Config.Counter).
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-3}
stream=${2:-}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/loop" ./bench/loop
go build -o "$bin/floor" ./bench/loop/floor
go build -o "$bin/server" ./bench/loop/server
flags=()
[ "$stream" = stream ] && flags+=(--stream)

run() { # scenario peer rounds calls records
  local scenario=$1 peer=$2 rounds=$3 calls=$4 records=$5
  "$bin/server" --rounds "$rounds" --calls "$calls" > "$bin/url" &
  local spid=$!
  for _ in $(seq 50); do [ -s "$bin/url" ] && break; sleep 0.1; done
  local url; url=$(head -1 "$bin/url")
  local line
  line=$(/usr/bin/time -f '%U %S %M' -o "$bin/time" "$bin/$peer" --url "$url" --records "$records" \
    --expect-rounds "$rounds" --expect-calls $((rounds * calls)) --max-rounds $((rounds + 5)) --label "$scenario" "${flags[@]}")
  kill "$spid"; wait "$spid" 2>/dev/null || true
  read -r user sys rss < "$bin/time"
  echo "$line" | sed "s/}\$/,\"cpu_s\":$(echo "$user + $sys" | bc),\"time_rss_kb\":$rss}/"
}

echo "# $(go version) on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') ($(nproc) cores)"
for scenario in a b; do
  case $scenario in
    a) rounds=50 calls=8 records=210 ;;
    b) rounds=10 calls=1 records=30000 ;;
  esac
  for i in $(seq "$count"); do
    for peer in floor loop; do
      run "$scenario" "$peer" "$rounds" "$calls" "$records"
    done
    if [ -n "${ESTIMATE:-}" ]; then
      LOOP_COUNTER=estimate run "$scenario-estimate" loop "$rounds" "$calls" "$records"
    fi
  done
done | tee "$bin/results"
python3 - "$bin/results" <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
for sc in sorted({r["label"] for r in rows}):
    base = sc.split("-")[0]
    def med(peer, k):
        label = base if peer == "floor" else sc
        return statistics.median(r[k] for r in rows if r["label"] == label and r["peer"] == peer)
    print(f"scenario {sc}: toolwire/floor  cpu {med('toolwire','cpu_s')/med('floor','cpu_s'):.2f}x "
          f"({med('toolwire','cpu_s'):.2f}s / {med('floor','cpu_s'):.2f}s)  "
          f"peak memory {med('toolwire','peak_rss_kb')/med('floor','peak_rss_kb'):.2f}x "
          f"({med('toolwire','peak_rss_kb')/1024:.0f} / {med('floor','peak_rss_kb')/1024:.0f} MB)  "
          f"bytes sent {med('toolwire','bytes_sent')/med('floor','bytes_sent'):.4f}x "
          f"({med('toolwire','bytes_sent')/1e6:.1f} / {med('floor','bytes_sent')/1e6:.1f} MB)  "
          f"wall {med('toolwire','wall_s'):.2f}s / {med('floor','wall_s'):.2f}s")
PY
