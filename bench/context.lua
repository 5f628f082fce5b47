-- wrk script for BenchmarkContext: GET /v1/context for a random loaded session.
local sessions = tonumber(os.getenv("BENCH_SESSIONS") or "100000")
local thread_seed = 1

function setup(thread)
  thread:set("seed", thread_seed)
  thread_seed = thread_seed + 1
end

function init(args)
  math.randomseed(seed)
end

function request()
  local s = math.random(0, sessions - 1)
  return wrk.format("GET", "/v1/context?user_id=u" .. s .. "&session_id=s" .. s, { ["X-Tenant-ID"] = "bench" })
end

function done(summary, latency, requests)
  io.write(string.format("RESULT p50_us=%d p90_us=%d p99_us=%d max_us=%d requests=%d non2xx=%d errors=%d\n",
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    summary.requests, summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
