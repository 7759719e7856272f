# Sourced by the cluster benches: after `WORK`, `ATTEST` and `NODES` are set, starts a three-server
# NATS cluster with JetStream on free loopback ports (stores under $WORK), kills every process in
# PIDS on exit, and runs `attest cluster init` with nodes n1..n$NODES. Sets NATS (the servers),
# PIDS, and port() (a free loopback port).
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
C=(); R=()
for i in 0 1 2; do C+=("$(port)"); R+=("$(port)"); done
for i in 0 1 2; do
  cat > "$WORK/n$i.conf" <<CONF
server_name: n$i
listen: 127.0.0.1:${C[$i]}
jetstream { store_dir: "$WORK/store$i" }
cluster { name: bench, listen: 127.0.0.1:${R[$i]}, routes: [nats-route://127.0.0.1:${R[0]}, nats-route://127.0.0.1:${R[1]}, nats-route://127.0.0.1:${R[2]}] }
CONF
  /usr/sbin/nats-server -c "$WORK/n$i.conf" > "$WORK/n$i.log" 2>&1 & PIDS+=($!)
done
NATS="nats://127.0.0.1:${C[0]},nats://127.0.0.1:${C[1]},nats://127.0.0.1:${C[2]}"
NODE_IDS=$(seq -s, -f 'n%g' 1 "$NODES")
for _ in $(seq 1 80); do
  "$ATTEST" cluster init --nats "$NATS" --vshards 64 --replicas 3 --nodes "$NODE_IDS" > /dev/null 2>&1 && break
  sleep 0.25
done
