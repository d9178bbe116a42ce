--[[
  After an outage longer than its lock, a worker that re-took its run (renew-run-lease) takes
  the run's BullMQ job lock back, so that the stalled-job check leaves the job with it. Only a
  job still in the active list whose lock is gone (or still the caller's) is re-locked: a job
  the stalled check has moved back to wait, or another worker has fetched, stays where it is
  (whoever fetches it finds the run held, and parks the job until the run ends).
  KEYS[1] the job's lock (string: the holder's token)
  KEYS[2] the queue's active list
  KEYS[3] the queue's stalled set
  ARGV[1] the job id
  ARGV[2] the caller's job token
  ARGV[3] lock duration in ms
  Returns 1 (locked for the caller) | 0 (the job is not the caller's to lock).
]]
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[2] then return 0 end
if not redis.call('LPOS', KEYS[2], ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('SREM', KEYS[3], ARGV[1])
return 1
