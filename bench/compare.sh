#!/usr/bin/env bash
# Side-by-side benchmark: Attest vs Xapian 1.4 vs SQLite FTS5 on one synthetic corpus, in one run.
#
#   bench/compare.sh [CHUNKS=1000000] [QUERIES=1000]
#
# 1. configures and builds (Release, -DATTEST_BENCH_XAPIAN=ON) into $BUILD_DIR (default build-bench/)
# 2. generates the corpus with gen_corpus into $ATTEST_BENCH_WORK (default bench/out/scratch/), reused
#    when one of the same size and seed is already there
# 3. for each system: `build` (one process) then `query` (a fresh process: open, warm-up pass,
#    timed pass unfiltered and with the 1% ACL filter), then SciFact quality with `beir`
# 4. prints the table with ratios (compare_report) and writes bench/out/<CHUNKS>/summary.json
#
# Environment: BUILD_DIR, ATTEST_BENCH_WORK, ATTEST_DATASETS (default ../shared/datasets),
# SYSTEMS (default "attest xapian fts5"), ACL_GROUP (default g42), SEED (default 42),
# XAPIAN_FLUSH (documents per Xapian flush, default 50000: see bench/README.md), KEEP_INDEXES=1.
set -euo pipefail

CHUNKS=${1:-1000000}
QUERIES=${2:-1000}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-bench}
WORK=${ATTEST_BENCH_WORK:-$ROOT/bench/out/scratch}
DATASETS=${ATTEST_DATASETS:-$ROOT/../shared/datasets}
SYSTEMS=${SYSTEMS:-attest xapian fts5}
ACL_GROUP=${ACL_GROUP:-g42}
SEED=${SEED:-42}
XAPIAN_FLUSH=${XAPIAN_FLUSH:-50000}
OUT=$ROOT/bench/out/$CHUNKS
CORPUS=$WORK/corpus-$CHUNKS-$QUERIES-$SEED

log() { printf '[compare %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

log "building into $BUILD_DIR"
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTEST_BENCH_XAPIAN=ON \
  -DATTEST_BUILD_TESTS=OFF >/dev/null
targets=(gen_corpus compare_report)
for s in $SYSTEMS; do targets+=("${s}_compare"); done
cmake --build "$BUILD_DIR" -j2 --target "${targets[@]}"
BIN=$BUILD_DIR/bench

mkdir -p "$OUT" "$WORK"
if [[ -f $CORPUS/meta.json && -f $CORPUS/corpus.jsonl && -f $CORPUS/queries.jsonl ]]; then
  log "reusing corpus $CORPUS"
else
  log "generating $CHUNKS chunks, $QUERIES queries into $CORPUS"
  rm -rf "$CORPUS"
  "$BIN/gen_corpus" --out "$CORPUS" --chunks "$CHUNKS" --queries "$QUERIES" --seed "$SEED" --acl-group "$ACL_GROUP"
fi
cp "$CORPUS/meta.json" "$OUT/meta.json"

for s in $SYSTEMS; do
  index=$WORK/index-$s-$CHUNKS
  log "$s: build"
  "$BIN/${s}_compare" build --corpus "$CORPUS/corpus.jsonl" --index "$index" --out "$OUT/$s-build.json" \
    --threads 2 --xapian-flush "$XAPIAN_FLUSH"
  log "$s: query"
  "$BIN/${s}_compare" query --index "$index" --queries "$CORPUS/queries.jsonl" --acl-group "$ACL_GROUP" \
    --k 10 --warmup 1 --out "$OUT/$s-query.json" --run-out "$OUT/$s-run.json" --acl-run-out "$OUT/$s-run-acl.json"
  [[ ${KEEP_INDEXES:-0} == 1 ]] || rm -rf "$index"
done

SCIFACT=$DATASETS/scifact/beir
if [[ -f $SCIFACT/corpus.jsonl ]]; then
  for s in $SYSTEMS; do
    log "$s: SciFact test quality"
    "$BIN/${s}_compare" beir --dataset "$SCIFACT" --split test --k 100 --index "$WORK/scifact-$s" \
      --out "$OUT/$s-scifact.json" --xapian-flush "$XAPIAN_FLUSH"
    rm -rf "$WORK/scifact-$s"
  done
else
  log "SciFact not found at $SCIFACT (set ATTEST_DATASETS): skipping the quality comparison"
fi

"$BIN/compare_report" --dir "$OUT" --out "$OUT/summary.json" | tee "$OUT/summary.txt"
