--[[
  Raises a numeric hash field to a value, never lowers it: a cron's last fully fired tick, which
  ticks handled out of order (or twice) must not move back.

  KEYS[1] the hash
  ARGV[1] the field
  ARGV[2] the value (an integer)

  Returns the field's value after the call.
]]
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') or 0
local value = tonumber(ARGV[2])
if value > current then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return value
end
return current
