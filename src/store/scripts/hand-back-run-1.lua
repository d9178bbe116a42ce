--[[
  A worker shutting down hands its run back to the queue: the attempt it used is not counted
  against the run's attempt limit, and its lease ends, so the next claim need not wait for it.
  Fenced: only the attempt that holds the run may do so.
  KEYS[1] run hash
  ARGV[1] the caller's attempt
  Returns 1, or the error WARREN_FENCED (includes/fence.lua).
]]
local attempt = ARGV[1]
--@include fence
redis.call('HINCRBY', KEYS[1], 'handbacks', 1)
redis.call('HDEL', KEYS[1], 'lease_until')
return 1
