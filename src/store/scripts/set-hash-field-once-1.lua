--[[
  Sets a hash field once, and only on a hash that exists: a value derived later from a record
  (a run's message count, counted by the first reader that needs it), which must neither change
  once kept nor bring back a record deleted meanwhile as a half record.

  KEYS[1] the hash
  ARGV[1] the field
  ARGV[2] the value

  Returns 1 when set, 0 when the hash is gone or the field already holds a value.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
