--[[
  Settles a run in one step: its status, the thread's status and values, the stream's `error`
  (if any) and `end`, and the hand-over of the thread to its next queued run. Fenced by the
  attempt, so a worker that lost the run can settle nothing; idempotent for the attempt that
  holds it: settling twice hands the thread on once and appends `end` once.
  KEYS[1] run hash
  KEYS[2] thread hash
  KEYS[3] thread's active-run string
  KEYS[4] thread's run queue (list)
  KEYS[5] thread's run index (zset)
  KEYS[6] run stream
  ARGV[1] run_id
  ARGV[2] final run status, or "deleted" to remove the run (rollback)
  ARGV[3] thread status when no run follows: idle | error | interrupted
  ARGV[4] now (ISO 8601)
  ARGV[5] thread values (JSON), or "" to keep them
  ARGV[6] thread interrupts (JSON), or "" to keep them
  ARGV[7] the caller's attempt
  ARGV[8] the `error` event's data (JSON), or "" for none; kept on the run hash as `error`
  ARGV[9] seconds the stream stays joinable after `end`
  ARGV[10] sharded channel to publish `end`'s id on (a Redis Cluster's stream hubs hear of
           entries so), or "" for none
  Returns the id of the run that now holds the thread and must be dispatched, or false; or the
  error WARREN_FENCED (includes/fence.lua).
]]
local attempt = ARGV[7]
--@include fence
if ARGV[2] == 'deleted' then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[5], ARGV[1])
else
  redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated_at', ARGV[4])
  -- A failed run keeps its error on its record too, for the lists that show it (DeerFlow's console).
  if ARGV[8] ~= '' then redis.call('HSET', KEYS[1], 'error', ARGV[8]) end
end

local thread_exists = redis.call('EXISTS', KEYS[2]) == 1
if thread_exists then
  redis.call('HSET', KEYS[2], 'updated_at', ARGV[4])
  if ARGV[5] ~= '' then redis.call('HSET', KEYS[2], 'values', ARGV[5]) end
  if ARGV[6] ~= '' then redis.call('HSET', KEYS[2], 'interrupts', ARGV[6]) end
end

-- `end` is the stream's last entry, once: a client that sees it finds the run settled.
local last = redis.call('XREVRANGE', KEYS[6], '+', '-', 'COUNT', 1)[1]
if not (last and last[2][1] == 'event' and last[2][2] == 'end') then
  if ARGV[8] ~= '' then redis.call('XADD', KEYS[6], '*', 'event', 'error', 'data', ARGV[8]) end
  local end_id = redis.call('XADD', KEYS[6], '*', 'event', 'end', 'data', '{}')
  if ARGV[10] ~= '' then redis.call('SPUBLISH', ARGV[10], end_id) end
end
redis.call('EXPIRE', KEYS[6], ARGV[9])

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
