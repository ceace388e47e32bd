// The websocket adapter type as the registry sees it: its schema and a factory. Must never start anything:
// the composition root starts what the factory builds.
import { createServer } from 'node:net';
import { describeListenError } from '../../src/net/listenFailure.js';
import type { AdapterType } from '../registryTypes.js';
import { websocketOptionsSchema, type WebsocketOptions } from './options.js';
import { WebSocketAdapter } from './websocketAdapter.js';

export const websocketAdapterType: AdapterType<WebsocketOptions> = {
  type: 'websocket',
  endpoint: 'listener',
  schema: websocketOptionsSchema,
  create(options, context) {
    return new WebSocketAdapter({ options, id: context.id, serverName: context.serverName, sidecar: context.sidecar, logger: context.logger });
  },
  // The listener's port must be free: binds it for a moment and lets go. Port 0 is always free.
  probe(options, context) {
    const where = `${options.host.includes(':') ? `[${options.host}]` : options.host}:${String(options.port)}`;
    return new Promise((resolve) => {
      const server = createServer();
      server.once('error', (error: NodeJS.ErrnoException) => {
        resolve({ ok: false, message: `adapter ${context.id}: cannot listen on ${where}: ${describeListenError(error)}` });
      });
      server.listen(options.port, options.host, () => {
        server.close(() => {
          resolve({ ok: true, message: `adapter ${context.id}: ${where} is free to listen on` });
        });
      });
    });
  },
};
