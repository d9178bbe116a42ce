--[[
  Settles a run and hands the thread to the next queued run. Idempotent: settling a run twice
  hands the thread on only once.
  KEYS[1] run hash
  KEYS[2] thread hash
  KEYS[3] thread's active-run string
  KEYS[4] thread's run queue (list)
  KEYS[5] thread's run index (zset)
  ARGV[1] run_id
  ARGV[2] final run status, or "deleted" to remove the run (rollback)
  ARGV[3] thread status when no run follows: idle | error | interrupted
  ARGV[4] now (ISO 8601)
  ARGV[5] thread values (JSON), or "" to keep them
  ARGV[6] thread interrupts (JSON), or "" to keep them
  Returns the id of the run that now holds the thread and must be dispatched, or false.
]]
if ARGV[2] == 'deleted' then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[5], ARGV[1])
elseif redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated_at', ARGV[4])
end

local thread_exists = redis.call('EXISTS', KEYS[2]) == 1
if thread_exists then
  redis.call('HSET', KEYS[2], 'updated_at', ARGV[4])
  if ARGV[5] ~= '' then redis.call('HSET', KEYS[2], 'values', ARGV[5]) end
  if ARGV[6] ~= '' then redis.call('HSET', KEYS[2], 'interrupts', ARGV[6]) end
end

if redis.call('GET', KEYS[3]) ~= ARGV[1] then return false end
local next_run = redis.call('LPOP', KEYS[4])
if next_run then
  redis.call('SET', KEYS[3], next_run)
  if thread_exists then redis.call('HSET', KEYS[2], 'status', 'busy') end
  return next_run
end
redis.call('DEL', KEYS[3])
if thread_exists then redis.call('HSET', KEYS[2], 'status', ARGV[3]) end
return false
