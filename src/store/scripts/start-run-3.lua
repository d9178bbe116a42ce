--[[
  A worker claims a run it took from the queue. Every claim of a live run takes a new attempt,
  which fences off whichever worker held the run before (see append-run-events), and gives the
  claimer a lease it renews (renew-run-lease). A run whose lease is still live is not claimed:
  its worker is alive and executing it (its job came back through BullMQ's stalled check after
  its lock lapsed in an outage). Neither is a run whose lease lapsed while Redis itself was down
  (it restarted since), for `grace` ms after the restart: its worker may be alive and about to
  re-take it.
  A started run gets, in the same round trip, what its worker needs before the graph starts:
  the run's record, and the thread's newest root checkpoint, kept as the run's
  `checkpoint_before` by its first attempt (a later attempt keeps the first one's).
  A pending run whose kwargs may carry `after_seconds` is not claimed unless the caller says it
  is due (ARGV[5]): the delay is counted from its ISO creation time, which the worker reads.
  KEYS[1] run hash
  KEYS[2] thread hash
  KEYS[3] the thread's root checkpoint ids (sorted set, lexical)
  ARGV[1] now (ISO 8601)
  ARGV[2] maximum attempts (hand-backs on shutdown do not count)
  ARGV[3] lease in ms
  ARGV[4] grace in ms after a Redis restart
  ARGV[5] "1" when the run is known to be due, else "0"
  Returns {"started", attempt, newest checkpoint id or "", field, value, ...} | {"missing"}
  | {"terminal", status, attempt} | {"cancelled", action, attempt}
  | {"exhausted", attempt, failed attempts} | {"held", attempt, ms until it may be claimed}
  | {"check-due"}.
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
local cancel = redis.call('HGET', KEYS[1], 'cancel')
if status == 'pending' and ARGV[5] ~= '1' and not (cancel and cancel ~= '') then
  local kwargs = redis.call('HGET', KEYS[1], 'kwargs')
  if kwargs and string.find(kwargs, '"after_seconds"', 1, true) then return {'check-due'} end
end
local attempt = redis.call('HINCRBY', KEYS[1], 'attempt', 1)
if cancel and cancel ~= '' then return {'cancelled', cancel, tostring(attempt)} end
local counted = attempt - tonumber(redis.call('HGET', KEYS[1], 'handbacks') or '0')
if counted > tonumber(ARGV[2]) then return {'exhausted', tostring(attempt), tostring(counted - 1)} end
redis.call('HSET', KEYS[1], 'status', 'running', 'updated_at', ARGV[1], 'lease_until', tostring(now + tonumber(ARGV[3])))
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'status', 'busy', 'updated_at', ARGV[1])
end
local newest = redis.call('ZREVRANGEBYLEX', KEYS[3], '+', '-', 'LIMIT', 0, 1)[1] or ''
redis.call('HSETNX', KEYS[1], 'checkpoint_before', newest)
local reply = {'started', tostring(attempt), newest}
for _, item in ipairs(redis.call('HGETALL', KEYS[1])) do reply[#reply + 1] = item end
return reply
