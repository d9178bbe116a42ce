--[[
  Stores a task's pending writes against a checkpoint, fenced by the run's attempt.
  KEYS[1] run hash
  KEYS[2] the checkpoint's writes (hash)
  KEYS[3] the thread's namespaces (set)
  ARGV[1] the caller's attempt
  ARGV[2] namespace
  ARGV[3..] triples: field, "1" to replace an existing write (special channels) or "0" to keep
  the first one stored, serialised value
  Returns 1, or the error WARREN_FENCED (includes/fence.lua).
]]
local attempt = ARGV[1]
--@include fence
for i = 3, #ARGV, 3 do
  if ARGV[i + 1] == '1' then
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 2])
  else
    redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 2])
  end
end
redis.call('SADD', KEYS[3], ARGV[2])
return 1
