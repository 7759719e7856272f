#!/bin/bash
# The cluster's write path on loopback (docs/cluster.md): a three-server NATS cluster (R3 stream),
# N generated Markdown files appended with `attest ingest --cluster`, then K shard nodes applying
# the log from the start. Prints the append rate and the time until `cluster status` shows every
# shard consumed with nothing pending (the nodes' commit + ack rate).
#   bench/cluster/write_path.sh [BUILD_DIR] [FILES] [NODES]
set -euo pipefail
BUILD=${1:-build}; FILES=${2:-2000}; NODES=${3:-1}
ATTEST=$(realpath "$BUILD/attest")
export ATTEST_CLUSTER_CREDENTIAL=${ATTEST_CLUSTER_CREDENTIAL:-bench-cluster-credential-0123456789}  # nodes need one
WORK=$(mktemp -d /tmp/attest-cluster-bench.XXXXXX)
source "$(dirname "$0")/nats_cluster.sh"
mkdir -p "$WORK/docs"
python3 - "$WORK/docs" "$FILES" <<'PY'
import sys, random
root, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(7)
words = "river mountain lake valley forest desert ocean island glacier canyon plain delta".split()
for i in range(n):
    body = " ".join(rnd.choice(words) for _ in range(300))
    open(f"{root}/doc{i:06d}.md", "w").write(f"# Document {i}\n\n{body}\n")
PY
t0=$(date +%s.%N)
"$ATTEST" ingest "$WORK/docs" --cluster "$NATS" --json > "$WORK/ingest.json"
t1=$(date +%s.%N)
python3 -c "import json,sys; j=json.load(open('$WORK/ingest.json')); d=$t1-$t0; print(f'append: {j[\"appended\"]} documents in {d:.2f} s = {j[\"appended\"]/d:.0f} docs/s (R3 stream, one acknowledged append at a time)')"
t2=$(date +%s.%N)
for i in $(seq 1 "$NODES"); do
  "$ATTEST" --data "$WORK/data$i" --embedder none node --nats "$NATS" --node-id "n$i" --listen "127.0.0.1:$(port)" \
    > "$WORK/node$i.log" 2>&1 & PIDS+=($!)
done
while :; do
  if "$ATTEST" cluster status --nats "$NATS" --json 2>/dev/null | python3 -c '
import json,sys; j=json.load(sys.stdin)
sys.exit(0 if all(s["consuming"] and s["pending"]+s["unacknowledged"]==0 for s in j["shards"]) else 1)'; then break; fi
  sleep 0.2
done
t3=$(date +%s.%N)
python3 -c "d=$t3-$t2; print(f'apply: {$FILES} documents by $NODES node(s) in {d:.2f} s = {$FILES/d:.0f} docs/s (node start, replay, commit, ack; 300 words each)')"
