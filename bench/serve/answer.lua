-- wrk script: POST /v1/answer (extractive writer, JSON response) with the SciFact queries in
-- rotation (see common.lua for the environment: ATTEST_KEY, QUERIES, WRK_THREADS). Usage:
--   ATTEST_KEY=att_... wrk -t2 -c32 -d20s --latency -s bench/serve/answer.lua http://127.0.0.1:PORT
ROUTE_PATH = "/v1/answer"
function make_body(query_literal)
  return '{"query":' .. query_literal .. ',"writer":"extractive"}'
end
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(here .. "common.lua")
