--[[
  Removes one store item from its hash, its prefix indexes, the expiries and the vectors; a
  namespace left with no item leaves the namespaces hash. The sweep passes a time: then only an
  item that expired by then goes (one whose TTL a read refreshed meanwhile stays).
  KEYS[1..6] as put-store-item: item, namespaces, expiries, vectors, vector revisions, generation
  KEYS[7..] the prefix indexes of the item's namespace
  ARGV[1] the item id
  ARGV[2] the namespace (JSON)
  ARGV[3] "" to delete whatever, or a time (ms): delete only if it expired by then
  Returns 1 when an item was removed, 0 when there was none (or it had not expired).
]]
local item = ARGV[1]
if ARGV[3] ~= '' then
  local expires = redis.call('HGET', KEYS[1], 'expires_at')
  if expires == '' then
    redis.call('ZREM', KEYS[3], item)
    return 0
  end
  if expires and tonumber(expires) > tonumber(ARGV[3]) then return 0 end
end
local existed = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[3], item)
redis.call('HDEL', KEYS[4], item)
redis.call('HDEL', KEYS[5], item)
for i = 7, #KEYS do
  redis.call('ZREM', KEYS[i], item)
end
redis.call('INCR', KEYS[6])
if existed == 1 and redis.call('HINCRBY', KEYS[2], ARGV[2], -1) <= 0 then
  redis.call('HDEL', KEYS[2], ARGV[2])
end
return existed
