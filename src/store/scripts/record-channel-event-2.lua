--[[
  Records a chat platform's event once: the first delivery of an event id is added to the
  platform's inbox, a retry of it (Slack delivers again when it saw no answer in time) is not.
  Both in one step, so an event is never marked seen without being in the inbox.
  KEYS[1] the event id's seen marker (string, expiring)
  KEYS[2] the platform's inbox (stream)
  ARGV[1] seconds the marker lives
  ARGV[2] the event's body (JSON)
  Returns the new entry's id | false when the event was recorded before.
]]
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return false end
return redis.call('XADD', KEYS[2], '*', 'body', ARGV[2])
