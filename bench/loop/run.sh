#!/usr/bin/env bash
# The loop benchmark (docs/benchmarks.md): toolwire's loop (bench/loop) and
# the floor, a hand-written Go loop (bench/loop/floor), each against a fresh
# conformance server with zero model latency (bench/loop/server), in each
# dialect of DIALECTS (default "chat responses anthropic gemini": OpenAI
# Chat Completions and Responses, Anthropic Messages, Gemini
# generateContent) and two workloads:
#   W1 (scenario a): 50 rounds x 8 parallel calls, 20 KB results (210 records)
#   W2 (scenario b): 10 rounds x 1 call, 30,000 records (~3 MB)
# For each run it prints the peer's JSON line with its CPU time (user+sys)
# and peak memory as /usr/bin/time measures them, then a table of the
# medians, dialect x mode x workload: toolwire's CPU, peak memory and bytes
# sent as ratios to the floor's, and the absolute figures.
# Usage: bench/loop/run.sh [count] [stream]
# (default 3 runs each, not streamed; "stream" streams the answers).
# ESTIMATE=1 adds a run of toolwire counting tokens with the calibrated
# estimator instead of the exact o200k tokenizer (Config.Counter).
# BEFORE=<commit> adds a run of toolwire built from that commit (workload
# "<W>-before"), so that a change is measured before and after in one
# run, on the same machine state; a build without --dialect runs in chat
# only.
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-3}
stream=${2:-}
dialects=${DIALECTS:-chat responses anthropic gemini}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/loop" ./bench/loop
go build -o "$bin/floor" ./bench/loop/floor
go build -o "$bin/server" ./bench/loop/server
before_dialects=no
if [ -n "${BEFORE:-}" ]; then
  mkdir "$bin/src"
  git archive "$BEFORE" | tar -x -C "$bin/src"
  (cd "$bin/src" && go build -o "$bin/loop-before" ./bench/loop)
  if "$bin/loop-before" --help 2>&1 | grep -q -- -dialect; then before_dialects=yes; fi
fi
flags=()
mode=whole
if [ "$stream" = stream ]; then flags+=(--stream); mode=stream; fi

run() { # dialect workload peer rounds calls records
  local dialect=$1 workload=$2 peer=$3 rounds=$4 calls=$5 records=$6
  local dflags=(--dialect "$dialect")
  if [ "$peer" = loop-before ] && [ "$before_dialects" = no ]; then
    [ "$dialect" = chat ] || return 0
    dflags=()
  fi
  # A new file each run: a stale URL from the last server would race
  # the new server's first line.
  local uf; uf=$(mktemp -p "$bin")
  "$bin/server" --dialect "$dialect" --rounds "$rounds" --calls "$calls" > "$uf" &
  local spid=$!
  for _ in $(seq 50); do [ -s "$uf" ] && break; sleep 0.1; done
  local url; url=$(head -1 "$uf")
  local line
  line=$(/usr/bin/time -f '%U %S %M' -o "$bin/time" "$bin/$peer" "${dflags[@]}" --url "$url" --records "$records" \
    --expect-rounds "$rounds" --expect-calls $((rounds * calls)) --max-rounds $((rounds + 5)) --label "$workload" "${flags[@]}")
  kill "$spid"; wait "$spid" 2>/dev/null || true
  read -r user sys rss < "$bin/time"
  local cpu; cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') # bc would write .74
  echo "$line" | sed "s/}\$/,\"run_dialect\":\"$dialect\",\"mode\":\"$mode\",\"cpu_s\":$cpu,\"time_rss_kb\":$rss}/"
}

echo "# $(go version) on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') ($(nproc) cores)"
for dialect in $dialects; do
  for workload in W1 W2; do
    case $workload in
      W1) rounds=50 calls=8 records=210 ;;
      W2) rounds=10 calls=1 records=30000 ;;
    esac
    for _ in $(seq "$count"); do
      for peer in floor loop; do
        run "$dialect" "$workload" "$peer" "$rounds" "$calls" "$records"
      done
      if [ -n "${BEFORE:-}" ]; then
        run "$dialect" "$workload-before" loop-before "$rounds" "$calls" "$records"
      fi
      if [ -n "${ESTIMATE:-}" ]; then
        LOOP_COUNTER=estimate run "$dialect" "$workload-estimate" loop "$rounds" "$calls" "$records"
      fi
    done
  done
done | tee "$bin/results"
python3 - "$bin/results" "$dialects" <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
print()
print("| dialect | mode | workload | CPU toolwire/floor | RSS toolwire/floor | bytes sent toolwire/floor"
      " | CPU s toolwire / floor | RSS MB toolwire / floor | MB sent toolwire / floor | wall s toolwire / floor |")
print("|---|---|---|---|---|---|---|---|---|---|")
for d in sys.argv[2].split():
    for w in sorted({r["label"] for r in rows if r["run_dialect"] == d}):
        base = w.split("-")[0]
        def med(peer, k):
            label = base if peer == "floor" else w
            return statistics.median(r[k] for r in rows
                                     if r["run_dialect"] == d and r["label"] == label and r["peer"] == peer)
        t, f = med("toolwire", "cpu_s"), med("floor", "cpu_s")
        tm, fm = med("toolwire", "peak_rss_kb"), med("floor", "peak_rss_kb")
        tb, fb = med("toolwire", "bytes_sent"), med("floor", "bytes_sent")
        print(f"| {d} | {rows[0]['mode']} | {w} | {t/f:.2f}x | {tm/fm:.2f}x | {tb/fb:.4f}x"
              f" | {t:.2f} / {f:.2f} | {tm/1024:.0f} / {fm/1024:.0f} | {tb/1e6:.1f} / {fb/1e6:.1f}"
              f" | {med('toolwire','wall_s'):.2f} / {med('floor','wall_s'):.2f} |")
PY
