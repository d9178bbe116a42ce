--[[
  Releases a lock on a shared file if the caller still holds it: after a lapsed lease the key
  may hold another holder's token, which must stay.
  KEYS[1] lock (string: the holder's fencing token)
  ARGV[1] the caller's token
  Returns 1 if released | 0 if the lock had lapsed or is another's.
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
