// The soak: the REAL sidecar process (`gsa-bridge run`) against the emulator for N minutes, under a steady mix
// of chat (10k players, 200 chats/s over a few mod WebSockets), joins, reviews from distinct players, server
// actions and mute flips, with a fault every few seconds (503 bursts, 429 with a huge Retry-After, connection
// resets, slow answers, captive-portal HTML 200s, a secret echoed back, mods reconnecting) and `kill -9` +
// immediate restarts. Then it drains, stops the sidecar with SIGTERM, audits the data directory and prints a
// table of invariants; it exits 1 if one fails.
// Beside it run the hostile neighbours of issue 12: a Squad server flooding chat from a new speaker on every line
// and one whose replies never end (on a second game server), and on a third server's mod port a quiet mod whose
// muted players must stay blocked, a wrong-token loop, an idle-socket flood and a probe of the right token.
//
//   npm run soak -- --minutes 10          (default 10; fractions such as 0.5 work for a quick try)
//   npm run soak -- --help                (every knob)
//   npm run soak -- --nodes 3             (three sidecars on one key and one Redis: bench/soak/multiNode.ts)
//
// The emulator runs in this process (its clock is this process's performance.now(), so arrival times and mod
// timings compare directly); the sidecar runs in its own. Must never judge the sidecar by its own account of
// events: reviews are audited in the emulator and on disk, the window at the emulator, latency at the mod.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { LoopStallRecorder } from './soak/loopStalls.js';
import { coreWaitSummary } from './soak/coreWait.js';
import { loopPauseSummary, readLoopProbe } from './soak/loopPauses.js';
import { GsaEmulator, type WindowReport } from '../src/gsaEmulator/index.js';
import {
  parseSoakOptions,
  quietLookupBoundMs,
  reviewShareCapacityPerSecond,
  SOAK_API_TIMEOUT_MS,
  SOAK_USAGE,
  soakRetry,
  SoakUsageError,
  starvationBoundMs,
  type SoakOptions,
} from './soak/options.js';
import { ModFleet, type SentAction } from './soak/modFleet.js';
import { auditReviews, contentKey } from './soak/reviewAudit.js';
import { SoakSidecar } from './soak/sidecarProcess.js';
import { HostileGameProcess } from './soak/hostileGameProcess.js';
import { IdleSocketFlood, QuietMod, RightTokenProbe, WrongTokenLoop } from './soak/localNeighbours.js';
import { listedFatesRow, quietBlockedRow, rightTokenRow, rssBoundRow } from './soak/neighbourRows.js';
import { soakNodes } from './soak/multiNode.js';
import {
  FILTER_LADDER,
  FILTER_LINE_EVERY_MS,
  FILTER_PLAYERS,
  FILTER_WORD,
  filterLineText,
  filterPlayer,
  filterRows,
  systemBudgetRow,
  type FilterLine,
} from './soak/filterRows.js';
import { SERVER_COOLDOWN_MS } from '../src/gsa/system/cooldowns.js';
import { ACTIONS, chatPlayer, CLIENT_ID, faultRotation, faultStep, listenerPort, listReviews, reviewer, secretForms, seededRandom, writeSoakConfig } from './soak/common.js';
import {
  actionOutcomes,
  fmt,
  heldMs,
  lostReviewsRow,
  reportRows,
  resourceRows,
  serviceHolds,
  starvationFigures,
  starvationRows,
  verdictRow,
  windowRow,
  worstWindow,
  type HoldFault,
  type InvariantRow,
} from './soak/invariants.js';

const SERVER = { name: 'ovddykvbs', id: 4711 };
/** The game server whose RCON sources misbehave: one floods chat, one never ends a reply. */
const FLOOD_SERVER = { name: 'floodsrv' };
/** The game server of the quiet mod, whose port the local neighbours also hammer. */
const QUIET_SERVER = { name: 'quietsrv' };
/**
 * With a System API key every server action but wipe goes through GSA's System API, which takes one call per game
 * server per 60 s (the sidecar spaces them 61 s). One action every few seconds on one server would queue without end,
 * so the actions go to game servers of their own in turn, each with its own mod: a server's next action comes later
 * than its cooldown (actionServerCount), across kill -9 too (the spacing is not kept on disk).
 */
const actionServer = (index: number): { name: string; id: number } => ({ name: `actsrv${index}`, id: 4800 + index });
const actionServerCount = (actionEverySeconds: number): number => Math.ceil(SERVER_COOLDOWN_MS / (actionEverySeconds * 1000)) + 1;
const QUIET_CHAT_EVERY_MS = 500;
const RIGHT_TOKEN_EVERY_MS = 2000;
const TICK_MS = 10;
/** Each connection keeps one ping in flight, sent at most this often: the baseline for verdict latency. */
const PING_EVERY_MS = 40;

const now = (): number => performance.now();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The quiet mod's muted players, a range of their own. */
const quietPlayer = (index: number): string => `765611960${String(index).padStart(8, '0')}`;

async function soak(options: SoakOptions, dir: string): Promise<number> {
  const started = now();
  const wallOffset = Date.now() - started;
  const random = seededRandom(options.seed);
  const runId = randomBytes(4).toString('hex');
  // Distinctive secrets, with characters that JSON and form encoding change, so every spelling can be searched for.
  const clientSecret = `soak+Secret/${randomBytes(12).toString('hex')}="&`;
  const modToken = `soak-mod-token-${randomBytes(12).toString('hex')}`;
  const quietToken = `soak-quiet-token-${randomBytes(12).toString('hex')}`;
  const rconPassword = `soak-rcon-${randomBytes(12).toString('hex')}`;
  // GSA's System API key (api.system.key): the same kind of spelling, so its JSON and form encodings differ too.
  const systemKey = `soak+System/${randomBytes(12).toString('hex')}="&`;
  const systemBudget = { requests: options.windowRequests, intervalMs: options.windowMs };
  const actionServers = Array.from({ length: actionServerCount(options.actionEverySeconds) }, (_, index) => actionServer(index));
  const boundMs = starvationBoundMs(options);
  const retry = soakRetry(options);
  const loadMs = options.minutes * 60_000;

  const emulator = await GsaEmulator.start({
    clientId: CLIENT_ID,
    clientSecret,
    systemKey,
    servers: [SERVER, FLOOD_SERVER, QUIET_SERVER, ...actionServers],
    window: { requests: options.windowRequests, intervalMs: options.windowMs },
    // Every call of the run: the judgement finds the Retry-After answers in it (a 10-minute run makes ~10k).
    callLogLimit: 1_000_000,
  });
  const modPort = await listenerPort();
  const quietPort = await listenerPort();
  const quietPlayers = Array.from({ length: options.quietPlayers }, (_, index) => quietPlayer(index));
  for (const player of quietPlayers) emulator.mute(QUIET_SERVER.name, player, 'Muted while the flood goes on');
  // The filter's players are known to GSA (players/find answers them); their uuids are where the mutes are looked for.
  const filterUuids = Array.from({ length: FILTER_PLAYERS }, (_, index) => emulator.addPlayer({ ids: [{ type: 'steam', id: filterPlayer(index) }] }));
  const actionPorts = await Promise.all(actionServers.map(() => listenerPort()));
  const hostileGame = await HostileGameProcess.start(rconPassword, options.floodLinesPerSecond, options.endlessKibPerSecond);
  const rcon = (id: string, port: number): Record<string, unknown> => ({ type: 'rcon', id, profile: 'squad', host: '127.0.0.1', port, password: rconPassword });
  const dataDir = join(dir, 'data');
  const configPath = join(dir, 'config.json');
  await writeSoakConfig(configPath, {
    baseUrl: emulator.url,
    clientSecret,
    rateLimit: { requests: options.windowRequests, intervalMs: options.windowMs },
    retry,
    servers: [
      { ...SERVER, allowActions: [...ACTIONS], adapters: [{ type: 'websocket', port: modPort, token: modToken }] },
      { ...FLOOD_SERVER, adapters: [rcon('flood', hostileGame.floodPort), rcon('endless', hostileGame.endlessPort)] },
      { ...QUIET_SERVER, adapters: [{ type: 'websocket', id: 'quiet', port: quietPort, token: quietToken }] },
      ...actionServers.map((server, index) => ({ ...server, allowActions: [...ACTIONS], adapters: [{ type: 'websocket', port: actionPorts[index], token: modToken }] })),
    ],
    system: { key: systemKey, rateLimit: systemBudget },
    filter: { words: [FILTER_WORD], ladder: FILTER_LADDER },
    decisionTimeoutMs: options.decisionTimeoutMs,
    dataDir,
    // Debug logs the most; a secret that survives it survives every level.
    logLevel: 'debug',
  });

  const say = (line: string): void => {
    process.stdout.write(`[${((now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
  };
  say(
    `soak ${runId}: ${options.minutes} min, ${options.players} players, ${options.chatsPerSecond} chats/s over ${options.connections} mods, ` +
      `${options.reviewsPerSecond} reviews/s, window ${options.windowRequests}/${options.windowMs} ms, a fault every ${options.faultEverySeconds} s, ${options.kills} kill -9`,
  );
  say(
    `api.retry.maxRetryAfterMs ${retry.maxRetryAfterMs} (one window, as 60 s is one window of the service); starvation bound ${fmt(boundMs)} ` +
      `outside Retry-After holds; the review share carries ${reviewShareCapacityPerSecond(options).toFixed(1)}/s under full chat load ` +
      `before holds (at the defaults, two 429s and a review 503 per rotation hold reviews ~30 s of a rotation of at least 52 s: ≥ 1.3/s left); reviews offered at ${options.reviewsPerSecond}/s`,
  );
  say(`temp dir ${dir}`);

  const loopProbeDir = options.traceSidecarLoop ? join(dir, 'loop-probe') : undefined;
  if (loopProbeDir !== undefined) await mkdir(loopProbeDir);
  const sidecar = new SoakSidecar(configPath, join(dir, 'sidecar.log'), now, loopProbeDir);
  const fleet = new ModFleet(`ws://127.0.0.1:${modPort}/`, modToken, options.connections, now);
  // One mod per action server, sending only its server's actions.
  const actionFleets = actionPorts.map((port) => new ModFleet(`ws://127.0.0.1:${port}/`, modToken, 1, now));
  const allActions = (): SentAction[] => actionFleets.flatMap((mods) => [...mods.actions.values()]);
  const filterLines: FilterLine[] = [];
  const quietUrl = `ws://127.0.0.1:${quietPort}/`;
  const quiet = new QuietMod(quietUrl, quietToken, quietPlayers, now);
  const wrongTokens = new WrongTokenLoop(quietUrl);
  const idleSockets = new IdleSocketFlood(quietPort);
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const soakStalls = new LoopStallRecorder(now);
  soakStalls.start();
  let restarting = false;
  let startFailures = 0;
  const rightToken = new RightTokenProbe(quietUrl, quietToken, now, () => !restarting && sidecar.alive());

  // The window is judged per sidecar lifetime: a process started after a kill -9 cannot know what the killed
  // one spent (nothing persists the budget), so each start begins a new watch and the table shows the worst.
  const windowReports: WindowReport[] = [];
  const rewatchWindow = (): void => {
    const report = emulator.windowReport();
    if (report !== null) windowReports.push(report);
    emulator.watchWindow({ requests: options.windowRequests, intervalMs: options.windowMs });
  };

  const restart = async (why: string): Promise<void> => {
    restarting = true;
    try {
      say(`restarting the sidecar (${why})`);
      rewatchWindow();
      await sidecar.start();
    } catch (error) {
      startFailures += 1;
      say(`the sidecar failed to start: ${error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error)}`);
    } finally {
      restarting = false;
    }
  };

  let exitCode = 1;
  let tick: NodeJS.Timeout | undefined;
  try {
    await sidecar.start();
    fleet.start();
    for (const mods of actionFleets) mods.start();
    for (let i = 0; i < 500 && fleet.openConnections < options.connections; i += 1) await sleep(10);
    quiet.start(QUIET_CHAT_EVERY_MS);
    rightToken.start(RIGHT_TOKEN_EVERY_MS);
    if (options.wrongTokenEveryMs > 0) wrongTokens.start(options.wrongTokenEveryMs);
    if (options.idleSockets > 0) idleSockets.start(options.idleSockets, 20, 100);

    // The load: one tick drives every steady stream from its rate, so a late tick catches up instead of drifting.
    let chats = 0;
    let joins = 0;
    let reviews = 0;
    let actions = 0;
    let lastPing = 0;
    let lastSample = 0;
    let lastFlip = 0;
    // The filter's players speak in the second half only: the kills are all in the first half, so a mute the
    // sidecar asks for is never cut by one (a step in flight at kill -9 is not resumed; docs/soak.md).
    const filterFrom = loadMs / 2;
    let filterSent = 0;
    const filterSpoken = Array.from({ length: FILTER_PLAYERS }, () => 0);
    let lastRestartTry = 0;
    let loadOn = true;
    const muted = new Set<number>();
    tick = setInterval(() => {
      const t = now() - started;
      if (loadOn) {
        const seconds = t / 1000;
        for (; chats < seconds * options.chatsPerSecond; chats += 1) {
          const text = chats % 997 === 0 ? `my token is ${modToken}` : `hello ${chats}`;
          fleet.chat(chatPlayer(Math.floor(random() * options.players)), text);
        }
        for (; joins < seconds * options.joinsPerSecond; joins += 1) fleet.join(chatPlayer(Math.floor(random() * options.players)));
        while (reviews < seconds * options.reviewsPerSecond) {
          // A review that could not be sent (the sidecar is down) is simply not counted; its number is reused.
          if (!fleet.review(`r${reviews}`, reviewer(reviews), `soak ${runId} review ${reviews}`)) break;
          reviews += 1;
        }
        if (t - actions * options.actionEverySeconds * 1000 >= options.actionEverySeconds * 1000) {
          const mods = actionFleets[actions % actionFleets.length];
          if (mods?.action(`a${actions}`, ACTIONS[actions % ACTIONS.length] ?? 'restart') === true) actions += 1;
        }
        while (t >= filterFrom && filterSent < (t - filterFrom) / FILTER_LINE_EVERY_MS) {
          const player = filterSent % FILTER_PLAYERS;
          const n = filterSpoken[player] ?? 0;
          const { disguised, text } = filterLineText(player, n);
          const line: FilterLine = { player, disguised, text, sentAt: now() };
          const sent = fleet.chat(filterPlayer(player), text, (reason, at) => {
            line.reason = reason;
            line.verdictAt = at;
          });
          // A line the mods could not send (the sidecar is down) is said again at the next turn.
          if (!sent) break;
          filterLines.push(line);
          filterSpoken[player] = n + 1;
          filterSent += 1;
        }
        if (t - lastFlip >= 2000) {
          lastFlip = t;
          const player = Math.floor(random() * options.players);
          const route = muted.has(player) ? 'unmute' : 'mute';
          if (route === 'mute') muted.add(player);
          else muted.delete(player);
          // Through the control API over HTTP, as another process would.
          void fetch(`${emulator.url}/_emulator/${route}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ server: SERVER.name, player: chatPlayer(player), ...(route === 'mute' ? { alert: 'Muted by the soak' } : {}) }),
          }).then((res) => res.body?.cancel());
        }
      }
      if (t - lastPing >= PING_EVERY_MS) {
        lastPing = t;
        fleet.ping();
      }
      if (t - lastSample >= 1000) {
        lastSample = t;
        void sidecar.sample();
      }
      // A crashed sidecar is restarted (at most once a second) so the soak goes on; the crash is already recorded.
      if (!restarting && !sidecar.alive() && t - lastRestartTry >= 1000) {
        lastRestartTry = t;
        void restart('it exited on its own: a crash');
      }
    }, TICK_MS);

    // Faults one at a time, each `faultEverySeconds` after the previous one ended; the kills on their own schedule,
    // at fixed points of the first half, whatever fault is under way.
    const holdFaults: HoldFault[] = [];
    const rotation = faultRotation(clientSecret, options, holdFaults);
    // The System API key echoed back, as the client secret is: the leak row then shows it scrubbed, not only unsaid.
    // After the fifth step, so the 45-second run keeps the faults it had (it reaches it only on a quick machine).
    rotation.splice(
      5,
      0,
      faultStep(
        'a System API answer echoes its key (500, 2)',
        { kind: 'status', status: 500, message: `upstream said: Authorization: Bearer ${systemKey}`, endpoint: 'system', count: 2 },
        options.windowMs,
        holdFaults,
      ),
    );
    const faultCounts = new Map<string, number>();
    const count = (name: string): void => {
      faultCounts.set(name, (faultCounts.get(name) ?? 0) + 1);
    };
    const loadLeft = (): number => loadMs - (now() - started);
    const faults = (async () => {
      for (let step = 0; ; step += 1) {
        await sleep(Math.min(options.faultEverySeconds * 1000, Math.max(0, loadLeft())));
        const fault = rotation[step % rotation.length];
        if (loadLeft() <= 0 || fault === undefined) return;
        say(`fault: ${fault.name}`);
        count(fault.name);
        await fault.run(emulator, fleet);
      }
    })();
    const kills = (async () => {
      for (let k = 1; k <= options.kills; k += 1) {
        const due = (loadMs / 2) * (k / (options.kills + 1));
        await sleep(Math.max(0, due - (now() - started)));
        say('fault: kill -9 and an immediate restart');
        restarting = true;
        await sidecar.kill9();
        await restart('after kill -9');
        count('kill -9 + restart');
      }
    })();
    await Promise.all([faults, kills]);
    loadOn = false;
    for (const neighbour of [quiet, rightToken, wrongTokens, idleSockets]) neighbour.stop();
    emulator.clearFaults();
    // A hold armed just before the stop may still run for up to the cap.
    const drainMs = boundMs + retry.maxRetryAfterMs;
    say(`load stopped; draining (up to ${fmt(drainMs)}) until every acknowledged review and server action has an answer`);

    const storedKeys = (): Set<string> => new Set(emulator.reviews.map((r) => contentKey(r.steamId ?? '', r.comment)));
    const drainStarted = now();
    for (;;) {
      const stored = storedKeys();
      const open = [...fleet.reviews.values()].filter(
        (r) => r.ackAt !== undefined && r.resultAt === undefined && !stored.has(contentKey(r.steamId, r.comment)),
      ).length;
      const unanswered = allActions().filter((a) => a.answeredAt === undefined && a.orphaned !== true).length;
      // A filter player's second strike asks GSA for a mute in the background: wait for it too.
      const mutedNow = new Set(emulator.snapshot().system.mutes.map((m) => m.uuid));
      const unmuted = filterUuids.filter(
        (uuid, player) => filterLines.filter((l) => l.player === player && l.reason === 'filtered').length >= 2 && !mutedNow.has(uuid),
      ).length;
      if ((open === 0 && unanswered === 0 && unmuted === 0) || now() - drainStarted > drainMs) {
        say(`drained: ${open} review(s), ${unanswered} action(s) and ${unmuted} filter mute(s) still open after ${fmt(now() - drainStarted)}`);
        break;
      }
      await sleep(250);
    }
    clearInterval(tick);
    await fleet.stop();
    await Promise.all(actionFleets.map((mods) => mods.stop()));
    const mutedAtEnd = new Set(emulator.snapshot().system.mutes.map((m) => m.uuid));
    const shutdownCode = await sidecar.stop();
    const gameStats = hostileGame.stats;
    await hostileGame.close();
    loopDelay.disable();
    soakStalls.stop();
    const endedAt = now();

    // The audit, from the emulator and the data directory.
    const audit = await auditReviews(
      fleet.reviews.values(),
      emulator.reviews.map((r) => ({ ...(r.steamId === undefined ? {} : { steamId: r.steamId }), comment: r.comment, at: r.at })),
      dataDir,
      (wallMs) => wallMs - wallOffset,
    );
    const listed = await listReviews(configPath);
    rewatchWindow();
    const window = worstWindow(windowReports);
    const counters = emulator.counters();
    const calls = emulator.calls;
    // A Retry-After on a System API call holds that key, not the mod API's: the mod API's and webhooks' calls hold as
    // before, and a System API game-server call's hold is the actions' alone (they are that key's only class here
    // besides the filter's few mutes).
    const systemActionCall = (call: { readonly endpoint: string; readonly path: string }): boolean => call.endpoint === 'system' && call.path.includes('/gameserver/');
    const holds = [
      ...serviceHolds(
        holdFaults,
        calls.filter((call) => call.endpoint !== 'system'),
        retry.maxRetryAfterMs,
      ),
      ...serviceHolds(holdFaults, calls.filter(systemActionCall), retry.maxRetryAfterMs).map((hold) => ({ ...hold, scope: 'action' as const })),
    ];
    const actionList = allActions();
    const outcomes = actionOutcomes(actionList);
    // The actions' 429s from GSA, whichever path they took (webhooks without a System API key, the System API with one).
    const webhook429s = calls.filter((call) => (call.endpoint === 'webhook' || systemActionCall(call)) && call.status === 429).length;
    const crashes = sidecar.exits.filter((exit) => !exit.deliberate);
    const logText = sidecar.output();
    const leaks = [clientSecret, systemKey, modToken, quietToken, rconPassword].flatMap(secretForms).filter((form) => logText.includes(form));
    const leakingLines = logText.split('\n').filter((line) => leaks.some((form) => line.includes(form)));

    const rows: InvariantRow[] = [
      lostReviewsRow(audit),
      windowRow(window, windowReports.length),
      verdictRow(fleet.verdicts, fleet.pings, options.decisionTimeoutMs, sidecar.runningSince, soakStalls.stalls, sidecar.coreWait.samples),
      ...starvationRows(starvationFigures({ audit, actions: actionList, webhook429s, holds, endedAt }, boundMs, retry.maxRetryAfterMs)),
      ...resourceRows(sidecar.samples),
      quietBlockedRow(quiet.verdicts, [...sidecar.runningSince, endedAt], quietLookupBoundMs(options)),
      rightTokenRow(rightToken.probes),
      rssBoundRow(sidecar.samples),
      listedFatesRow(audit, listed),
      ...filterRows({ lines: filterLines, uuids: filterUuids, mutedAtEnd, calls, fleetReasons: fleet.counters.reasons, graceMs: SOAK_API_TIMEOUT_MS }),
      systemBudgetRow(
        calls,
        holdFaults.filter((fault) => fault.status === 429),
        systemBudget,
      ),
      {
        name: '0 crashes',
        ok: crashes.length === 0 && startFailures === 0 && shutdownCode === 0,
        measured:
          `${crashes.length} unexpected exit(s)${crashes.length === 0 ? '' : ` (${crashes.map((c) => c.code ?? c.signal).join(', ')})`}, ` +
          `${startFailures} failed start(s), ${sidecar.generation} restart(s), SIGTERM exit code ${String(shutdownCode)}`,
        bound: '0 crashes, exit 0 on SIGTERM',
      },
      {
        name: 'no secret in any log line',
        ok: leakingLines.length === 0 && logText.length > 0,
        measured: `${logText.split('\n').length} lines, ${(logText.length / 1024).toFixed(0)} KiB; ${leakingLines.length} with a secret`,
        bound: '0 lines with the client secret, the System API key, a mod token or the RCON password (raw, JSON, URL and form encodings)',
      },
    ];

    const reasons = [...fleet.counters.reasons].map(([reason, n]) => `${reason} ${n}`).join(', ');
    exitCode = reportRows(
      [
        `soak ${runId} finished after ${fmt(endedAt - started)} (load ${fmt(loadMs)})`,
        `  chats: ${fleet.counters.chatsSent} sent, ${fleet.counters.verdicts} verdicts (${reasons}), ${fleet.counters.chatErrors} error replies, ` +
          `${fleet.counters.chatsOrphaned} cut by a closed connection; ${fleet.counters.joins} joins; ${fleet.counters.connects} mod connects`,
        `  reviews: ${fleet.reviews.size} sent, ${audit.acknowledged} acknowledged, ` +
          `${[...fleet.reviews.values()].filter((r) => r.refusedCode !== undefined).length} refused by the sidecar; server actions: ${actionList.length} sent (${[...outcomes].map(([o, n]) => `${o} ${n}`).join(', ')})`,
        `  chat filter ("${FILTER_WORD}", warn then mute 15m): ${filterLines.length} lines from its ${FILTER_PLAYERS} players in the second half ` +
          `(${filterLines.filter((l) => l.disguised).length} disguised); System API: ${calls.filter((c) => c.endpoint === 'system').length} calls, ` +
          `${emulator.systemActions().length} server actions accepted over ${actionServers.length} game servers, ${mutedAtEnd.size} player(s) muted at the end`,
        `  emulator: ${counters.total} calls ${JSON.stringify(counters.byEndpoint)}, statuses ${JSON.stringify(counters.byStatus)}`,
        `  faults: ${[...faultCounts].map(([name, n]) => `${name} ×${n}`).join('; ')}`,
        `  neighbours: flood ${gameStats.floodLines} chat lines from as many speakers; endless replies ${(gameStats.endlessBytes / 1048576).toFixed(1)} MiB; ` +
          `${gameStats.logins} RCON logins over ${gameStats.sessions} sessions; quiet mod ${quiet.sent} chats; ` +
          `${wrongTokens.attempts} wrong tokens (${[...wrongTokens.refusals].map(([what, n]) => `${what} ${n}`).join(', ')}); ` +
          `idle sockets: ${idleSockets.opened} opened, ${idleSockets.closedBySidecar} closed by the sidecar, peak ${idleSockets.peakOpen} open`,
        `  soak process event-loop delay: p99 ${fmt(loopDelay.percentile(99) / 1e6)}, max ${fmt(loopDelay.max / 1e6)}` +
          `; Retry-After holds: ${holds.length} (${holds.filter((h) => h.scope === 'all').length} key-wide), covering ${fmt(heldMs(holds, 'review', started, endedAt))} of the reviews' time`,
        `  the sidecar's wait for a core (its main thread runnable but not running, /proc schedstat): ${coreWaitSummary(sidecar.coreWait.samples)}`,
        ...(loopProbeDir === undefined ? [] : [`  the sidecar's event-loop pauses (--trace-sidecar-loop): ${loopPauseSummary(await readLoopProbe(loopProbeDir))}`]),
        ...(crashes.length === 0 ? [] : crashes.map((c) => `  crash at ${fmt(c.at - started)}: exit ${String(c.code ?? c.signal)}\n${c.tail}`)),
        ...(leakingLines.length === 0 ? [] : [`  first line with a secret: ${leakingLines[0]?.slice(0, 300) ?? ''}`]),
        ...(audit.byFate.lost === 0
          ? []
          : [`  lost, e.g.: ${audit.reviews.filter((r) => r.fate === 'lost').slice(0, 3).map((r) => `${r.review.id} (mod heard: ${r.review.resultOk === undefined ? 'nothing' : r.review.resultOk ? 'ok' : r.review.resultCode ?? 'failed'})`).join(', ')}`]),
      ],
      rows,
    );
  } finally {
    clearInterval(tick);
    loopDelay.disable();
    for (const neighbour of [quiet, rightToken, wrongTokens, idleSockets]) neighbour.stop();
    await fleet.stop();
    await Promise.all(actionFleets.map((mods) => mods.stop()));
    await hostileGame.close();
    if (sidecar.alive()) await sidecar.kill9();
    await sidecar.close();
    await emulator.close();
  }
  return exitCode;
}

async function main(argv: readonly string[]): Promise<number> {
  let options: SoakOptions | undefined;
  try {
    options = parseSoakOptions(argv);
  } catch (error) {
    if (!(error instanceof SoakUsageError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  if (options === undefined) {
    process.stdout.write(`usage: ${SOAK_USAGE}\n`);
    return 0;
  }
  const dir = await mkdtemp(join(tmpdir(), 'gsa-bridge-soak-'));
  try {
    return options.nodes > 1 ? await soakNodes(options, dir) : await soak(options, dir);
  } finally {
    if (options.keep) process.stdout.write(`kept ${dir} (${options.nodes > 1 ? 'node<i>/: ' : ''}config.json, data/, sidecar.log)\n`);
    else await rm(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main(process.argv.slice(2));
