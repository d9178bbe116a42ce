--[[
  Mints a one-time connect code for an owner on one chat platform, unless the owner already has
  `max` codes pending there: the count and the insert happen at once, so concurrent requests
  cannot each see room and all insert past the cap.
  KEYS[1] the owner's pending codes on the platform (sorted set: code by expiry, ms)
  KEYS[2] the code's key (string: JSON {owner, created_at})
  ARGV[1] now (ms)
  ARGV[2] how long a code lives (ms)
  ARGV[3] the most codes one owner may have pending
  ARGV[4] the code's value (JSON)
  ARGV[5] the code
  Returns 1 when minted | 0 when the owner has `max` codes pending | -1 when the code exists already.
]]
local now = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
if not redis.call('SET', KEYS[2], ARGV[4], 'PX', ttl, 'NX') then return -1 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[5])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
