// One logged-in RCON session to one game server, whichever transport its profile speaks: Source RCON over TCP
// (ark, squad), Rust's WebRCON over a WebSocket, or 7 Days to Die's telnet console. The adapter, the `rcon` command and `config check --connect`
// talk to this small interface and never to a transport directly, so a profile picks its transport and tuning
// in its own file (profiles/) and nothing else changes.
// It never logs the password, and never opens a second session to the same server (each client guarantees one).

import type { RconOptions } from './options.js';
import type { Clock } from '../../src/time/clock.js';
import type { RconError } from './errors.js';
import { SourceRconClient, type RconLogger, type ReplyEndRule } from './sourceRconClient.js';
import { WebRconClient, type RustChatMessage } from './webRconClient.js';
import { openPerCommandSession, type PerCommandTransport } from './perCommandSession.js';
import { TelnetClient } from './telnetClient.js';

/** How a profile's game speaks RCON: the transport, and the tuning its server tolerates. */
export type RconTransport =
  | {
      readonly kind: 'source';
      /** How the end of a multi-packet reply is found (mirror trick where the game mirrors, else quiet time). */
      readonly replyEnd: ReplyEndRule;
      /** Commands in flight at once. */
      readonly maxInFlight: number;
      /** Politeness: at most this many commands per window (Squad and Conan punish floods). */
      readonly rateCap: { readonly commands: number; readonly perMs: number };
      /** A cheap command sent when the session has been idle this long; 0: none (the polls keep it alive). */
      readonly keepaliveIntervalMs: number;
      readonly keepaliveCommand?: string | undefined;
    }
  | {
      readonly kind: 'webrcon';
      /** Rust answers no WebSocket ping: a cheap command keeps the session alive. */
      readonly keepaliveMs: number;
      readonly keepaliveCommand: string;
    }
  /** Source RCON, one short session per command (Conan Exiles closes the connection after every answer). */
  | PerCommandTransport
  | {
      readonly kind: 'telnet';
      /** Commands whose answer ends at a known last line (7DTD `lp`: /^Total of \d+ in the game/); others end after quietMs. */
      readonly answerEnds?: readonly { readonly command: RegExp; readonly endsAt: RegExp }[] | undefined;
      /** A command without a known last line ends once the console was quiet this long. @default 200 */
      readonly quietMs?: number | undefined;
    };

/** What the game pushes without being asked. */
export interface RconPushHandlers {
  /** The session is logged in and answers. */
  readonly onReady?: (() => void) | undefined;
  /** The session ended (it reconnects by itself unless closed). */
  readonly onDown?: ((reason: string) => void) | undefined;
  /** The server refused the password (or did not answer the login): the client now waits minutes. */
  readonly onAuthFailed?: ((error: RconError) => void) | undefined;
  /** Source RCON: a packet the server pushed (Squad chat arrives as type 1). */
  readonly onPushedText?: ((text: string) => void) | undefined;
  /** Rust WebRCON: a chat line, already read by the rust profile's parser. */
  readonly onRustChat?: ((chat: RustChatMessage) => void) | undefined;
  /** Telnet (7DTD): every log line the console pushed, CR/LF removed. */
  readonly onLine?: ((line: string) => void) | undefined;
}

export interface RconConnectionOptions {
  readonly options: RconOptions;
  readonly transport: RconTransport;
  /** The adapter's id: every message names it. */
  readonly label: string;
  readonly logger: RconLogger;
  /** One command's answer. @default 5000 */
  readonly commandTimeoutMs?: number | undefined;
  /** `rcon` and `config check --connect`: one attempt, no reconnect after a drop. @default false */
  readonly oneShot?: boolean | undefined;
  readonly handlers?: RconPushHandlers | undefined;
  /**
   * How a refused login names the password's key: `servers[0].adapters[1].password` when the caller knows where the
   * adapter sits in the file (`gsa-bridge rcon`). @default '"password"' (with the adapter id beside it)
   */
  readonly passwordKey?: string | undefined;
  /**
   * The clock a console that takes one command per session (Conan) is paced on, in milliseconds. Tests of what the
   * sidecar does with the answers give one that is always a pace ahead. @default performance.now()
   */
  readonly paceClock?: Clock | undefined;
}

export interface RconCommandOptions {
  readonly timeoutMs?: number | undefined;
  /** Rust answers a working `mute` with nothing: resolve '' instead of timing out. */
  readonly silentOk?: boolean | undefined;
}

export interface RconConnection {
  /** Connects and logs in, and keeps doing so (with backoff) until close(). Idempotent. */
  start(): void;
  /** Resolves once logged in; rejects on a refused login, on close, or after `timeoutMs`. */
  waitReady(timeoutMs: number): Promise<void>;
  /** The answer's text; rejects with an RconError (not_connected, timeout, disconnected, …). */
  command(text: string, options?: RconCommandOptions): Promise<string>;
  /** Logged in right now: readiness and the adapter gauge. */
  readonly ready: boolean;
  /** Ends the session; no reconnect after it. */
  close(): Promise<void>;
}

/** Quoted: it is the key's name inside the adapter's object, read beside the adapter id. */
const PASSWORD_KEY = '"password"';

/** The options every lifecycle client (Source RCON, telnet) takes the same way from an adapter's config. */
function lifecycleClientOptions(config: RconConnectionOptions) {
  const { options, handlers } = config;
  return {
    host: options.host,
    port: options.port,
    password: options.password,
    label: config.label,
    passwordKey: config.passwordKey ?? PASSWORD_KEY,
    logger: config.logger,
    commandTimeoutMs: config.commandTimeoutMs,
    reconnect: config.oneShot !== true,
    onReady: handlers?.onReady,
    onDisconnected: (reason: RconError) => handlers?.onDown?.(reason.message),
    onAuthFailed: handlers?.onAuthFailed,
  };
}

/** What the Source RCON and telnet clients share: sessionLifecycle.ts's start, whenReady, ready and close. */
interface LifecycleClient {
  start(): void;
  whenReady(options: { readonly timeoutMs?: number | undefined; readonly failFast?: boolean | undefined }): Promise<void>;
  readonly ready: boolean;
  close(): Promise<void>;
}

/** One shape for both: a one-shot caller fails on the first failed attempt; only the command call differs. */
function lifecycleConnection(
  config: RconConnectionOptions,
  client: LifecycleClient,
  command: (text: string, options: RconCommandOptions | undefined) => Promise<string>,
): RconConnection {
  return {
    start: () => {
      client.start();
    },
    waitReady: (timeoutMs) => client.whenReady({ timeoutMs, failFast: config.oneShot === true }),
    command,
    get ready() {
      return client.ready;
    },
    close: () => client.close(),
  };
}

function sourceConnection(config: RconConnectionOptions, transport: Extract<RconTransport, { kind: 'source' }>): RconConnection {
  const { handlers } = config;
  const client = new SourceRconClient({
    ...lifecycleClientOptions(config),
    replyEnd: transport.replyEnd,
    maxInFlight: transport.maxInFlight,
    rateCap: transport.rateCap,
    keepaliveIntervalMs: transport.keepaliveIntervalMs,
    keepaliveCommand: transport.keepaliveCommand,
    onUnsolicited: (packet) => {
      // Only what the server pushed on its own is the profile's: late replies and unknown ids are the client's to log.
      if (packet.reason === 'pushed') handlers?.onPushedText?.(packet.text);
    },
  });
  return lifecycleConnection(config, client, (text, commandOptions) => client.command(text, { timeoutMs: commandOptions?.timeoutMs }));
}

function webRconConnection(config: RconConnectionOptions, transport: Extract<RconTransport, { kind: 'webrcon' }>): RconConnection {
  const { options, handlers } = config;
  const client = new WebRconClient({
    host: options.host,
    port: options.port,
    password: options.password,
    label: config.label,
    passwordKey: config.passwordKey ?? PASSWORD_KEY,
    logger: config.logger,
    commandTimeoutMs: config.commandTimeoutMs,
    keepaliveMs: transport.keepaliveMs,
    keepaliveCommand: transport.keepaliveCommand,
    onConnected: handlers?.onReady,
    onDisconnected: (info) => handlers?.onDown?.(info.reason),
    onAuthFailed: handlers?.onAuthFailed,
    onChat: handlers?.onRustChat,
  });
  return {
    start: () => {
      client.start();
    },
    waitReady: (timeoutMs) => client.ready(timeoutMs),
    command: (text, commandOptions) => client.command(text, { timeoutMs: commandOptions?.timeoutMs, silentOk: commandOptions?.silentOk }),
    get ready() {
      return client.connected;
    },
    close: () => client.close(),
  };
}

function telnetConnection(config: RconConnectionOptions, transport: Extract<RconTransport, { kind: 'telnet' }>): RconConnection {
  const client = new TelnetClient({ ...lifecycleClientOptions(config), quietMs: transport.quietMs, onLine: config.handlers?.onLine });
  const endsAtOf = (text: string): RegExp | undefined => transport.answerEnds?.find((rule) => rule.command.test(text))?.endsAt;
  return lifecycleConnection(config, client, (text, commandOptions) => client.command(text, { timeoutMs: commandOptions?.timeoutMs, endsAt: endsAtOf(text) }));
}

/** A session for one RCON adapter, on its profile's transport. Not started: call start(). */
export function openRconConnection(config: RconConnectionOptions): RconConnection {
  const { transport } = config;
  switch (transport.kind) {
    case 'source':
      return sourceConnection(config, transport);
    case 'webrcon':
      return webRconConnection(config, transport);
    case 'source-per-command':
      return openPerCommandSession(config, transport);
    case 'telnet':
      return telnetConnection(config, transport);
  }
}
