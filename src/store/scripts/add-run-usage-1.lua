--[[
  Adds one model call's token usage to its run's tally (the run hash's `usage` field, JSON:
  {"models": {<model>: {input_tokens, output_tokens, calls}}, "callers": {<caller>: tokens}}).
  Not fenced: tokens an attempt spent were spent, even if another attempt holds the run now.
  A run that is gone (rolled back, expired) gets nothing: the hash is not created again.
  KEYS[1] run hash
  ARGV[1] model name
  ARGV[2] caller: lead_agent | subagent | middleware
  ARGV[3] input tokens
  ARGV[4] output tokens
  Returns 1, or 0 when the run no longer exists.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
local raw = redis.call('HGET', KEYS[1], 'usage')
local usage = { models = {}, callers = {} }
if raw then
  usage = cjson.decode(raw)
end
local input = tonumber(ARGV[3])
local output = tonumber(ARGV[4])
local model = usage.models[ARGV[1]] or { input_tokens = 0, output_tokens = 0, calls = 0 }
model.input_tokens = model.input_tokens + input
model.output_tokens = model.output_tokens + output
model.calls = model.calls + 1
usage.models[ARGV[1]] = model
usage.callers[ARGV[2]] = (usage.callers[ARGV[2]] or 0) + input + output
redis.call('HSET', KEYS[1], 'usage', cjson.encode(usage))
return 1
