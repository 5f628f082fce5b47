-- wrk script for BenchmarkRecall: GET /v1/context with a query, for a random
-- user of the loaded ones (u0 .. BENCH_USERS-1), or always the user
-- BENCH_USER when it is set (BenchmarkOneUser), in a session of its own,
-- with a random question of the file BENCH_QUERIES (one URL-encoded
-- question a line).
local users = tonumber(os.getenv("BENCH_USERS") or "10000")
local one = os.getenv("BENCH_USER")
local queries = {}
for line in io.lines(os.getenv("BENCH_QUERIES")) do
  queries[#queries + 1] = line
end
local thread_seed = 1

function setup(thread)
  thread:set("seed", thread_seed)
  thread_seed = thread_seed + 1
end

function init(args)
  math.randomseed(seed)
end

function request()
  local u = "u" .. math.random(0, users - 1)
  if one and one ~= "" then
    u = one
  end
  local q = queries[math.random(1, #queries)]
  return wrk.format("GET", "/v1/context?user_id=" .. u .. "&session_id=ask" .. u .. "&query=" .. q, { ["X-Tenant-ID"] = "bench" })
end

-- over is the share of the requests, in percent, that took longer than
-- BENCH_OVER_MS (500: the gateway's memory timeout, past which a chat goes
-- on without memory), found by bisecting the latency's percentiles.
local function over(latency, ms)
  local limit = ms * 1000
  if latency.max <= limit then
    return 0
  end
  local lo, hi = 0, 100 -- percentile(lo) <= limit < percentile(hi)
  for _ = 1, 30 do
    local mid = (lo + hi) / 2
    if latency:percentile(mid) <= limit then
      lo = mid
    else
      hi = mid
    end
  end
  return 100 - hi
end

function done(summary, latency, requests)
  local ms = tonumber(os.getenv("BENCH_OVER_MS") or "500")
  io.write(string.format("RESULT p50_us=%d p90_us=%d p99_us=%d max_us=%d requests=%d non2xx=%d errors=%d over_pct=%.3f\n",
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    summary.requests, summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    over(latency, ms)))
end
