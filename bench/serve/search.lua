-- wrk script: POST /v1/search with the SciFact queries in rotation (see common.lua for the
-- environment: ATTEST_KEY, QUERIES, WRK_THREADS). Usage (bench/serve/run.sh does this):
--   ATTEST_KEY=att_... wrk -t2 -c32 -d20s --latency -s bench/serve/search.lua http://127.0.0.1:PORT
ROUTE_PATH = "/v1/search"
function make_body(query_literal)
  return '{"query":' .. query_literal .. ',"top_k":10}'
end
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(here .. "common.lua")
