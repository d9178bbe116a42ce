--[[
  Appends a batch of events to a run's stream, in order, if the caller's attempt still holds the
  run. The attempt is the run's fencing token: a worker that lost its run (paused past its lock,
  cut off from Redis) is refused here, by Redis, whatever it believes. A batch is one round trip
  and one fence check for every event the worker produced while its previous batch was in flight.
  KEYS[1] run hash
  KEYS[2] run stream
  ARGV[1] the caller's attempt
  ARGV[2] sharded channel to publish the last entry's id on (a Redis Cluster's stream hubs hear
          of entries so, and read from their cursor), or "" for none
  ARGV[3..] event name, data (one line of JSON), for each event of the batch
  Returns the entry ids, in order, or the error WARREN_FENCED (includes/fence.lua).
]]
local attempt = ARGV[1]
--@include fence
local ids = {}
for i = 3, #ARGV - 1, 2 do
  ids[#ids + 1] = redis.call('XADD', KEYS[2], '*', 'event', ARGV[i], 'data', ARGV[i + 1])
end
if ARGV[2] ~= '' and #ids > 0 then redis.call('SPUBLISH', ARGV[2], ids[#ids]) end
return ids
