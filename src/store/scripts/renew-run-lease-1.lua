--[[
  A worker renews its hold on a run it is executing, and re-takes it after an outage: a
  compare-and-set on the attempt. Only the attempt that still holds the run (nobody claimed it
  while this worker was cut off from Redis) gets its lease back; a worker whose lock lapsed
  therefore continues its run rather than have it executed again. See start-run, which defers
  to a live lease.
  KEYS[1] run hash
  ARGV[1] the caller's attempt
  ARGV[2] lease in ms
  Returns 1 (held, lease renewed to now + lease) | 0 (the run is no longer running: settled, or
  handed back; nothing to hold), or the error WARREN_FENCED (includes/fence.lua).
]]
local attempt = ARGV[1]
--@include fence
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('HSET', KEYS[1], 'lease_until', tostring(now + tonumber(ARGV[2])))
return 1
