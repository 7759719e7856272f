#!/usr/bin/env bash
# Where does the server's CPU go? Runs one wrk command against a running `attest serve` and prints the
# CPU time (user+system, from /proc/PID/task/*/stat) each server thread group spent per request, plus the
# wrk process's own CPU per request. Usage:
#   bench/serve/cpu_split.sh SERVER_PID wrk -t2 -c32 -d10s -s bench/serve/search.lua http://127.0.0.1:PORT
# Thread groups by name: http-int-* (interactive workers), http-io-* and the main thread (Asio I/O),
# http-bulk-*, and "other" (unnamed threads: engine helpers such as the vector/lexical legs, audit writer).
set -euo pipefail
PID="$1"; shift
HZ="$(getconf CLK_TCK)"
snap() {
  for t in /proc/"$PID"/task/*; do
    printf '%s %s %s\n' "$(basename "$t")" "$(cat "$t/comm")" "$(awk '{print $14+$15}' "$t/stat")"
  done
}
before="$(snap)"
out="$(mktemp)"
/usr/bin/time -f 'WRKCPU %U %S' "$@" > "$out" 2> "$out.time"
after="$(snap)"
reqs="$(grep -o 'requests=[0-9]*' "$out" | cut -d= -f2)"
grep -E 'RESULT|non-200' "$out"
join <(sort <<< "$before") <(sort <<< "$after") | awk -v hz="$HZ" -v n="$reqs" -v main="$PID" '
  { d = ($5 - $3) / hz; g = "other"
    if ($2 ~ /^http-int/) g = "workers"; else if ($2 ~ /^http-io/ || $1 == main) g = "io"; else if ($2 ~ /^http-bulk/) g = "bulk"
    s[g] += d; tot += d }
  END { for (g in s) printf "  server %-8s %7.3f ms CPU/request (%.1f s)\n", g, 1000 * s[g] / n, s[g];
        printf "  server total    %7.3f ms CPU/request over %d requests\n", 1000 * tot / n, n }'
awk -v n="$reqs" '/WRKCPU/ { printf "  wrk             %7.3f ms CPU/request\n", 1000 * ($2 + $3) / n }' "$out.time"
rm -f "$out" "$out.time"
