--[[
  Binds a chat account to a Warren user: the latest bind wins, so a binding the account had
  (to this owner or another) is replaced in the same step, and one account never maps to two.
  KEYS[1] the platform's connections (hash: connection id -> JSON)
  KEYS[2] the platform's identities (hash: the platform's user id -> connection id)
  ARGV[1] the platform's user id
  ARGV[2] the new connection's id
  ARGV[3] the new connection (JSON)
  Returns the id of the binding it replaced | false when there was none.
]]
local previous = redis.call('HGET', KEYS[2], ARGV[1])
if previous and previous ~= ARGV[2] then redis.call('HDEL', KEYS[1], previous) end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return previous
