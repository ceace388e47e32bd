// The wiring of one TCP console connection, shared by the Source RCON and telnet clients: the error listener first
// (so no socket error can go unhandled), then close, connect and data, no Nagle delay (a command is one small
// write), the connect timer, the debug line, and the connect itself. The client owns everything after that:
// its framing, its login and when the socket ends.
// It must never: attach a listener after connect() (an early error would be unhandled), see a password, or decide
// what a failure means beyond "no TCP connection in time".
import type { Socket } from 'node:net';
import { clampTimerMs } from '../../src/time/timerLimit.js';
import { RconConnectError } from './errors.js';
import { formatMs } from './sessionLifecycle.js';
import type { RconLogger } from './sourceRconOptions.js';

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
  /** The socket's own error; 'close' always follows it. */
  readonly onError: (error: Error) => void;
  readonly onClose: () => void;
  readonly onConnect: () => void;
  readonly onData: (chunk: Buffer) => void;
  /** No TCP connection within connectTimeoutMs: the client ends the session with this error. */
  readonly onConnectTimeout: (error: RconConnectError) => void;
}

/** Wires `socket` and starts connecting; returns the connect timer, which the client clears once connected or closed. */
export function connectTcpSocket(socket: Socket, plan: TcpConnectPlan): NodeJS.Timeout {
  socket.on('error', plan.onError);
  socket.on('close', plan.onClose);
  socket.on('connect', plan.onConnect);
  socket.on('data', plan.onData);
  socket.setNoDelay(true);
  const timer = setTimeout(() => {
    plan.onConnectTimeout(
      new RconConnectError(`no TCP connection to the ${plan.portName} of ${plan.label} (${plan.host}:${plan.port}) within ${formatMs(plan.connectTimeoutMs)}`),
    );
  }, clampTimerMs(plan.connectTimeoutMs));
  plan.logger.debug({ host: plan.host, port: plan.port }, `${plan.what} ${plan.label}: connecting`);
  socket.connect({ host: plan.host, port: plan.port });
  return timer;
}

/** A socket error as a host reads it: the errno code (ECONNREFUSED) when there is one. */
export function describeSocketError(error: Error): string {
  return (error as NodeJS.ErrnoException).code ?? error.message;
}
