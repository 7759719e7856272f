#!/usr/bin/env bash
# The server's CPU per request (issue 16): uncached search, uncached extractive answer and the HTTP
# transport alone, on SciFact and on the PostgreSQL 15 documentation, from the server process's own
# CPU accounting (/proc/<pid>/stat), not from wall-clock throughput. bench/cost/driver.mjs does the
# measuring; this script builds the stores and starts the servers.
#
#   bench/cost/run.sh [DATASETS_DIR]                  (default ../shared/datasets)
#
# Each corpus is ingested once with the default embedder (so /v1/search runs hybrid: BM25 + vectors,
# top 10 with snippets) into tenant "default", and served by `attest serve --no-cache` (no answer,
# retrieval or embedding cache: every request does its whole work). With BASELINE=/path/to/attest,
# that binary ingests the same corpus into a store of its own (in its own format: a change may bump
# the segment format) and serves it beside the first, and the two are measured side by side in one
# run (ratios new/baseline per round): the before/after of a change.
#
# Environment: ATTEST (default build/attest), BASELINE (unset), OUT (bench/out/cost), ROUNDS (5),
# MIN_CPU_MS (500: each batch runs until the server spent this much CPU), CORPORA ("scifact postgres"),
# KINDS (transport,search,answer), QUESTIONS (300: the first N SciFact queries; the PostgreSQL queries
# are bench/queries/postgresql_docs.txt). Needs node, curl and jq; the PostgreSQL docs come from
# Debian's postgresql-doc-15 (scripts/bootstrap installs it).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DATASETS="$(realpath "${1:-../shared/datasets}")"
ATTEST="$(realpath "${ATTEST:-build/attest}")"
OUT="${OUT:-bench/out/cost}"
ROUNDS="${ROUNDS:-5}"
MIN_CPU_MS="${MIN_CPU_MS:-500}"
CORPORA="${CORPORA:-scifact postgres}"
KINDS="${KINDS:-transport,search,answer}"
QUESTIONS="${QUESTIONS:-300}"
PG_DOCS=/usr/share/doc/postgresql-doc-15/html
[[ -x "$ATTEST" ]] || { echo "cost: $ATTEST is missing (cmake --build build --target attest)" >&2; exit 2; }
[[ -z "${BASELINE:-}" || -x "$BASELINE" ]] || { echo "cost: BASELINE=$BASELINE is not an executable" >&2; exit 2; }
for t in node jq curl; do command -v "$t" >/dev/null || { echo "cost: $t is not installed" >&2; exit 2; }; done

mkdir -p "$OUT"
OUT="$(realpath "$OUT")"
echo "== $(date -u +%FT%TZ) $(uname -n), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $ATTEST${BASELINE:+ vs baseline $BASELINE}"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

PIDS=()
stop_servers() { for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; PIDS=(); }
trap stop_servers EXIT
# start_server BIN DATA LOG: sets PID and PORT.
start_server() {
  rm -f "$3.out"
  "$1" --data "$2" serve --host 127.0.0.1 --port 0 --rate-limit 0 --no-cache > "$3.out" 2> "$3" &
  PID=$!
  PIDS+=("$PID")
  PORT=""
  for _ in $(seq 1 300); do
    PORT="$(grep -ho 'listening on http://127.0.0.1:[0-9]*' "$3.out" "$3" | grep -o '[0-9]*$' | head -1 || true)"
    [[ -n "$PORT" ]] && return 0
    kill -0 "$PID" 2>/dev/null || { echo "cost: the server exited:" >&2; cat "$3" >&2; exit 1; }
    sleep 0.1
  done
  echo "cost: the server printed no port" >&2
  exit 1
}

for corpus in $CORPORA; do
  data="$OUT/$corpus"
  questions="$OUT/$corpus.questions.txt"
  rm -rf "$data" "$data.baseline" "$data.ingest.txt" "$data.baseline.ingest.txt"
  case "$corpus" in
    scifact)
      [[ -f "$DATASETS/scifact/beir/corpus.jsonl" ]] || { echo "cost: SciFact is missing under $DATASETS (see its README.md)" >&2; exit 2; }
      source_path="$DATASETS/scifact/beir/corpus.jsonl"
      jq -rn --argjson n "$QUESTIONS" '[inputs.text][:$n][]' "$DATASETS/scifact/beir/queries.jsonl" > "$questions" ;;
    postgres)
      [[ -d "$PG_DOCS" ]] || { echo "cost: $PG_DOCS is missing (apt-get install postgresql-doc-15)" >&2; exit 2; }
      source_path="$PG_DOCS"
      grep -v '^\s*$' "$HERE/../queries/postgresql_docs.txt" > "$questions" ;;
    *) echo "cost: unknown corpus $corpus (scifact, postgres)" >&2; exit 2 ;;
  esac
  # make_store BIN DATA: ingests the corpus, prints a reader key of tenant "default".
  make_store() {
    "$1" --data "$2" ingest --tenant default "$source_path" > "$2.ingest.txt" 2>&1
    "$1" --data "$2" keys create --tenant default --user bench --json | jq -r .key
  }
  key="$(make_store "$ATTEST" "$data")"
  echo "== $corpus: $(grep -m1 -o 'ingested.*chunks' "$data.ingest.txt" || true)"
  args=()
  if [[ -n "${BASELINE:-}" ]]; then
    base_key="$(make_store "$BASELINE" "$data.baseline")"
    start_server "$BASELINE" "$data.baseline" "$OUT/$corpus.serve-baseline.log"
    args+=(--url "http://127.0.0.1:$PORT" --pid "$PID" --key "$base_key" --name baseline)
  fi
  start_server "$ATTEST" "$data" "$OUT/$corpus.serve.log"
  args+=(--url "http://127.0.0.1:$PORT" --pid "$PID" --key "$key" --name "$([[ -n "${BASELINE:-}" ]] && echo new || echo attest)")
  node "$HERE/driver.mjs" "${args[@]}" --questions "$questions" --kinds "$KINDS" \
    --rounds "$ROUNDS" --min-cpu-ms "$MIN_CPU_MS" --hz "$(getconf CLK_TCK)" --label "$corpus " --json "$OUT/$corpus.json"
  stop_servers
done
