--[[
  Removes a handled event from a chat platform's inbox, for the holder of the platform's lease
  only: a holder whose lease lapsed and was taken over learns it here, and the entry stays for
  the new holder.
  KEYS[1] the platform's lease (string: the holder's fencing token)
  KEYS[2] the platform's inbox (stream)
  ARGV[1] the caller's fencing token
  ARGV[2] the entry's id
  Returns 1 | -1 if the caller does not hold the lease.
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
redis.call('XDEL', KEYS[2], ARGV[2])
return 1
