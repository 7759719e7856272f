#!/usr/bin/env bash
# `attest serve` under load: the issue-5 bars, measured with wrk and bench/serve/sse_hold.
# Builds nothing. Usage:
#   bench/serve/run.sh [BUILD_DIR] [DATASETS_DIR]        # defaults: build, ../shared/datasets
# Needs BUILD_DIR/attest and BUILD_DIR/bench/sse_hold (ninja -C build attest sse_hold) and wrk.
#
# 1. Creates a data dir ($OUT/data), ingests SciFact into tenant "default" (an API key always has a
#    tenant of 1-32 characters and the server reads only the key's tenant, while `attest ingest`
#    without --tenant writes tenant ""), and creates a reader key (tenant default, user bench).
# 2. For each configuration, starts `attest serve --port 0 --rate-limit 0 [--no-cache]`, runs an
#    untimed warm-up, then ROUNDS x `wrk -t$THREADS -c$CONNS -d$DURATION --latency -s X.lua`, and
#    prints req/s, p50, p99 per round and the medians. /metrics is saved after each configuration.
#      search-cached   /v1/search, default server (retrieval cache on; warm-up fills it)
#      search-nocache  /v1/search, --no-cache (every request runs retrieval)
#      answer-cached   /v1/answer extractive, default server (answer cache on; warm-up fills it)
#      answer-nocache  /v1/answer extractive, --no-cache
# 3. sse_hold (256 slow SSE clients vs sequential /v1/search) against a default and a --no-cache server,
#    with the per-address connection bound and the answer queue raised to hold every stream (they all
#    come from 127.0.0.1 at once). The issue-16 bar, 2,000 streams (docs/http_server.md, "Measured:
#    2,000 slow streams"):  CONFIGS="" SSE_STREAMS=2000 bench/serve/run.sh build ../shared/datasets
# Everything lands in $OUT (default bench/out/serve). Environment knobs: OUT, ROUNDS (3), DURATION (20s),
# CONNS (32), THREADS (2), CONFIGS (the four above; "" = none), SSE_CONFIGS ("cached nocache"; "" = none), SSE_ROUNDS (3),
# SSE_STREAMS (256), SSE_SEARCHES (500), SSE_READ_BYTES (256), SSE_READ_INTERVAL_MS (100), SSE_HOLD_FIRST (1 beyond
# 512 streams: sse_hold --hold-first), SSE_TIMEOUT_S (90; 240 beyond 512 streams), REUSE_DATA=1 (keep $OUT/data and key).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD_DIR="$(realpath "${1:-build}")"
DATASETS="$(realpath "${2:-../shared/datasets}")"
OUT="${OUT:-bench/out/serve}"
ROUNDS="${ROUNDS:-3}"
DURATION="${DURATION:-20s}"
CONNS="${CONNS:-32}"
THREADS="${THREADS:-2}"
CONFIGS="${CONFIGS-search-cached search-nocache answer-cached answer-nocache}"
SSE_CONFIGS="${SSE_CONFIGS-cached nocache}"
SSE_ROUNDS="${SSE_ROUNDS:-3}"
SSE_STREAMS="${SSE_STREAMS:-256}"
SSE_SEARCHES="${SSE_SEARCHES:-500}"
# Every stream must still be open when the held searches start: 2,000 uncached answers take ~60 s to
# compute here, longer than a slowly read answer lasts, so beyond 512 streams sse_hold runs with
# --hold-first (a stream is not read past its first event until every stream has it).
SSE_HOLD_FIRST="${SSE_HOLD_FIRST:-$(( SSE_STREAMS > 512 ))}"
SSE_TIMEOUT_S="${SSE_TIMEOUT_S:-$(( SSE_STREAMS > 512 ? 240 : 90 ))}"
SSE_READ_BYTES="${SSE_READ_BYTES:-256}"
SSE_READ_INTERVAL_MS="${SSE_READ_INTERVAL_MS:-100}"

ATTEST="$BUILD_DIR/attest"
SSE_HOLD="$BUILD_DIR/bench/sse_hold"
CORPUS="$DATASETS/scifact/beir/corpus.jsonl"
QUERIES="$DATASETS/scifact/beir/queries.jsonl"
for f in "$ATTEST" "$SSE_HOLD"; do [[ -x "$f" ]] || { echo "run.sh: $f is missing (ninja -C $BUILD_DIR attest sse_hold)" >&2; exit 2; }; done
for f in "$CORPUS" "$QUERIES"; do [[ -f "$f" ]] || { echo "run.sh: $f is missing" >&2; exit 2; }; done
[[ -z "$CONFIGS" ]] || command -v wrk >/dev/null || { echo "run.sh: wrk is not installed (CONFIGS=\"\" runs only sse_hold)" >&2; exit 2; }

mkdir -p "$OUT"
OUT="$(realpath "$OUT")"
DATA="$OUT/data"
echo "== $(date -u +%FT%TZ) $(uname -n), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- 1. data dir, ingest, key ----
if [[ "${REUSE_DATA:-0}" == 1 && -f "$OUT/key.json" ]]; then
  echo "== reusing $DATA"
else
  rm -rf "$DATA"
  echo "== ingest SciFact into tenant 'default'"
  "$ATTEST" --data "$DATA" ingest --tenant default "$CORPUS" --json > "$OUT/ingest.json"
  "$ATTEST" --data "$DATA" keys create --tenant default --user bench --json > "$OUT/key.json"
fi
KEY="$(jq -r .key "$OUT/key.json")"
export ATTEST_KEY="$KEY" QUERIES WRK_THREADS="$THREADS"

BENCH_NAME=run.sh
source "$HERE/server.sh"

field() { grep -o "$1=[0-9.]*" | head -1 | cut -d= -f2; }
median() { sort -g | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# ---- 2. wrk ----
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"
for cfg in $CONFIGS; do
  route="${cfg%%-*}"
  flags=()
  [[ "$cfg" == *-nocache ]] && flags=(--no-cache)
  start_server "$cfg" "${flags[@]}"
  warm=5s
  [[ "$cfg" == answer-cached ]] && warm=20s  # ~1,109 distinct questions must reach the answer cache
  echo "== $cfg: server pid $SERVER_PID port $PORT ${flags[*]}; warm-up $warm; load $(cut -d' ' -f1-3 /proc/loadavg)"
  wrk -t"$THREADS" -c"$CONNS" -d"$warm" -s "$HERE/$route.lua" "http://127.0.0.1:$PORT" > "$OUT/$cfg-warm.txt"
  rps=(); p50=(); p99=()
  for r in $(seq 1 "$ROUNDS"); do
    f="$OUT/$cfg-r$r.txt"
    wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -s "$HERE/$route.lua" "http://127.0.0.1:$PORT" > "$f"
    line="$(grep '^RESULT' "$f")"
    rps+=("$(field rps <<< "$line")"); p50+=("$(field p50_ms <<< "$line")"); p99+=("$(field p99_ms <<< "$line")")
    printf '%s round %d: %s req/s, p50 %s ms, p99 %s ms, non-200 %s, socket errors %s; load %s\n' "$cfg" "$r" \
      "${rps[-1]}" "${p50[-1]}" "${p99[-1]}" "$(field non200 <<< "$line")" "$(field socket_errors <<< "$line")" \
      "$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$SUMMARY"
  done
  printf '%s median: %s req/s, p50 %s ms, p99 %s ms\n' "$cfg" "$(printf '%s\n' "${rps[@]}" | median)" \
    "$(printf '%s\n' "${p50[@]}" | median)" "$(printf '%s\n' "${p99[@]}" | median)" | tee -a "$SUMMARY"
  grep -E '^attest_(stage_seconds|http_request_seconds)_(sum|count)|^attest_cache_requests_total|^attest_embedding_cache|^attest_(degraded|fallbacks)_total' \
    <(curl -s "http://127.0.0.1:$PORT/metrics") > "$OUT/$cfg-metrics.txt" || true
  echo "   server: $(grep -E '^(VmHWM|Threads)' /proc/$SERVER_PID/status | tr -s ' \t' ' ' | paste -sd' ')" | tee -a "$SUMMARY"
  stop_server
done

# ---- 3. 256 slow SSE clients vs /v1/search ----
for cfg in $SSE_CONFIGS; do
  # Every stream comes from 127.0.0.1 and arrives at once: the per-address connection bound and the
  # answer queue are raised to hold them all (defaults 256 and 1024; docs/http_api.md, "Limits").
  flags=(--max-connections-per-address $((SSE_STREAMS + 64)) --answer-queue "$SSE_STREAMS"
         --max-connections $((SSE_STREAMS + 256 > 4096 ? SSE_STREAMS + 256 : 4096))); warm=(--warm)
  hold=(); [[ "$SSE_HOLD_FIRST" == 1 ]] && hold=(--hold-first)
  [[ "$cfg" == nocache ]] && { flags+=(--no-cache); warm=(); }
  start_server "sse-$cfg" "${flags[@]}"
  echo "== sse_hold ($cfg): server pid $SERVER_PID port $PORT ${flags[*]}; load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$SSE_HOLD" --port "$PORT" --key "$KEY" --queries "$QUERIES" --pid "$SERVER_PID" --streams "$SSE_STREAMS" \
    --searches "$SSE_SEARCHES" --rounds "$SSE_ROUNDS" --read-bytes "$SSE_READ_BYTES" \
    --read-interval-ms "$SSE_READ_INTERVAL_MS" --timeout-s "$SSE_TIMEOUT_S" "${warm[@]}" "${hold[@]}" | tee "$OUT/sse-$cfg.txt"
  curl -s "http://127.0.0.1:$PORT/metrics" | grep -E '^attest_(slow_clients_dropped_total|cancelled_total|open_streams)' \
    | tee -a "$OUT/sse-$cfg.txt" || true
  stop_server
done
echo "== done $(date -u +%FT%TZ); load: $(cut -d' ' -f1-3 /proc/loadavg); results in $OUT"
