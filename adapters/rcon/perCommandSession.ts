// A console that closes the connection after every answer (Conan Exiles' RCON): each command is one short Source
// RCON session (connect, log in, send, read the answer, close), one at a time and spaced by the game's pace, since
// Conan refuses bursts ("Too many commands, try again later.", RconMaxKarma) and locks RCON out after a flood.
// "Ready" means the last login worked; while it does not, one probe is tried at a growing backoff, never a storm.
// It never logs the password, never runs two sessions at once, and never retries a command by itself.

import { backoffDelayMs } from '../../src/time/backoff.js';
import { RconClosedError, RconNotConnectedError, isRconError } from './errors.js';
import type { RconCommandOptions, RconConnection, RconConnectionOptions } from './rconConnection.js';
import { SourceRconClient, type RconLogger, type ReplyEndRule } from './sourceRconClient.js';

export interface PerCommandTransport {
  readonly kind: 'source-per-command';
  readonly replyEnd: ReplyEndRule;
  /** At most this many commands (each a session) per window. */
  readonly rateCap: { readonly commands: number; readonly perMs: number };
  /** What is sent to learn whether the console answers, while it does not (a read-only command). */
  readonly probeCommand: string;
}

/** The probe's backoff while the console cannot be reached; a refused password waits the longest step at once. */
const PROBE_BACKOFF = { minDelayMs: 2_000, maxDelayMs: 120_000 };

export function openPerCommandSession(config: RconConnectionOptions, transport: PerCommandTransport): RconConnection {
  const { options, handlers } = config;
  const gapMs = Math.ceil(transport.rateCap.perMs / Math.max(1, transport.rateCap.commands));
  let ready = false;
  let started = false;
  let closed = false;
  let failures = 0;
  let lastStartAt = Number.NEGATIVE_INFINITY;
  let turn: Promise<unknown> = Promise.resolve();
  let probeTimer: NodeJS.Timeout | undefined;
  let readyWaiters: (() => void)[] = [];
  const clients = new Set<SourceRconClient>();
  // Each short session logs in and is closed by the server: normal here, so the client's "logged in" and
  // "disconnected" lines are debug; a failure that matters reaches the caller, and markDown says it once.
  const logger = config.logger;
  const sessionLogger: RconLogger = { debug: logger.debug.bind(logger), info: logger.debug.bind(logger), warn: logger.debug.bind(logger), error: logger.error.bind(logger) };

  const wait = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      setTimeout(resolve, ms).unref();
    });

  async function oneSession(text: string, commandOptions: RconCommandOptions | undefined): Promise<string> {
    const sinceLast = performance.now() - lastStartAt;
    if (sinceLast < gapMs) await wait(gapMs - sinceLast);
    if (closed) throw new RconClosedError(`the RCON adapter ${config.label} was stopped`);
    lastStartAt = performance.now();
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
    try {
      client.start();
      await client.whenReady({ failFast: true });
      return await client.command(text, { timeoutMs: commandOptions?.timeoutMs });
    } finally {
      clients.delete(client);
      await client.close();
    }
  }

  function markUp(): void {
    failures = 0;
    if (ready) return;
    ready = true;
    const waiters = readyWaiters;
    readyWaiters = [];
    for (const resolve of waiters) resolve();
    handlers?.onReady?.();
  }

  function markDown(error: unknown): void {
    // A command that timed out or was refused by the game still reached a console that logs in: not "down".
    if (!isRconError(error) || !['connect_failed', 'auth_failed', 'auth_timeout', 'not_connected', 'disconnected'].includes(error.code)) return;
    if (error.code === 'disconnected' && ready) return; // Conan closes after every answer: a close alone is normal.
    failures += 1;
    const wasReady = ready;
    ready = false;
    if (error.code === 'auth_failed' || error.code === 'auth_timeout') handlers?.onAuthFailed?.(error);
    else if (wasReady) handlers?.onDown?.(error.message);
    if (failures === 1 || error.code.startsWith('auth')) config.logger.warn({ code: error.code }, `RCON ${config.label}: ${error.message}`);
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
    if (closed) return Promise.reject(new RconClosedError(`the RCON adapter ${config.label} was stopped`));
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
      void command(transport.probeCommand).catch(() => undefined);
    },
    waitReady(timeoutMs) {
      if (ready) return Promise.resolve();
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
      await Promise.all([...clients].map((client) => client.close()));
    },
  };
}
