// The Lua scripts of the shared API budget (redisBudget.ts). Each one runs atomically in Redis and reads the time
// from Redis itself (TIME), never from a sidecar, so clock skew between machines cannot widen the window.
// Keys (one hash tag, so one script may touch them all on a cluster): `<name>:window` (ZSET of starts, score = Redis
// ms, member = `<node>:<seq>`), `<name>:place` (the next place of the 6/3/1 cycle), `<name>:demand` (HASH
// `<node>:<kind>` → Redis ms until which that node's claim on that kind lives), `<name>:hold` (Redis ms of the end of
// a Retry-After hold). Every key carries an expiry: nothing outlives its use, and a dead sidecar's claims lapse.
// They never store anything but counters, node ids (random, per process) and times.

import { redisScript as script } from './redisScript.js';

const NOW = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;

/** Sets a key's expiry to at least `ms` from now (never shortens one a longer wait set). */
const KEEP = `
local function keep(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
`;

/**
 * One decision. KEYS: window, place, demand, hold. ARGV: requests, spanMs, node, member, the node's waiting counts
 * (lookup, refresh, review, action), graceMs, the cycle (one letter a place: m, r, a), otherTurnMs.
 * Returns {1, kind} (1 lookup, 2 refresh, 3 review, 4 action: granted, the start counted) or {0, waitMs}.
 */
export const DECIDE_SCRIPT = script(`${NOW}${KEEP}
local window, placeKey, demandKey, holdKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local requests, span = tonumber(ARGV[1]), tonumber(ARGV[2])
local node, member = ARGV[3], ARGV[4]
local counts = { tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]) }
local grace, cycle, otherTurn = tonumber(ARGV[9]), ARGV[10], tonumber(ARGV[11])
local kinds = { 'lookup', 'refresh', 'review', 'action' }
local index = { lookup = 1, refresh = 2, review = 3, action = 4 }
local lifetime = 2 * span + grace

-- Other nodes' live claims; expired ones (a node that stopped asking, or died) are dropped.
local live = { false, false, false, false }
local fields = redis.call('HGETALL', demandKey)
for i = 1, #fields, 2 do
  local field, expiry = fields[i], tonumber(fields[i + 1])
  local sep = string.find(field, ':', 1, true)
  local owner = sep and string.sub(field, 1, sep - 1) or ''
  local kind = sep and index[string.sub(field, sep + 1)] or nil
  if owner ~= node then
    if kind == nil or expiry == nil or expiry <= now then
      redis.call('HDEL', demandKey, field)
    else
      live[kind] = true
    end
  end
end

-- This node's claims: alive until the answer's wait has passed plus a grace, so a node sleeping until the window
-- frees keeps its places, and a dead one loses them.
local function claim(waitMs)
  for i = 1, 4 do
    local field = node .. ':' .. kinds[i]
    if counts[i] > 0 then
      redis.call('HSET', demandKey, field, now + waitMs + grace)
    else
      redis.call('HDEL', demandKey, field)
    end
  end
  keep(demandKey, lifetime + waitMs)
end

local held = tonumber(redis.call('GET', holdKey) or '0') or 0
if held > now then
  claim(held - now)
  return { 0, held - now }
end

-- A start at s counts while now < s + span.
redis.call('ZREMRANGEBYSCORE', window, '-inf', now - span)
local used = redis.call('ZCARD', window)
if used >= requests then
  local oldest = redis.call('ZRANGE', window, used - requests, used - requests, 'WITHSCORES')
  local wait = math.max(1, math.min(span, tonumber(oldest[2]) + span - now))
  claim(wait)
  return { 0, wait }
end

for i = 1, 4 do
  if counts[i] > 0 then live[i] = true end
end
local length = string.len(cycle)
local place = (tonumber(redis.call('GET', placeKey) or '0') or 0) % length
for step = 0, length - 1 do
  local at = (place + step) % length
  local class = string.sub(cycle, at + 1, at + 1)
  local kind = nil
  if class == 'm' then
    -- First lookups before refreshes, across every node.
    if live[1] then kind = 1 elseif live[2] then kind = 2 end
  elseif class == 'r' then
    if live[3] then kind = 3 end
  elseif class == 'a' then
    if live[4] then kind = 4 end
  end
  if kind ~= nil then
    if counts[kind] == 0 then
      -- Another node's turn: the place waits for it (its claim lapses if it never comes).
      claim(otherTurn)
      return { 0, otherTurn }
    end
    redis.call('ZADD', window, now, member)
    redis.call('PEXPIRE', window, lifetime)
    redis.call('SET', placeKey, (at + 1) % length, 'PX', lifetime)
    counts[kind] = counts[kind] - 1
    claim(0)
    return { 1, kind }
  end
end
claim(otherTurn)
return { 0, otherTurn }
`);

/** A Retry-After for everyone on the key. KEYS: hold. ARGV: ms. The longer of the hold there and this one stays. */
export const HOLD_SCRIPT = script(`${NOW}
local ms = tonumber(ARGV[1])
local untilMs = now + ms
local held = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if untilMs > held then redis.call('SET', KEYS[1], untilMs, 'PX', ms) end
return 1
`);

/**
 * The service's own count. KEYS: window. ARGV: requests, spanMs, remaining, member prefix, graceMs. Counts as many
 * starts now as the service saw and the window does not know of; returns how many.
 */
export const OBSERVE_SCRIPT = script(`${NOW}
local requests, span, remaining = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - span)
local unknown = math.min(requests, requests - remaining - redis.call('ZCARD', KEYS[1]))
for i = 1, unknown do redis.call('ZADD', KEYS[1], now, ARGV[4] .. ':' .. i) end
if unknown > 0 then redis.call('PEXPIRE', KEYS[1], 2 * span + tonumber(ARGV[5])) end
return math.max(0, unknown)
`);

/**
 * After a (re)connection: puts this node's own starts of the last span back (a restarted Redis lost them) and its
 * hold. KEYS: window, hold. ARGV: spanMs, graceMs, holdMs, then pairs of (age ms, member). Starts Redis still has
 * are left as they are (NX).
 */
export const RESEED_SCRIPT = script(`${NOW}${KEEP}
local span, grace, holdMs = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local added = 0
for i = 4, #ARGV - 1, 2 do
  local age = tonumber(ARGV[i])
  if age < span then
    added = added + redis.call('ZADD', KEYS[1], 'NX', now - age, ARGV[i + 1])
  end
end
if redis.call('EXISTS', KEYS[1]) == 1 then keep(KEYS[1], 2 * span + grace) end
if holdMs > 0 then
  local held = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
  if now + holdMs > held then redis.call('SET', KEYS[2], now + holdMs, 'PX', holdMs) end
end
return added
`);
