-- One atomic admission step of httprate's sliding window, so that a request
-- costs one round trip and instances sharing Redis never race between
-- reading the counts and incrementing them.
--
-- KEYS[1]  counter of the current window
-- KEYS[2]  counter of the previous window (same {hashtag}, same slot)
-- ARGV[1]  limit
-- ARGV[2]  window length in microseconds
-- ARGV[3]  time elapsed in the current window, in microseconds
-- ARGV[4]  TTL of a counter in milliseconds: it must outlive the next
--          window, where it serves as the previous count
-- ARGV[5]  how many requests this instance admitted in the current window
--          by its own count (0 if unknown): after an outage, what it
--          admitted locally meanwhile raises the shared count, so the
--          return to Redis does not hand out the limit a second time
--
-- Returns {admitted (1 or 0), current count, previous count}; the counts
-- include this request when it was admitted. Remaining and retry time are
-- derived from them by the caller, with the same code as the in-memory path.

local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local elapsed = tonumber(ARGV[3])

local counts = redis.call('MGET', KEYS[1], KEYS[2])
local curr = tonumber(counts[1]) or 0
local prev = tonumber(counts[2]) or 0
local floor = tonumber(ARGV[5]) or 0
if floor > curr then
  curr = floor
  redis.call('SET', KEYS[1], curr, 'PX', ARGV[4])
end

local rate = prev * (window - elapsed) / window + curr
-- httprate rounds the rate half up and refuses when this request would
-- push it over the limit.
if math.floor(rate + 0.5) + 1 > limit then
  return {0, curr, prev}
end

curr = redis.call('INCR', KEYS[1])
if curr == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return {1, curr, prev}
