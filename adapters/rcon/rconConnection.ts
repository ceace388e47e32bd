// One logged-in RCON session to one game server, whichever transport its profile speaks: Source RCON over TCP
// (ark, squad), Rust's WebRCON over a WebSocket, or 7 Days to Die's telnet console: it opens the client the
// profile's transport (transport.ts) names. The adapter, the `rcon` command and `config check --connect` talk to the
// RconConnection it returns (connectionPort.ts) and never to a transport directly, so a profile picks its transport
// and tuning in its own file (profiles/) and nothing else changes.
// It never logs the password, and never opens a second session to the same server (each client guarantees one).

import type { RconCommandOptions, RconConnection, RconConnectionOptions } from './connectionPort.js';
import type { RconError } from './errors.js';
import { SourceRconClient } from './sourceRconClient.js';
import { WebRconClient } from './webRconClient.js';
import { openPerCommandSession } from './perCommandSession.js';
import type { RconTransport } from './transport.js';
import { TelnetClient } from './telnetClient.js';

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
