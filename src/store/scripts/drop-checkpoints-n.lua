--[[
  Removes a rolled-back run's checkpoints, fenced by the run's attempt. The caller lists them
  (every one newer than where the run started); a worker that lost the run removes nothing.
  KEYS[1] run hash
  KEYS[2..1+Z] checkpoint id sets (zset), one per namespace
  KEYS[2+Z..] checkpoint and writes hashes to unlink
  ARGV[1] the caller's attempt
  ARGV[2] Z, the number of id sets
  ARGV[3..] for each id set in order: a count n, then n member ids
  Returns the number of ids removed, or the error WARREN_FENCED (includes/fence.lua).
]]
local attempt = ARGV[1]
--@include fence
-- unpack() is bounded by Lua's C stack: work in batches.
local BATCH = 1000
local sets = tonumber(ARGV[2])
local at = 3
local removed = 0
for s = 1, sets do
  local n = tonumber(ARGV[at])
  for from = at + 1, at + n, BATCH do
    removed = removed + redis.call('ZREM', KEYS[1 + s], unpack(ARGV, from, math.min(from + BATCH - 1, at + n)))
  end
  at = at + n + 1
end
for from = 2 + sets, #KEYS, BATCH do
  redis.call('UNLINK', unpack(KEYS, from, math.min(from + BATCH - 1, #KEYS)))
end
return removed
