-- Shared part of bench/serve/search.lua and answer.lua (wrk 4.1 scripts for `attest serve`).
-- Not run on its own: search.lua / answer.lua set ROUTE_PATH and make_body(query_json_literal)
-- and then load this file.
--
-- Environment:
--   ATTEST_KEY      API key sent as `Authorization: Bearer <key>` (required)
--   QUERIES         a BEIR queries.jsonl (the "text" of each line is used verbatim as a JSON
--                   string literal, so escapes survive), default
--                   ../shared/datasets/scifact/beir/queries.jsonl
--   WRK_THREADS     the -t given to wrk (default 2): thread i starts at offset (i-1)*Q/WRK_THREADS
--   BODY_EXTRA      optional JSON members appended to every body, e.g. '"mode":"bm25"' or
--                   '"multi_hop":false' (for profiling experiments)
--
-- Every response is checked in response(): non-200 statuses are counted per status and printed
-- by done(), followed by one machine-readable line:
--   RESULT route=/v1/search requests=N duration_s=D rps=R p50_ms=.. p90_ms=.. p99_ms=.. max_ms=.. non200=K socket_errors=E

local key = os.getenv("ATTEST_KEY")
if key == nil or key == "" then
  error("ATTEST_KEY is not set (the API key for Authorization: Bearer)")
end
local queries_path = os.getenv("QUERIES") or "../shared/datasets/scifact/beir/queries.jsonl"

-- Returns the JSON string literal (with its quotes and escapes) of the first "text" field of a line.
local function text_literal(line)
  local s, e = line:find('"text"%s*:%s*"')
  if not s then return nil end
  local i = e + 1
  while i <= #line do
    local c = line:sub(i, i)
    if c == "\\" then
      i = i + 2
    elseif c == '"' then
      return line:sub(e, i)
    else
      i = i + 1
    end
  end
  return nil
end

local function load_literals(path)
  local f, err = io.open(path, "r")
  if not f then error("cannot open queries file " .. path .. ": " .. tostring(err)) end
  local out = {}
  for line in f:lines() do
    local lit = text_literal(line)
    if lit then out[#out + 1] = lit end
  end
  f:close()
  if #out == 0 then error("no \"text\" fields in " .. path) end
  return out
end

-- ---- main state: collect threads for done() ----
local threads = {}
local next_id = 1
function setup(thread)
  thread:set("tid", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

-- ---- per-thread state ----
local reqs = {}
local pos = 1
function init(args)
  local lits = load_literals(queries_path)
  local headers = {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. key,
  }
  local extra = os.getenv("BODY_EXTRA") or ""
  for i, lit in ipairs(lits) do
    local body = make_body(lit)
    if extra ~= "" then body = body:sub(1, -2) .. "," .. extra .. "}" end
    reqs[i] = wrk.format("POST", ROUTE_PATH, headers, body)
  end
  local nthreads = tonumber(os.getenv("WRK_THREADS") or "2")
  pos = math.floor(((tid or 1) - 1) * #reqs / nthreads) % #reqs + 1
  statuses = {}
  non200 = 0
  responses = 0
end

function request()
  local r = reqs[pos]
  pos = pos % #reqs + 1
  return r
end

function response(status, headers, body)
  responses = responses + 1
  if status ~= 200 then
    non200 = non200 + 1
    local k = tostring(status)
    statuses[k] = (statuses[k] or 0) + 1
  end
end

function done(summary, latency, requests)
  local non200_total, seen = 0, 0
  local by_status = {}
  for _, t in ipairs(threads) do
    non200_total = non200_total + (t:get("non200") or 0)
    seen = seen + (t:get("responses") or 0)
    local st = t:get("statuses") or {}
    for k, v in pairs(st) do by_status[k] = (by_status[k] or 0) + v end
  end
  local parts = {}
  for k, v in pairs(by_status) do parts[#parts + 1] = k .. ":" .. v end
  table.sort(parts)
  io.write(string.format("non-200 responses: %d of %d checked%s\n", non200_total, seen,
                         #parts > 0 and (" (" .. table.concat(parts, " ") .. ")") or ""))
  local e = summary.errors
  local socket_errors = e.connect + e.read + e.write + e.timeout
  local dur = summary.duration / 1e6
  io.write(string.format(
      "RESULT route=%s requests=%d duration_s=%.2f rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f non200=%d socket_errors=%d\n",
      ROUTE_PATH, summary.requests, dur, summary.requests / dur, latency:percentile(50) / 1000,
      latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000, non200_total,
      socket_errors))
end
