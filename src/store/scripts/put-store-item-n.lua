--[[
  Writes one store item and joins it to the index of every prefix of its namespace, so a
  search under any prefix reads one sorted set, newest first. A rewrite keeps `created_at`.
  KEYS[1] the item hash
  KEYS[2] namespaces hash (namespace JSON → item count)
  KEYS[3] expiries sorted set
  KEYS[4] vectors hash (item → float32 embeddings)
  KEYS[5] vector revisions hash (item → revision, for the rankers' caches)
  KEYS[6] the store's write generation (raised, so rankers' caches know to look again)
  KEYS[7..] the prefix indexes: `[]`, then each prefix of the namespace, itself last
  ARGV[1] the item id (JSON of namespace and key)
  ARGV[2] the namespace (JSON)
  ARGV[3] the key
  ARGV[4] the value (JSON)
  ARGV[5] now (ISO time)
  ARGV[6] now (ms since the epoch), the index score
  ARGV[7] when it expires (ms), or "" for never
  ARGV[8] its TTL in minutes, or ""
  ARGV[9] its embeddings, or "" for none
  ARGV[10] a fresh revision for those embeddings
  ARGV[11] optional, a compare-and-set condition: "-" the item must be absent (or expired),
           "=" followed by a value (JSON) the item must still hold; missing or "" writes anyway
  Returns 1 when the item is new, 0 when it replaced one, -1 when the condition did not hold
  (nothing written).
]]
local item = ARGV[1]
local condition = ARGV[11] or ''
if condition ~= '' then
  local current = redis.call('HMGET', KEYS[1], 'value', 'expires_at')
  local present = current[1] and not (current[2] and current[2] ~= '' and tonumber(current[2]) <= tonumber(ARGV[6]))
  if condition == '-' then
    if present then return -1 end
  elseif not present or ('=' .. current[1]) ~= condition then
    return -1
  end
end
local created = redis.call('HGET', KEYS[1], 'created_at')
local fresh = 0
if not created then
  created = ARGV[5]
  fresh = 1
  redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'namespace', ARGV[2], 'key', ARGV[3], 'value', ARGV[4],
  'created_at', created, 'updated_at', ARGV[5], 'expires_at', ARGV[7], 'ttl', ARGV[8])
if ARGV[7] == '' then
  redis.call('ZREM', KEYS[3], item)
else
  redis.call('ZADD', KEYS[3], ARGV[7], item)
end
if ARGV[9] == '' then
  redis.call('HDEL', KEYS[4], item)
  redis.call('HDEL', KEYS[5], item)
else
  redis.call('HSET', KEYS[4], item, ARGV[9])
  redis.call('HSET', KEYS[5], item, ARGV[10])
end
for i = 7, #KEYS do
  redis.call('ZADD', KEYS[i], ARGV[6], item)
end
redis.call('INCR', KEYS[6])
return fresh
