--[[
  Creates a thread record unless one exists, for its owner. A thread id claimed by another user
  (an upload before the first run, or a deleted thread's id) counts as existing.
  KEYS[1] thread hash
  KEYS[2] thread owner (string)
  ARGV[1] thread_id
  ARGV[2] now (ISO 8601)
  ARGV[3] metadata (JSON)
  ARGV[4] if_exists: "raise" | "do_nothing" | "take_handoff"
  ARGV[5] owner
  ARGV[6] "1" to mark a created thread as handed off: made through DeerFlow's POST /api/threads,
          for the same user's LangGraph client to create again (DeerFlow's UI does both)
  Returns 1 when created, 0 when it existed (the caller's) and if_exists is do_nothing, or is
  take_handoff and the thread is a handoff nothing has run on yet (the mark is then taken, so
  only the first such create gets it), -1 otherwise when it existed, or when the id is another
  user's.
]]
local owner = redis.call('GET', KEYS[2])
if owner and owner ~= ARGV[5] then return -1 end
if redis.call('EXISTS', KEYS[1]) == 1 then
  if ARGV[4] == 'do_nothing' then return 0 end
  if ARGV[4] == 'take_handoff' then
    local mark = redis.call('HMGET', KEYS[1], 'handoff', 'status', 'values')
    if mark[1] == '1' and mark[2] == 'idle' and mark[3] == 'null' then
      redis.call('HDEL', KEYS[1], 'handoff')
      return 0
    end
  end
  return -1
end
redis.call('HSET', KEYS[1],
  'thread_id', ARGV[1], 'created_at', ARGV[2], 'updated_at', ARGV[2],
  'metadata', ARGV[3], 'status', 'idle', 'values', 'null', 'interrupts', '{}')
if ARGV[6] == '1' then redis.call('HSET', KEYS[1], 'handoff', '1') end
redis.call('SET', KEYS[2], ARGV[5])
return 1
