--[[
  A worker claims a run it took from the queue.
  KEYS[1] run hash
  KEYS[2] thread hash
  ARGV[1] now (ISO 8601)
  ARGV[2] maximum attempts
  Returns {"started", attempt} | {"missing"} | {"terminal", status} | {"cancelled", action}
  | {"exhausted", attempt}.
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing'} end
if status ~= 'pending' and status ~= 'running' then return {'terminal', status} end
local cancel = redis.call('HGET', KEYS[1], 'cancel')
if cancel and cancel ~= '' then return {'cancelled', cancel} end
local attempt = redis.call('HINCRBY', KEYS[1], 'attempt', 1)
if attempt > tonumber(ARGV[2]) then return {'exhausted', tostring(attempt - 1)} end
redis.call('HSET', KEYS[1], 'status', 'running', 'updated_at', ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'status', 'busy', 'updated_at', ARGV[1])
end
return {'started', tostring(attempt)}
