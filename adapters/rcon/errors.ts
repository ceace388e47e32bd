// Errors raised by the RCON clients (Source RCON now, Rust WebRCON alongside): one base class, one subclass per
// failure, each with a stable `code` that callers switch on (never on message text). Messages say what went wrong
// and what to do, naming the adapter by its id or label.
// Must never carry the password, a URL that holds it, or the bytes of an AUTH packet.

export type RconErrorCode =
  | 'auth_failed'
  | 'auth_timeout'
  | 'timeout'
  | 'not_connected'
  | 'disconnected'
  | 'closed'
  | 'protocol'
  | 'queue_full'
  | 'connect_failed';

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

/** The server answered the login with id -1: the password is wrong. Not retried before a long back-off. */
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

/** The per-game rate cap left too many commands waiting; this one was refused without being sent. */
export class RconQueueFullError extends RconError {
  static override readonly errorCode = 'queue_full';
}

/** The TCP connection could not be made (refused, unreachable, no answer within the connect timeout). */
export class RconConnectError extends RconError {
  static override readonly errorCode = 'connect_failed';
}

export function isRconError(error: unknown): error is RconError {
  return error instanceof RconError;
}
