#!/usr/bin/env bash
# Crawl throughput: `attest crawl` of the PostgreSQL documentation served from loopback by
# attest_test_site, politeness off, side by side with `attest ingest` of the same folder, in one run
# (docs/crawling.md, "Crawl benchmark"). Builds nothing. Usage:
#   bench/crawl/run.sh [BUILD_DIR] [DOCS_DIR]     # defaults: build, /usr/share/doc/postgresql-doc-15/html
# Needs BUILD_DIR/attest and BUILD_DIR/attest_test_site (ninja -C build attest attest_test_site).
#
# Each of RUNS rounds (alternating which goes first): a fresh data directory, then
#   crawl:  attest_test_site --root DOCS --base /docs/15/ --port 0, and
#           attest --data D --embedder none crawl --seed <base>/index.html --no-politeness --workers W
#                  --allow-address 127.0.0.0/8 --allow-port <port> --json
#   ingest: attest --data D --embedder none ingest DOCS --json
# timed as whole commands (wall and user+system CPU of the attest process; for the crawl also the
# site server's CPU). The vector leg is off for both (--embedder none): its training is the same
# work after either and is measured by the ingestion benchmarks. Prints per-round figures, the
# median and the spread (min-max) of pages/s and CPU seconds per page, and writes
# $OUT/summary.json. Environment: OUT (bench/out/crawl), RUNS (3), WORKERS (4).
set -euo pipefail

BUILD_DIR="$(realpath "${1:-build}")"
DOCS="$(realpath "${2:-/usr/share/doc/postgresql-doc-15/html}")"
OUT="${OUT:-bench/out/crawl}"
RUNS="${RUNS:-3}"
WORKERS="${WORKERS:-4}"
ATTEST="$BUILD_DIR/attest"
SITE="$BUILD_DIR/attest_test_site"
for f in "$ATTEST" "$SITE"; do [[ -x "$f" ]] || { echo "run.sh: $f is missing (ninja -C $BUILD_DIR attest attest_test_site)" >&2; exit 2; }; done
[[ -d "$DOCS" ]] || { echo "run.sh: $DOCS is missing (Debian package postgresql-doc-15)" >&2; exit 2; }
command -v jq >/dev/null || { echo "run.sh: jq is not installed" >&2; exit 2; }
mkdir -p "$OUT"
OUT="$(realpath "$OUT")"
TICKS=$(getconf CLK_TCK)
echo "== $(date -u +%FT%TZ) $(uname -n), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $(find "$DOCS" -maxdepth 1 -name '*.html' | wc -l) HTML pages in $DOCS; $RUNS rounds; crawl workers $WORKERS"

SITE_PID=""
cleanup() { [[ -n "$SITE_PID" ]] && kill "$SITE_PID" 2>/dev/null || true; }
trap cleanup EXIT

# CPU seconds (user+system) a live process has used.
cpu_of() { awk -v t="$TICKS" '{print ($14 + $15) / t}' "/proc/$1/stat"; }

# Runs "$@", writes stdout to $1.json and "wall user sys" to $1.time.
timed() {
  local name="$1"; shift
  /usr/bin/time -f '%e %U %S' -o "$name.time" "$@" > "$name.json" 2> "$name.err"
}

crawl_round() {
  local r="$1" dir="$OUT/crawl-$r"
  rm -rf "$dir"; mkdir -p "$dir"
  "$SITE" --root "$DOCS" --base /docs/15/ --port 0 > "$dir/site.out" 2> "$dir/site.err" &
  SITE_PID=$!
  local url=""
  for _ in $(seq 100); do url=$(awk '/^listening /{print $2}' "$dir/site.out"); [[ -n "$url" ]] && break; sleep 0.05; done
  [[ -n "$url" ]] || { echo "run.sh: attest_test_site did not start" >&2; exit 1; }
  local port; port=$(sed -E 's|^http://[^:]+:([0-9]+)/.*|\1|' <<<"$url")
  local site_cpu0; site_cpu0=$(cpu_of "$SITE_PID")
  timed "$dir/run" "$ATTEST" --data "$dir/data" --embedder none crawl --seed "${url}index.html" --no-politeness \
    --workers "$WORKERS" --allow-address 127.0.0.0/8 --allow-port "$port" --json
  local site_cpu1; site_cpu1=$(cpu_of "$SITE_PID")
  kill "$SITE_PID"; wait "$SITE_PID" 2>/dev/null || true; SITE_PID=""
  read -r wall user sys < "$dir/run.time"
  local pages; pages=$(jq .indexed "$dir/run.json")
  jq -n --argjson r "$r" --argjson wall "$wall" --argjson user "$user" --argjson sys "$sys" --argjson pages "$pages" \
     --argjson site_cpu "$(awk -v a="$site_cpu0" -v b="$site_cpu1" 'BEGIN{print b - a}')" \
     --slurpfile rep "$dir/run.json" \
     '{kind:"crawl", round:$r, pages:$pages, wall_s:$wall, cpu_s:($user + $sys), site_cpu_s:$site_cpu,
       pages_per_s:($pages / $wall), cpu_s_per_page:(($user + $sys) / $pages),
       crawl_loop_pages_per_s:$rep[0].pages_per_s, fetched:$rep[0].fetched, errors:$rep[0].errors}' > "$dir/result.json"
}

ingest_round() {
  local r="$1" dir="$OUT/ingest-$r"
  rm -rf "$dir"; mkdir -p "$dir"
  timed "$dir/run" "$ATTEST" --data "$dir/data" --embedder none ingest "$DOCS" --json
  read -r wall user sys < "$dir/run.time"
  local pages; pages=$(jq .documents "$dir/run.json")
  jq -n --argjson r "$r" --argjson wall "$wall" --argjson user "$user" --argjson sys "$sys" --argjson pages "$pages" \
     '{kind:"ingest", round:$r, pages:$pages, wall_s:$wall, cpu_s:($user + $sys),
       pages_per_s:($pages / $wall), cpu_s_per_page:(($user + $sys) / $pages)}' > "$dir/result.json"
}

for r in $(seq "$RUNS"); do
  if (( r % 2 )); then crawl_round "$r"; ingest_round "$r"; else ingest_round "$r"; crawl_round "$r"; fi
  for k in crawl ingest; do
    jq -r '"round \(.round) \(.kind): \(.pages) pages in \(.wall_s) s = \(.pages_per_s | . * 10 | round / 10) pages/s, "
           + "\(.cpu_s_per_page * 10000 | round / 10) ms CPU/page"
           + (if .site_cpu_s then " (site server \(.site_cpu_s) s CPU)" else "" end)' "$OUT/$k-$r/result.json"
  done
done

jq -s '
  def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  def stats(f): [.[] | f] | {median: median, min: min, max: max};
  group_by(.kind) | map({key: .[0].kind, value: {rounds: length, pages: stats(.pages), pages_per_s: stats(.pages_per_s),
                                                 wall_s: stats(.wall_s), cpu_s_per_page: stats(.cpu_s_per_page)}})
  | from_entries' "$OUT"/crawl-*/result.json "$OUT"/ingest-*/result.json > "$OUT/summary.json"
echo "== summary (median [min-max]) -> $OUT/summary.json"
jq -r 'to_entries[] | "\(.key): \(.value.pages.median) pages, \(.value.pages_per_s.median | . * 10 | round / 10) pages/s "
       + "[\(.value.pages_per_s.min | . * 10 | round / 10)-\(.value.pages_per_s.max | . * 10 | round / 10)], "
       + "wall \(.value.wall_s.median) s [\(.value.wall_s.min)-\(.value.wall_s.max)], "
       + "CPU \(.value.cpu_s_per_page.median * 10000 | round / 10) ms/page [\(.value.cpu_s_per_page.min * 10000 | round / 10)-\(.value.cpu_s_per_page.max * 10000 | round / 10)]"' \
  "$OUT/summary.json"
