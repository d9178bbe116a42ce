--[[
  Frees a thread id for anyone once its record and its files are both gone.
  KEYS[1] thread hash
  KEYS[2] thread owner (string)
  Returns 1 when the owner was removed, 0 when the thread still exists (or had no owner).
]]
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
return redis.call('DEL', KEYS[2])
