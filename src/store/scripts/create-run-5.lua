--[[
  Records a new run on a thread and applies the multitask strategy: one run holds a thread
  at a time, the others wait in the thread's run queue.
  KEYS[1] thread hash
  KEYS[2] run hash
  KEYS[3] thread's run index (zset)
  KEYS[4] thread's active-run string
  KEYS[5] thread's run queue (list)
  ARGV[1] run_id
  ARGV[2] multitask strategy: reject | enqueue | interrupt | rollback
  ARGV[3] now (ISO 8601)
  ARGV[4] now (ms)
  ARGV[5] the thread's new metadata (JSON), or '' to leave it: the run's graph and assistant
          noted in the same step that records the run, so a refused run notes nothing
  ARGV[6..] the run hash as field, value pairs
  Returns {0} when the run holds the thread and must be dispatched now, {1, active_run_id}
  when it waits behind active_run_id, {-1} when the thread does not exist, {-2, active_run_id}
  when the strategy is reject and the thread is busy, {2, active_run_id or false} when a run
  with this id exists already: nothing is written (a cron tick retried after a crash derives
  the same run id, and must not start its run twice).
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
if redis.call('EXISTS', KEYS[2]) == 1 then return {2, redis.call('GET', KEYS[4])} end
local active = redis.call('GET', KEYS[4])
if active and ARGV[2] == 'reject' then return {-2, active} end

local fields = {}
for i = 6, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[2], unpack(fields))
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'metadata', ARGV[5]) end
redis.call('HSET', KEYS[1], 'status', 'busy', 'updated_at', ARGV[3])

if not active then
  redis.call('SET', KEYS[4], ARGV[1])
  return {0}
end
-- interrupt and rollback jump the queue: the run they cancel is replaced by this one.
if ARGV[2] == 'enqueue' then
  redis.call('RPUSH', KEYS[5], ARGV[1])
else
  redis.call('LPUSH', KEYS[5], ARGV[1])
end
return {1, active}
