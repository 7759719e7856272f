# Sourced by the benchmarks that drive `attest serve` (serve/run.sh, serve/slowloris.sh,
# before_after.sh): start a server on a free port, check that the bench key sees documents, stop it.
#
# The caller sets ATTEST (the binary), DATA (the data directory, SciFact in tenant "default"), KEY
# (a key of that tenant), OUT (where logs go) and BENCH_NAME (for messages), and gets SERVER_PID and
# PORT. `start_server NAME serve-flags...` always passes --port 0 --rate-limit 0.
SERVER_PID=""
PORT=""
start_server() {  # NAME serve-flags...
  local log="$OUT/serve-$1.log"
  shift
  rm -f "$log" "$log.out"  # a stale "listening" line must not be read before the new server writes
  "$ATTEST" --data "$DATA" serve --port 0 --rate-limit 0 "$@" > "$log.out" 2> "$log" &
  SERVER_PID=$!
  for _ in $(seq 1 100); do
    PORT="$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$log.out" | grep -o '[0-9]*$' || true)"
    [[ -n "$PORT" ]] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "$BENCH_NAME: the server exited:" >&2; cat "$log" >&2; exit 1; }
    sleep 0.1
  done
  [[ -n "$PORT" ]] || { echo "$BENCH_NAME: the server printed no port" >&2; exit 1; }
  # The first search must succeed: the key sees the ingested documents.
  local hits
  hits="$(curl -s "http://127.0.0.1:$PORT/v1/search" -H "Authorization: Bearer $KEY" \
            -d '{"query":"0-dimensional biomaterials lack inductive properties.","top_k":3}' | jq '.hits | length' || true)"
  [[ "$hits" -gt 0 ]] || { echo "$BENCH_NAME: the key sees no documents (hits=$hits)" >&2; stop_server; exit 1; }
}
stop_server() {
  if [[ -n "$SERVER_PID" ]]; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
  fi
}
trap stop_server EXIT
