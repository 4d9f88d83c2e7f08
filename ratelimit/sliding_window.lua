-- Atomic admission steps of httprate's sliding window, one per check, so
-- that a batch of checks costs one script run and instances sharing Redis
-- never race between reading the counts and incrementing them. The checks
-- run in order, as separate scripts sent one after another would.
--
-- Check i (from 0) has two keys and five arguments:
--
-- KEYS[2i+1]  counter of the current window
-- KEYS[2i+2]  counter of the previous window (same {hashtag}, same slot)
-- ARGV[5i+1]  limit
-- ARGV[5i+2]  window length in microseconds
-- ARGV[5i+3]  time elapsed in the current window, in microseconds
-- ARGV[5i+4]  TTL of a counter in milliseconds: it must outlive the next
--             window, where it serves as the previous count
-- ARGV[5i+5]  how many requests this instance admitted in the current
--             window by its own count (0 if unknown): after an outage, what
--             it admitted locally meanwhile raises the shared count, so the
--             return to Redis does not hand out the limit a second time
--
-- Returns, for each check in turn, admitted (1 or 0), the current count and
-- the previous count; the counts include the check's request when it was
-- admitted. Remaining and retry time are derived from them by the caller,
-- with the same code as the in-memory path.

-- One MGET reads every counter of the batch; count then follows the
-- writes, so a key that two checks share (the same client twice, or a
-- previous window that another check still calls current) reads as it would
-- in scripts run one after another.
local count = {}
local values = redis.call('MGET', unpack(KEYS))
for i, key in ipairs(KEYS) do
  count[key] = tonumber(values[i]) or 0
end

local out = {}
for i = 0, #KEYS / 2 - 1 do
  local curr_key, prev_key = KEYS[2 * i + 1], KEYS[2 * i + 2]
  local a = 5 * i
  local limit = tonumber(ARGV[a + 1])
  local window = tonumber(ARGV[a + 2])
  local elapsed = tonumber(ARGV[a + 3])
  local ttl = ARGV[a + 4]
  local floor = tonumber(ARGV[a + 5]) or 0

  local curr, prev = count[curr_key], count[prev_key]
  if floor > curr then
    curr = floor
    count[curr_key] = curr
    redis.call('SET', curr_key, curr, 'PX', ttl)
  end

  local rate = prev * (window - elapsed) / window + curr
  -- httprate rounds the rate half up and refuses when this request would
  -- push it over the limit.
  local admitted = 0
  if math.floor(rate + 0.5) + 1 <= limit then
    admitted = 1
    curr = redis.call('INCR', curr_key)
    count[curr_key] = curr
    if curr == 1 then
      redis.call('PEXPIRE', curr_key, ttl)
    end
  end
  out[3 * i + 1] = admitted
  out[3 * i + 2] = curr
  out[3 * i + 3] = prev
end
return out
