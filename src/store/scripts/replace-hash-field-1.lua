--[[
  Compare-and-set on one hash field: replaces its value only if it still holds what the caller
  read, so two concurrent read-modify-writes never lose one of the changes.

  KEYS[1] the hash
  ARGV[1] the field
  ARGV[2] the value the caller read
  ARGV[3] the new value

  Returns 1 when replaced, 0 when the field changed (or vanished) since it was read.
]]
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
