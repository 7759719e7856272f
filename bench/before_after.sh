#!/usr/bin/env bash
# Two builds side by side in one run: `ask` latency (in-process, bench/ask_latency) and uncached
# /v1/search throughput and CPU per request (`attest serve --no-cache` under wrk), alternating
# A, B, A, B... so that load on a shared machine falls on both alike. For behaviour-preserving
# changes: the ratios B/A should sit within the spread of the rounds.
#
#   bench/before_after.sh BUILD_A BUILD_B [DATASETS_DIR]
#
# Each BUILD_* holds `attest` and `bench/ask_latency` (ninja -C BUILD attest ask_latency).
# Needs wrk and jq (ATTEST_BOOTSTRAP_EXTRAS=1 scripts/bootstrap). The data directory is written by
# BUILD_A's attest (SciFact, twice: tenant "" for ask_latency, tenant "default" for the server) and
# read by both. Environment: OUT (bench/out/before_after), ROUNDS (5), DURATION (10s), CONNS (8),
# THREADS (2), ASK_ROUNDS (1, ask_latency rounds per alternation).
set -euo pipefail

A="$(realpath "$1")"
B="$(realpath "$2")"
DATASETS="$(realpath "${3:-../shared/datasets}")"
OUT="${OUT:-bench/out/before_after}"
ROUNDS="${ROUNDS:-5}"
DURATION="${DURATION:-10s}"
CONNS="${CONNS:-8}"
THREADS="${THREADS:-2}"
ASK_ROUNDS="${ASK_ROUNDS:-1}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CORPUS="$DATASETS/scifact/beir/corpus.jsonl"
QUERIES="$DATASETS/scifact/beir/queries.jsonl"
for b in "$A" "$B"; do
  for f in attest bench/ask_latency; do
    [[ -x "$b/$f" ]] || { echo "before_after: $b/$f is missing (ninja -C BUILD attest ask_latency)" >&2; exit 2; }
  done
done
[[ -f "$CORPUS" && -f "$QUERIES" ]] || { echo "before_after: SciFact is missing under $DATASETS" >&2; exit 2; }
command -v wrk >/dev/null || { echo "before_after: wrk is not installed" >&2; exit 2; }
command -v jq >/dev/null || { echo "before_after: jq is not installed" >&2; exit 2; }

mkdir -p "$OUT"
OUT="$(realpath "$OUT")"
DATA="$OUT/data"
rm -rf "$DATA"
echo "== $(date -u +%FT%TZ) $(uname -n), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== A = $A"
echo "== B = $B"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
"$A/attest" --data "$DATA" ingest "$CORPUS" > /dev/null
"$A/attest" --data "$DATA" ingest --tenant default "$CORPUS" > /dev/null
KEY="$("$A/attest" --data "$DATA" keys create --tenant default --user bench --json | jq -r .key)"
export ATTEST_KEY="$KEY" QUERIES WRK_THREADS="$THREADS"

ATTEST="" BENCH_NAME=before_after.sh
source "$HERE/serve/server.sh"
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
field() { grep -o "$1=[0-9.]*" | head -1 | cut -d= -f2; }
median() { sort -g | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
range() { sort -g | awk 'NR==1{lo=$1} {hi=$1} END{printf "%s-%s", lo, hi}'; }
TICK="$(getconf CLK_TCK)"

declare -A ASK RPS CPU
for r in $(seq 1 "$ROUNDS"); do
  order="A B"
  (( r % 2 == 0 )) && order="B A"
  for side in $order; do
    build="$A"; [[ "$side" == B ]] && build="$B"
    "$build/bench/ask_latency" --data "$DATA" --queries "$QUERIES" --rounds "$ASK_ROUNDS" \
      --json "$OUT/ask-$side-$r.json" > "$OUT/ask-$side-$r.txt"
    ASK[$side]+="$(jq .ask.p95_ms "$OUT/ask-$side-$r.json") "
    ATTEST="$build/attest"
    start_server "$side" --no-cache
    wrk -t"$THREADS" -c"$CONNS" -d2s -s "$HERE/serve/search.lua" "http://127.0.0.1:$PORT" > /dev/null  # warm-up
    t0="$(cpu_ticks "$SERVER_PID")"
    wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -s "$HERE/serve/search.lua" "http://127.0.0.1:$PORT" \
      > "$OUT/search-$side-$r.txt"
    t1="$(cpu_ticks "$SERVER_PID")"
    stop_server
    line="$(grep '^RESULT' "$OUT/search-$side-$r.txt")"
    rps="$(field rps <<< "$line")"
    secs="${DURATION%s}"
    cpu_us="$(awk -v t="$((t1 - t0))" -v hz="$TICK" -v rps="$rps" -v s="$secs" 'BEGIN{printf "%.0f", t / hz * 1e6 / (rps * s)}')"
    RPS[$side]+="$rps "
    CPU[$side]+="$cpu_us "
    printf 'round %d %s: ask p95 %s ms; search %s req/s, %s CPU-us/request, non-200 %s; load %s\n' "$r" "$side" \
      "$(jq .ask.p95_ms "$OUT/ask-$side-$r.json")" "$rps" "$cpu_us" "$(field non200 <<< "$line")" \
      "$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$OUT/rounds.txt"
  done
done
summary() {  # NAME VALUES_A VALUES_B
  local ma mb
  ma="$(tr ' ' '\n' <<< "$2" | grep . | median)"
  mb="$(tr ' ' '\n' <<< "$3" | grep . | median)"
  printf '%-28s A %s [%s]  B %s [%s]  B/A %.3f\n' "$1" "$ma" "$(tr ' ' '\n' <<< "$2" | grep . | range)" \
    "$mb" "$(tr ' ' '\n' <<< "$3" | grep . | range)" "$(awk -v a="$ma" -v b="$mb" 'BEGIN{print b / a}')"
}
{
  echo "== medians over $ROUNDS alternating rounds [range]"
  summary "ask p95 ms" "${ASK[A]}" "${ASK[B]}"
  summary "search uncached req/s" "${RPS[A]}" "${RPS[B]}"
  summary "search CPU-us per request" "${CPU[A]}" "${CPU[B]}"
} | tee "$OUT/summary.txt"
