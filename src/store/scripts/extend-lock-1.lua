--[[
  Confirms that a lock on a shared file is still the caller's and renews its lease, in one
  step, so a holder whose lease lapsed (and whose lock another may now hold) learns it before
  it renames anything.
  KEYS[1] lock (string: the holder's fencing token)
  ARGV[1] the caller's token
  ARGV[2] lease in ms
  Returns 1 if the caller holds the lock (now renewed) | 0 if it lapsed or another holds it.
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
