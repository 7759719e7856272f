#!/usr/bin/env bash
# The overhead of Attest's faces (issue 15): the SERVER's CPU time per request for the same questions
# asked through POST /v1/answer, MCP `tools/call ask` over HTTP (POST /mcp, one stateless 2026-07-28
# request per call) and POST /v1/chat/completions (model attest-extractive, not streamed), measured
# side by side in one run on one `attest serve --no-cache` (no answer, retrieval or embedding cache:
# every request does the whole work). Batches are interleaved A B C, B C A, C A B, ... so that drift
# and load on a shared machine fall on every face alike. Bar: each face ≤ 1.2× /v1/answer.
#
#   bench/faces/run.sh [DATASETS_DIR]        (default ../shared/datasets; SciFact's corpus and claims)
#
# Environment: ATTEST (default build/attest), OUT (bench/out/faces), ROUNDS (12), BATCH (25 questions
# per batch), QUESTIONS (50: the first N SciFact test claims, cycled through the batches), EMBEDDER
# (none: BM25 only, which makes /v1/answer cheapest and so the ratio strictest; "default" keeps the
# ingest default). Needs curl and jq. Prints, per face, the median and spread (min-max) of CPU ms per
# request over the rounds and the ratios face/answer (median of the per-round ratios); exit status 1
# when a ratio is over the bar.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DATASETS="$(realpath "${1:-../shared/datasets}")"
ATTEST="$(realpath "${ATTEST:-build/attest}")"
OUT="${OUT:-bench/out/faces}"
ROUNDS="${ROUNDS:-12}"
BATCH="${BATCH:-25}"
QUESTIONS="${QUESTIONS:-50}"
EMBEDDER="${EMBEDDER:-none}"
CORPUS="$DATASETS/scifact/beir/corpus.jsonl"
QUERIES="$DATASETS/scifact/beir/queries.jsonl"
[[ -x "$ATTEST" ]] || { echo "faces: $ATTEST is missing (cmake --build build --target attest)" >&2; exit 2; }
[[ -f "$CORPUS" && -f "$QUERIES" ]] || { echo "faces: SciFact is missing under $DATASETS (see its README.md)" >&2; exit 2; }
command -v jq >/dev/null || { echo "faces: jq is not installed" >&2; exit 2; }
command -v curl >/dev/null || { echo "faces: curl is not installed" >&2; exit 2; }

mkdir -p "$OUT"
OUT="$(realpath "$OUT")"
DATA="$OUT/data"
rm -rf "$DATA"
echo "== $(date -u +%FT%TZ) $(uname -n), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $ATTEST ($("$ATTEST" --version 2>/dev/null | head -1 || true))"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
GLOBAL=()
[[ "$EMBEDDER" != default ]] && GLOBAL=(--embedder "$EMBEDDER")
"$ATTEST" --data "$DATA" "${GLOBAL[@]}" ingest --tenant default "$CORPUS" > /dev/null
KEY="$("$ATTEST" --data "$DATA" keys create --tenant default --user bench --json | jq -r .key)"
# The SciFact test claims (the queries with a test qrel), as questions.
TEST_IDS="$(tail -n +2 "$DATASETS/scifact/beir/qrels/test.tsv" | cut -f1 | sort -u)"
jq -c -s --argjson ids "$(jq -R . <<< "$TEST_IDS" | jq -s .)" --argjson n "$QUESTIONS" \
  '[.[] | select(._id as $i | $ids | index($i)) | .text][:$n][]' "$QUERIES" > "$OUT/questions.jsonl"

SERVER_PID=""
stop_server() { [[ -n "$SERVER_PID" ]] && { kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; }; SERVER_PID=""; }
trap stop_server EXIT
"$ATTEST" --data "$DATA" "${GLOBAL[@]}" serve --host 127.0.0.1 --port 0 --rate-limit 0 --no-cache \
  > "$OUT/serve.out" 2> "$OUT/serve.log" &
SERVER_PID=$!
PORT=""
for _ in $(seq 1 300); do
  PORT="$(grep -ho 'listening on http://127.0.0.1:[0-9]*' "$OUT/serve.out" "$OUT/serve.log" | grep -o '[0-9]*$' | head -1 || true)"
  [[ -n "$PORT" ]] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "faces: the server exited:" >&2; cat "$OUT/serve.log" >&2; exit 1; }
  sleep 0.1
done
[[ -n "$PORT" ]] || { echo "faces: the server printed no port" >&2; exit 1; }
node "$HERE/driver.mjs" --url "http://127.0.0.1:$PORT" --pid "$SERVER_PID" --key "$KEY" \
  --questions "$OUT/questions.jsonl" --rounds "$ROUNDS" --batch "$BATCH" --hz "$(getconf CLK_TCK)" --json "$OUT/faces.json"
