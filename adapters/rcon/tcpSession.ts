// The wiring of one TCP console connection, shared by the Source RCON and telnet clients: the error listener first
// (so no socket error can go unhandled), then close, connect and data, no Nagle delay (a command is one small
// write), the connect timer, the debug line, and the connect itself. The client owns everything after that:
// its framing, its login and when the socket ends.
// It must never: attach a listener after connect() (an early error would be unhandled), see a password, or decide
// what a failure means beyond "no TCP connection in time".
import type { Socket } from 'node:net';
import { clampTimerMs } from '../../src/time/timerLimit.js';
import { RconConnectError, type RconError } from './errors.js';
import { formatMs } from './sessionLifecycle.js';
import type { RconLogger } from './sourceRconOptions.js';

/** What the wiring needs of a client's session: its socket, why it ends, the socket's own error, the connect timer. */
export interface TcpSession {
  readonly socket: Socket;
  /** Why this session is ending, set before the socket is destroyed. */
  endReason: RconError | undefined;
  /** The socket's own error, if it had one; 'close' always follows it. */
  socketError: Error | undefined;
  connectTimer: NodeJS.Timeout | undefined;
}

/** Where to connect and how to name it; one per client, built once. */
export interface TcpConnectPlan {
  readonly host: string;
  readonly port: number;
  /** The transport's word in the debug line: `RCON`, `telnet`. */
  readonly what: string;
  /** What the port is called in the timeout message: `RCON port`, `telnet port`. */
  readonly portName: string;
  readonly label: string;
  readonly connectTimeoutMs: number;
  readonly logger: RconLogger;
}

/** The client's side of a session's socket events. */
export interface TcpSessionEvents<S extends TcpSession> {
  readonly close: (session: S) => void;
  readonly connect: (session: S) => void;
  readonly data: (session: S, chunk: Buffer) => void;
}

/** Wires the session's socket and starts connecting; the client clears `connectTimer` once connected or closed. */
export function connectTcpSocket<S extends TcpSession>(session: S, plan: TcpConnectPlan, events: TcpSessionEvents<S>): void {
  const { socket } = session;
  socket.on('error', (error) => {
    session.socketError ??= error;
  });
  socket.on('close', () => {
    events.close(session);
  });
  socket.on('connect', () => {
    events.connect(session);
  });
  socket.on('data', (chunk: Buffer) => {
    events.data(session, chunk);
  });
  socket.setNoDelay(true);
  session.connectTimer = setTimeout(() => {
    endTcpSession(
      session,
      new RconConnectError(`no TCP connection to the ${plan.portName} of ${plan.label} (${plan.host}:${plan.port}) within ${formatMs(plan.connectTimeoutMs)}`),
    );
  }, clampTimerMs(plan.connectTimeoutMs));
  plan.logger.debug({ host: plan.host, port: plan.port }, `${plan.what} ${plan.label}: connecting`);
  socket.connect({ host: plan.host, port: plan.port });
}

/** Ends the session: marks why, destroys the socket; the client does the rest once, on 'close'. */
export function endTcpSession(session: TcpSession, reason: RconError): void {
  if (session.endReason !== undefined) return;
  session.endReason = reason;
  session.socket.destroy();
}

/** A socket error as a host reads it: the errno code (ECONNREFUSED) when there is one. */
export function describeSocketError(error: Error): string {
  return (error as NodeJS.ErrnoException).code ?? error.message;
}
