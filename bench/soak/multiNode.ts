// The soak with N sidecars on one API key (`npm run soak -- --nodes 3`, issue 14): N real `gsa-bridge run`
// processes, each with its own game server, mod listener, data directory and ops port, sharing the key's budget
// through one private redis-server (never the machine's on 6379), against the emulator enforcing the key's budget
// like the service (429 "Too Many Attempts." past it). The single-node soak's chat, join, review, action and mute-flip
// load is split across them (the same totals), its fault rotation runs against the one emulator, Redis is killed and
// started again every few minutes, and one sidecar gets `kill -9` and stays dead for a span and a window while the
// others must take its share. Issue 19 adds a hostile co-tenant writing under the sidecars' prefix through its own
// connection (coTenant.ts: a hold 10 years ahead, a believable one deleted early, claims on every class that live 10
// years, FLUSHALL under load) and makes the last sidecar's Retry-After cap a day long, then tells it to wait a day:
// it holds the day (its config), the others must not follow. Then it drains, stops every sidecar with SIGTERM, audits
// every data directory and prints issues 14's and 19's invariants next to the single-node ones per sidecar; it exits
// 1 if one fails. The hostile neighbours of issue 12 are off here: N sidecars, the emulator and the load already share
// two cores.
// Must never judge a sidecar by its own account: arrivals and 429s are read at the emulator, reviews there and on
// disk, latency at the mod; the only things taken from a sidecar are its log lines about Redis and its /metrics.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { HOLD_RECHECK_MS, LATE_GRANT_MS, REBUILD_GRACE_MS } from '../../src/gsa/budget/shared/redisBudget.js';
import { DOUBT_TEXT, type Doubt } from '../../src/gsa/budget/shared/redisBudgetReplies.js';
import { sharedKeyName } from '../../src/gsa/redis/sharedKeyName.js';
import { guardedIntervalMs } from '../../src/gsa/budget/slidingWindow.js';
import { startPrivateRedis } from '../privateRedis.js';
import { ACTIONS, chatPlayer, CLIENT_ID, faultRotation, faultStep, listenerPort, listReviews, reviewer, secretForms, seededRandom, writeSoakConfig } from './common.js';
import { CoTenant, TEN_YEARS_MS, type CoTenantAct } from './coTenant.js';
import {
  actionOutcomes,
  fmt,
  lostReviewsRow,
  reportRows,
  resourceRows,
  serviceHolds,
  sidecarShareMs,
  starvationFigures,
  starvationRows,
  verdictRow,
  type HoldFault,
  type InvariantRow,
  type ServiceHold,
} from './invariants.js';
import { LoopStallRecorder } from './loopStalls.js';
import { ModFleet } from './modFleet.js';
import {
  budget429Times,
  doubtLinesRow,
  flushWindowRow,
  forgedClaimsRow,
  forNode,
  keyWide429From,
  keyWideHolds,
  keyWindowRows,
  killShareRow,
  multiNodeSchedule,
  nothingLostRow,
  othersResumeRow,
  outagesSeen,
  redisLinesRow,
  REJOIN_SETTLE_MS,
  ROUND,
  selfHeldRow,
  sharedAtEndRow,
  sharedHoldRow,
  type HoldEpisode,
  type HoldEpisodeKind,
  type Interval,
  type NodeCall,
  type NodeLosses,
  type ProcessLines,
  type RedisOutage,
} from './multiNodeRows.js';
import { listedFatesRow } from './neighbourRows.js';
import { soakRetry, starvationBoundMs, type SoakOptions } from './options.js';
import { auditReviews, contentKey } from './reviewAudit.js';
import { SoakSidecar, type ResourceSample } from './sidecarProcess.js';
import { coreWaitSummary } from './coreWait.js';
import { loopPauseSummary, readLoopProbe } from './loopPauses.js';

const TICK_MS = 10;
/**
 * Each mod connection keeps one ping in flight, sent at most this often: the transport baseline a verdict's latency is
 * judged net of (invariants.ts, sidecarShareMs). 10 ms, not the single-node soak's 40: with N sidecars, the emulator
 * and the load on two cores, a sidecar's process waits for a core for tens of ms at a time, and a ping must be in
 * flight then for the wait to show in the baseline rather than be charged to the sidecar's code.
 */
const PING_EVERY_MS = 10;
/** The sidecar killed with `kill -9` (its index): the second, so the first and the last survive. */
const VICTIM = 1;
/**
 * A 429 answered to one sidecar holds the others from this long after it (sharedHoldRow): the 429 read by its
 * sidecar, the hold's round trip to Redis, grants given just before (used at most 250 ms after Redis counted them)
 * and their trip to the emulator, on a 2-core machine running N sidecars.
 */
const HOLD_SLACK_MS = 1000;
/** The survivors of a kill must reach this fraction of R in one window (killShareRow); before it they had (N − 1)/N. */
const KILL_SHARE_MIN = 0.9;
/**
 * The rotation starts at its first key-wide 429 (Retry-After: 86400), not at the 503 burst, armed as the load starts:
 * the first call meets it, and its hold ends before the co-tenant's first round and the first Redis restart, so a
 * 1-minute run judges a shared hold too.
 */
const FIRST_FAULT = 1;
/** The day-long sidecar's cap: the largest api.retry.maxRetryAfterMs allows (2^31 − 1 ms, 24.8 days). */
const DAY_LONG_CAP_MS = 2_147_483_647;
/** What GSA tells it: wait a day. */
const DAY_LONG_RETRY_AFTER_S = 86_400;
/** The co-tenant polls its forged claims this often to see when the sidecars removed them. */
const CLAIM_POLL_MS = 50;
/** How long the co-tenant's round may wait for a key-wide 429's hold to end before it is left out. */
const ROUND_WAIT_MS = 5000;
/** The hold gauges are read this long into a forged hold (both are kept longer). */
const GAUGE_READ_AFTER_MS = 1700;
/** The believable forged hold is written when the window will have room within this long. */
const ROOM_WITHIN_MS = 1000;
const WARN = /^shared API budget: Redis at \S+ cannot be reached/;
const BACK = /^shared API budget: Redis at \S+ is back; sharing the budget again$/;
const WIPED = /^shared API budget: the shared state in Redis at \S+ was wiped or rebuilt/;
const DAY_LONG_WARNING = new RegExp(`^GSA answered 429 with a Retry-After of ${DAY_LONG_RETRY_AFTER_S} s`);
const OPS_URL = /operations endpoints on (http:\/\/127\.0\.0\.1:\d+)/g;

const now = (): number => performance.now();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface SoakNode {
  readonly index: number;
  readonly name: string;
  readonly id: number;
  readonly configPath: string;
  readonly dataDir: string;
  readonly sidecar: SoakSidecar;
  readonly fleet: ModFleet;
  startFailures: number;
  restarting: boolean;
  /** Deliberately dead (the kill's measurement) until this time (soak clock from the start; Infinity: until told). */
  deadUntil: number;
  reviews: number;
  actions: number;
  /** gsa_bridge_budget_shared read during each outage it lived through. */
  readonly sharedDuringOutage: (number | undefined)[];
}

/** The messages and times (wall-clock ms) of a sidecar's JSON log lines that hold `needle` and match `pattern`. */
function logLines(output: string, pattern: RegExp, needle = 'shared API budget'): { msg: string; time: number }[] {
  const found: { msg: string; time: number }[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{') || !line.includes(needle)) continue;
    try {
      const record = JSON.parse(line) as { msg?: unknown; time?: unknown };
      if (typeof record.msg === 'string' && typeof record.time === 'number' && pattern.test(record.msg)) found.push({ msg: record.msg, time: record.time });
    } catch {
      // A line cut by kill -9.
    }
  }
  return found;
}

async function metric(opsUrl: string | undefined, name: string): Promise<number | undefined> {
  if (opsUrl === undefined) return undefined;
  try {
    const text = await (await fetch(`${opsUrl}/metrics`, { signal: AbortSignal.timeout(2000) })).text();
    const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
    return value === undefined ? undefined : Number(value);
  } catch {
    return undefined;
  }
}

/**
 * The samples of the sidecar's longest-lived process: the killed sidecar's last one may live only the few seconds
 * after its restart, too few to judge a trend on.
 */
function longestLived(samples: readonly ResourceSample[]): ResourceSample[] {
  const counts = new Map<number, number>();
  for (const sample of samples) counts.set(sample.generation, (counts.get(sample.generation) ?? 0) + 1);
  const longest = [...counts].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]?.[0];
  return samples.filter((sample) => sample.generation === longest);
}

function opsUrlOf(sidecar: SoakSidecar): string | undefined {
  return [...sidecar.output().matchAll(OPS_URL)].at(-1)?.[1];
}

export async function soakNodes(options: SoakOptions, dir: string): Promise<number> {
  const started = now();
  const wallOffset = Date.now() - started;
  const random = seededRandom(options.seed);
  const runId = randomBytes(4).toString('hex');
  const clientSecret = `soak+Secret/${randomBytes(12).toString('hex')}="&`;
  const modToken = `soak-mod-token-${randomBytes(12).toString('hex')}`;
  // The sidecars and the co-tenant reach Redis with a password: it is a secret too, searched for in every log.
  const redisPassword = `soak-redis-${randomBytes(12).toString('hex')}`;
  const retry = soakRetry(options);
  const boundMs = starvationBoundMs(options);
  const loadMs = options.minutes * 60_000;
  const R = options.windowRequests;
  const W = options.windowMs;
  const N = options.nodes;
  const spanMs = guardedIntervalMs(W) + LATE_GRANT_MS;
  const schedule = multiNodeSchedule({
    loadMs,
    windowMs: W,
    spanMs,
    restartEveryMs: options.redisRestartEverySeconds * 1000,
    downMs: options.redisDownSeconds * 1000,
    kill: options.kills > 0,
    cotenant: options.cotenant,
  });
  const connectionsPerNode = Math.max(1, Math.floor(options.connections / N));
  // The last sidecar gets the day-long cap; with fewer than three, the killed one would be the held one: none then.
  const held = options.dayLong && N >= 3 ? N - 1 : undefined;
  const prefix = `soak-${runId}`;

  const say = (line: string): void => {
    process.stdout.write(`[${((now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
  };
  const redis = await startPrivateRedis({ password: redisPassword });
  const servers = Array.from({ length: N }, (_, index) => ({ name: `node${index + 1}`, id: 5101 + index }));
  const emulator = await GsaEmulator.start({
    clientId: CLIENT_ID,
    clientSecret,
    servers,
    enforceBudget: { requests: R, intervalMs: W },
    callLogLimit: 1_000_000,
  });
  const nodes: SoakNode[] = [];
  for (const [index, server] of servers.entries()) {
    const nodeDir = join(dir, server.name);
    await mkdir(nodeDir, { recursive: true });
    if (options.traceSidecarLoop) await mkdir(join(nodeDir, 'loop-probe'));
    const configPath = join(nodeDir, 'config.json');
    const dataDir = join(nodeDir, 'data');
    const modPort = await listenerPort();
    await writeSoakConfig(configPath, {
      baseUrl: emulator.url,
      clientSecret,
      rateLimit: { requests: R, intervalMs: W, shared: { redis: redis.url, prefix, nodes: N } },
      retry: index === held ? { ...retry, maxRetryAfterMs: DAY_LONG_CAP_MS } : retry,
      servers: [{ ...server, allowActions: [...ACTIONS], adapters: [{ type: 'websocket', port: modPort, token: modToken }] }],
      decisionTimeoutMs: options.decisionTimeoutMs,
      dataDir,
      // Info, not the single-node soak's debug: N sidecars on two cores. The Redis lines are warn and info.
      logLevel: 'info',
    });
    nodes.push({
      index,
      name: server.name,
      id: server.id,
      configPath,
      dataDir,
      sidecar: new SoakSidecar(configPath, join(nodeDir, 'sidecar.log'), now, options.traceSidecarLoop ? join(nodeDir, 'loop-probe') : undefined),
      fleet: new ModFleet(`ws://127.0.0.1:${modPort}/`, modToken, connectionsPerNode, now),
      startFailures: 0,
      restarting: false,
      deadUntil: 0,
      reviews: 0,
      actions: 0,
      sharedDuringOutage: [],
    });
  }
  const nodeOf = new Map<string, number>();
  for (const node of nodes) {
    nodeOf.set(node.name, node.index);
    nodeOf.set(String(node.id), node.index);
  }

  say(
    `soak ${runId}: ${N} sidecars on one key, ${options.minutes} min, ${options.players} players, ${options.chatsPerSecond} chats/s in all over ${connectionsPerNode} mod(s) each, ` +
      `${options.reviewsPerSecond} reviews/s in all, an action every ${options.actionEverySeconds} s per sidecar, window ${R}/${W} ms enforced by the emulator (shared span ${fmt(spanMs)}), ` +
      `a fault every ${options.faultEverySeconds} s, no hostile neighbours`,
  );
  say(
    `into the load: Redis ${redis.label} (with a password) down for ${options.redisDownSeconds} s at ${schedule.restarts.map((at) => fmt(at)).join(', ') || 'never'}; ` +
      (schedule.kill === undefined
        ? 'no kill -9 (none asked, or its measurement does not fit in the load phase)'
        : `kill -9 of ${nodes[VICTIM]?.name ?? '?'} at ${fmt(schedule.kill.at)}, started again at ${fmt(schedule.kill.restartAt)} (faults paused meanwhile)`),
  );
  say(
    (options.cotenant
      ? `co-tenant rounds (FLUSHALL, claims on every class 10 years long, a hold 10 years ahead kept ${fmt(ROUND.farHoldKeepMs)}, a hold ${fmt(ROUND.believableAheadMs)} ahead deleted after ${fmt(ROUND.believableKeepMs)}) at ${schedule.rounds.map((at) => fmt(at)).join(', ') || 'none (the load is too short)'}; `
      : 'no co-tenant; ') +
      (held === undefined ? 'no day-long sidecar' : `${nodes[held]?.name ?? '?'} has api.retry.maxRetryAfterMs ${DAY_LONG_CAP_MS} and is told "429 Retry-After: ${DAY_LONG_RETRY_AFTER_S}" before the load`),
  );
  say(`starvation bound ${fmt(boundMs)} outside Retry-After holds (and, for the killed sidecar, its time dead); temp dir ${dir}`);

  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const soakStalls = new LoopStallRecorder(now);
  soakStalls.start();

  const restart = async (node: SoakNode, why: string): Promise<void> => {
    node.restarting = true;
    try {
      say(`restarting ${node.name} (${why})`);
      await node.sidecar.start();
    } catch (error) {
      node.startFailures += 1;
      say(`${node.name} failed to start: ${error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error)}`);
    } finally {
      node.restarting = false;
    }
  };

  /** gsa_bridge_budget_hold_seconds of every sidecar, read now (undefined where it cannot be read). */
  const holdGauges = (): Promise<(number | undefined)[]> => Promise.all(nodes.map((node) => metric(opsUrlOf(node.sidecar), 'gsa_bridge_budget_hold_seconds')));

  let exitCode = 1;
  let tick: NodeJS.Timeout | undefined;
  let cotenant: CoTenant | undefined;
  const outages: RedisOutage[] = [];
  try {
    await Promise.all(nodes.map((node) => node.sidecar.start()));
    for (const node of nodes) node.fleet.start();
    for (let i = 0; i < 500 && nodes.some((node) => node.fleet.openConnections < connectionsPerNode); i += 1) await sleep(10);
    say(`${N} sidecars running, mods connected`);
    if (options.cotenant) cotenant = await CoTenant.connect(redis.url, sharedKeyName(prefix, CLIENT_ID), now);

    // The day-long sidecar meets GSA's "wait a day" while it alone calls (the emulator's faults meet any caller): once
    // every sidecar's start-up check of the credentials (one lookup each) has been answered, one chat line on its mod,
    // its first lookup answered 429. It holds the day from then on, and writes the hold to Redis. Then each of the
    // others looks one player up with that hold in Redis, and their hold gauges are read: none followed it.
    const heldNode = held === undefined ? undefined : nodes[held];
    let aimed: HoldFault | undefined;
    let heldAt: number | undefined;
    let dayLongGauges: (number | undefined)[] | undefined;
    if (heldNode !== undefined) {
      for (let i = 0; i < 1000 && new Set(emulator.calls.filter((call) => call.status !== 0).map((call) => call.server)).size < N; i += 1) await sleep(10);
      const armedAt = now();
      emulator.injectFault({ kind: 'status', status: 429, retryAfter: String(DAY_LONG_RETRY_AFTER_S), count: 1 });
      heldNode.fleet.chat(chatPlayer(options.players), 'a first line before the load');
      let answered: { at: number; server: string | null } | undefined;
      for (let i = 0; i < 1000 && answered === undefined; i += 1) {
        answered = emulator.calls.find((call) => call.at >= armedAt && call.status === 429);
        if (answered === undefined) await sleep(10);
      }
      emulator.clearFaults();
      aimed = { armedAt, clearedAt: now(), status: 429, retryAfterMs: DAY_LONG_RETRY_AFTER_S * 1000 };
      heldAt = answered?.at;
      for (let i = 0; i < 500 && logLines(heldNode.sidecar.output(), DAY_LONG_WARNING, 'GSA answered 429').length === 0; i += 1) await sleep(10);
      const holdKey = `${sharedKeyName(prefix, CLIENT_ID)}:hold`;
      const pttl = async (): Promise<number> => Number(/^:(-?\d+)/.exec(await redis.command('PTTL', holdKey))?.[1] ?? '-2');
      for (let i = 0; i < 500 && (await pttl()) < (DAY_LONG_RETRY_AFTER_S - 60) * 1000; i += 1) await sleep(10);
      const othersFrom = now();
      for (const node of nodes) if (node !== heldNode) node.fleet.chat(chatPlayer(options.players + 1 + node.index), 'a first line with the day-long hold in Redis');
      for (let i = 0; i < 1000 && new Set(emulator.calls.filter((call) => call.at >= othersFrom && call.status !== 0).map((call) => call.server)).size < N - 1; i += 1) await sleep(10);
      dayLongGauges = await holdGauges();
      say(
        answered === undefined
          ? `${heldNode.name}: its lookup met no 429 within 10 s`
          : `${answered.server ?? '?'} was answered 429 Retry-After: ${DAY_LONG_RETRY_AFTER_S}${answered.server === heldNode.name ? '' : ` (NOT ${heldNode.name})`}; ` +
              `the hold in Redis has ${fmt(await pttl())} left; hold gauges ${dayLongGauges.map((gauge, k) => `${nodes[k]?.name ?? '?'} ${gauge === undefined ? '?' : gauge.toFixed(0)} s`).join(', ')}; the load starts`,
      );
    }

    let chats = 0;
    let joins = 0;
    let reviews = 0;
    let flips = 0;
    let lastPing = 0;
    let lastSample = 0;
    let lastFlip = 0;
    let loadOn = true;
    const muted = new Set<string>();
    const loadStarted = now() - started;
    /** ms since the load started: the schedule's clock. */
    const sinceLoad = (): number => now() - started - loadStarted;
    tick = setInterval(() => {
      const t = now() - started;
      if (loadOn) {
        const seconds = (t - loadStarted) / 1000;
        for (; chats < seconds * options.chatsPerSecond; chats += 1) {
          nodes[chats % N]?.fleet.chat(chatPlayer(Math.floor(random() * options.players)), `hello ${chats}`);
        }
        for (; joins < seconds * options.joinsPerSecond; joins += 1) nodes[joins % N]?.fleet.join(chatPlayer(Math.floor(random() * options.players)));
        while (reviews < seconds * options.reviewsPerSecond) {
          // To the next sidecar in turn that has a mod connected; none (all down): not counted, its number reused.
          const to = nodes.map((_, k) => nodes[(reviews + k) % N]).find((node) => node?.fleet.review(`r${reviews}`, reviewer(reviews), `soak ${runId} review ${reviews}`) === true);
          if (to === undefined) break;
          to.reviews += 1;
          reviews += 1;
        }
        for (const node of nodes) {
          const every = options.actionEverySeconds * 1000;
          if (t - loadStarted - node.actions * every >= every) {
            if (node.fleet.action(`a${node.actions}`, ACTIONS[node.actions % ACTIONS.length] ?? 'restart')) node.actions += 1;
          }
        }
        if (t - lastFlip >= 2000) {
          lastFlip = t;
          const server = servers[flips % N]?.name ?? '';
          flips += 1;
          const player = chatPlayer(Math.floor(random() * options.players));
          const key = `${server}\u0000${player}`;
          const route = muted.has(key) ? 'unmute' : 'mute';
          if (route === 'mute') muted.add(key);
          else muted.delete(key);
          void fetch(`${emulator.url}/_emulator/${route}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ server, player, ...(route === 'mute' ? { alert: 'Muted by the soak' } : {}) }),
          }).then((res) => res.body?.cancel());
        }
      }
      if (t - lastPing >= PING_EVERY_MS) {
        lastPing = t;
        for (const node of nodes) node.fleet.ping();
      }
      if (t - lastSample >= 1000) {
        lastSample = t;
        for (const node of nodes) void node.sidecar.sample();
      }
      for (const node of nodes) {
        if (!node.restarting && !node.sidecar.alive() && t >= node.deadUntil && now() - (node.sidecar.exits.at(-1)?.at ?? 0) >= 1000) {
          void restart(node, 'it exited on its own: a crash');
        }
      }
    }, TICK_MS);

    const holdFaults: HoldFault[] = [];
    const rotation = faultRotation(clientSecret, options, holdFaults);
    const faultCounts = new Map<string, number>();
    const count = (name: string): void => {
      faultCounts.set(name, (faultCounts.get(name) ?? 0) + 1);
    };
    const loadLeft = (): number => loadMs - sinceLoad();
    const kill = schedule.kill;
    const victim = nodes[VICTIM];
    const capMs = retry.maxRetryAfterMs;
    /** A key-wide 429 fault is armed (Infinity) or its hold may still run until then (soak clock): the co-tenant waits. */
    let keyWideBusyUntil = 0;
    // A key-wide 429 is armed only where it can be met and its hold run out before the co-tenant's next round.
    const keyWideGuardMs = capMs + HOLD_SLACK_MS + 500;
    const faults = (async () => {
      for (let step = 0; ; step += 1) {
        // The first at once, as the load starts: its hold is over before the co-tenant's first round.
        if (step > 0) await sleep(Math.min(options.faultEverySeconds * 1000, Math.max(0, loadLeft())));
        const fault = rotation[(step + FIRST_FAULT) % rotation.length];
        const spec = fault?.fault;
        const keyWide = spec?.kind === 'status' && spec.status === 429 && spec.endpoint === undefined;
        for (;;) {
          const t = sinceLoad();
          // Paused while the survivors of the kill take its share: a Retry-After hold then would leave nothing to
          // measure. A fault armed a window before the kill or later could still hold the key (at most two holds of
          // one window each) when the measurement begins, one span after the kill.
          if (kill !== undefined && t >= kill.at - W && t < kill.measureTo) await sleep(kill.measureTo - t);
          else if (keyWide && keyWide429From(t, schedule.rounds, keyWideGuardMs) > t) await sleep(keyWide429From(t, schedule.rounds, keyWideGuardMs) - t);
          else break;
        }
        if (loadLeft() <= 0 || fault === undefined) return;
        say(`fault: ${fault.name}`);
        count(fault.name);
        if (keyWide) {
          const nextRound = schedule.rounds.find((round) => round > sinceLoad());
          const maxHoldMs = nextRound === undefined ? W : Math.max(0, Math.min(W, nextRound - capMs - HOLD_SLACK_MS - sinceLoad()));
          keyWideBusyUntil = Infinity;
          await faultStep(fault.name, spec, maxHoldMs, holdFaults).run(emulator, nodes[step % N]?.fleet ?? (nodes[0] as SoakNode).fleet);
          keyWideBusyUntil = now() + capMs + HOLD_SLACK_MS;
        } else {
          await fault.run(emulator, nodes[step % N]?.fleet ?? (nodes[0] as SoakNode).fleet);
        }
      }
    })();
    // The co-tenant's rounds (multiNodeRows.ts, ROUND): each act through its own connection, under the sidecars' prefix.
    const roundGauges = new Map<CoTenantAct, (number | undefined)[]>();
    const withGauges = async (act: Promise<CoTenantAct>): Promise<void> => {
      const [done, read] = await Promise.all([act, sleep(GAUGE_READ_AFTER_MS).then(holdGauges)]);
      roundGauges.set(done, read);
    };
    const rounds = (async () => {
      if (cotenant === undefined) return;
      for (const [k, roundAt] of schedule.rounds.entries()) {
        await sleep(Math.max(0, roundAt - sinceLoad()));
        const waitUntil = now() + ROUND_WAIT_MS;
        while (now() < keyWideBusyUntil && now() < waitUntil) await sleep(50);
        if (now() < keyWideBusyUntil || loadLeft() < ROUND.lengthMs) {
          say(`co-tenant round ${k + 1} left out: a key-wide 429's hold was still running, or the load ends too soon`);
          continue;
        }
        const start = sinceLoad();
        say(`co-tenant: FLUSHALL (round ${k + 1})`);
        await cotenant.flushAll();
        await sleep(Math.max(0, start + ROUND.claimsAtMs - sinceLoad()));
        say('co-tenant: claims on every class, 10 years long');
        const claims = cotenant.forgeClaims(CLAIM_POLL_MS, spanMs + 1000);
        await sleep(Math.max(0, start + ROUND.farHoldAtMs - sinceLoad()));
        say(`co-tenant: a hold 10 years ahead, deleted after ${fmt(ROUND.farHoldKeepMs)}`);
        await withGauges(cotenant.forgeHold('forged hold 10 years ahead', TEN_YEARS_MS, ROUND.farHoldKeepMs, false));
        await sleep(Math.max(0, start + ROUND.believableFromMs - sinceLoad()));
        // Its moment: the window will have room within a second, so the sidecars ask while the hold stands (one that
        // waits on the window asks only when it has room, or when a new kind of call comes), and it has room when the
        // hold is deleted: what they do then is theirs.
        const roomBy = now() + ROUND.roomWaitMs;
        while (now() < roomBy && !(await cotenant.roomIn(ROOM_WITHIN_MS, R, spanMs))) await sleep(100);
        say(`co-tenant: a hold ${fmt(ROUND.believableAheadMs)} ahead (within the cap), deleted after ${fmt(ROUND.believableKeepMs)}`);
        await withGauges(cotenant.forgeHold('forged hold within the cap', ROUND.believableAheadMs, ROUND.believableKeepMs, true, { requests: R, spanMs }));
        await claims;
      }
    })();
    const killing = (async () => {
      if (kill === undefined || victim === undefined) return;
      await sleep(Math.max(0, kill.at - sinceLoad()));
      say(`kill -9 of ${victim.name}; it stays dead until ${fmt(kill.restartAt)} into the load`);
      // Not restarted by the crash watch: this task starts it again once the others have had their window.
      victim.deadUntil = Infinity;
      await victim.sidecar.kill9();
      count('kill -9 of one sidecar');
      await sleep(Math.max(0, kill.restartAt - sinceLoad()));
      await restart(victim, 'after kill -9 and the others\' window');
      victim.deadUntil = 0;
    })();
    const restarting = (async () => {
      for (const down of schedule.restarts) {
        await sleep(Math.max(0, down - sinceLoad()));
        say('fault: Redis killed (SIGKILL)');
        const outageDown = now();
        await redis.kill();
        count('Redis restart');
        await sleep(Math.max(500, (options.redisDownSeconds * 1000) / 2));
        for (const node of nodes) if (node.sidecar.alive()) node.sharedDuringOutage.push(await metric(opsUrlOf(node.sidecar), 'gsa_bridge_budget_shared'));
        await sleep(Math.max(0, outageDown + options.redisDownSeconds * 1000 - now()));
        await redis.restart();
        outages.push({ down: outageDown, up: now() });
        say('Redis started again, empty, on the same port');
      }
    })();
    await Promise.all([faults, killing, restarting, rounds]);
    loadOn = false;
    emulator.clearFaults();
    const drainMs = boundMs + retry.maxRetryAfterMs;
    say(`load stopped; draining (up to ${fmt(drainMs)}) until every acknowledged review and server action has an answer`);
    const drainStarted = now();
    for (;;) {
      const stored = new Set(emulator.reviews.map((r) => contentKey(r.steamId ?? '', r.comment)));
      let open = 0;
      let unanswered = 0;
      for (const node of nodes) {
        // The day-long sidecar's reviews and actions wait for its day: not drained.
        if (node.index === held) continue;
        open += [...node.fleet.reviews.values()].filter((r) => r.ackAt !== undefined && r.resultAt === undefined && !stored.has(contentKey(r.steamId, r.comment))).length;
        unanswered += [...node.fleet.actions.values()].filter((a) => a.answeredAt === undefined && a.orphaned !== true).length;
      }
      if ((open === 0 && unanswered === 0) || now() - drainStarted > drainMs) {
        say(`drained: ${open} review(s) and ${unanswered} action(s) still open after ${fmt(now() - drainStarted)}`);
        break;
      }
      await sleep(250);
    }
    const sharedAtEnd = await Promise.all(nodes.map(async (node) => ({ name: node.name, value: await metric(opsUrlOf(node.sidecar), 'gsa_bridge_budget_shared') })));
    const heldGaugeAtEnd = heldNode === undefined ? undefined : await metric(opsUrlOf(heldNode.sidecar), 'gsa_bridge_budget_hold_seconds');
    const heldGaugeReadAt = now();
    // Before the mods hang up: an action still unanswered now would be counted as cut once its connection closes.
    const unansweredAtDrain = nodes.map((node) => [...node.fleet.actions.values()].filter((action) => action.answeredAt === undefined && action.orphaned !== true));
    clearInterval(tick);
    await Promise.all(nodes.map((node) => node.fleet.stop()));
    const shutdownCodes = await Promise.all(nodes.map((node) => node.sidecar.stop()));
    loopDelay.disable();
    soakStalls.stop();
    const endedAt = now();

    // The judgement, on this process's clock (performance.now(): the emulator's arrival times, the mods' timings);
    // the schedule was relative to the load's start.
    const load0 = started + loadStarted;
    const killAt = kill === undefined ? undefined : { at: load0 + kill.at, measureFrom: load0 + kill.measureFrom, measureTo: load0 + kill.measureTo, restartAt: load0 + kill.restartAt };
    const calls = emulator.calls;
    const nodeCalls: NodeCall[] = calls.map((call) => ({ at: call.at, status: call.status, node: nodeOf.get(call.server ?? '') ?? -1 }));
    const lifetimes = (node: SoakNode): Interval[] =>
      node.sidecar.runningSince.map((since) => [since, node.sidecar.exits.find((exit) => exit.at >= since)?.at ?? endedAt] as const);
    const warnLines = nodes.map((node) => logLines(node.sidecar.output(), WARN));
    const switches = nodes.map((node, k) => ({
      warns: (warnLines[k] ?? []).map((line) => line.time - wallOffset),
      backs: logLines(node.sidecar.output(), BACK).map((line) => line.time - wallOffset),
    }));
    const fallbackIntervals = (k: number): Interval[] => {
      const s = switches[k];
      if (s === undefined) return [];
      return s.warns.map((warn) => [warn, s.backs.find((back) => back >= warn) ?? endedAt] as const);
    };
    // Each outage's straddle: from Redis going down (or a sidecar's earlier warning) to the last sidecar's "is back"
    // after it (within twice the rejoin's settle). A sidecar's fallback at another time (an answer later than its
    // deadline, say) is a straddle of its own, under the same looser bound (docs/api-budget.md), not part of the last
    // outage's: that would leave every window up to it to the looser bound.
    const outageStraddles: Interval[] = outages.map((outage, k) => {
      const until = Math.min(outages[k + 1]?.down ?? endedAt, outage.up + 2 * REJOIN_SETTLE_MS);
      const warns = switches.flatMap((s) => s.warns.filter((at) => at >= outage.down - 1000 && at < until));
      const backs = switches.flatMap((s) => s.backs.filter((at) => at >= outage.down && at < until));
      return [Math.min(outage.down, ...warns), backs.length === 0 ? until : Math.max(...backs)] as const;
    });
    const otherFallbacks = nodes.flatMap((_, k) => fallbackIntervals(k).filter(([a, b]) => !outageStraddles.some(([x, y]) => a < y && b > x)));
    const straddle: Interval[] = [...outageStraddles, ...otherFallbacks].sort((a, b) => a[0] - b[0]);
    // The day-long sidecar's 429 was a fault too (aimed by timing): not the budget's.
    const budget429s = budget429Times(calls, aimed === undefined ? holdFaults : [...holdFaults, aimed]);
    const holds = serviceHolds(holdFaults, calls, retry.maxRetryAfterMs);

    // Issue 19. The sidecars judged after a hold: alive from its start until well after, sharing (no fallback
    // meanwhile), not the day-long one (it holds its own day).
    const sharingThrough = (k: number, from: number, to: number): boolean =>
      lifetimes(nodes[k] as SoakNode).some(([a, b]) => a <= from && b >= to) && !fallbackIntervals(k).some(([a, b]) => a < to && b > from);
    const othersOver = (from: number, to: number): number[] => nodes.map((node) => node.index).filter((k) => k !== held && sharingThrough(k, from, to));
    const pick = (gauges: readonly (number | undefined)[] | undefined, others: readonly number[]): (number | undefined)[] | undefined =>
      gauges === undefined ? undefined : others.map((k) => gauges[k]);
    const episodes: HoldEpisode[] = [];
    if (heldAt !== undefined) {
      const others = othersOver(heldAt, heldAt + capMs + 3000);
      episodes.push({ kind: 'day-long 429 to one sidecar', at: heldAt, endsAt: heldAt + DAY_LONG_RETRY_AFTER_S * 1000, others, gauges: pick(dayLongGauges, others) });
    }
    for (const hold of keyWideHolds(holdFaults, nodeCalls, capMs)) {
      // Each sidecar holds only itself while Redis is away: those are the hold row's to skip, and this one's.
      if (straddle.some(([a, b]) => hold.at < b && hold.endsAt > a)) continue;
      episodes.push({ kind: 'key-wide 429', at: hold.at, endsAt: hold.endsAt, others: othersOver(hold.at, hold.endsAt + 3000) });
    }
    const acts = cotenant?.acts ?? [];
    for (const act of acts) {
      if (act.error !== undefined || act.endsAt === undefined || act.deletedAt === undefined) continue;
      if (act.kind !== 'forged hold 10 years ahead' && act.kind !== 'forged hold within the cap') continue;
      const others = othersOver(act.at, act.kind === 'forged hold within the cap' ? act.deletedAt + 3000 : act.at + capMs + 3000);
      episodes.push({
        kind: act.kind === 'forged hold 10 years ahead' ? 'forged 10 years ahead' : 'forged within the cap',
        at: act.at,
        deletedAt: act.deletedAt,
        endsAt: act.endsAt,
        roomAt: act.roomAt,
        others,
        gauges: pick(roundGauges.get(act), others),
      });
    }
    const required: HoldEpisodeKind[] = ['key-wide 429'];
    if (heldAt !== undefined || held !== undefined) required.push('day-long 429 to one sidecar');
    if (cotenant !== undefined && schedule.rounds.length > 0) required.push('forged 10 years ahead', 'forged within the cap');
    // Each FLUSHALL until the last sidecar said it had put its starts back (at least the rebuild's grace).
    const wipeLines = nodes.map((node) => logLines(node.sidecar.output(), WIPED).map((line) => line.time - wallOffset));
    const flushActs = acts.filter((act) => act.kind === 'FLUSHALL' && act.error === undefined);
    const flushes: Interval[] = flushActs.map((act) => [act.at, Math.max(act.at + REBUILD_GRACE_MS, ...wipeLines.flat().filter((at) => at >= act.at && at < act.at + 5000))] as const);
    // Each process of each sidecar: from the previous one's exit (or the start) to its own.
    const processes: ProcessLines[] = nodes.flatMap((node, k) => {
      const exits = node.sidecar.exits.map((exit) => exit.at);
      return node.sidecar.runningSince.map((since, g) => {
        const from = g === 0 ? started : (exits.filter((at) => at <= since).at(-1) ?? since);
        const to = exits.find((at) => at >= since) ?? endedAt;
        const lines = logLines(node.sidecar.output(), /./).filter((line) => line.time - wallOffset >= from && line.time - wallOffset <= to);
        const doubts = new Map<string, number>();
        for (const doubt of Object.keys(DOUBT_TEXT) as Doubt[]) {
          const n = lines.filter((line) => line.msg.startsWith(`shared API budget: ${DOUBT_TEXT[doubt]} (`)).length;
          if (n > 0) doubts.set(doubt, n);
        }
        return {
          node: node.name,
          lifetimeMs: to - since,
          doubts,
          wipes: lines.filter((line) => WIPED.test(line.msg)).length,
          flushesSeen: flushActs.filter((act) => sharingThrough(k, act.at - 1000, act.at + 3000) && since <= act.at - 1000 && to >= act.at + 3000).length,
          mustDoubtHold: heldAt !== undefined && k !== held && since <= heldAt && to >= heldAt + 5000,
        };
      });
    });

    const rows: InvariantRow[] = [
      ...keyWindowRows({ origin: started, requests: R, windowMs: W, nodes: N, arrivals: calls.map((call) => call.at), budget429s, refusedByBudget: emulator.budgetReport()?.refused ?? 0, straddle }),
      sharedHoldRow(holdFaults, nodeCalls, retry.maxRetryAfterMs, HOLD_SLACK_MS, straddle, started),
      redisLinesRow(
        nodes.map((node, k) => ({
          name: node.name,
          warns: switches[k]?.warns.length ?? 0,
          backs: switches[k]?.backs.length ?? 0,
          outagesSeen: outagesSeen(lifetimes(node), outages),
          verdictsOnFallback: node.fleet.verdicts.filter((v) => fallbackIntervals(k).some(([a, b]) => v.sentAt + v.ms >= a && v.sentAt + v.ms <= b)).length,
          callsOnFallback: nodeCalls.filter((call) => call.node === k && fallbackIntervals(k).some(([a, b]) => call.at >= a && call.at <= b)).length,
          sharedDuringOutage: node.sharedDuringOutage,
        })),
      ),
      sharedAtEndRow(sharedAtEnd),
      othersResumeRow({
        origin: started,
        names: nodes.map((node) => node.name),
        episodes,
        calls: nodeCalls,
        capMs,
        recheckMs: HOLD_RECHECK_MS,
        slackMs: HOLD_SLACK_MS,
        spanMs,
        requests: R,
        required,
      }),
      flushWindowRow({ origin: started, requests: R, windowMs: W, arrivals: calls.map((call) => call.at), budget429s, flushes, restarts: straddle, required: required.includes('forged within the cap') }),
      forgedClaimsRow(
        acts.filter((act) => act.kind === 'forged claims'),
        spanMs + 1000,
        required.includes('forged within the cap'),
        started,
      ),
      doubtLinesRow(processes, acts.filter((act) => act.kind === 'forged claims' && act.error === undefined).length, calls.length),
    ];
    if (killAt !== undefined && victim !== undefined) {
      rows.push(
        killShareRow({
          origin: started,
          victim: victim.name,
          requests: R,
          nodes: N,
          windowMs: W,
          plan: killAt,
          minimum: Math.ceil(KILL_SHARE_MIN * R),
          survivorTimes: nodeCalls.filter((call) => call.node >= 0 && call.node !== VICTIM).map((call) => call.at),
        }),
      );
    }
    const summaries: string[] = [];
    let leakingLines: string[] = [];
    const losses: NodeLosses[] = [];
    const secrets = [clientSecret, modToken, redisPassword].flatMap(secretForms);
    for (const [k, node] of nodes.entries()) {
      const audit = await auditReviews(
        node.fleet.reviews.values(),
        emulator.reviews.map((r) => ({ ...(r.steamId === undefined ? {} : { steamId: r.steamId }), comment: r.comment, at: r.at })),
        node.dataDir,
        (wallMs) => wallMs - wallOffset,
      );
      const listed = await listReviews(node.configPath);
      // The killed sidecar's time dead is not starvation: nothing of it could run.
      const dead: ServiceHold[] =
        k === VICTIM && killAt !== undefined ? [{ from: killAt.at, to: node.sidecar.runningSince.find((since) => since >= killAt.at) ?? endedAt, scope: 'all' }] : [];
      const nodeHolds = [...holds, ...dead];
      const actionList = [...node.fleet.actions.values()];
      const webhook429s = calls.filter((call) => call.endpoint === 'webhook' && call.status === 429 && nodeOf.get(call.server ?? '') === k).length;
      const crashes = node.sidecar.exits.filter((exit) => !exit.deliberate);
      const shutdownCode = shutdownCodes[k];
      const unanswered = unansweredAtDrain[k] ?? [];
      const waitingForItsDay = k === held && heldAt !== undefined ? unanswered.filter((action) => action.sentAt >= heldAt) : [];
      losses.push({ name: node.name, acked: audit.acknowledged, lost: audit.byFate.lost, actionsSent: actionList.length, actionsUnanswered: unanswered.length, actionsHeld: waitingForItsDay.length });
      // The day-long sidecar honours its own day: its reviews and actions wait for it, which is its config, not
      // starvation. What it must show instead: it holds, nothing of it reaches GSA, nothing is lost meanwhile.
      const liveness =
        k === held && heldAt !== undefined
          ? [
              selfHeldRow({
                origin: started,
                name: node.name,
                heldAt,
                retryAfterMs: DAY_LONG_RETRY_AFTER_S * 1000,
                callsAfter: nodeCalls.filter((call) => call.node === k && call.at > heldAt).length,
                gaugeAtEnd: heldGaugeAtEnd,
                readAfterMs: heldGaugeReadAt - heldAt,
                warnLines: logLines(node.sidecar.output(), DAY_LONG_WARNING, 'GSA answered 429').length,
                reviewsWaiting: audit.byFate.pending,
                actionsWaitingBefore: unanswered.length - waitingForItsDay.length,
                actionsWaitingAfter: waitingForItsDay.length,
              }),
            ]
          : starvationRows(starvationFigures({ audit, actions: actionList, webhook429s, holds: nodeHolds, endedAt }, boundMs, retry.maxRetryAfterMs));
      rows.push(
        forNode(node.name, lostReviewsRow(audit)),
        forNode(node.name, verdictRow(node.fleet.verdicts, node.fleet.pings, options.decisionTimeoutMs, node.sidecar.runningSince, soakStalls.stalls, node.sidecar.coreWait.samples)),
        ...liveness.map((row) => forNode(node.name, row)),
        ...resourceRows(longestLived(node.sidecar.samples)).map((row) => forNode(node.name, row)),
        forNode(node.name, listedFatesRow(audit, listed)),
        forNode(node.name, {
          name: '0 crashes',
          ok: crashes.length === 0 && node.startFailures === 0 && shutdownCode === 0,
          measured:
            `${crashes.length} unexpected exit(s)${crashes.length === 0 ? '' : ` (${crashes.map((c) => c.code ?? c.signal).join(', ')})`}, ` +
            `${node.startFailures} failed start(s), ${node.sidecar.generation} restart(s), SIGTERM exit code ${String(shutdownCode)}`,
          bound: '0 crashes, exit 0 on SIGTERM',
        }),
      );
      const logText = node.sidecar.output();
      leakingLines = leakingLines.concat(logText.split('\n').filter((line) => secrets.some((form) => line.includes(form))));
      const shares = sidecarShareMs(node.fleet.verdicts, node.fleet.pings);
      const late = node.fleet.verdicts.filter((_, v) => (shares[v] ?? 0) > options.decisionTimeoutMs + 5);
      const reasons = [...node.fleet.counters.reasons].map(([reason, n]) => `${reason} ${n}`).join(', ');
      const outcomes = actionOutcomes(actionList);
      summaries.push(
        `  ${node.name}: ${node.fleet.counters.chatsSent} chats, ${node.fleet.counters.verdicts} verdicts (${reasons}); reviews ${node.fleet.reviews.size} sent, ${audit.acknowledged} acked; ` +
          `actions ${actionList.length} (${[...outcomes].map(([o, n]) => `${o} ${n}`).join(', ')}); ${nodeCalls.filter((call) => call.node === k).length} calls at the emulator; ${crashes.length === 0 ? '' : 'CRASHED; '}` +
          `verdicts over the bound net of the ping baseline only (the row also nets this process's stalls), sent at ${late.slice(0, 8).map((v) => `${fmt(v.sentAt - started)} (${v.ms.toFixed(0)} ms)`).join(', ') || '–'}; ` +
          `Redis lines at ${[...(switches[k]?.warns ?? []).map((at) => `warn ${fmt(at - started)}`), ...(switches[k]?.backs ?? []).map((at) => `back ${fmt(at - started)}`)].join(', ') || '–'}` +
          // A fallback of its own, outside every restart: why.
          (warnLines[k] ?? [])
            .filter((line) => !outageStraddles.some(([a, b]) => line.time - wallOffset >= a && line.time - wallOffset <= b))
            .map((line) => `; fallback at ${fmt(line.time - wallOffset - started)} outside a restart: ${/cannot be reached \((.*)\); this sidecar/.exec(line.msg)?.[1] ?? line.msg}`)
            .join(''),
      );
      for (const crash of crashes) summaries.push(`  ${node.name} crash at ${fmt(crash.at)}: exit ${String(crash.code ?? crash.signal)}\n${crash.tail}`);
    }
    rows.push(nothingLostRow(losses));
    const allLogs = nodes.map((node) => node.sidecar.output()).join('');
    rows.push({
      name: 'no secret in any log line',
      ok: leakingLines.length === 0 && allLogs.length > 0,
      measured: `${allLogs.split('\n').length} lines (level info), ${(allLogs.length / 1024).toFixed(0)} KiB; ${leakingLines.length} with a secret`,
      bound: '0 lines with the client secret, the mod token or the Redis password (raw, JSON, URL and form encodings)',
    });
    const actCounts = new Map<string, number>();
    for (const act of acts) actCounts.set(act.kind, (actCounts.get(act.kind) ?? 0) + 1);
    const actErrors = acts.filter((act) => act.error !== undefined);

    const counters = emulator.counters();
    exitCode = reportRows(
      [
        `soak ${runId} (${N} sidecars) finished after ${fmt(endedAt - started)} (load ${fmt(loadMs)})`,
        ...summaries,
        `  emulator: ${counters.total} calls ${JSON.stringify(counters.byEndpoint)}, statuses ${JSON.stringify(counters.byStatus)}; budget refused ${emulator.budgetReport()?.refused ?? 0}`,
        `  faults: ${[...faultCounts].map(([name, n]) => `${name} ×${n}`).join('; ')}`,
        `  co-tenant: ${cotenant === undefined ? 'off' : [...actCounts].map(([kind, n]) => `${kind} ×${n}`).join('; ') || 'no act'}${actErrors.length === 0 ? '' : `; FAILED acts: ${actErrors.map((act) => `${act.kind} at ${fmt(act.at - started)} (${act.error ?? ''})`).join('; ')}`}`,
        `  day-long: ${heldNode === undefined ? 'off' : `${heldNode.name} (api.retry.maxRetryAfterMs ${DAY_LONG_CAP_MS}) answered 429 Retry-After: ${DAY_LONG_RETRY_AFTER_S} at ${heldAt === undefined ? 'never' : fmt(heldAt - started)}`}`,
        `  Redis outages: ${outages.map((o, k) => `down ${fmt(o.down - started)}, up ${fmt(o.up - started)}, all back by ${fmt((outageStraddles[k]?.[1] ?? Number.NaN) - started)}`).join('; ') || 'none'}` +
          (otherFallbacks.length === 0 ? '' : `; sidecars' own fallbacks: ${otherFallbacks.map(([a, b]) => `${fmt(a - started)}–${fmt(b - started)}`).join(', ')}`),
        `  budget 429s ("Too Many Attempts.") at ${budget429s.map((at) => fmt(at - started)).join(', ') || '–'}`,
        `  soak process event-loop delay: p99 ${fmt(loopDelay.percentile(99) / 1e6)}, max ${fmt(loopDelay.max / 1e6)}; Retry-After holds: ${holds.length} (${holds.filter((h) => h.scope === 'all').length} key-wide)`,
        `  the sidecars' wait for a core (main thread runnable but not running, /proc schedstat): ${nodes.map((node) => `${node.name} ${coreWaitSummary(node.sidecar.coreWait.samples)}`).join('; ')}`,
        ...(options.traceSidecarLoop
          ? await Promise.all(nodes.map(async (node) => `  ${node.name}'s event-loop pauses (--trace-sidecar-loop): ${loopPauseSummary(await readLoopProbe(join(dir, node.name, 'loop-probe')))}`))
          : []),
        ...(leakingLines.length === 0 ? [] : [`  first line with a secret: ${leakingLines[0]?.slice(0, 300) ?? ''}`]),
      ],
      rows,
    );
  } finally {
    clearInterval(tick);
    loopDelay.disable();
    soakStalls.stop();
    for (const node of nodes) {
      await node.fleet.stop();
      if (node.sidecar.alive()) await node.sidecar.kill9();
      await node.sidecar.close();
    }
    await cotenant?.close();
    await emulator.close();
    await redis.stop();
  }
  return exitCode;
}
