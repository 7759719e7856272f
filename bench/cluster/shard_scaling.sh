#!/bin/bash
# What one shard costs as it grows (docs/cluster.md, "Scale"): the BM25 work per query and the
# storage per chunk of a single store holding the BEIR corpus MULTIPLES times over (each copy with
# its own ids, so posting lists and document frequencies grow with the corpus), searched through
# `attest serve --no-cache` with the corpus's queries one at a time. Printed per size: chunks,
# bytes on disk per chunk, ingest rate, latency p50/p95 and CPU per query (the server's user+system
# from /proc). These are the per-shard figures of the projection to 100M chunks.
#   bench/cluster/shard_scaling.sh [BUILD_DIR] [BEIR_DIR] [MULTIPLES...]
set -euo pipefail
BUILD=${1:-build}; BEIR=${2:-../shared/datasets/scifact/beir}; shift 2 || true
MULTIPLES=("$@"); [ ${#MULTIPLES[@]} -gt 0 ] || MULTIPLES=(1 4 16)
ATTEST=$(realpath "$BUILD/attest")
WORK=$(mktemp -d /tmp/attest-shard-scaling.XXXXXX)
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
for M in "${MULTIPLES[@]}"; do
  python3 -c "
import json, sys
src, m, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
docs = [json.loads(l) for l in open(src)]
with open(out, 'w') as f:
    for c in range(m):
        for d in docs:
            d = dict(d); d['_id'] = f\"{d['_id']}-{c}\"; f.write(json.dumps(d) + '\n')
" "$BEIR/corpus.jsonl" "$M" "$WORK/corpus$M.jsonl"
  DATA="$WORK/data$M"
  T0=$(date +%s.%N)
  "$ATTEST" --data "$DATA" --embedder none ingest "$WORK/corpus$M.jsonl" --tenant default > /dev/null 2>&1
  T1=$(date +%s.%N)
  CHUNKS=$("$ATTEST" --data "$DATA" --embedder none stats --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["chunks"])')
  BYTES=$(du -sb "$DATA" | cut -f1)
  KEY=$("$ATTEST" --data "$DATA" keys create --tenant default --user bench --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')
  P=$(port)
  "$ATTEST" --data "$DATA" --embedder none serve --port "$P" --rate-limit 0 --no-cache > "$WORK/serve$M.log" 2>&1 &
  SERVER=$!; PIDS+=($SERVER)
  for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$P/healthz" > /dev/null 2>&1 && break; sleep 0.1; done
  python3 -c "
import json, os, sys, time, urllib.request
beir, port, key, pid, m, chunks, nbytes, docs, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]), int(sys.argv[8]), float(sys.argv[9])
hz = os.sysconf('SC_CLK_TCK')
def cpu():
    f = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) / hz
def post(q):
    req = urllib.request.Request(f'http://127.0.0.1:{port}/v1/search', data=json.dumps({'query': q, 'top_k': 10, 'mode': 'bm25'}).encode(),
                                 headers={'Authorization': 'Bearer ' + key, 'Content-Type': 'application/json'})
    with urllib.request.urlopen(req, timeout=60) as r:
        r.read()
queries = [json.loads(l)['text'] for l in open(f'{beir}/queries.jsonl')]
for q in queries[:50]: post(q)  # warm the page cache and the server
lat = []; c0 = cpu()
for q in queries:
    t = time.time(); post(q); lat.append(1000 * (time.time() - t))
c1 = cpu(); lat.sort(); n = len(lat)
print(f'x{m}: {docs} documents, {chunks} chunks, {nbytes / chunks:.0f} bytes/chunk on disk, ingest {docs / secs:.0f} docs/s; '
      f'{n} queries: p50 {lat[n // 2]:.2f} ms p95 {lat[int(n * 0.95)]:.2f} ms, {1000 * (c1 - c0) / n:.2f} ms CPU/query')
" "$BEIR" "$P" "$KEY" "$SERVER" "$M" "$CHUNKS" "$BYTES" "$(wc -l < "$WORK/corpus$M.jsonl")" "$(python3 -c "print($T1-$T0)")"
  kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
  rm -rf "$DATA" "$WORK/corpus$M.jsonl"
done
