--[[
  Creates a thread record unless one exists.
  KEYS[1] thread hash
  ARGV[1] thread_id
  ARGV[2] now (ISO 8601)
  ARGV[3] metadata (JSON)
  ARGV[4] if_exists: "raise" | "do_nothing"
  Returns 1 when created, 0 when it existed and if_exists is do_nothing, -1 when it existed
  and if_exists is raise.
]]
if redis.call('EXISTS', KEYS[1]) == 1 then
  if ARGV[4] == 'do_nothing' then return 0 end
  return -1
end
redis.call('HSET', KEYS[1],
  'thread_id', ARGV[1], 'created_at', ARGV[2], 'updated_at', ARGV[2],
  'metadata', ARGV[3], 'status', 'idle', 'values', 'null', 'interrupts', '{}')
return 1
