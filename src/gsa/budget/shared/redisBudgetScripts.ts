// The Lua scripts of the shared API budget (redisBudget.ts). Each one runs atomically in Redis and reads the time
// from Redis itself (TIME), never from a sidecar, so clock skew between machines cannot widen the window.
// Keys (one hash tag, so one script may touch them all on a cluster):
// - `<name>:window` ZSET of starts, score = Redis ms, member = `<node>:<seq>`;
// - `<name>:place` the next place of the 6/3/1 cycle;
// - `<name>:demand` HASH `<node>:<kind>` → Redis ms until which that node's claim on that kind lives;
// - `<name>:hold` Redis ms of the end of a Retry-After hold;
// - `<name>:meta` HASH: `epoch` (who built this state), `since` (when, Redis ms), `last` (the newest start counted);
// - `<name>:nodes` HASH `<node>` → `<requests>/<intervalMs>/<nodes>@<Redis ms last seen>`: the window each live
//   sidecar keeps, so sidecars that disagree do not share.
// Every key carries an expiry: nothing outlives its use, and a dead sidecar's claims lapse. They never store anything
// but counters, node ids (random, per process), settings and times.
//
// Redis is shared: anyone who can write the prefix can write these keys, and a wipe (FLUSHALL, eviction, a fresh
// replica) or a clock stepped back can leave them anything. So every value read here is checked before it is
// believed: a key of the wrong type is removed, a hold later than the asking sidecar's own cap is not believed, a
// claim or a node entry beyond the longest an honest one lives is removed, a start in the future is counted from now,
// an unreadable epoch means the state is rebuilt. Each such finding sets a bit of `doubts` in the reply, so the
// sidecar logs it once (DOUBT in redisBudgetReplies.ts names the bits). No value there can make a sidecar wait
// longer than its own caps: a wait on a hold is at most `holdRecheckMs` before asking again, on the window at most
// one span, on another sidecar's turn `otherTurnMs`, on a rebuild its grace.

import { redisScript as script } from '../../redis/redisScript.js';

/** The keys above, under one name (sharedKeyName.ts). */
export interface BudgetKeys {
  readonly window: string;
  readonly place: string;
  readonly demand: string;
  readonly hold: string;
  readonly meta: string;
  readonly nodes: string;
}

export function budgetKeys(name: string): BudgetKeys {
  return { window: `${name}:window`, place: `${name}:place`, demand: `${name}:demand`, hold: `${name}:hold`, meta: `${name}:meta`, nodes: `${name}:nodes` };
}

const NOW = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;

/**
 * Helpers every script shares: `keep` (an expiry of at least `ms`, never shortened), `doubt` (sets a bit of the
 * reply's doubts), `sane` (removes a key of another type than the script expects: a co-tenant's, or garbage),
 * `whole` (a value that must be a whole number of ms, or nil).
 */
const COMMON = `${NOW}
local doubts = 0
local function doubt(bit_)
  doubts = bit.bor(doubts, bit_)
end
local function keep(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
local function sane(key, kind)
  local found = redis.call('TYPE', key)['ok']
  if found ~= 'none' and found ~= kind then
    redis.call('DEL', key)
    doubt(32)
  end
end
local function whole(value)
  local number = tonumber(value)
  if number == nil or number ~= number or number ~= math.floor(number) or number < 0 or number > 9007199254740991 then return nil end
  return number
end
`;

/** Ms a start or an epoch may lie ahead of Redis's clock before it counts as written in the future. */
const FUTURE_TOLERANCE_MS = 1000;

/**
 * The hold in Redis, checked against the asking sidecar's cap: the ms it still runs, 0 when none is believed.
 * Needs `holdKey`, `holdCap` and COMMON.
 */
const READ_HOLD = `
local function believedHold()
  local raw = redis.call('GET', holdKey)
  if not raw then return 0 end
  local held = whole(raw)
  if held == nil then
    doubt(2)
    return 0
  end
  if held <= now then return 0 end
  if held - now > holdCap then
    doubt(1)
    return 0
  end
  return held - now
end
`;

/**
 * One decision. KEYS: window, place, demand, hold, meta. ARGV: requests, spanMs, node, member, the node's waiting
 * counts (lookup, refresh, review, action), graceMs (a claim's life past its wait), the cycle (one letter a place:
 * m, r, a), otherTurnMs, epoch (the one this node joined), holdCapMs, holdRecheckMs, rebuildGraceMs.
 * Returns {status, value, doubts, holdMs}: status 1 granted (value: 1 lookup, 2 refresh, 3 review, 4 action; the
 * start counted), 0 wait (value: ms), 2 the state is not the one this node joined (wiped, rebuilt by others, or
 * never joined): join (JOIN_SCRIPT) and ask again. holdMs: the believed hold's full remaining time (0 when none).
 */
export const DECIDE_SCRIPT = script(`${COMMON}
local window, placeKey, demandKey, holdKey, metaKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local requests, span = tonumber(ARGV[1]), tonumber(ARGV[2])
local node, member = ARGV[3], ARGV[4]
local counts = { tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]) }
local grace, cycle, otherTurn = tonumber(ARGV[9]), ARGV[10], tonumber(ARGV[11])
local epoch, holdCap, holdRecheck, rebuildGrace = ARGV[12], tonumber(ARGV[13]), tonumber(ARGV[14]), tonumber(ARGV[15])
local kinds = { 'lookup', 'refresh', 'review', 'action' }
local index = { lookup = 1, refresh = 2, review = 3, action = 4 }
local lifetime = 2 * span + grace
-- The longest an honest claim lives: the longest wait this script answers (one span) plus the grace.
local longestClaim = span + grace
${READ_HOLD}
sane(window, 'zset')
sane(placeKey, 'string')
sane(demandKey, 'hash')
sane(holdKey, 'string')
sane(metaKey, 'hash')

-- The state this node joined, still whole? Otherwise it rebuilds (JOIN_SCRIPT) before anything here is trusted.
local meta = redis.call('HMGET', metaKey, 'epoch', 'since', 'last')
if meta[1] ~= epoch then return { 2, 0, doubts, 0 } end
local since, last = whole(meta[2]), whole(meta[3]) or 0
if since == nil or since > now + ${FUTURE_TOLERANCE_MS} then return { 2, 0, doubts, 0 } end
if last > now - span and redis.call('EXISTS', window) == 0 then return { 2, 0, doubts, 0 } end

-- Other nodes' live claims; expired ones (a node that stopped asking, or died) are dropped, and so is anything
-- that is not a claim an honest node could have made.
local live = { false, false, false, false }
local fields = redis.call('HGETALL', demandKey)
for i = 1, #fields, 2 do
  local field, expiry = fields[i], whole(fields[i + 1])
  local sep = string.find(field, ':', 1, true)
  local owner = sep and string.sub(field, 1, sep - 1) or ''
  local kind = sep and index[string.sub(field, sep + 1)] or nil
  if owner ~= node then
    if kind == nil or expiry == nil or expiry > now + longestClaim then
      redis.call('HDEL', demandKey, field)
      doubt(4)
    elseif expiry <= now then
      redis.call('HDEL', demandKey, field)
    else
      live[kind] = true
    end
  end
end

-- This node's claims: alive until the answer's wait has passed plus a grace, so a node sleeping until the window
-- frees keeps its places, and a dead one loses them. Never longer than one span plus the grace: a node told to
-- wait longer (a hold) asks again before its claim lapses.
local function claim(waitMs)
  for i = 1, 4 do
    local field = node .. ':' .. kinds[i]
    if counts[i] > 0 then
      redis.call('HSET', demandKey, field, now + math.min(waitMs, span) + grace)
    else
      redis.call('HDEL', demandKey, field)
    end
  end
  keep(demandKey, lifetime)
end

if now < since + rebuildGrace then
  -- A new state: the sidecars are still putting their starts back. Nobody starts until they had the time to.
  local wait = math.min(since + rebuildGrace - now, rebuildGrace)
  claim(wait)
  return { 0, wait, doubts, 0 }
end

local held = believedHold()
if held > 0 then
  -- Asked again after at most holdRecheck: a hold someone removes (or that was never believable) stops holding.
  local wait = math.max(1, math.min(held, holdRecheck))
  claim(wait)
  return { 0, wait, doubts, held }
end

-- A start at s counts while now < s + span. One written in the future (a clock stepped back, or a co-tenant) is
-- counted from now: it leaves one span from now, never later.
local ahead = redis.call('ZRANGEBYSCORE', window, '(' .. (now + ${FUTURE_TOLERANCE_MS}), '+inf', 'LIMIT', 0, requests)
if #ahead > 0 then
  for i = 1, #ahead do redis.call('ZADD', window, 'XX', now, ahead[i]) end
  redis.call('HSET', metaKey, 'last', now)
  doubt(8)
end
redis.call('ZREMRANGEBYSCORE', window, '-inf', now - span)
local used = redis.call('ZCARD', window)
if used >= requests then
  local oldest = redis.call('ZRANGE', window, used - requests, used - requests, 'WITHSCORES')
  local wait = math.max(1, math.min(span, tonumber(oldest[2]) + span - now))
  claim(wait)
  return { 0, wait, doubts, 0 }
end

for i = 1, 4 do
  if counts[i] > 0 then live[i] = true end
end
local length = string.len(cycle)
local rawPlace = redis.call('GET', placeKey)
local place = whole(rawPlace)
if rawPlace and place == nil then doubt(16) end
place = (place or 0) % length
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
      return { 0, otherTurn, doubts, 0 }
    end
    redis.call('ZADD', window, now, member)
    redis.call('PEXPIRE', window, lifetime)
    redis.call('SET', placeKey, (at + 1) % length, 'PX', lifetime)
    redis.call('HSET', metaKey, 'last', now)
    counts[kind] = counts[kind] - 1
    claim(0)
    return { 1, kind, doubts, 0 }
  end
end
claim(otherTurn)
return { 0, otherTurn, doubts, 0 }
`);

/**
 * Joins the shared state, or checks that it is still the one joined. KEYS: window, hold, meta, nodes. ARGV: epoch
 * (the one this node joined, '' when none), candidate (a fresh epoch id, used when the state must be rebuilt),
 * settings (`<requests>/<intervalMs>/<nodes>`), node, spanMs, graceMs, holdMs (this node's own hold, capped),
 * holdCapMs, rebuildGraceMs, nodeLifeMs, seeded ('1' when this node's starts follow), then pairs of (age ms, member).
 * - The state (meta) is rebuilt, under `candidate`, when it is missing, unreadable, dated ahead of Redis's clock, or
 *   its window was lost while it still held starts: its epoch then changes, and every node puts its own starts and
 *   hold back before the window is trusted (`rebuildGraceMs` from then).
 * - Another live node keeping other settings: {3, 0, doubts, theirs}, and nothing is written.
 * - The epoch is this node's: {0, graceLeftMs, doubts, epoch}, nothing to put back.
 * - Another epoch and `seeded` '0': {2, 0, doubts, epoch}: ask again with the starts.
 * - Another epoch and seeded: this node's starts of the last span go back (NX: starts Redis has are left as they
 *   are) and its hold: {1, graceLeftMs, doubts, epoch}; the node now belongs to that epoch.
 */
export const JOIN_SCRIPT = script(`${COMMON}
local window, holdKey, metaKey, nodesKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local mine, candidate, settings, node = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local span, grace, holdMs, holdCap = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local rebuildGrace, nodeLife, seeded = tonumber(ARGV[9]), tonumber(ARGV[10]), ARGV[11]
local lifetime = 2 * span + grace
${READ_HOLD}
sane(window, 'zset')
sane(holdKey, 'string')
sane(metaKey, 'hash')
sane(nodesKey, 'hash')

-- Settings of the other live nodes. An entry that cannot be one an honest node wrote is removed; so is a flood of
-- them (more entries than a key can have sidecars that disagree with a reason).
if redis.call('HLEN', nodesKey) > 1024 then
  redis.call('DEL', nodesKey)
  doubt(128)
end
local entries = redis.call('HGETALL', nodesKey)
for i = 1, #entries, 2 do
  local other, value = entries[i], entries[i + 1]
  local theirs, seenText = string.match(value, '^([0-9/]+)@([0-9]+)$')
  local seen = whole(seenText)
  if theirs == nil or seen == nil or seen > now + ${FUTURE_TOLERANCE_MS} then
    redis.call('HDEL', nodesKey, other)
    doubt(128)
  elseif seen + nodeLife <= now then
    redis.call('HDEL', nodesKey, other)
  elseif other ~= node and theirs ~= settings then
    return { 3, 0, doubts, theirs }
  end
end
redis.call('HSET', nodesKey, node, settings .. '@' .. now)
keep(nodesKey, nodeLife)

local meta = redis.call('HMGET', metaKey, 'epoch', 'since', 'last')
local epoch, since, last = meta[1], whole(meta[2]), whole(meta[3])
local readable = epoch and string.match(epoch, '^[0-9a-f]+$') ~= nil and string.len(epoch) == 16 and since ~= nil and since <= now + ${FUTURE_TOLERANCE_MS} and last ~= nil
if not readable then
  if epoch or meta[2] or meta[3] then doubt(64) end
  epoch, since, last = candidate, now, 0
  redis.call('DEL', metaKey)
  redis.call('HSET', metaKey, 'epoch', epoch, 'since', since, 'last', last)
elseif last > now - span and redis.call('EXISTS', window) == 0 then
  -- The window is gone though it held starts a moment ago (evicted, say): rebuilt like a wiped state.
  epoch, since, last = candidate, now, 0
  redis.call('HSET', metaKey, 'epoch', epoch, 'since', since, 'last', last)
end
-- Long-lived, so that a window which merely expired after a quiet spell is not taken for a wipe.
redis.call('PEXPIRE', metaKey, 86400000)
local graceLeft = math.max(0, math.min(since + rebuildGrace - now, rebuildGrace))
if epoch == mine then return { 0, graceLeft, doubts, epoch } end
if seeded ~= '1' then return { 2, 0, doubts, epoch } end

local newest = last
for i = 12, #ARGV - 1, 2 do
  local age = tonumber(ARGV[i])
  if age ~= nil and age >= 0 and age < span then
    redis.call('ZADD', window, 'NX', now - age, ARGV[i + 1])
    if now - age > newest then newest = now - age end
  end
end
if newest > last then redis.call('HSET', metaKey, 'last', newest) end
if redis.call('EXISTS', window) == 1 then keep(window, lifetime) end
if holdMs > 0 and believedHold() < holdMs then redis.call('SET', holdKey, now + holdMs, 'PX', holdMs) end
return { 1, graceLeft, doubts, epoch }
`);

/**
 * A Retry-After for everyone on the key. KEYS: hold. ARGV: ms (already capped by the sidecar), holdCapMs. The longer
 * of the hold there and this one stays; a hold there that this sidecar would not believe does not count.
 */
export const HOLD_SCRIPT = script(`${COMMON}
local holdKey, ms, holdCap = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
${READ_HOLD}
sane(holdKey, 'string')
if believedHold() < ms then redis.call('SET', holdKey, now + ms, 'PX', ms) end
return doubts
`);

/**
 * The service's own count. KEYS: window, meta. ARGV: requests, spanMs, remaining, member prefix, graceMs. Counts as
 * many starts now as the service saw and the window does not know of; returns how many.
 */
export const OBSERVE_SCRIPT = script(`${COMMON}
local window, metaKey = KEYS[1], KEYS[2]
local requests, span, remaining = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
sane(window, 'zset')
redis.call('ZREMRANGEBYSCORE', window, '-inf', now - span)
local unknown = math.min(requests, requests - remaining - redis.call('ZCARD', window))
for i = 1, unknown do redis.call('ZADD', window, now, ARGV[4] .. ':' .. i) end
if unknown > 0 then
  redis.call('PEXPIRE', window, 2 * span + tonumber(ARGV[5]))
  if redis.call('EXISTS', metaKey) == 1 then redis.call('HSET', metaKey, 'last', now) end
end
return math.max(0, unknown)
`);
