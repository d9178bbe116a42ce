--[[
  Writes an assistant's record (and maybe one new version) if nobody changed it since it was
  read: a compare-and-set on `max_version`, so concurrent PATCHes never share a version number.
  KEYS[1] assistant hash (fields `record`, `max_version`)
  KEYS[2] the assistant's versions hash (version → JSON)
  ARGV[1] the `max_version` read before ("" when the assistant must not exist yet)
  ARGV[2] the new record (JSON)
  ARGV[3] the new `max_version`
  ARGV[4] the version number to add ("" to add none)
  ARGV[5] that version (JSON)
  ARGV[6] the owner, written with a new assistant ("" on an update: the owner never changes)
  Returns 1 when written, 0 when the assistant changed (or exists, or is gone) meanwhile.
]]
local current = redis.call('HGET', KEYS[1], 'max_version')
if ARGV[1] == '' then
  if current then return 0 end
elseif current ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'max_version', ARGV[3])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'owner', ARGV[6]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], ARGV[4], ARGV[5]) end
return 1
