// Adapters describe their endpoint instead of having a host and a port: the registered types keep their
// `<server>-<type>-<port>` ids, and the config's rules work for any endpoint a catalog describes, e.g. a log-file
// reader (a stand-in type here, built with configSchema as the app layer builds the real one).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { adapterEndpointOf, adapterIdOf, withListenPort, type AdapterOptions } from '../../adapters/index.js';
import { WebSocketAdapter } from '../../adapters/websocket/websocketAdapter.js';
import { ConfigError, configSchema, parseConfigWith, type AdapterCatalog } from '../../src/config/index.js';
import { silentLogger } from '../../src/log/logger.js';
import { describeEndpoint, endpointIdPart, type AdapterEndpoint } from '../../src/net/endpoint.js';

const websocket: AdapterOptions = { type: 'websocket', host: '::1', port: 8787, maxFrameBytes: 16_384, maxMessagesPerSecond: 0, maxUnauthenticatedConnections: 128, handshakeTimeoutMs: 5000 };
const rcon: AdapterOptions = { type: 'rcon', profile: 'ark', host: '10.0.0.5', port: 27020, password: 'p', pollChatMs: 1000, pollPlayersMs: 5000, commandTimeoutMs: 5000, alertCooldownMs: 30_000, kickAfterAlerts: 0 };

describe('the registered types describe their endpoints', () => {
  it('websocket listens, rcon connects; derived ids stay <server>-<type>-<port>', () => {
    expect(adapterEndpointOf(websocket)).toEqual({ kind: 'listener', host: '::1', port: 8787 });
    expect(adapterEndpointOf(rcon)).toEqual({ kind: 'target', host: '10.0.0.5', port: 27020 });
    expect(adapterIdOf('alpha', websocket)).toBe('alpha-websocket-8787');
    expect(adapterIdOf('alpha', rcon)).toBe('alpha-rcon-27020');
    expect(adapterIdOf('alpha', { ...rcon, id: 'ark-main' })).toBe('ark-main');
  });

  it('replaces only a listener port', () => {
    expect(withListenPort(websocket, 0)).toMatchObject({ port: 0 });
    expect(withListenPort(rcon, 0)).toBe(rcon);
  });

  it('lets a listening adapter say where it listens, without anyone testing its class', () => {
    const adapter = new WebSocketAdapter({ options: websocket, id: 'mod', serverName: 'alpha', sidecar: 'test', logger: silentLogger() });
    expect(adapter.listeningAddress()).toEqual({ host: '::1', port: 8787, url: 'ws://[::1]:8787/' });
  });

  it('describes and names every kind of endpoint', () => {
    const file: AdapterEndpoint = { kind: 'file', path: '/srv/ark/ShooterGame/Saved/Logs/ServerGame.*.log' };
    expect(describeEndpoint({ kind: 'target', host: '::1', port: 1 })).toBe('[::1]:1');
    expect(describeEndpoint(file)).toBe('/srv/ark/ShooterGame/Saved/Logs/ServerGame.*.log');
    expect(describeEndpoint({ kind: 'none' })).toBe('no endpoint');
    expect(endpointIdPart(file)).toBe('ServerGame._.log');
    expect(endpointIdPart({ kind: 'none' })).toBeUndefined();
  });
});

// A log-reading type and a listener, as a coming adapter would register them.
const tailSchema = z.strictObject({ type: z.literal('tail'), id: z.string().optional(), logFile: z.string().min(1) });
const listenSchema = z.strictObject({ type: z.literal('listen'), id: z.string().optional(), host: z.string().default('127.0.0.1'), port: z.number().int() });
type Options = z.output<typeof tailSchema> | z.output<typeof listenSchema>;
const endpointOf = (options: Options): AdapterEndpoint =>
  options.type === 'tail' ? { kind: 'file', path: options.logFile } : { kind: 'listener', host: options.host, port: options.port };
const catalog: AdapterCatalog<Options> = {
  schema: z.discriminatedUnion('type', [tailSchema, listenSchema]),
  endpointOf,
  endpointKeysOf: (options) => (options.type === 'tail' ? { path: 'logFile' } : { host: 'host', port: 'port' }),
  idOf: (server, options) => options.id ?? `${server}-${options.type}-${endpointIdPart(endpointOf(options)) ?? ''}`,
};
const schema = configSchema(catalog);
const api = { clientId: 'id', clientSecret: 'secret' };

function problemsOf(adapters: unknown[]): string[] {
  try {
    parseConfigWith(schema, { api, servers: [{ name: 'alpha', adapters }] });
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems.map((problem) => `${problem.path}: ${problem.message}`);
  }
}

describe('the config rules with adapter types handed in', () => {
  it('validates a file-reading adapter with no host or port, and gives it no port to clash on', () => {
    expect(problemsOf([{ type: 'tail', logFile: '/logs/a.log' }, { type: 'listen', port: 9000 }])).toEqual([]);
  });

  it('derives ids from the file name and asks for an id when two derive the same', () => {
    expect(problemsOf([{ type: 'tail', logFile: '/one/latest.log' }, { type: 'tail', logFile: '/two/latest.log' }])).toEqual([
      'servers[0].adapters[1]: its id "alpha-tail-latest.log" (derived from server, type and file name) is already taken by servers[0].adapters[0]; give one of them an "id"',
    ]);
    expect(problemsOf([{ type: 'tail', logFile: '/one/latest.log' }, { type: 'tail', id: 'two', logFile: '/two/latest.log' }])).toEqual([]);
  });

  it('still reports listener clashes, and skips the rules whose endpoint key is broken', () => {
    expect(problemsOf([{ type: 'listen', port: 9000 }, { type: 'listen', id: 'b', port: 9000 }])).toEqual(['servers[0].adapters[1].port: same host and port as servers[0].adapters[0]']);
    expect(problemsOf([{ type: 'listen', port: 9000 }, { type: 'listen', id: 'b', port: 'x' }])).toHaveLength(1);
  });
});
