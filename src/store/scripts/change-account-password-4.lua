--[[
  Sets an account's new password hash (and email, when it changes), and ends every session it
  had but the one the change is made in: a stolen session dies with the old password.
  KEYS[1] account hash
  KEYS[2] the current email → account id (string)
  KEYS[3] the new email → account id (string); KEYS[2] again when the email stays
  KEYS[4] the account's sessions (sorted set)
  ARGV[1] account id
  ARGV[2] new password hash
  ARGV[3] new email (ignored when KEYS[3] is KEYS[2])
  ARGV[4] the new session id
  ARGV[5] the new session's expiry (ms)
  ARGV[6] the sessions key's TTL (s)
  Returns 1 when changed, 0 when the account is gone, -1 when the new email is another account's.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if KEYS[3] ~= KEYS[2] then
  local holder = redis.call('GET', KEYS[3])
  if holder and holder ~= ARGV[1] then return -1 end
  redis.call('SET', KEYS[3], ARGV[1])
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[1], 'email', ARGV[3])
end
redis.call('HSET', KEYS[1], 'password_hash', ARGV[2])
redis.call('DEL', KEYS[4])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[4])
redis.call('EXPIRE', KEYS[4], ARGV[6])
return 1
