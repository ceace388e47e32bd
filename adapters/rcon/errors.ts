// Errors of the RCON adapters (the Source RCON client, the Rust WebRCON client, and game commands refused before
// they are built): one base class, one subclass per failure, each with a stable `code` that callers switch on
// (never on message text). Messages say what went wrong and what to do, naming the adapter by its id or label.
// Must never carry the password, a URL that holds it, or the bytes of an AUTH packet.

export type RconErrorCode =
  | 'auth_failed'
  | 'auth_timeout'
  | 'timeout'
  | 'not_connected'
  | 'disconnected'
  | 'closed'
  | 'protocol'
  /** The port answered, but not in the transport's protocol (an HTTP server, a telnet console, a query port…). */
  | 'wrong_protocol'
  | 'queue_full'
  | 'connect_failed'
  /** One command's answer grew past the per-reply cap: the answer was cut and the connection dropped. */
  | 'reply_too_large'
  /** Everything held for one connection (partial packets and unfinished answers) grew past the cap: dropped. */
  | 'buffer_limit'
  /** A command's text holds CR, LF or NUL (it would end the console line early): nothing was sent. */
  | 'invalid_command'
  /** A game command was not built: the player id is not a valid Steam64 or EOS id. */
  | 'invalid_player_id'
  /** A game command was not built: the name cannot be addressed safely. */
  | 'unaddressable_name'
  /** A configured command template (notifyCommand) cannot be expanded safely. */
  | 'invalid_command_template'
  /** The host's chatPattern cannot be used (reading/chatPattern.ts): refused at load. */
  | 'invalid_chat_pattern'
  /** No kick command can address this player (no valid id of the kind the kick takes, a name the game's rule refuses). */
  | 'unkickable_player'
  /** The game answered the kick with its words for "not done" (no such player online, an unknown command). */
  | 'kick_refused'
  /** The kick did not reach the game or got no answer (the session is down, the answer timed out): it may have run. */
  | 'kick_not_delivered';

export abstract class RconError extends Error {
  /** The code every instance of a subclass carries; callers read the instance's `code`. */
  static readonly errorCode: RconErrorCode;
  readonly code: RconErrorCode;

  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.code = (new.target as unknown as { errorCode: RconErrorCode }).errorCode;
  }
}

/**
 * The server refused the login: id -1 (SRCDS), a closed connection (Squad), or a cut WebSocket upgrade (Rust
 * WebRCON). The password is wrong; not retried before a long back-off.
 */
export class RconAuthFailedError extends RconError {
  static override readonly errorCode = 'auth_failed';
}

/**
 * The server said nothing to the login within the bound. ARK answers a wrong password this way, so the message
 * names the password as the likely cause. Backed off like a refused login.
 */
export class RconAuthTimeoutError extends RconError {
  static override readonly errorCode = 'auth_timeout';
}

/** A command got no (complete) answer within its timeout. The command may have run. */
export class RconTimeoutError extends RconError {
  static override readonly errorCode = 'timeout';
}

/** A command was given while no logged-in session exists; nothing was sent. */
export class RconNotConnectedError extends RconError {
  static override readonly errorCode = 'not_connected';
}

/** The connection dropped while the command waited. `sent` says whether it reached the socket (it may have run). */
export class RconDisconnectedError extends RconError {
  static override readonly errorCode = 'disconnected';
  readonly sent: boolean;

  constructor(message: string, sent: boolean, cause?: unknown) {
    super(message, cause);
    this.sent = sent;
  }
}

/** close() was called: the client sends nothing more and does not reconnect. */
export class RconClosedError extends RconError {
  static override readonly errorCode = 'closed';
}

/** The server broke the framing (a size below the minimum or above the cap): the connection is dropped. */
export class RconProtocolError extends RconError {
  static override readonly errorCode = 'protocol';
}

/**
 * The first thing the port sent is not the transport's protocol at all (wrongProtocol.ts judges it): text that looks
 * like HTTP on a Source RCON port, no password prompt but binary on a telnet port, an HTTP page where a WebSocket
 * upgrade belongs. The port is wrong, not the session: the message says what was seen and which setting to check.
 * Retried with the normal backoff (a host may be fixing the game's side), logged at warn once until a login works.
 */
export class RconWrongProtocolError extends RconError {
  static override readonly errorCode = 'wrong_protocol';
}

/** The per-game rate cap left too many commands waiting; this one was refused without being sent. */
export class RconQueueFullError extends RconError {
  static override readonly errorCode = 'queue_full';
}

/** The TCP connection could not be made (refused, unreachable, no answer within the connect timeout). */
export class RconConnectError extends RconError {
  static override readonly errorCode = 'connect_failed';
}

/**
 * One command's answer grew past the per-reply cap (Source RCON `maxReplyBytes`, WebRCON `maxMessageBytes`): a
 * broken or hostile server that never ends an answer. The command fails with this code (it may have run), the
 * connection is dropped, and the client reconnects with the normal backoff.
 */
export class RconReplyTooLargeError extends RconError {
  static override readonly errorCode = 'reply_too_large';
}

/**
 * What one Source RCON connection holds (an unfinished packet plus the answers still being joined) grew past the
 * per-connection cap (`maxBufferedBytes`): the connection is dropped and the client reconnects with the normal backoff.
 */
export class RconBufferLimitError extends RconError {
  static override readonly errorCode = 'buffer_limit';
}

/** A command's text holds CR, LF or NUL: on a line-based console (7DTD telnet) it would run a second command. Not sent. */
export class RconInvalidCommandError extends RconError {
  static override readonly errorCode = 'invalid_command';
}

export function isRconError(error: unknown): error is RconError {
  return error instanceof RconError;
}

// ---- Game commands refused before they are built (commandText.ts) ---------------------------------------------------

/** The ids a game command can address a player by (commandText.ts PlayerIdKind; spelled here so errors import nothing of it). */
type CommandIdKind = 'steam' | 'eos';

function kindLabel(kind: CommandIdKind): string {
  return kind === 'steam' ? 'Steam64 id (17 digits)' : 'EOS id (32 hex digits)';
}

/**
 * An id that is neither a Steam64 (`^\d{17}$`) nor an EOS id (`^[0-9a-fA-F]{32}$`), or not of the kind the
 * command takes: no command is built at all. The id is not in the message (it came from the game or a player
 * list, and may be anything); `length` helps a log reader tell a truncation from garbage.
 */
export class InvalidPlayerIdError extends RconError {
  static override readonly errorCode = 'invalid_player_id';
  constructor(
    readonly expected: readonly CommandIdKind[],
    readonly length: number,
  ) {
    super(`refusing to build a game command: the player id (${length} characters) is not a valid ${expected.map(kindLabel).join(' or ')}`);
  }
}

/** A player name that cleaning would change, so a command addressing it by name could reach the wrong player. */
export class UnaddressableNameError extends RconError {
  static override readonly errorCode = 'unaddressable_name';
  constructor(readonly length: number) {
    super(`refusing to address a player by name: the name (${length} characters) holds characters a game command cannot carry; address them by id`);
  }
}

/** A notifyCommand template that cannot be expanded safely (see compileNotifyTemplate). */
export class InvalidCommandTemplateError extends RconError {
  static override readonly errorCode = 'invalid_command_template';
}

/** What is wrong with a chatPattern, for a caller that branches (the message says it in words). */
export type ChatPatternProblem = 'empty' | 'too_long' | 'syntax' | 'missing_group' | 'too_large' | 'engine_unavailable';

/** The host's chatPattern cannot be used (see reading/chatPattern.ts); the message names chatPattern and the problem. */
export class ChatPatternError extends RconError {
  static override readonly errorCode = 'invalid_chat_pattern';
  constructor(
    readonly problem: ChatPatternProblem,
    message: string,
    cause?: unknown,
  ) {
    super(message, cause);
  }
}

// ---- Removing a player (the "remove this player" capability, playerKick.ts) -----------------------------------------

/** No kick command could be built for this player: nothing was sent. The message names the adapter and why. */
export class UnkickablePlayerError extends RconError {
  static override readonly errorCode = 'unkickable_player';
}

/** The game answered the kick with its words for "not done": the player was not removed. */
export class KickRefusedError extends RconError {
  static override readonly errorCode = 'kick_refused';
}

/**
 * The kick did not reach the game, or its answer did not come: the session is down, or the command timed out (it may
 * have run). `sessionCode`: the session's own error code (not_connected, timeout, disconnected, …).
 */
export class KickNotDeliveredError extends RconError {
  static override readonly errorCode = 'kick_not_delivered';
  constructor(
    message: string,
    readonly sessionCode: RconErrorCode | undefined,
    cause?: unknown,
  ) {
    super(message, cause);
  }
}
