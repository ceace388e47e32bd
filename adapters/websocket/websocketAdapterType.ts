// The websocket adapter type as the registry sees it: its schema and a factory. The adapter itself (the ws server,
// the mod protocol) is imported when one is built: an rcon-only host never loads it. Must never start anything:
// the composition root starts what the factory builds.
import { probePort } from '../../src/net/portProbe.js';
import type { AdapterType } from '../base/registryTypes.js';
import { websocketOptionsSchema, type WebsocketOptions } from './options.js';

export const websocketAdapterType: AdapterType<WebsocketOptions> = {
  type: 'websocket',
  title: 'mod WebSocket',
  endpointOf: (options) => ({ kind: 'listener', host: options.host, port: options.port }),
  endpointKeys: { host: 'host', port: 'port' },
  withListenPort: (options, port) => ({ ...options, port }),
  schema: websocketOptionsSchema,
  async create(options, context) {
    const { WebSocketAdapter } = await import('./websocketAdapter.js');
    return new WebSocketAdapter({
      options,
      id: context.id,
      serverName: context.serverName,
      sidecar: context.sidecar,
      logger: context.logger,
      gatedChannels: context.gatedChannels,
    });
  },
  // The listener's port must be free (port 0 always is).
  async probe(options) {
    const found = await probePort(options.host, options.port);
    return { ok: found.free, message: found.detail };
  },
};
