-- Atomic admission steps of httprate's sliding window, one per check, so
-- that a batch of checks costs one script run and instances sharing Redis
-- never race between reading the counts and incrementing them. The checks
-- run in order, as separate scripts sent one after another would.
--
-- KEYS holds every counter the batch reads, each once: a key that several
-- checks share (the same client twice, or a previous window that another
-- check calls current) is read once and then follows the writes, so it
-- reads as it would in scripts run one after another.
--
-- ARGV[1] holds one record per check, packed little-endian (struct
-- '<HHi8i8i8i8i8'): Redis turns every argument into a Lua string and
-- tonumber parses each with strtod, which cost more than the admission
-- step itself; one string unpacked per check costs one C call.
--
--   H   index in KEYS of the counter of the current window
--   H   index in KEYS of the counter of the previous window (same
--       {hashtag}, same slot)
--   i8  limit
--   i8  window length in microseconds
--   i8  time elapsed in the current window, in microseconds
--   i8  TTL of a counter in milliseconds: it must outlive the next window,
--       where it serves as the previous count
--   i8  how many requests this instance admitted in the current window by
--       its own count (0 if unknown): after an outage, what it admitted
--       locally meanwhile raises the shared count, so the return to Redis
--       does not hand out the limit a second time
--
-- Returns one record per check in turn (struct '<Bi8i8'): admitted (1 or
-- 0), the current count and the previous count; the counts include the
-- check's request when it was admitted. Remaining and retry time are
-- derived from them by the caller, with the same code as the in-memory
-- path.

local values = redis.call('MGET', unpack(KEYS))
local count, base = {}, {}
for i = 1, #KEYS do
  local v = tonumber(values[i]) or 0
  count[i], base[i] = v, v
end

-- Writes wait for the end, one per counter: INCRBY keeps the TTL of a
-- counter that existed and was only counted up; SET ... PX gives one to a
-- counter the batch created or raised to this instance's own count.
local ttl, reset = {}, {}
local out = {}
local recs, pos, n = ARGV[1], 1, 0
while pos <= #recs do
  local ci, pi, limit, window, elapsed, life, floor
  ci, pi, limit, window, elapsed, life, floor, pos = struct.unpack('<HHi8i8i8i8i8', recs, pos)
  local curr, prev = count[ci], count[pi]
  if floor > curr then
    curr = floor
    reset[ci] = true
  end
  local rate = prev * (window - elapsed) / window + curr
  -- httprate rounds the rate half up and refuses when this request would
  -- push it over the limit.
  local admitted = 0
  if math.floor(rate + 0.5) + 1 <= limit then
    admitted = 1
    curr = curr + 1
  end
  if curr ~= count[ci] then
    count[ci] = curr
    ttl[ci] = life
  end
  n = n + 1
  out[n] = struct.pack('<Bi8i8', admitted, curr, prev)
end

-- Redis 7.0 turns a number argument into a string with printf's '%.17g',
-- which cost a third of an INCRBY: the usual increment of one goes as the
-- string '1', other numbers through '%d', which is cheaper.
for i, life in pairs(ttl) do
  if values[i] and not reset[i] then
    local d = count[i] - base[i]
    redis.call('INCRBY', KEYS[i], d == 1 and '1' or string.format('%d', d))
  else
    redis.call('SET', KEYS[i], string.format('%d', count[i]), 'PX', string.format('%d', life))
  end
end
return table.concat(out)
