// A console that closes the connection after every answer (Conan Exiles' RCON): each command is one short Source
// RCON session (connect, log in, send, read the answer, close), one at a time and spaced by the game's pace, since
// Conan refuses bursts ("Too many commands, try again later.", RconMaxKarma) and locks RCON out after a flood.
// "Ready" means the last login worked; while it does not, one probe is tried at a growing backoff, never a storm.
// One-shot use (`rcon`, `config check --connect`) is one session: the login waitReady() waits for is the one the first
// command is sent on, so no pace is waited. A command waiting for its turn holds the process (its timer is not
// unref'd: a CLI whose only work is that wait would otherwise exit with Node's "unsettled top-level await", 13);
// close() ends the wait. The pace is measured on the clock the caller gives (tests of what is done with the answers
// give one that is always a pace ahead; the pace itself is proven on fake time).
// It never logs the password, never runs two sessions at once, and never retries a command by itself.

import { backoffDelayMs } from '../../src/time/backoff.js';
import type { Clock } from '../../src/time/clock.js';
import { withDeadline } from '../../src/time/deadline.js';
import { RconClosedError, RconNotConnectedError, isRconError } from './errors.js';
import type { RconCommandOptions, RconConnection, RconConnectionOptions } from './connectionPort.js';
import { SourceRconClient, type RconLogger } from './sourceRconClient.js';
import type { PerCommandTransport } from './transport.js';
import { WrongProtocolNotice } from './wrongProtocol.js';

/** The probe's backoff while the console cannot be reached; a refused password waits the longest step at once. */
const PROBE_BACKOFF = { minDelayMs: 2_000, maxDelayMs: 120_000 };
/** Monotonic milliseconds: the pace compares two readings of it, never a wall-clock time. */
const monotonicClock: Clock = { now: () => performance.now() };
/** What makes the console "down": a command that timed out or was refused by the game still reached one that logs in. */
const DOWN_CODES: readonly string[] = ['connect_failed', 'auth_failed', 'auth_timeout', 'not_connected', 'disconnected', 'wrong_protocol'];

export function openPerCommandSession(config: RconConnectionOptions, transport: PerCommandTransport): RconConnection {
  const { options, handlers } = config;
  const gapMs = Math.ceil(transport.rateCap.perMs / Math.max(1, transport.rateCap.commands));
  const paceClock = config.paceClock ?? monotonicClock;
  let ready = false;
  let started = false;
  let closed = false;
  let failures = 0;
  let lastStartAt = Number.NEGATIVE_INFINITY;
  let turn: Promise<unknown> = Promise.resolve();
  let probeTimer: NodeJS.Timeout | undefined;
  let readyWaiters: (() => void)[] = [];
  const clients = new Set<SourceRconClient>();
  /** One-shot: the session start() opened, and its login; waitReady() waits for that and the first command is sent on it. */
  let held: { readonly client: SourceRconClient; readonly login: Promise<void> } | undefined;
  /** Commands waiting for the game's pace; close() wakes them (they then fail with `closed`). */
  const paceWaits = new Map<NodeJS.Timeout, () => void>();
  const wrongProtocol = new WrongProtocolNotice();
  // Each short session logs in and is closed by the server: normal here, so the client's "logged in" and
  // "disconnected" lines are debug; a failure that matters reaches the caller, and markDown says it once.
  const logger = config.logger;
  const sessionLogger: RconLogger = { debug: logger.debug.bind(logger), info: logger.debug.bind(logger), warn: logger.debug.bind(logger), error: logger.error.bind(logger) };

  const closedError = (): RconClosedError => new RconClosedError(`the RCON adapter ${config.label} was stopped`);

  const waitForPace = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        paceWaits.delete(timer);
        resolve();
      }, ms);
      paceWaits.set(timer, resolve);
    });

  function openSession(): SourceRconClient {
    lastStartAt = paceClock.now();
    const client = new SourceRconClient({
      host: options.host,
      port: options.port,
      password: options.password,
      label: config.label,
      passwordKey: config.passwordKey ?? '"password"',
      replyEnd: transport.replyEnd,
      maxInFlight: 1,
      keepaliveIntervalMs: 0,
      commandTimeoutMs: config.commandTimeoutMs,
      reconnect: false,
      logger: sessionLogger,
    });
    clients.add(client);
    client.start();
    return client;
  }

  /** A session and its login, asked for at once: a login that fails before anyone waits is not missed. */
  function openLoggingIn(): { readonly client: SourceRconClient; readonly login: Promise<void> } {
    const client = openSession();
    const login = client.whenReady({ failFast: true });
    login.catch(() => undefined);
    return { client, login };
  }

  async function oneSession(text: string, commandOptions: RconCommandOptions | undefined): Promise<string> {
    let session = held;
    held = undefined;
    if (session === undefined) {
      const sinceLast = paceClock.now() - lastStartAt;
      if (sinceLast < gapMs) await waitForPace(gapMs - sinceLast);
      if (closed) throw closedError();
      session = openLoggingIn();
    }
    const { client } = session;
    try {
      await session.login;
      return await client.command(text, { timeoutMs: commandOptions?.timeoutMs });
    } finally {
      clients.delete(client);
      await client.close();
    }
  }

  function markUp(): void {
    failures = 0;
    wrongProtocol.loggedIn();
    if (ready) return;
    ready = true;
    const waiters = readyWaiters;
    readyWaiters = [];
    for (const resolve of waiters) resolve();
    handlers?.onReady?.();
  }

  function markDown(error: unknown): void {
    if (!isRconError(error) || !DOWN_CODES.includes(error.code)) return;
    if (error.code === 'disconnected' && ready) return; // Conan closes after every answer: a close alone is normal.
    failures += 1;
    const wasReady = ready;
    ready = false;
    if (error.code === 'auth_failed' || error.code === 'auth_timeout') handlers?.onAuthFailed?.(error);
    else if (wasReady) handlers?.onDown?.(error.message);
    // A wrong port is said once until a login works, whatever failed before it; other failures once per outage.
    const repeat = wrongProtocol.isRepeat(error);
    if (error.code === 'wrong_protocol' || failures === 1 || error.code.startsWith('auth')) {
      config.logger[repeat ? 'debug' : 'warn']({ code: error.code }, `RCON ${config.label}: ${error.message}`);
    }
    scheduleProbe(error.code.startsWith('auth') ? PROBE_BACKOFF.maxDelayMs : backoffDelayMs(failures, PROBE_BACKOFF));
  }

  function scheduleProbe(delayMs: number): void {
    if (closed || config.oneShot === true || probeTimer !== undefined) return;
    probeTimer = setTimeout(() => {
      probeTimer = undefined;
      void command(transport.probeCommand).catch(() => undefined);
    }, delayMs);
    probeTimer.unref();
  }

  function command(text: string, commandOptions?: RconCommandOptions): Promise<string> {
    if (closed) return Promise.reject(closedError());
    const run = turn.then(() => oneSession(text, commandOptions));
    turn = run.catch(() => undefined);
    return run.then(
      (answer) => {
        markUp();
        return answer;
      },
      (error: unknown) => {
        markDown(error);
        throw error;
      },
    );
  }

  return {
    start() {
      if (started || closed) return;
      started = true;
      if (config.oneShot === true) held = openLoggingIn();
      else void command(transport.probeCommand).catch(() => undefined);
    },
    waitReady(timeoutMs) {
      if (ready) return Promise.resolve();
      if (held !== undefined) {
        const timedOut = Symbol('timed out');
        return withDeadline(held.login, timeoutMs, () => timedOut).then(
          (result) => {
            if (result === timedOut) throw new RconNotConnectedError(`not logged in to the RCON server of ${config.label} within ${String(timeoutMs)} ms`);
            markUp();
          },
          (error: unknown) => {
            markDown(error);
            throw error;
          },
        );
      }
      if (config.oneShot === true) return command(transport.probeCommand).then(() => undefined);
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          readyWaiters = readyWaiters.filter((other) => other !== done);
          reject(new RconNotConnectedError(`not logged in to the RCON server of ${config.label} within ${String(timeoutMs)} ms`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          resolve();
        };
        readyWaiters.push(done);
      });
    },
    command,
    get ready() {
      return ready && !closed;
    },
    async close() {
      closed = true;
      clearTimeout(probeTimer);
      probeTimer = undefined;
      held = undefined;
      for (const [timer, wake] of paceWaits) {
        clearTimeout(timer);
        wake();
      }
      paceWaits.clear();
      await Promise.all([...clients].map((client) => client.close()));
    },
  };
}
