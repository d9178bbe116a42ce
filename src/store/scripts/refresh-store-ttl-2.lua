--[[
  Starts an item's TTL again from now, as a read with `refresh_ttl` asks. An item without a
  TTL, or one already expired (the sweep's to remove), is left alone.
  KEYS[1] the item hash
  KEYS[2] expiries sorted set
  ARGV[1] the item id
  ARGV[2] now (ms)
  Returns the new expiry (ms), or 0 when nothing changed.
]]
local fields = redis.call('HMGET', KEYS[1], 'expires_at', 'ttl')
local expires, ttl = fields[1], fields[2]
if not expires or expires == '' or not ttl or ttl == '' then return 0 end
local now = tonumber(ARGV[2])
if tonumber(expires) <= now then return 0 end
local next = math.floor(now + tonumber(ttl) * 60000)
redis.call('HSET', KEYS[1], 'expires_at', tostring(next))
redis.call('ZADD', KEYS[2], next, ARGV[1])
return next
