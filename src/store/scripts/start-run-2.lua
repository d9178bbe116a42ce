--[[
  A worker claims a run it took from the queue. Every claim of a live run takes a new attempt,
  which fences off whichever worker held the run before (see append-run-events).
  KEYS[1] run hash
  KEYS[2] thread hash
  ARGV[1] now (ISO 8601)
  ARGV[2] maximum attempts (hand-backs on shutdown do not count)
  Returns {"started", attempt} | {"missing"} | {"terminal", status, attempt}
  | {"cancelled", action, attempt} | {"exhausted", attempt, failed attempts}.
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing'} end
if status ~= 'pending' and status ~= 'running' then
  return {'terminal', status, redis.call('HGET', KEYS[1], 'attempt') or '0'}
end
local attempt = redis.call('HINCRBY', KEYS[1], 'attempt', 1)
local cancel = redis.call('HGET', KEYS[1], 'cancel')
if cancel and cancel ~= '' then return {'cancelled', cancel, tostring(attempt)} end
local counted = attempt - tonumber(redis.call('HGET', KEYS[1], 'handbacks') or '0')
if counted > tonumber(ARGV[2]) then return {'exhausted', tostring(attempt), tostring(counted - 1)} end
redis.call('HSET', KEYS[1], 'status', 'running', 'updated_at', ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'status', 'busy', 'updated_at', ARGV[1])
end
return {'started', tostring(attempt)}
