--[[
  Counts a sign-in attempt on each of its counters (one client address, one account), unless one
  of them has reached the limit: the check and the count are one step, so attempts in flight on
  any replica cannot together pass the limit. The attempt is counted before its password is
  checked; a failed one stays counted, a successful one clears the counters (a DEL by the caller).
  Each counter is forgotten ARGV[2] seconds after the last attempt it counted.

  KEYS[1..n] the counters (keys.loginFailures), all on one slot
  ARGV[1] the limit: attempts allowed before sign-in is refused
  ARGV[2] the window (s)

  Returns 0 when the attempt is counted and may go on; else the seconds (at least 1) until the
  longest-locked counter is forgotten, and nothing is counted.
]]
local limit = tonumber(ARGV[1])
local wait = 0
for _, key in ipairs(KEYS) do
  local count = tonumber(redis.call('GET', key) or '0') or 0
  if count >= limit then
    local ttl = redis.call('TTL', key)
    if ttl < 1 then ttl = 1 end
    if ttl > wait then wait = ttl end
  end
end
if wait > 0 then return wait end
for _, key in ipairs(KEYS) do
  redis.call('INCR', key)
  redis.call('EXPIRE', key, ARGV[2])
end
return 0
