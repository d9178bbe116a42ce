--[[
  A worker claims a run it took from the queue. Every claim of a live run takes a new attempt,
  which fences off whichever worker held the run before (see append-run-events), and gives the
  claimer a lease it renews (renew-run-lease). A run whose lease is still live is not claimed:
  its worker is alive and executing it (its job came back through BullMQ's stalled check after
  its lock lapsed in an outage). Neither is a run whose lease lapsed while Redis itself was down
  (it restarted since), for `grace` ms after the restart: its worker may be alive and about to
  re-take it.
  KEYS[1] run hash
  KEYS[2] thread hash
  ARGV[1] now (ISO 8601)
  ARGV[2] maximum attempts (hand-backs on shutdown do not count)
  ARGV[3] lease in ms
  ARGV[4] grace in ms after a Redis restart
  Returns {"started", attempt} | {"missing"} | {"terminal", status, attempt}
  | {"cancelled", action, attempt} | {"exhausted", attempt, failed attempts}
  | {"held", attempt, ms until it may be claimed}.
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing'} end
if status ~= 'pending' and status ~= 'running' then
  return {'terminal', status, redis.call('HGET', KEYS[1], 'attempt') or '0'}
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local lease = tonumber(redis.call('HGET', KEYS[1], 'lease_until') or '')
if status == 'running' and lease then
  local wait = lease - now
  if wait <= 0 then
    local uptime = tonumber(string.match(redis.call('INFO', 'server'), 'uptime_in_seconds:(%d+)') or '0')
    local restarted = now - uptime * 1000
    if lease < restarted then wait = restarted + tonumber(ARGV[4]) - now end
  end
  if wait > 0 then return {'held', redis.call('HGET', KEYS[1], 'attempt') or '0', tostring(wait)} end
end
local attempt = redis.call('HINCRBY', KEYS[1], 'attempt', 1)
local cancel = redis.call('HGET', KEYS[1], 'cancel')
if cancel and cancel ~= '' then return {'cancelled', cancel, tostring(attempt)} end
local counted = attempt - tonumber(redis.call('HGET', KEYS[1], 'handbacks') or '0')
if counted > tonumber(ARGV[2]) then return {'exhausted', tostring(attempt), tostring(counted - 1)} end
redis.call('HSET', KEYS[1], 'status', 'running', 'updated_at', ARGV[1], 'lease_until', tostring(now + tonumber(ARGV[3])))
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'status', 'busy', 'updated_at', ARGV[1])
end
return {'started', tostring(attempt)}
