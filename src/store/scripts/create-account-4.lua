--[[
  Creates an account, claiming its email (and its OIDC subject, when it has one) in the same step,
  so two sign-ups with one email cannot both win. The first admin also claims the set-up key:
  `initialize` succeeds once per deployment, whichever replica serves it.
  KEYS[1] account hash
  KEYS[2] email → account id (string)
  KEYS[3] first admin (string)
  KEYS[4] OIDC subject → account id (string); the email key again when there is none
  ARGV[1] account id
  ARGV[2] "first-admin" to claim KEYS[3], "" otherwise
  ARGV[3..] the account's fields, name then value
  Returns 1 when created, -1 when the email is taken, -2 when set-up is already done, -3 when the
  OIDC subject already has an account.
]]
if ARGV[2] == 'first-admin' and redis.call('EXISTS', KEYS[3]) == 1 then return -2 end
if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
if KEYS[4] ~= KEYS[2] and redis.call('EXISTS', KEYS[4]) == 1 then return -3 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('SET', KEYS[2], ARGV[1])
if KEYS[4] ~= KEYS[2] then redis.call('SET', KEYS[4], ARGV[1]) end
if ARGV[2] == 'first-admin' then redis.call('SET', KEYS[3], ARGV[1]) end
return 1
