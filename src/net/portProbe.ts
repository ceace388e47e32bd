// Whether this machine could listen on host:port right now: binds it for a moment and lets go. Used by
// `config check --connect` (the operations listener) and by the websocket adapter type's probe.
// It never keeps a port open and never rejects.

import { createServer } from 'node:net';
import { describeListenError } from './listenFailure.js';

export interface PortProbe {
  readonly free: boolean;
  /** For a person: "free", or why not and what it likely means. */
  readonly detail: string;
}

/** `listener` words a port in use (describeListenError): an adapter's, or the one operations endpoint. */
export function probePort(host: string, port: number, listener: 'adapter' | 'endpoint' = 'adapter'): Promise<PortProbe> {
  // Port 0 means "any free port": there is always one.
  if (port === 0) return Promise.resolve({ free: true, detail: 'port 0: any free port, read back when it starts' });
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      const hint = error.code === 'EADDRINUSE' ? '; if a sidecar with this config runs, that is expected' : '';
      resolve({ free: false, detail: `${describeListenError(error, listener)}${hint}` });
    });
    server.listen({ host, port, exclusive: true }, () => {
      server.close(() => {
        resolve({ free: true, detail: 'free' });
      });
    });
  });
}
