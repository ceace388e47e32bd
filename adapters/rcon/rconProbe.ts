// One RCON command over a one-shot session, for the two places that talk to a game server without running the
// sidecar: `gsa-bridge rcon` (src/cli/rconCommand.ts) and `config check --connect` (the rcon type's registry probe,
// probeRcon below). Each run opens one session (no reconnect), waits a bounded time for the login, sends one
// command, and closes, whatever happened.
// It must never: leave a socket or timer behind, reject (every failure is a result), log the command text, or put
// the password into a message (the clients keep it out; every message is scrubbed once more here, defence in depth).

import { silentLogger } from '../../src/log/logger.js';
import type { AdapterProbeResult } from '../base/registryTypes.js';
import { isRconError, type RconErrorCode } from './errors.js';
import type { RconOptions } from './options.js';
import { RCON_PROFILE_TABLE } from './profiles/index.js';
import type { RconConnection } from './connectionPort.js';
import { openRconConnection } from './rconConnection.js';
import type { RconLogger } from './sourceRconClient.js';
import { LogTail } from './sources/logTail.js';
import { passwordScrubber } from './webrcon/passwordUrl.js';

/** One command's answer when the config says nothing (interfaces.md: `commandTimeoutMs`, 5000). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;

/**
 * Source RCON: the client's own bounds fail first (TCP connect 5 s, then the login answer 5 s, which is how ARK's
 * silence on a wrong password becomes an error); this is only a safety net above their sum.
 */
const SOURCE_LOGIN_BOUND_MS = 11_000;
/**
 * Rust WebRCON: the session counts as logged in once it answered its first command (within commandTimeoutMs);
 * this much more is allowed for the WebSocket handshake. An unreachable Rust port is reported when it passes.
 */
const WEBRCON_HANDSHAKE_ALLOWANCE_MS = 2_000;

/** The adapter's `commandTimeoutMs` when the config has one (the schema gives it a default), else 5000. */
export function commandTimeoutOf(options: RconOptions): number {
  const configured: unknown = options.commandTimeoutMs;
  return typeof configured === 'number' && Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_COMMAND_TIMEOUT_MS;
}

/** How long the login may take before the run gives up, by the profile's transport. */
export function loginBoundOf(options: RconOptions): number {
  return RCON_PROFILE_TABLE[options.profile].transport.kind === 'webrcon' ? commandTimeoutOf(options) + WEBRCON_HANDSHAKE_ALLOWANCE_MS : SOURCE_LOGIN_BOUND_MS;
}

export interface OneShotRconRequest {
  readonly options: RconOptions;
  /** The adapter's id: every message names it. */
  readonly id: string;
  /** Sent as it is: the caller chose it (a host typing it, or the profile's probe command). */
  readonly command: string;
  /** The session's own log (reconnect notes, odd packets). @default silent */
  readonly logger?: RconLogger | undefined;
  /** Where the adapter sits in the file (`servers[0].adapters[1]`), when known: a refused login names its password key. */
  readonly path?: string | undefined;
}

/** What went wrong, without the password: the stage, the client's stable code, and one line for a person. */
export interface OneShotRconFailure {
  readonly ok: false;
  /** `login`: nothing was sent; `command`: logged in, but the command got no answer (it may have run). */
  readonly stage: 'login' | 'command';
  /** The RconError's code, or `internal` for anything else. */
  readonly code: RconErrorCode | 'internal';
  /** The client's message (it names the adapter and, for a refused login, the password key), scrubbed. */
  readonly message: string;
}

export type OneShotRconOutcome = { readonly ok: true; readonly answer: string } | OneShotRconFailure;

/**
 * The client's message as one line for a one-shot run: without its "Next attempt in …" (a one-shot session makes
 * no next attempt) and without a closing full stop, so the caller can append its advice after a semicolon.
 */
function oneLine(text: string): string {
  return text
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .replace(/\s*Next attempt in [^.]*\.?\s*$/i, '')
    .replace(/[\s.]+$/, '')
    .trim();
}

/** One login, one command, one close. Never rejects; always closes the session before it resolves. */
export async function sendOneRconCommand(request: OneShotRconRequest): Promise<OneShotRconOutcome> {
  const { options } = request;
  const scrub = passwordScrubber(options.password);
  const failure = (stage: OneShotRconFailure['stage'], error: unknown): OneShotRconFailure => ({
    ok: false,
    stage,
    code: isRconError(error) ? error.code : 'internal',
    message: oneLine(scrub(error instanceof Error ? error.message : String(error))),
  });
  let connection: RconConnection | undefined;
  try {
    connection = openRconConnection({
      options,
      transport: RCON_PROFILE_TABLE[options.profile].transport,
      label: request.id,
      logger: request.logger ?? silentLogger(),
      commandTimeoutMs: commandTimeoutOf(options),
      oneShot: true,
      passwordKey: request.path === undefined ? undefined : `${request.path}.password`,
    });
    connection.start();
  } catch (error) {
    await connection?.close().catch(() => undefined);
    return failure('login', error);
  }
  try {
    try {
      await connection.waitReady(loginBoundOf(options));
    } catch (error) {
      return failure('login', error);
    }
    try {
      return { ok: true, answer: await connection.command(request.command) };
    } catch (error) {
      return failure('command', error);
    }
  } finally {
    // close() resolves once the socket is gone; it has nothing to reject with, but a probe must never reject.
    await connection.close().catch(() => undefined);
  }
}

/**
 * What to check for a failure, naming the adapter's config keys (`host`, `port`, …). `path` is the adapter's place
 * in the file (`servers[0].adapters[1]`) when the caller knows it; the keys are then given in full. Undefined for a
 * refused login: the client's own message names the password key already (given the path: OneShotRconRequest.path),
 * and a second "check the password" would say it twice; nor for another protocol on the port, whose message names
 * the port's key and the game's setting.
 */
export function adviceFor(failure: OneShotRconFailure, options: RconOptions, id: string, path?: string): string | undefined {
  const keys = (...names: string[]): string =>
    path === undefined ? `${names.map((name) => `"${name}"`).join(' and ')} of rcon adapter ${id}` : names.map((name) => `${path}.${name}`).join(' and ');
  const endpoint = `${keys('host', 'port')} (${options.host}:${String(options.port)})`;
  switch (failure.code) {
    case 'auth_failed':
    case 'auth_timeout':
    case 'wrong_protocol':
      return undefined;
    case 'timeout':
    case 'disconnected':
      return failure.stage === 'command'
        ? `the command may have run; ${keys('commandTimeoutMs')} bounds the wait for its answer`
        : `check ${endpoint} and that the game server is up with RCON enabled`;
    case 'reply_too_large':
    case 'buffer_limit':
      return `the game sent more than the client keeps for one connection (a broken or hostile server, or not the game's RCON port): check ${endpoint}`;
    case 'connect_failed':
    case 'not_connected':
    case 'closed':
    case 'protocol':
      return `check ${endpoint}, that the game speaks ${keys('profile')} (${options.profile}), and that the server is up with RCON enabled`;
    default:
      return `check rcon adapter ${id}`;
  }
}

/**
 * The rcon type's registry probe (`config check --connect`): logs in and sends the profile's harmless command
 * (ark and squad `ListPlayers`, rust `serverinfo`; never ark `GetChat`, which drains the chat buffer other tools read).
 */
export async function probeRcon(options: RconOptions, context: { readonly serverName: string; readonly id: string }): Promise<AdapterProbeResult> {
  const profile = RCON_PROFILE_TABLE[options.profile];
  const [outcome, logFile] = await Promise.all([
    sendOneRconCommand({ options, id: context.id, command: profile.probeCommand }),
    options.logFile === undefined ? undefined : probeLogFile(options.logFile, context.id),
  ]);
  const log = logFile === undefined ? '' : `; ${logFile.message}`;
  if (outcome.ok) return { ok: logFile?.ok ?? true, message: `logged in; ${profile.name} answered ${profile.probeCommand}${log}` };
  const what = outcome.stage === 'login' ? 'RCON login failed' : `logged in, but ${profile.probeCommand} got no answer`;
  const advice = adviceFor(outcome, options, context.id);
  return { ok: false, message: `${what}: ${outcome.message}${advice === undefined ? '' : `; ${advice}`}${log}` };
}

/**
 * Whether the game's log can be read, through the same reader `run` uses (one look, no watch, nothing read): the
 * file it would follow now, or why it cannot. A missing file fails the check: a wrong path would leave chat ungated
 * without a word (ARK writes the log only when started with -servergamelog).
 */
async function probeLogFile(path: string, id: string): Promise<AdapterProbeResult> {
  const problems: string[] = [];
  const collect = (_fields: object, message?: string): void => {
    if (message !== undefined) problems.push(message);
  };
  const tail = new LogTail({ path, onLine: () => undefined, watch: false, logger: { debug: () => undefined, info: () => undefined, warn: collect, error: collect } });
  try {
    await tail.start();
    const following = tail.following;
    if (following !== undefined) return { ok: true, message: `chat is read from ${following}` };
    return {
      ok: false,
      message: `${problems[0] ?? `no file matches ${path}`}: check "logFile" of rcon adapter ${id} (ARK writes its game log only when started with -servergamelog)`,
    };
  } finally {
    await tail.close();
  }
}
