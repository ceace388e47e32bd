// The soak with N sidecars on one API key (`npm run soak -- --nodes 3`, issue 14): N real `gsa-bridge run`
// processes, each with its own game server, mod listener, data directory and ops port, sharing the key's budget
// through one private redis-server (never the machine's on 6379), against the emulator enforcing the key's budget
// like the service (429 "Too Many Attempts." past it). The single-node soak's chat, join, review, action and mute-flip
// load is split across them (the same totals), its fault rotation runs against the one emulator, Redis is killed and
// started again every few minutes, and one sidecar gets `kill -9` and stays dead for a span and a window while the
// others must take its share. Then it drains, stops every sidecar with SIGTERM, audits every data directory and
// prints issue 14's invariants next to the single-node ones per sidecar; it exits 1 if one fails.
// The hostile neighbours of issue 12 are off here: N sidecars, the emulator and the load already share two cores.
// Must never judge a sidecar by its own account: arrivals and 429s are read at the emulator, reviews there and on
// disk, latency at the mod; the only thing taken from a sidecar is its log lines about Redis and its /metrics.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { GsaEmulator } from '../../src/gsa/emulator/index.js';
import { LATE_GRANT_MS } from '../../src/gsa/redisBudget.js';
import { guardedIntervalMs } from '../../src/gsa/slidingWindow.js';
import { startPrivateRedis } from '../privateRedis.js';
import { ACTIONS, chatPlayer, CLIENT_ID, faultRotation, listenerPort, listReviews, reviewer, secretForms, seededRandom, writeSoakConfig } from './common.js';
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
  forNode,
  keyWindowRows,
  killShareRow,
  multiNodeSchedule,
  outagesSeen,
  redisLinesRow,
  sharedAtEndRow,
  sharedHoldRow,
  type Interval,
  type NodeCall,
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
 * The rotation starts at its first key-wide 429 (Retry-After: 86400), not at the 503 burst: its hold then ends before
 * the first Redis restart, so a 1-minute run judges a shared hold too.
 */
const FIRST_FAULT = 1;
const WARN = /^shared API budget: Redis at \S+ cannot be reached/;
const BACK = /^shared API budget: Redis at \S+ is back; sharing the budget again$/;
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

/** The messages and times (wall-clock ms) of a sidecar's JSON log lines that match `pattern`. */
function logLines(output: string, pattern: RegExp): { msg: string; time: number }[] {
  const found: { msg: string; time: number }[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{') || !line.includes('shared API budget')) continue;
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
  const retry = soakRetry(options);
  const boundMs = starvationBoundMs(options);
  const loadMs = options.minutes * 60_000;
  const R = options.windowRequests;
  const W = options.windowMs;
  const N = options.nodes;
  const spanMs = guardedIntervalMs(W) + LATE_GRANT_MS;
  const schedule = multiNodeSchedule({ loadMs, windowMs: W, spanMs, restartEveryMs: options.redisRestartEverySeconds * 1000, downMs: options.redisDownSeconds * 1000, kill: options.kills > 0 });
  const connectionsPerNode = Math.max(1, Math.floor(options.connections / N));

  const say = (line: string): void => {
    process.stdout.write(`[${((now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
  };
  const redis = await startPrivateRedis();
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
      rateLimit: { requests: R, intervalMs: W, shared: { redis: redis.url, prefix: `soak-${runId}`, nodes: N } },
      retry,
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
    `Redis ${redis.url} down for ${options.redisDownSeconds} s at ${schedule.restarts.map((at) => fmt(at)).join(', ') || 'never'}; ` +
      (schedule.kill === undefined
        ? 'no kill -9 (none asked, or its measurement does not fit in the load phase)'
        : `kill -9 of ${nodes[VICTIM]?.name ?? '?'} at ${fmt(schedule.kill.at)}, started again at ${fmt(schedule.kill.restartAt)} (faults paused meanwhile)`),
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

  let exitCode = 1;
  let tick: NodeJS.Timeout | undefined;
  const outages: RedisOutage[] = [];
  try {
    await Promise.all(nodes.map((node) => node.sidecar.start()));
    for (const node of nodes) node.fleet.start();
    for (let i = 0; i < 500 && nodes.some((node) => node.fleet.openConnections < connectionsPerNode); i += 1) await sleep(10);
    say(`${N} sidecars running, mods connected`);

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
    const loadLeft = (): number => loadMs - (now() - started);
    const kill = schedule.kill;
    const victim = nodes[VICTIM];
    const faults = (async () => {
      for (let step = 0; ; step += 1) {
        await sleep(Math.min(options.faultEverySeconds * 1000, Math.max(0, loadLeft())));
        // Paused while the survivors of the kill take its share: a Retry-After hold then would leave nothing to measure.
        const t = now() - started;
        // A fault armed a window before the kill or later could still hold the key (at most two holds of one window
        // each) when the measurement begins, one span after the kill.
        if (kill !== undefined && t >= kill.at - W && t < kill.measureTo) await sleep(kill.measureTo - t);
        const fault = rotation[(step + FIRST_FAULT) % rotation.length];
        if (loadLeft() <= 0 || fault === undefined) return;
        say(`fault: ${fault.name}`);
        count(fault.name);
        await fault.run(emulator, nodes[step % N]?.fleet ?? (nodes[0] as SoakNode).fleet);
      }
    })();
    const killing = (async () => {
      if (kill === undefined || victim === undefined) return;
      await sleep(Math.max(0, kill.at - (now() - started)));
      say(`kill -9 of ${victim.name}; it stays dead until ${fmt(kill.restartAt)}`);
      // Not restarted by the crash watch: this task starts it again once the others have had their window.
      victim.deadUntil = Infinity;
      await victim.sidecar.kill9();
      count('kill -9 of one sidecar');
      await sleep(Math.max(0, kill.restartAt - (now() - started)));
      await restart(victim, 'after kill -9 and the others\' window');
      victim.deadUntil = 0;
    })();
    const restarting = (async () => {
      for (const down of schedule.restarts) {
        await sleep(Math.max(0, down - (now() - started)));
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
    await Promise.all([faults, killing, restarting]);
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
    clearInterval(tick);
    await Promise.all(nodes.map((node) => node.fleet.stop()));
    const shutdownCodes = await Promise.all(nodes.map((node) => node.sidecar.stop()));
    loopDelay.disable();
    soakStalls.stop();
    const endedAt = now();

    // The judgement, on this process's clock (performance.now(): the emulator's arrival times, the mods' timings);
    // the schedule was relative to the start.
    const killAt = kill === undefined ? undefined : { at: started + kill.at, measureFrom: started + kill.measureFrom, measureTo: started + kill.measureTo, restartAt: started + kill.restartAt };
    const calls = emulator.calls;
    const nodeCalls: NodeCall[] = calls.map((call) => ({ at: call.at, status: call.status, node: nodeOf.get(call.server ?? '') ?? -1 }));
    const lifetimes = (node: SoakNode): Interval[] =>
      node.sidecar.runningSince.map((since) => [since, node.sidecar.exits.find((exit) => exit.at >= since)?.at ?? endedAt] as const);
    const switches = nodes.map((node) => ({
      warns: logLines(node.sidecar.output(), WARN).map((line) => line.time - wallOffset),
      backs: logLines(node.sidecar.output(), BACK).map((line) => line.time - wallOffset),
    }));
    // Each outage's straddle: from Redis going down (or a sidecar's earlier warning) to the last sidecar's "is back".
    const straddle: Interval[] = outages.map((outage, k) => {
      const next = outages[k + 1]?.down ?? endedAt;
      const warns = switches.flatMap((s) => s.warns.filter((at) => at >= outage.down - 1000 && at < next));
      const backs = switches.flatMap((s) => s.backs.filter((at) => at >= outage.down && at < next));
      return [Math.min(outage.down, ...warns), backs.length === 0 ? next : Math.max(...backs)] as const;
    });
    const fallbackIntervals = (k: number): Interval[] => {
      const s = switches[k];
      if (s === undefined) return [];
      return s.warns.map((warn) => [warn, s.backs.find((back) => back >= warn) ?? endedAt] as const);
    };
    const budget429s = budget429Times(calls, holdFaults);
    const holds = serviceHolds(holdFaults, calls, retry.maxRetryAfterMs);

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
      rows.push(
        forNode(node.name, lostReviewsRow(audit)),
        forNode(node.name, verdictRow(node.fleet.verdicts, node.fleet.pings, options.decisionTimeoutMs, node.sidecar.runningSince, soakStalls.stalls, node.sidecar.coreWait.samples)),
        ...starvationRows(starvationFigures({ audit, actions: actionList, webhook429s, holds: nodeHolds, endedAt }, boundMs, retry.maxRetryAfterMs)).map((row) => forNode(node.name, row)),
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
      leakingLines = leakingLines.concat(logText.split('\n').filter((line) => [clientSecret, modToken].flatMap(secretForms).some((form) => line.includes(form))));
      const shares = sidecarShareMs(node.fleet.verdicts, node.fleet.pings);
      const late = node.fleet.verdicts.filter((_, v) => (shares[v] ?? 0) > options.decisionTimeoutMs + 5);
      const reasons = [...node.fleet.counters.reasons].map(([reason, n]) => `${reason} ${n}`).join(', ');
      const outcomes = actionOutcomes(actionList);
      summaries.push(
        `  ${node.name}: ${node.fleet.counters.chatsSent} chats, ${node.fleet.counters.verdicts} verdicts (${reasons}); reviews ${node.fleet.reviews.size} sent, ${audit.acknowledged} acked; ` +
          `actions ${actionList.length} (${[...outcomes].map(([o, n]) => `${o} ${n}`).join(', ')}); ${nodeCalls.filter((call) => call.node === k).length} calls at the emulator; ${crashes.length === 0 ? '' : 'CRASHED; '}` +
          `verdicts over the bound net of the ping baseline only (the row also nets this process's stalls), sent at ${late.slice(0, 8).map((v) => `${fmt(v.sentAt - started)} (${v.ms.toFixed(0)} ms)`).join(', ') || '–'}; ` +
          `Redis lines at ${[...(switches[k]?.warns ?? []).map((at) => `warn ${fmt(at - started)}`), ...(switches[k]?.backs ?? []).map((at) => `back ${fmt(at - started)}`)].join(', ') || '–'}`,
      );
      for (const crash of crashes) summaries.push(`  ${node.name} crash at ${fmt(crash.at)}: exit ${String(crash.code ?? crash.signal)}\n${crash.tail}`);
    }
    const allLogs = nodes.map((node) => node.sidecar.output()).join('');
    rows.push({
      name: 'no secret in any log line',
      ok: leakingLines.length === 0 && allLogs.length > 0,
      measured: `${allLogs.split('\n').length} lines (level info), ${(allLogs.length / 1024).toFixed(0)} KiB; ${leakingLines.length} with a secret`,
      bound: '0 lines (raw, JSON, URL and form encodings)',
    });

    const counters = emulator.counters();
    exitCode = reportRows(
      [
        `soak ${runId} (${N} sidecars) finished after ${fmt(endedAt - started)} (load ${fmt(loadMs)})`,
        ...summaries,
        `  emulator: ${counters.total} calls ${JSON.stringify(counters.byEndpoint)}, statuses ${JSON.stringify(counters.byStatus)}; budget refused ${emulator.budgetReport()?.refused ?? 0}`,
        `  faults: ${[...faultCounts].map(([name, n]) => `${name} ×${n}`).join('; ')}`,
        `  Redis outages: ${outages.map((o, k) => `down ${fmt(o.down - started)}, up ${fmt(o.up - started)}, all back by ${fmt((straddle[k]?.[1] ?? Number.NaN) - started)}`).join('; ') || 'none'}`,
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
    await emulator.close();
    await redis.stop();
  }
  return exitCode;
}
