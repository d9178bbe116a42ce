--[[
  Stores one checkpoint of a run: fenced by the run's attempt, and only along the thread's own
  lineage. In the root namespace the new checkpoint's parent must be the thread's head (its
  newest checkpoint), or the checkpoint the run was asked to fork from: a checkpoint from a
  stale history can never become the head.
  KEYS[1] run hash
  KEYS[2] checkpoint hash
  KEYS[3] the namespace's checkpoint ids (zset, ordered by member)
  KEYS[4] the thread's namespaces (set)
  KEYS[5] the namespace's channel values (hash)
  ARGV[1] the caller's attempt
  ARGV[2] namespace ("" is the root graph)
  ARGV[3] checkpoint id
  ARGV[4] parent checkpoint id, or ""
  ARGV[5] the checkpoint the run forks from, or ""
  ARGV[6] the checkpoint (serialised, without channel values)
  ARGV[7] its metadata (serialised)
  ARGV[8..] channel value fields and values, in pairs
  Returns 1, or the error WARREN_FENCED (includes/fence.lua), or the error WARREN_LINEAGE.
]]
local attempt = ARGV[1]
--@include fence
if ARGV[2] == '' then
  local head = redis.call('ZREVRANGEBYLEX', KEYS[3], '+', '-', 'LIMIT', 0, 1)[1]
  if head and head ~= ARGV[4] and head ~= ARGV[3] and (ARGV[5] == '' or ARGV[4] ~= ARGV[5]) then
    return redis.error_reply('WARREN_LINEAGE checkpoint ' .. ARGV[3] .. ' descends from ' .. ARGV[4] .. ', but the thread has moved on to ' .. head)
  end
end
if #ARGV > 7 then redis.call('HSET', KEYS[5], unpack(ARGV, 8)) end
redis.call('DEL', KEYS[2])
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[2], 'checkpoint', ARGV[6], 'metadata', ARGV[7], 'parent', ARGV[4])
else
  redis.call('HSET', KEYS[2], 'checkpoint', ARGV[6], 'metadata', ARGV[7])
end
redis.call('ZADD', KEYS[3], 0, ARGV[3])
redis.call('SADD', KEYS[4], ARGV[2])
return 1
