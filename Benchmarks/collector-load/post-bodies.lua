-- wrk script: POST /v1/events with pre-generated gzip NDJSON bodies, each thread cycling through
-- its own slice (thread i of n takes bodies i, i+n, i+2n…), so no two threads send the same events.
--   wrk -t2 -c32 -d6s -s post-bodies.lua URL -- BODIES LENGTHS KEY THREADS [DELAY_MS]
-- DELAY_MS > 0 paces each connection (wrk waits that long before its next request). done() prints
-- one machine-readable line: RESULT requests=… non2xx=… errors=… duration_us=… p50_us=… p99_us=…
local counter = 0

function setup(thread)
    thread:set("id", counter)
    counter = counter + 1
end

local requests = {}
local position = 1
local pause = 0

function init(args)
    local bodies_path, lengths_path, key, threads = args[1], args[2], args[3], tonumber(args[4])
    pause = tonumber(args[5] or "0")
    local file = assert(io.open(bodies_path, "rb"))
    local data = file:read("*a")
    file:close()
    local headers = {
        ["Content-Type"] = "application/x-ndjson",
        ["Content-Encoding"] = "gzip",
        ["Authorization"] = "Bearer " .. key,
    }
    local offset, number = 1, 0
    for line in io.lines(lengths_path) do
        local length = tonumber(line)
        if number % threads == id then
            requests[#requests + 1] = wrk.format("POST", "/v1/events", headers, data:sub(offset, offset + length - 1))
        end
        offset = offset + length
        number = number + 1
    end
end

function request()
    local r = requests[position]
    position = position % #requests + 1
    return r
end

function delay()
    return pause
end

function done(summary, latency, requests)
    local e = summary.errors
    io.write(string.format("RESULT requests=%d non2xx=%d errors=%d duration_us=%d p50_us=%d p99_us=%d\n",
        summary.requests, e.status, e.connect + e.read + e.write + e.timeout, summary.duration,
        latency:percentile(50), latency:percentile(99)))
end
