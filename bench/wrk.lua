-- The request and the checks of one wrk run (bench/wrk.mjs starts wrk with this script).
-- WRK_BENCH_DIR names a directory holding `method`, `headers` (one "name: value" a line), `body`
-- (sent as is) and `expected` (the answer checked before the load) and, for SSE answers, `sse`.
-- Every answer is checked in `response`: a status outside 2xx counts as non2xx, a body other than
-- the expected bytes (SSE: once `id:` lines and data-less events are set aside, as verify.mjs's
-- normalizeSse does) as a mismatch. `done` prints one JSON line with the counts and the latency
-- distribution (1,000 quantiles, in microseconds), which bench/wrk.mjs reads.
local dir = os.getenv('WRK_BENCH_DIR')

local function read (name)
  local file = io.open(dir .. '/' .. name, 'rb')
  if file == nil then return nil end
  local text = file:read('*a')
  file:close()
  return text
end

wrk.method = read('method')
wrk.body = read('body')
for line in read('headers'):gmatch('[^\n]+') do
  local name, value = line:match('^([^:]+): (.*)$')
  wrk.headers[name] = value
end
local expected = read('expected')
local sse = read('sse') ~= nil

local function normalizeSse (text)
  local out = {}
  local start = 1
  while start <= #text do
    local stop = text:find('\n\n', start, true)
    local event = text:sub(start, (stop or #text + 1) - 1)
    start = stop == nil and #text + 1 or stop + 2
    local kept = {}
    for line in (event .. '\n'):gmatch('([^\n]*)\n') do
      if line:sub(1, 3) ~= 'id:' then kept[#kept + 1] = line end
    end
    local rest = table.concat(kept, '\n')
    if rest ~= '' and rest ~= 'data:' and rest ~= 'data: ' then out[#out + 1] = rest .. '\n\n' end
  end
  return table.concat(out)
end

-- per thread (each wrk thread runs this script in its own Lua state); `done` adds them up
non2xx = 0
mismatches = 0
local threads = {}

function setup (thread)
  threads[#threads + 1] = thread
end

function response (status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  elseif (sse and normalizeSse(body) or body) ~= expected then
    mismatches = mismatches + 1
  end
end

function done (summary, latency, requests)
  local bad, wrong = 0, 0
  for _, thread in ipairs(threads) do
    bad = bad + thread:get('non2xx')
    wrong = wrong + thread:get('mismatches')
  end
  local e = summary.errors
  local quantiles = {}
  for i = 1, 1000 do quantiles[i] = latency:percentile((i - 0.5) / 10) end
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"microseconds":%d,"non2xx":%d,"mismatches":%d,"errors":%d,"timeouts":%d,"quantiles":[%s]}\n',
    summary.requests, summary.duration, bad, wrong, e.connect + e.read + e.write, e.timeout, table.concat(quantiles, ',')))
end
