--[[
  Cancels a run. A queued run is settled here; a dispatched or running one is flagged, and its
  worker (told over pub/sub, or on pick-up) stops it.
  KEYS[1] run hash
  KEYS[2] thread hash
  KEYS[3] thread's active-run string
  KEYS[4] thread's run queue (list)
  KEYS[5] thread's run index (zset)
  ARGV[1] run_id
  ARGV[2] action: interrupt | rollback
  ARGV[3] now (ISO 8601)
  Returns "missing" | "terminal" | "cancelled" (it was only queued) | "signalled".
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'missing' end
if status ~= 'pending' and status ~= 'running' then return 'terminal' end
if redis.call('LREM', KEYS[4], 0, ARGV[1]) > 0 then
  if ARGV[2] == 'rollback' then
    redis.call('DEL', KEYS[1])
    redis.call('ZREM', KEYS[5], ARGV[1])
  else
    redis.call('HSET', KEYS[1], 'status', 'interrupted', 'updated_at', ARGV[3])
  end
  return 'cancelled'
end
redis.call('HSET', KEYS[1], 'cancel', ARGV[2], 'updated_at', ARGV[3])
return 'signalled'
