#!/usr/bin/env bash
# `attest serve` under hostile connections: the issue-10 transport bars. Builds nothing. Usage:
#   bench/serve/slowloris.sh [BUILD_DIR] [DATASETS_DIR]        # defaults: build, ../shared/datasets
# Needs BUILD_DIR/attest and BUILD_DIR/bench/slowloris (ninja -C build attest slowloris).
#
# 1. Creates a data dir ($OUT/data), ingests the first $DOCS SciFact documents into tenant "default"
#    and creates a reader key (tenant default, user bench).
# 2. Framing probes over /dev/tcp (no client library in the way): `Transfer-Encoding: xchunked` with
#    a second request as its "body", and a chunked /v1/search whose credential is only in a trailer
#    field (Authorization, then X-API-Key). Each must be answered once with an error and the
#    connection closed within 5 s; the smuggled request must never be answered.
# 3. For each configuration in $CONFIGS, starts `attest serve --port 0 --rate-limit 0 --no-cache`
#    and runs bench/slowloris: $HALF_OPEN half-open connections from 127.0.0.1 while /v1/search is
#    measured from 127.0.0.2 ($ROUNDS rounds, $SEARCHES searches per phase). Configurations:
#      control    no attack at all (--half-open 0): the noise floor of the ratio on this machine
#      hold       the attack opens its connections once (closed ones stay closed)
#      reconnect  a closed attack connection is opened again after $RECONNECT_MS ms
#    Each may end in "-ka": the searches then share one keep-alive connection per phase.
# Everything lands in $OUT (default bench/out/slowloris). Environment knobs: OUT, DOCS (300),
# HALF_OPEN (4200), SEARCHES (300), ROUNDS (3), RECONNECT_MS (1000), CONFIGS ("control hold reconnect"),
# SERVE_FLAGS (extra flags for attest serve), REUSE_DATA=1 (keep an existing $OUT/data and key), TOOL
# (the slowloris binary, default BUILD_DIR/bench/slowloris; to measure another build of attest).
set -euo pipefail

BUILD_DIR="$(realpath "${1:-build}")"
DATASETS="$(realpath "${2:-../shared/datasets}")"
OUT="${OUT:-bench/out/slowloris}"
DOCS="${DOCS:-300}"
HALF_OPEN="${HALF_OPEN:-4200}"
SEARCHES="${SEARCHES:-300}"
ROUNDS="${ROUNDS:-3}"
RECONNECT_MS="${RECONNECT_MS:-1000}"
CONFIGS="${CONFIGS-control hold reconnect}"
read -r -a SERVE_FLAGS <<< "${SERVE_FLAGS:-}"

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ATTEST="$BUILD_DIR/attest"
TOOL="${TOOL:-$BUILD_DIR/bench/slowloris}"
CORPUS="$DATASETS/scifact/beir/corpus.jsonl"
QUERIES="$DATASETS/scifact/beir/queries.jsonl"
for f in "$ATTEST" "$TOOL"; do [[ -x "$f" ]] || { echo "slowloris.sh: $f is missing (ninja -C $BUILD_DIR attest slowloris)" >&2; exit 2; }; done
for f in "$CORPUS" "$QUERIES"; do [[ -f "$f" ]] || { echo "slowloris.sh: $f is missing" >&2; exit 2; }; done

mkdir -p "$OUT"
OUT="$(realpath "$OUT")"
DATA="$OUT/data"
echo "== $(date -u +%FT%TZ) $(uname -n), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg); ulimit -n $(ulimit -n)"

# ---- 1. data dir, ingest, key ----
if [[ "${REUSE_DATA:-0}" == 1 && -f "$OUT/key.json" ]]; then
  echo "== reusing $DATA"
else
  rm -rf "$DATA"
  head -n "$DOCS" "$CORPUS" > "$OUT/corpus.jsonl"
  echo "== ingest $DOCS SciFact documents into tenant 'default'"
  "$ATTEST" --data "$DATA" ingest --tenant default "$OUT/corpus.jsonl" --json > "$OUT/ingest.json"
  "$ATTEST" --data "$DATA" keys create --tenant default --user bench --json > "$OUT/key.json"
fi
KEY="$(jq -r .key "$OUT/key.json")"

BENCH_NAME=slowloris.sh
source "$HERE/server.sh"

# probe NAME BYTES: sends BYTES on one connection, prints the status lines received and whether the
# server closed the connection within 5 s.
probe() {
  local name="$1" bytes="$2" got closed
  exec 3<>"/dev/tcp/127.0.0.1/$PORT"
  printf '%b' "$bytes" >&3
  if got="$(timeout 5 cat <&3)"; then closed=yes; else closed="NO (still open after 5 s)"; fi
  exec 3<&- 3>&-
  printf '%-28s responses: %s | closed: %s\n' "$name" \
    "$(grep -ao 'HTTP/1\.[01] [0-9][0-9][0-9]' <<< "$got" | paste -sd, - || true)" "$closed" | tee -a "$OUT/summary.txt"
}

: > "$OUT/summary.txt"
# ---- 2. framing probes ----
start_server probes --no-cache "${SERVE_FLAGS[@]}"
echo "== framing probes: server pid $SERVER_PID port $PORT" | tee -a "$OUT/summary.txt"
BODY='{"query":"biomaterials","top_k":3}'
SIZE="$(printf '%x' "${#BODY}")"
SMUGGLED="GET /v1/documents/x HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer $KEY\r\n\r\n"
probe "xchunked + smuggled GET" \
  "POST /v1/search HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer $KEY\r\nTransfer-Encoding: xchunked\r\n\r\n$SMUGGLED"
probe "chunked, identity" \
  "POST /v1/search HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer $KEY\r\nTransfer-Encoding: chunked, identity\r\n\r\n$SMUGGLED"
probe "trailer Authorization" \
  "POST /v1/search HTTP/1.1\r\nHost: b\r\nTransfer-Encoding: chunked\r\n\r\n$SIZE\r\n$BODY\r\n0\r\nAuthorization: Bearer $KEY\r\n\r\n"
probe "trailer X-API-Key" \
  "POST /v1/search HTTP/1.1\r\nHost: b\r\nTransfer-Encoding: chunked\r\n\r\n$SIZE\r\n$BODY\r\n0\r\nX-API-Key: $KEY\r\n\r\n"
probe "control: header credential" \
  "POST /v1/search HTTP/1.1\r\nHost: b\r\nConnection: close\r\nAuthorization: Bearer $KEY\r\nTransfer-Encoding: chunked\r\n\r\n$SIZE\r\n$BODY\r\n0\r\n\r\n"
stop_server

# ---- 3. half-open connections vs /v1/search ----
for cfg in $CONFIGS; do
  reconnect=-1 half_open="$HALF_OPEN" ka=()
  [[ "$cfg" == reconnect* ]] && reconnect="$RECONNECT_MS"
  [[ "$cfg" == control* ]] && half_open=0
  [[ "$cfg" == *-ka ]] && ka=(--keep-alive)
  start_server "$cfg" --no-cache "${SERVE_FLAGS[@]}"
  echo "== slowloris ($cfg): server pid $SERVER_PID port $PORT ${SERVE_FLAGS[*]}; load $(cut -d' ' -f1-3 /proc/loadavg)" \
    | tee -a "$OUT/summary.txt"
  "$TOOL" --port "$PORT" --key "$KEY" --queries "$QUERIES" --half-open "$half_open" --searches "$SEARCHES" \
    --rounds "$ROUNDS" --reconnect-ms "$reconnect" "${ka[@]}" | tee "$OUT/slowloris-$cfg.txt"
  grep -E '^(pooled|median)' "$OUT/slowloris-$cfg.txt" | sed "s/^/$cfg: /" >> "$OUT/summary.txt"
  echo "   server: $(grep -E '^(VmHWM|Threads)' /proc/$SERVER_PID/status | tr -s ' \t' ' ' | paste -sd' ')" \
    | tee -a "$OUT/summary.txt"
  stop_server
done
echo "== done $(date -u +%FT%TZ); load: $(cut -d' ' -f1-3 /proc/loadavg); results in $OUT"
