--[[
  Removes a binding of a chat account, if it is the caller's (or any, for an admin), together
  with the account's entry in the identities map when that entry still names it.
  KEYS[1] the platform's connections (hash: connection id -> JSON with `owner`, `external_account_id`)
  KEYS[2] the platform's identities (hash: the platform's user id -> connection id)
  ARGV[1] the connection's id
  ARGV[2] the owner it must have; '' for any
  Returns the removed connection (JSON) | false when there is none (of that owner).
]]
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return false end
local ok, record = pcall(cjson.decode, raw)
if not ok or type(record) ~= 'table' then
  -- A damaged record has no owner to check: only an admin's call removes it.
  if ARGV[2] ~= '' then return false end
  redis.call('HDEL', KEYS[1], ARGV[1])
  return raw
end
if ARGV[2] ~= '' and record.owner ~= ARGV[2] then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
local account = record.external_account_id
if type(account) == 'string' and redis.call('HGET', KEYS[2], account) == ARGV[1] then redis.call('HDEL', KEYS[2], account) end
return raw
