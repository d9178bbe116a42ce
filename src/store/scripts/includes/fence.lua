--[[
  Fence preamble: refuses the script unless the caller's attempt still holds the run. The run's
  attempt is its fencing token: a worker that lost its run (paused past its lock, cut off from
  Redis) is refused here, by Redis, whatever it believes. Included, never run alone: a script
  puts `--@include fence` on a line of its own before its first write, and the loader
  (scripts.ts) replaces that line with this text.
  Expects KEYS[1] the run hash, and `attempt`, a local the script declares before the include:
  the caller's attempt (the ARGV entry that holds it).
  Defines nothing; returns the error WARREN_FENCED when another attempt holds the run or it is
  gone, else the script goes on.
]]
if redis.call('HGET', KEYS[1], 'attempt') ~= attempt then
  return redis.error_reply('WARREN_FENCED attempt ' .. attempt .. ' no longer holds the run')
end
