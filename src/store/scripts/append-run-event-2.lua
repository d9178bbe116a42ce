--[[
  Appends one event to a run's stream, if the caller's attempt still holds the run. The attempt
  is the run's fencing token: a worker that lost its run (paused past its lock, cut off from
  Redis) is refused here, by Redis, whatever it believes.
  KEYS[1] run hash
  KEYS[2] run stream
  ARGV[1] the caller's attempt
  ARGV[2] event name
  ARGV[3] data (one line of JSON)
  ARGV[4] sharded channel to publish the entry's id on (a Redis Cluster's stream hubs hear of
          entries so), or "" for none
  Returns the entry id, or the error WARREN_FENCED (includes/fence.lua).
]]
local attempt = ARGV[1]
--@include fence
local id = redis.call('XADD', KEYS[2], '*', 'event', ARGV[2], 'data', ARGV[3])
if ARGV[4] ~= '' then redis.call('SPUBLISH', ARGV[4], id) end
return id
