--[[
  Moves a chat platform's update offset forward, for the holder of the platform's lease only: a
  holder whose lease lapsed (paused, cut off) and was taken over learns it here, and its offset
  never lands. The offset only moves forward, so an update is never read again once handled.
  KEYS[1] the platform's lease (string: the holder's fencing token)
  KEYS[2] the platform's state (hash, field `offset`)
  ARGV[1] the caller's fencing token
  ARGV[2] the new offset (an integer)
  Returns the offset after the call | -1 if the caller does not hold the lease.
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local current = tonumber(redis.call('HGET', KEYS[2], 'offset') or '0') or 0
local value = tonumber(ARGV[2])
if value > current then
  redis.call('HSET', KEYS[2], 'offset', ARGV[2])
  return value
end
return current
