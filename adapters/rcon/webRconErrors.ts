// Errors raised by the Rust WebRCON client: one base class, one subclass per failure, each with a stable `code` that
// callers switch on (never the message text). Messages say what went wrong and what to do, naming the adapter.
// Must never carry the RCON password or the connection URL (the password is part of it): every message built here
// comes from the client, which scrubs what it passes in. (To be merged with adapters/rcon/errors.ts of the Source
// RCON client by the coordinator; the codes are meant to be shared.)

export type WebRconErrorCode = 'auth_failed' | 'timeout' | 'not_connected' | 'disconnected' | 'closed' | 'protocol' | 'connect_failed';

export abstract class WebRconError extends Error {
  /** The code every instance of a subclass carries; callers read the instance's `code`. */
  static readonly errorCode: WebRconErrorCode;
  readonly code: WebRconErrorCode;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
    this.code = (new.target as unknown as { errorCode: WebRconErrorCode }).errorCode;
  }
}

/**
 * The server refused the session in a way that means a wrong password (or this address banned after too many
 * wrong ones): the client now waits minutes, not seconds, before it tries again.
 */
export class WebRconAuthError extends WebRconError {
  static override readonly errorCode = 'auth_failed';
}

/** A command (or the keepalive) got no answer within its timeout. */
export class WebRconTimeoutError extends WebRconError {
  static override readonly errorCode = 'timeout';
}

/** A command was sent while no session was open: it failed at once and was not sent. */
export class WebRconNotConnectedError extends WebRconError {
  static override readonly errorCode = 'not_connected';
}

/** The session dropped before the command's answer came: the command may or may not have run on the server. */
export class WebRconDisconnectedError extends WebRconError {
  static override readonly errorCode = 'disconnected';
}

/** close() was called: the client is finished and sends nothing more. */
export class WebRconClosedError extends WebRconError {
  static override readonly errorCode = 'closed';
}

/** The server sent something that is not WebRCON (not JSON, a chat message whose inner JSON is malformed …). */
export class WebRconProtocolError extends WebRconError {
  static override readonly errorCode = 'protocol';
}

/** A connection attempt failed for a network reason (refused, unreachable, timed out): the client retries with backoff. */
export class WebRconConnectError extends WebRconError {
  static override readonly errorCode = 'connect_failed';
}
