#!/bin/bash
# The cluster's query path on loopback (docs/cluster.md, "Scale"), beside one process on the same
# corpus: a three-server NATS cluster (R3 stream), NODES shard nodes and one coordinator. The BEIR
# corpus is written through the coordinator's HTTP API (batches of 500) and the time until every
# node has applied it is measured (the whole write path: API, log, nodes' commits). Then every query
# of queries.jsonl is sent ROUNDS times, one at a time, to the coordinator and to a single-process
# `attest serve --no-cache` holding the same corpus; printed: latency p50/p95 and CPU per query
# (user+system of the coordinator and the nodes, or of the single server, from /proc). Then the
# first ANSWERS queries (default 200) are asked as questions (/v1/answer, one at a time) of both,
# with the same figures per answer.
#   bench/cluster/query_path.sh [BUILD_DIR] [NODES] [BEIR_DIR] [ROUNDS]
set -euo pipefail
BUILD=${1:-build}; NODES=${2:-3}; BEIR=${3:-../shared/datasets/scifact/beir}; ROUNDS=${4:-2}
ATTEST=$(realpath "$BUILD/attest")
export ATTEST_CLUSTER_CREDENTIAL=${ATTEST_CLUSTER_CREDENTIAL:-bench-cluster-credential-0123456789}
WORK=$(mktemp -d /tmp/attest-cluster-query.XXXXXX)
source "$(dirname "$0")/nats_cluster.sh"
SHARDS=(); NODE_PIDS=()
for i in $(seq 1 "$NODES"); do
  p=$(port)
  "$ATTEST" --data "$WORK/data$i" --embedder none node --nats "$NATS" --node-id "n$i" --listen "127.0.0.1:$p" \
    > "$WORK/node$i.log" 2>&1 & PIDS+=($!); NODE_PIDS+=($!)
  SHARDS+=(--cluster-shard "n$i=http://127.0.0.1:$p")
done
KEY=$("$ATTEST" --data "$WORK/coord" keys create --tenant default --user bench --admin --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')
CPORT=$(port)
"$ATTEST" --data "$WORK/coord" serve --port "$CPORT" --rate-limit 0 --cluster-nats "$NATS" "${SHARDS[@]}" \
  > "$WORK/coord.log" 2>&1 & PIDS+=($!); COORD=$!
# One process on the same corpus, for the ratio.
"$ATTEST" --data "$WORK/single" --embedder none ingest "$BEIR/corpus.jsonl" --tenant default > /dev/null 2>&1
SKEY=$("$ATTEST" --data "$WORK/single" keys create --tenant default --user bench --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')
SPORT=$(port)
"$ATTEST" --data "$WORK/single" --embedder none serve --port "$SPORT" --rate-limit 0 --no-cache \
  > "$WORK/single.log" 2>&1 & PIDS+=($!); SINGLE=$!
for _ in $(seq 1 200); do
  curl -sf "http://127.0.0.1:$CPORT/healthz" > /dev/null 2>&1 && curl -sf "http://127.0.0.1:$SPORT/healthz" > /dev/null 2>&1 && break
  sleep 0.1
done
COMMON='
import json, os, sys, time, urllib.request
hz = os.sysconf("SC_CLK_TCK")
def cpu(pids):
    t = 0
    for p in pids:
        f = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
        t += int(f[11]) + int(f[12])
    return t / hz
def post(port, k, path, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                 headers={"Authorization": "Bearer " + k, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())
'
T0=$(date +%s.%N); CPU0=$(awk '{s+=$14+$15} END {print s}' /proc/$COORD/stat $(printf '/proc/%s/stat ' "${NODE_PIDS[@]}"))
python3 -c "$COMMON
beir, cport, key = sys.argv[1], int(sys.argv[2]), sys.argv[3]
docs = [json.loads(l) for l in open(f'{beir}/corpus.jsonl')]
t0 = time.time()
for i in range(0, len(docs), 500):
    post(cport, key, '/v1/documents:batch', {'documents': [{'id': str(d['_id']), 'title': d.get('title') or '',
                                                            'text': d['text'] or '-'} for d in docs[i:i + 500]]})
d = time.time() - t0
print(f'nodes $NODES: {len(docs)} documents appended through the coordinator in {d:.1f} s ({len(docs)/d:.0f} docs/s)')
" "$BEIR" "$CPORT" "$KEY"
while :; do  # every shard consumed, nothing pending or unacknowledged: every node applied the corpus
  if "$ATTEST" cluster status --nats "$NATS" --json 2>/dev/null | python3 -c '
import json,sys; j=json.load(sys.stdin)
sys.exit(0 if all(s["consuming"] and s["pending"]+s["unacknowledged"]==0 for s in j["shards"]) else 1)'; then break; fi
  sleep 0.2
done
T1=$(date +%s.%N); CPU1=$(awk '{s+=$14+$15} END {print s}' /proc/$COORD/stat $(printf '/proc/%s/stat ' "${NODE_PIDS[@]}"))
DOCS=$(wc -l < "$BEIR/corpus.jsonl")
python3 -c "d=$T1-$T0; print(f'nodes $NODES: applied by every node {d:.1f} s after the first write ({$DOCS/d:.0f} docs/s end to end); CPU of the coordinator and nodes {($CPU1-$CPU0)/$(getconf CLK_TCK):.1f} s')"
python3 -c "$COMMON
beir, cport, key, sport, skey, rounds = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
coord, single, node_pids = int(sys.argv[7]), int(sys.argv[8]), [int(p) for p in sys.argv[9:]]
queries = [json.loads(l)['text'] for l in open(f'{beir}/queries.jsonl')]
def run(port, k, pids, path, body, qs, rounds):
    lat = []; c = cpu(pids)
    for _ in range(rounds):
        for q in qs:
            t = time.time(); post(port, k, path, body(q)); lat.append(1000 * (time.time() - t))
    lat.sort(); n = len(lat)
    return lat[n // 2], lat[int(n * 0.95)], 1000 * (cpu(pids) - c) / n
def compare(what, path, body, qs, rounds):
    cp50, cp95, ccpu = run(cport, key, [coord] + node_pids, path, body, qs, rounds)
    sp50, sp95, scpu = run(sport, skey, [single], path, body, qs, rounds)
    print(f'nodes $NODES: {len(qs) * rounds} {what} one at a time: cluster p50 {cp50:.2f} ms p95 {cp95:.2f} ms, '
          f'{ccpu:.2f} ms CPU each; one process p50 {sp50:.2f} ms p95 {sp95:.2f} ms, {scpu:.2f} ms CPU each; '
          f'ratios p95 {cp95/sp95:.2f}x, CPU {ccpu/scpu:.2f}x')
compare('queries', '/v1/search', lambda q: {'query': q, 'top_k': 10, 'mode': 'bm25'}, queries, rounds)
compare('answers', '/v1/answer', lambda q: {'query': q}, queries[:int(os.environ.get('ANSWERS', '200'))], 1)
" "$BEIR" "$CPORT" "$KEY" "$SPORT" "$SKEY" "$ROUNDS" "$COORD" "$SINGLE" "${NODE_PIDS[@]}"
