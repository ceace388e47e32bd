import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  applyEnvironment,
  changedSettings,
  collectSecrets,
  ConfigError,
  describeCredentialSources,
  isLoopbackHost,
  loadConfig,
  maskSecrets,
  parseConfig,
  type BridgeConfig,
} from '../../src/app/config.js';
import { adapterIdOf } from '../../adapters/index.js';
import { sharedApiKeyOptions } from '../../src/config/serviceClientOptions.js';
import { problemsOf } from '../fixtures/configProblems.js';

const CREDENTIALS = { GSA_CLIENT_ID: 'id-from-env', GSA_CLIENT_SECRET: 'secret-from-env' };

function minimal(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    api: { clientId: 'client-1', clientSecret: 'file-secret' },
    servers: [{ name: 'ovddykvbs', adapters: [] }],
    ...overrides,
  };
}


function withServers(...servers: unknown[]): Record<string, unknown> {
  return minimal({ servers });
}

function websocket(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'websocket', ...extra };
}

function rcon(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'rcon', profile: 'ark', port: 27020, password: 'rcon-pass', ...extra };
}

async function loadError(promise: Promise<unknown>): Promise<ConfigError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('mute.gatedChannels', () => {
  it('takes names of the channel vocabulary, an empty list included (no chat is checked)', () => {
    expect(parseConfig(minimal({ mute: { gatedChannels: ['global', 'local', 'team'] } })).mute.gatedChannels).toEqual(['global', 'local', 'team']);
    expect(parseConfig(minimal({ mute: { gatedChannels: [] } })).mute.gatedChannels).toEqual([]);
  });

  it('refuses a name outside the vocabulary with its JSON path and the list of names, without echoing it', () => {
    expect(problemsOf(minimal({ mute: { gatedChannels: ['global', 'all', 'Local'] } }))).toEqual([
      { path: 'mute.gatedChannels[1]', message: 'must be a chat channel name: one of global, local, team, squad, tribe, clan, admin, other' },
      { path: 'mute.gatedChannels[2]', message: 'must be a chat channel name: one of global, local, team, squad, tribe, clan, admin, other' },
    ]);
  });

  it('refuses a string where the list belongs, saying what it should look like', () => {
    expect(problemsOf(minimal({ mute: { gatedChannels: 'global' } }))).toEqual([
      { path: 'mute.gatedChannels', message: 'must be an array of chat channel names, like ["global", "local"] (the names: global, local, team, squad, tribe, clan, admin, other)' },
    ]);
  });
});

describe('api.rateLimit.shared', () => {
  const shared = (value: Record<string, unknown>, requests = 100): Record<string, unknown> =>
    minimal({ api: { clientId: 'client-1', clientSecret: 'file-secret', rateLimit: { requests, shared: value } } });

  it('is absent by default, and takes a Redis URL, a prefix (default gsa-bridge) and the number of sidecars', () => {
    expect(parseConfig(minimal()).api.rateLimit.shared).toBeUndefined();
    expect(parseConfig(shared({ redis: 'redis://10.0.0.5:6379/0', nodes: 3 })).api.rateLimit.shared).toEqual({ redis: 'redis://10.0.0.5:6379/0', prefix: 'gsa-bridge', nodes: 3 });
    expect(parseConfig(shared({ redis: 'rediss://cache.internal:6380', prefix: 'cluster-a', nodes: 2 })).api.rateLimit.shared?.prefix).toBe('cluster-a');
  });

  it('refuses what is not a Redis URL, a bad prefix, a missing or too large node count, each with its path and without echoing the value', () => {
    expect(problemsOf(shared({ redis: 'http://:hunter2@10.0.0.5:6379', prefix: 'has space', nodes: 0 }))).toEqual([
      { path: 'api.rateLimit.shared.redis', message: 'must be a Redis URL like redis://127.0.0.1:6379/0 (rediss:// for TLS; a password as redis://:PASSWORD@host:6379/0)' },
      { path: 'api.rateLimit.shared.prefix', message: 'must be 1 to 64 letters, digits, ".", "_", ":" or "-"' },
      { path: 'api.rateLimit.shared.nodes', message: 'must be a positive integer' },
    ]);
    expect(problemsOf(shared({ redis: 'redis://10.0.0.5:6379/db?x=1' }))).toEqual([
      { path: 'api.rateLimit.shared.redis', message: 'must be a Redis URL like redis://127.0.0.1:6379/0 (rediss:// for TLS; a password as redis://:PASSWORD@host:6379/0): the path may only be the database number' },
      { path: 'api.rateLimit.shared.nodes', message: 'required' },
    ]);
    expect(problemsOf(shared({ redis: 'redis://10.0.0.5:6379/0', nodes: 11 }, 10))).toEqual([
      {
        path: 'api.rateLimit.shared.nodes',
        message: 'must not be greater than api.rateLimit.requests: while Redis is down each sidecar keeps floor(requests / nodes) calls a window, which must be at least 1',
      },
    ]);
  });

  it("gives the shared budget this sidecar's own Retry-After cap: a hold in Redis beyond it is not believed here", () => {
    const config = parseConfig(
      minimal({ api: { clientId: 'client-1', clientSecret: 'file-secret', retry: { maxRetryAfterMs: 10_000 }, rateLimit: { shared: { redis: 'redis://10.0.0.5:6379/0', nodes: 3 } } } }),
    );
    expect(sharedApiKeyOptions(config)).toEqual({ url: 'redis://10.0.0.5:6379/0', prefix: 'gsa-bridge', nodes: 3, clientId: 'client-1', requests: 100, intervalMs: 60_000, maxHoldMs: 10_000 });
    expect(sharedApiKeyOptions(parseConfig(minimal()))).toBeUndefined();
  });

  it('treats a password in the Redis URL as a secret: masked for config check, known to the log scrubber', () => {
    const config = parseConfig(shared({ redis: 'redis://:s3cr%23t-pw@10.0.0.5:6379/0', nodes: 3 }));
    expect(maskSecrets(config).api.rateLimit.shared?.redis).toBe('redis://:***@10.0.0.5:6379/0');
    expect(config.api.rateLimit.shared?.redis).toBe('redis://:s3cr%23t-pw@10.0.0.5:6379/0');
    expect(collectSecrets(config)).toEqual(expect.arrayContaining(['s3cr%23t-pw', 's3cr#t-pw']));
  });
});

describe('parseConfig', () => {
  it('accepts a minimal file and fills in every default', () => {
    expect(parseConfig(minimal())).toEqual({
      api: {
        baseUrl: 'https://api.gameserverapp.com',
        flavor: 'v1',
        clientId: 'client-1',
        clientSecret: 'file-secret',
        timeoutMs: 5000,
        rateLimit: { requests: 100, intervalMs: 60000, maxQueued: 1000, maxQueuedPerSource: 250 },
        retry: { retries: 5, minDelayMs: 500, maxDelayMs: 30000, maxRetryAfterMs: 60000 },
        wipePath: 'wipe',
      },
      servers: [{ name: 'ovddykvbs', allowActions: [], lookupIds: 'steam-first', allowRequests: ['access', 'reports', 'ui'], adapters: [] }],
      mute: {
        mutedTtlMs: 60000,
        unmutedTtlMs: 300000,
        decisionTimeoutMs: 300,
        onUnknown: 'allow',
        defaultAlert: 'You are muted on this server.',
        gatedChannels: ['global', 'local'],
      },
      reviews: { dataDir: './data', minStars: 1, maxStars: 5, maxCommentLength: 500, cooldownMs: 600000, chatCommand: '!review' },
      moderation: {},
      access: { enforce: false, onUnknown: 'admit', cacheMs: 300000 },
      shop: { chatCommand: '!shop', buyCommand: '!buy', maxListed: 5, orderCooldownMs: 10000 },
      http: { host: '127.0.0.1', port: 9464, readiness: { unreachableForMs: 60000, outboxPendingMax: 1000 } },
      log: { level: 'info' },
    } satisfies BridgeConfig);
  });

  it('fills in adapter defaults, with the game-specific ones only for the games that read them', () => {
    const config = parseConfig(withServers({ name: 'a', adapters: [websocket(), rcon(), rcon({ profile: 'rust', port: 28016 })] }));
    expect(config.servers[0]!.adapters).toEqual([
      { type: 'websocket', host: '127.0.0.1', port: 8787, maxFrameBytes: 16384, maxMessagesPerSecond: 0, maxUnauthenticatedConnections: 128, handshakeTimeoutMs: 5000 },
      {
        type: 'rcon',
        profile: 'ark',
        host: '127.0.0.1',
        port: 27020,
        password: 'rcon-pass',
        pollChatMs: 1000,
        pollPlayersMs: 5000,
        commandTimeoutMs: 5000,
        alertCooldownMs: 30000,
        kickAfterAlerts: 0,
      },
      { type: 'rcon', profile: 'rust', host: '127.0.0.1', port: 28016, password: 'rcon-pass', pollPlayersMs: 5000, commandTimeoutMs: 5000, alertCooldownMs: 30000, kickAfterAlerts: 0 },
    ]);
  });

  it('does not modify the object it is given', () => {
    const raw = minimal();
    const before = structuredClone(raw);
    parseConfig(raw, { GSA_API_URL: 'http://127.0.0.1:1234', GSA_BRIDGE_LOG_LEVEL: 'debug' });
    expect(raw).toEqual(before);
  });

  it('lets the environment override the file', () => {
    const config = parseConfig(minimal({ log: { level: 'warn' } }), {
      GSA_API_URL: 'http://127.0.0.1:4000',
      GSA_CLIENT_ID: 'env-id',
      GSA_CLIENT_SECRET: 'env-secret',
      GSA_BRIDGE_LOG_LEVEL: 'debug',
    });
    expect(config.api).toMatchObject({ baseUrl: 'http://127.0.0.1:4000', clientId: 'env-id', clientSecret: 'env-secret' });
    expect(config.log.level).toBe('debug');
  });

  it('ignores empty and blank environment values', () => {
    const config = parseConfig(minimal({ log: { level: 'warn' } }), {
      GSA_API_URL: '',
      GSA_CLIENT_ID: '   ',
      GSA_CLIENT_SECRET: '',
      GSA_BRIDGE_LOG_LEVEL: '',
    });
    expect(config.api).toMatchObject({ baseUrl: 'https://api.gameserverapp.com', clientId: 'client-1', clientSecret: 'file-secret' });
    expect(config.log.level).toBe('warn');
  });

  it('names the variable when a bad value came from the environment', () => {
    expect(problemsOf(minimal(), { GSA_API_URL: 'not a url', GSA_BRIDGE_LOG_LEVEL: 'loud' })).toEqual([
      { path: 'api.baseUrl', message: 'must be an http(s) URL (from GSA_API_URL)' },
      { path: 'log.level', message: 'must be one of: trace, debug, info, warn, error, fatal, silent (from GSA_BRIDGE_LOG_LEVEL)' },
    ]);
  });

  it('requires credentials unless told not to', () => {
    const raw = { servers: [] };
    expect(problemsOf(raw)).toEqual([
      { path: 'api.clientId', message: 'required: set it in the config file or the GSA_CLIENT_ID environment variable' },
      { path: 'api.clientSecret', message: 'required: set it in the config file or the GSA_CLIENT_SECRET environment variable' },
    ]);
    expect(problemsOf({ api: { clientId: 'x', clientSecret: '' }, servers: [] })).toEqual([
      { path: 'api.clientSecret', message: 'required: set it in the config file or the GSA_CLIENT_SECRET environment variable' },
    ]);
    expect(parseConfig(raw, {}, { requireCredentials: false }).api).toMatchObject({ clientId: '', clientSecret: '' });
    expect(parseConfig(raw, CREDENTIALS).api).toMatchObject({ clientId: 'id-from-env', clientSecret: 'secret-from-env' });
  });

  it('does not ask for credentials when the api section itself is broken', () => {
    expect(problemsOf({ api: null, servers: [] })).toEqual([{ path: 'api', message: 'must be an object' }]);
  });

  it('requires the servers list in a file', () => {
    expect(problemsOf({ api: { clientId: 'a', clientSecret: 'b' } })).toEqual([{ path: 'servers', message: 'required' }]);
  });

  it('reports a root that is not an object', () => {
    expect(problemsOf([])).toEqual([{ path: '(root)', message: 'must be an object' }]);
  });

  describe('unknown keys', () => {
    it('reports a misspelt key with its name and the likely intended key', () => {
      expect(problemsOf(minimal({ mute: { mutedTTLms: 1000 } }))).toEqual([
        { path: 'mute', message: 'unknown key "mutedTTLms" (did you mean "mutedTtlMs"?)' },
      ]);
    });

    it('reports every unknown key, at the root too', () => {
      expect(problemsOf(minimal({ colour: 'blue', server: [] }))).toEqual([
        { path: '(root)', message: 'unknown key "colour"' },
        { path: '(root)', message: 'unknown key "server" (did you mean "servers"?)' },
      ]);
    });

    it('reports misspelt keys on rcon adapters with the likely intended key', () => {
      const adapters = [rcon({ logfile: 'ServerGame.log', notifycommand: 'pm {steamId} {message}', gsamod: true, alertCoolDownMs: 1000 })];
      expect(problemsOf(withServers({ name: 'a', adapters }))).toEqual([
        {
          path: 'servers[0].adapters[0]',
          message: 'unknown key "logfile" (did you mean "logFile"?)',
        },
        { path: 'servers[0].adapters[0]', message: 'unknown key "notifycommand" (did you mean "notifyCommand"?)' },
        { path: 'servers[0].adapters[0]', message: 'unknown key "gsamod" (did you mean "gsaMod"?)' },
        { path: 'servers[0].adapters[0]', message: 'unknown key "alertCoolDownMs" (did you mean "alertCooldownMs"?)' },
      ]);
    });

    it("refuses a key only other games read, naming them, and requires the log file where chat is only written there", () => {
      const adapters = [
        rcon({ profile: 'rust', port: 28016, gsaMod: true, logFile: 'x.log', pollChatMs: 500 }),
        rcon({ profile: 'squad', port: 21114, enforceMute: false }),
        rcon({ profile: 'conan', port: 25575 }),
      ];
      expect(problemsOf(withServers({ name: 'a', adapters }))).toEqual([
        { path: 'servers[0].adapters[0].logFile', message: 'is not read by profile rust: its chat comes from its console; remove logFile' },
        { path: 'servers[0].adapters[0].gsaMod', message: "is not read by profile rust (it is GameServerApp's ASA mod, read by profiles ark, atlas)" },
        { path: 'servers[0].adapters[0].pollChatMs', message: "is not read by profile rust (it is the pace of ARK's GetChat, read by profiles ark, atlas)" },
        { path: 'servers[0].adapters[1].enforceMute', message: "is not read by profile squad (it is Rust's own mute, read by profile rust)" },
        {
          path: 'servers[0].adapters[2].logFile',
          message: 'is required for profile conan: its chat is only written to its log file (ConanSandbox/Saved/Logs/ConanSandbox.log)',
        },
      ]);
    });

    it('reports unknown keys on websocket adapters and servers', () => {
      expect(problemsOf(withServers({ name: 'a', adapter: [], adapters: [websocket({ tokn: 'x' })] }))).toEqual([
        { path: 'servers[0].adapters[0]', message: 'unknown key "tokn" (did you mean "token"?)' },
        { path: 'servers[0]', message: 'unknown key "adapter" (did you mean "adapters"?)' },
      ]);
    });
  });

  describe('field rules', () => {
    it.each([65536, 80.5, -1])('rejects listener port %s', (port) => {
      expect(problemsOf(withServers({ name: 'a', adapters: [websocket({ port })] }))).toEqual([
        { path: 'servers[0].adapters[0].port', message: 'must be 0–65535 (0: any free port)' },
      ]);
    });

    it('checks the rcon port and the http port, where 0 means any free port', () => {
      expect(problemsOf(minimal({ servers: [{ name: 'a', adapters: [rcon({ port: 70000 })] }], http: { port: 65536 } }))).toEqual([
        { path: 'servers[0].adapters[0].port', message: 'must be 1–65535' },
        { path: 'http.port', message: 'must be 0–65535 (0: any free port)' },
      ]);
      expect(parseConfig(minimal({ http: { port: 0 } })).http.port).toBe(0);
    });

    it('checks the readiness thresholds under http', () => {
      expect(parseConfig(minimal({ http: { readiness: { unreachableForMs: 5000 } } })).http.readiness).toEqual({ unreachableForMs: 5000, outboxPendingMax: 1000 });
      expect(problemsOf(minimal({ http: { readiness: { outboxPendingMax: 0, unreachableForMs: -1 } } })).map((problem) => problem.path).sort()).toEqual([
        'http.readiness.outboxPendingMax',
        'http.readiness.unreachableForMs',
      ]);
    });

    it('requires an rcon port and a non-empty password', () => {
      expect(problemsOf(withServers({ name: 'a', adapters: [{ type: 'rcon', profile: 'squad', password: '' }] }))).toEqual([
        { path: 'servers[0].adapters[0].password', message: 'must not be empty' },
        { path: 'servers[0].adapters[0].port', message: "required (the game's console port)" },
      ]);
    });

    it('lists the allowed values of enums', () => {
      expect(
        problemsOf(
          minimal({
            api: { clientId: 'a', clientSecret: 'b', flavor: 'v3' },
            servers: [{ name: 'a', allowActions: ['reboot'], adapters: [rcon({ profile: 'palworld' }), { type: 'telnet' }, {}] }],
            mute: { onUnknown: 'maybe' },
          }),
        ),
      ).toEqual([
        { path: 'api.flavor', message: 'must be one of: v1, v2' },
        { path: 'servers[0].allowActions[0]', message: 'must be one of: start, stop, restart, update, wipe, cancel-scheduled, broadcast' },
        { path: 'servers[0].adapters[0].profile', message: 'must be one of: ark, atlas, squad, rust, conan, 7dtd, minecraft' },
        { path: 'servers[0].adapters[1].type', message: 'must be one of: websocket, rcon' },
        { path: 'servers[0].adapters[2].type', message: 'required (one of: websocket, rcon)' },
        { path: 'mute.onUnknown', message: 'must be one of: allow, block' },
      ]);
    });

    it('rejects server names that are not URL-safe and ids that are not positive integers', () => {
      expect(
        problemsOf(
          withServers({ name: 'my server', adapters: [] }, { name: '', adapters: [] }, { name: 'b', id: 0, adapters: [] }, { name: 'c', id: 1.5, adapters: [] }),
        ),
      ).toEqual([
        { path: 'servers[0].name', message: expect.stringContaining('must be non-empty and use only letters, digits') as string },
        { path: 'servers[1].name', message: expect.stringContaining('must be non-empty and use only letters, digits') as string },
        { path: 'servers[2].id', message: 'must be a positive integer' },
        { path: 'servers[3].id', message: 'must be a positive integer' },
      ]);
    });

    it('requires adapters on every server', () => {
      expect(problemsOf(withServers({ name: 'a' }))).toEqual([{ path: 'servers[0].adapters', message: 'required' }]);
    });

    it.each(['ftp://api.example.com', 'api.gameserverapp.com', 'not a url'])('rejects base URL %s', (baseUrl) => {
      expect(problemsOf(minimal({ api: { clientId: 'a', clientSecret: 'b', baseUrl } }))).toEqual([
        { path: 'api.baseUrl', message: 'must be an http(s) URL' },
      ]);
    });

    it('accepts http and https base URLs, with a path prefix', () => {
      for (const baseUrl of ['http://127.0.0.1:8080', 'https://gsa.example.com/prefix/']) {
        expect(parseConfig(minimal({ api: { clientId: 'a', clientSecret: 'b', baseUrl } })).api.baseUrl).toBe(baseUrl);
      }
    });

    // A paste from GSA's docs: the client adds the version path itself, so the service would answer 404 for every
    // server (after accepting the credentials) and the host would be sent to fix servers[].name.
    it.each([
      ['https://api.gameserverapp.com/api/v1', '/api/v1', 'v1'],
      ['https://api.gameserverapp.com/api/v1/', '/api/v1/', 'v1'],
      ['https://api.gameserverapp.com/API/V1', '/API/V1', 'v1'],
      ['http://127.0.0.1:8080/mod-api/v2', '/mod-api/v2', 'v2'],
      ['https://gsa.example.com/prefix/Mod-Api/V2//', '/Mod-Api/V2//', 'v2'],
    ])('refuses a base URL ending in the version path: %s', (baseUrl, suffix, flavor) => {
      expect(problemsOf(minimal({ api: { clientId: 'a', clientSecret: 'b', baseUrl } }))).toEqual([
        {
          path: 'api.baseUrl',
          message: `must be the service's root, without the version path: drop ${suffix} (the sidecar adds the version path for api.flavor ${flavor}), like https://api.gameserverapp.com`,
        },
      ]);
    });

    it('refuses a version path in GSA_API_URL, naming the variable', () => {
      expect(problemsOf(minimal(), { GSA_API_URL: 'https://api.gameserverapp.com/api/v1' })).toEqual([
        {
          path: 'api.baseUrl',
          message:
            "must be the service's root, without the version path: drop /api/v1 (the sidecar adds the version path for api.flavor v1), like https://api.gameserverapp.com (from GSA_API_URL)",
        },
      ]);
    });

    it('accepts paths that only look alike', () => {
      for (const baseUrl of ['https://gsa.example.com/api', 'https://gsa.example.com/api/v1/proxy', 'https://gsa.example.com/myapi/v1']) {
        expect(parseConfig(minimal({ api: { clientId: 'a', clientSecret: 'b', baseUrl } })).api.baseUrl).toBe(baseUrl);
      }
    });

    it('requires timeouts and intervals to be positive integers', () => {
      expect(
        problemsOf(
          minimal({
            api: { clientId: 'a', clientSecret: 'b', timeoutMs: 0, rateLimit: { intervalMs: 1.5 }, retry: { minDelayMs: -1 } },
            mute: { decisionTimeoutMs: '300' },
            servers: [{ name: 'a', adapters: [rcon({ pollChatMs: 0 })] }],
          }),
        ),
      ).toEqual([
        { path: 'api.timeoutMs', message: 'must be a positive integer (milliseconds, at most 2147483647)' },
        { path: 'api.rateLimit.intervalMs', message: 'must be a positive integer (milliseconds, at most 2147483647)' },
        { path: 'api.retry.minDelayMs', message: 'must be a positive integer (milliseconds, at most 2147483647)' },
        { path: 'servers[0].adapters[0].pollChatMs', message: 'must be a positive integer (milliseconds, at most 2147483647)' },
        { path: 'mute.decisionTimeoutMs', message: 'must be a number' },
      ]);
    });

    it('rejects durations that a timer would silently shorten', () => {
      expect(problemsOf(minimal({ mute: { mutedTtlMs: 2 ** 31 } }))).toEqual([
        { path: 'mute.mutedTtlMs', message: 'must be a positive integer (milliseconds, at most 2147483647)' },
      ]);
    });

    it('requires at least one request per rate-limit interval', () => {
      expect(problemsOf(minimal({ api: { clientId: 'a', clientSecret: 'b', rateLimit: { requests: 0 } } }))).toEqual([
        { path: 'api.rateLimit.requests', message: 'must be a positive integer' },
      ]);
    });

    it('allows zero retries, no message cap and no review cooldown', () => {
      const config = parseConfig(
        minimal({
          api: { clientId: 'a', clientSecret: 'b', retry: { retries: 0 } },
          servers: [{ name: 'a', adapters: [websocket({ maxMessagesPerSecond: 0 })] }],
          reviews: { cooldownMs: 0 },
        }),
      );
      expect(config.api.retry.retries).toBe(0);
      expect(config.reviews.cooldownMs).toBe(0);
    });
  });

  describe('adapter ids', () => {
    it('keeps a configured id and derives <server>-<type>-<port> without one, whatever the order', () => {
      const config = parseConfig(withServers({ name: 'a', adapters: [websocket({ id: 'mod-main' }), websocket({ port: 8788 }), rcon()] }));
      const ids = config.servers[0]!.adapters.map((adapter) => adapterIdOf('a', adapter));
      expect(ids).toEqual(['mod-main', 'a-websocket-8788', 'a-rcon-27020']);
      const reordered = parseConfig(withServers({ name: 'a', adapters: [rcon(), websocket({ port: 8788 }), websocket({ id: 'mod-main' })] }));
      expect(reordered.servers[0]!.adapters.map((adapter) => adapterIdOf('a', adapter))).toEqual(['a-rcon-27020', 'a-websocket-8788', 'mod-main']);
    });

    it.each(['', '-lead', 'has space', 'x'.repeat(65), 'a/b'])('rejects the id %j', (id) => {
      expect(problemsOf(withServers({ name: 'a', adapters: [websocket({ id })] }))).toEqual([
        { path: 'servers[0].adapters[0].id', message: 'must be 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit' },
      ]);
    });

    it('rejects an id used twice anywhere in the file, naming the first', () => {
      expect(problemsOf(withServers({ name: 'a', adapters: [websocket({ id: 'mod' })] }, { name: 'b', adapters: [rcon({ id: 'mod' })] }))).toEqual([
        { path: 'servers[1].adapters[0].id', message: 'duplicate: servers[0].adapters[0] has the same id "mod"' },
      ]);
    });

    it('asks for an id when two adapters derive the same one (two port-0 listeners)', () => {
      expect(problemsOf(withServers({ name: 'a', adapters: [websocket({ port: 0 }), websocket({ port: 0, host: 'localhost' })] }))).toEqual([
        {
          path: 'servers[0].adapters[1]',
          message: 'its id "a-websocket-0" (derived from server, type and port) is already taken by servers[0].adapters[0]; give one of them an "id"',
        },
      ]);
      expect(parseConfig(withServers({ name: 'a', adapters: [websocket({ port: 0 }), websocket({ id: 'second', port: 0 })] })).servers[0]!.adapters).toHaveLength(2);
    });

    it('rejects a configured id that equals another adapter\'s derived one', () => {
      expect(problemsOf(withServers({ name: 'a', adapters: [websocket(), websocket({ id: 'a-websocket-8787', port: 8788 })] }))).toEqual([
        { path: 'servers[0].adapters[1].id', message: 'duplicate: servers[0].adapters[0] has the same id "a-websocket-8787"' },
      ]);
    });
  });

  describe('cross-field rules', () => {
    it.each(['0.0.0.0', '192.168.1.10', '::', 'gameserver.lan'])('requires a token on a websocket listener bound to %s', (host) => {
      expect(problemsOf(withServers({ name: 'a', adapters: [websocket({ host })] }))).toEqual([
        { path: 'servers[0].adapters[0].token', message: 'required: binding beyond loopback (127.0.0.0/8, ::1, localhost) needs a token' },
      ]);
      expect(problemsOf(withServers({ name: 'a', adapters: [websocket({ host, token: '  ' })] }))).toHaveLength(1);
      expect(parseConfig(withServers({ name: 'a', adapters: [websocket({ host, token: '0123456789abcdef' })] })).servers).toHaveLength(1);
    });

    it('refuses a short token or the example placeholder beyond loopback, saying how to make one', () => {
      const weak = (token: string) => problemsOf(withServers({ name: 'a', adapters: [websocket({ host: '0.0.0.0', token })] }));
      const short = weak('0123456789abcde');
      expect(short.map((problem) => problem.path)).toEqual(['servers[0].adapters[0].token']);
      expect(short[0]?.message).toMatch(/^is too short \(15 characters\); .*at least 16 characters\. Make one with: openssl rand -hex 24/);
      const example = JSON.parse(readFileSync(new URL('../../config.example.json', import.meta.url), 'utf8')) as {
        servers: { adapters: { type: string; token?: string }[] }[];
      };
      const placeholder = example.servers[0]?.adapters.find((adapter) => adapter.type === 'websocket')?.token ?? '';
      expect(placeholder.length).toBeGreaterThanOrEqual(16);
      const copied = weak(placeholder);
      expect(copied.map((problem) => problem.path)).toEqual(['servers[0].adapters[0].token']);
      expect(copied[0]?.message).toMatch(/^is the placeholder from config\.example\.json; .*randomBytes\(24\)/);
      // The token itself is never echoed.
      expect(JSON.stringify(weak(placeholder))).not.toContain(placeholder);
      // On loopback, any token (or none) is fine: only this machine can reach it.
      expect(parseConfig(withServers({ name: 'a', adapters: [websocket({ token: placeholder })] })).servers).toHaveLength(1);
    });

    it.each(['127.0.0.1', '127.3.2.1', '::1', 'localhost', 'LOCALHOST'])('needs no token on loopback %s', (host) => {
      expect(parseConfig(withServers({ name: 'a', adapters: [websocket({ host })] })).servers[0]!.adapters[0]).toMatchObject({ host });
    });

    it('rejects minStars above maxStars', () => {
      expect(problemsOf(minimal({ reviews: { minStars: 4, maxStars: 3 } }))).toEqual([
        { path: 'reviews.minStars', message: 'must not be greater than reviews.maxStars' },
      ]);
      expect(parseConfig(minimal({ reviews: { minStars: 3, maxStars: 3 } })).reviews.minStars).toBe(3);
    });

    it('rejects a retry minimum delay above the maximum', () => {
      expect(problemsOf(minimal({ api: { clientId: 'a', clientSecret: 'b', retry: { minDelayMs: 40000 } } }))).toEqual([
        { path: 'api.retry.minDelayMs', message: 'must not be greater than api.retry.maxDelayMs' },
      ]);
    });

    it('rejects duplicate server names and ids', () => {
      expect(
        problemsOf(
          withServers({ name: 'a', id: 1, adapters: [] }, { name: 'b', id: 2, adapters: [] }, { name: 'a', id: 3, adapters: [] }, { name: 'c', id: 2, adapters: [] }),
        ),
      ).toEqual([
        { path: 'servers[2].name', message: 'duplicate: servers[0] has the same name' },
        { path: 'servers[3].id', message: 'duplicate: servers[1] has the same id' },
      ]);
    });

    it('rejects two adapters on the same host and port, across servers', () => {
      expect(
        problemsOf(withServers({ name: 'a', adapters: [websocket({ port: 9000 })] }, { name: 'b', adapters: [websocket({ port: 9000 })] })),
      ).toEqual([{ path: 'servers[1].adapters[0].port', message: 'same host and port as servers[0].adapters[0]' }]);
    });

    it('rejects default ports that collide, and a listener on the ops port', () => {
      expect(
        problemsOf(
          minimal({
            servers: [{ name: 'a', adapters: [websocket(), websocket({ id: 'local', token: 't', host: 'localhost' }), websocket({ port: 9464 })] }, { name: 'b', adapters: [websocket()] }],
          }),
        ),
      ).toEqual([
        { path: 'servers[1].adapters[0].port', message: 'same host and port as servers[0].adapters[0]' },
        { path: 'http.port', message: 'same host and port as servers[0].adapters[2]' },
      ]);
    });

    it('treats the any-address as overlapping every listener on the same port', () => {
      expect(problemsOf(withServers({ name: 'a', adapters: [websocket(), websocket({ id: 'everywhere', host: '0.0.0.0', token: '0123456789abcdef' })] }))).toEqual([
        { path: 'servers[0].adapters[1].port', message: 'same port as servers[0].adapters[0], and one of them binds every address' },
      ]);
    });

    it('rejects two rcon adapters polling the same game server', () => {
      expect(problemsOf(withServers({ name: 'a', adapters: [rcon()] }, { name: 'b', adapters: [rcon({ profile: 'squad' })] }))).toEqual([
        { path: 'servers[1].adapters[0].port', message: 'same host and port as servers[0].adapters[0]' },
      ]);
    });

    it('allows different hosts or ports', () => {
      const config = parseConfig(
        withServers(
          { name: 'a', adapters: [websocket(), rcon()] },
          { name: 'b', adapters: [websocket({ port: 8788 }), rcon({ host: '10.0.0.5' })] },
        ),
      );
      expect(config.servers).toHaveLength(2);
    });
  });

  it('reports several problems together, cross-field ones included', () => {
    const error = (() => {
      try {
        parseConfig(
          {
            api: { clientSecret: 42 },
            servers: [
              { name: 'a', adapters: [websocket({ host: '0.0.0.0', port: 0.5 }), { type: 'rcon', profile: 'ark', port: 'x', password: 'p' }] },
              { name: 'a', adapters: [] },
            ],
            mute: { mutedTTLms: 1 },
            reviews: { minStars: 5, maxStars: 1 },
          },
          {},
        );
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    expect(configError.code).toBe('invalid_config');
    expect(configError.problems).toEqual([
      { path: 'api.clientSecret', message: 'must be a string' },
      { path: 'servers[0].adapters[0].port', message: 'must be 0–65535 (0: any free port)' },
      { path: 'servers[0].adapters[1].port', message: 'must be a number' },
      { path: 'mute', message: 'unknown key "mutedTTLms" (did you mean "mutedTtlMs"?)' },
      { path: 'reviews.minStars', message: 'must not be greater than reviews.maxStars' },
      { path: 'servers[0].adapters[0].token', message: 'required: binding beyond loopback (127.0.0.0/8, ::1, localhost) needs a token' },
      { path: 'servers[1].name', message: 'duplicate: servers[0] has the same name' },
      { path: 'api.clientId', message: 'required: set it in the config file or the GSA_CLIENT_ID environment variable' },
    ]);
    expect(configError.message.split('\n')).toEqual(configError.problems.map((problem) => `${problem.path}: ${problem.message}`));
  });

  it('reports sections of the wrong shape without tripping over them in the cross-field rules', () => {
    expect(problemsOf(minimal({ servers: {}, reviews: 'x', http: [] }))).toEqual([
      { path: 'servers', message: 'must be an array' },
      { path: 'reviews', message: 'must be an object' },
      { path: 'http', message: 'must be an object' },
    ]);
    expect(problemsOf(withServers(null, { name: 'a', adapters: [42, null, { type: 'websocket', host: 5 }] }))).toEqual([
      { path: 'servers[0]', message: 'must be an object' },
      { path: 'servers[1].adapters[0]', message: 'must be an object' },
      { path: 'servers[1].adapters[1]', message: 'must be an object' },
      { path: 'servers[1].adapters[2].host', message: 'must be a string' },
    ]);
  });

  describe('never echoes a value', () => {
    function assertHidden(raw: unknown, secret: string, env: Record<string, string> = {}): void {
      let caught: unknown;
      try {
        parseConfig(raw, env);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      const error = caught as ConfigError;
      expect(error.message).not.toContain(secret);
      expect(String(error)).not.toContain(secret);
      expect(error.stack ?? '').not.toContain(secret);
      expect(JSON.stringify(error.problems)).not.toContain(secret);
    }

    it('when the secret has the wrong type', () => {
      assertHidden(minimal({ api: { clientId: 'a', clientSecret: 918273645 } }), '918273645');
      assertHidden(withServers({ name: 'a', adapters: [rcon({ password: ['hunter2-array'] })] }), 'hunter2-array');
      assertHidden(withServers({ name: 'a', adapters: [websocket({ token: { value: 'tok-object' } })] }), 'tok-object');
    });

    it('when a secret lands in a field with an enum or a format', () => {
      assertHidden(minimal({ api: { clientId: 'a', clientSecret: 'b', flavor: 'pasted-secret-1' } }), 'pasted-secret-1');
      assertHidden(minimal({ api: { clientId: 'a', clientSecret: 'b', baseUrl: 'https://user:pw-in-url@example.com' } }), 'pw-in-url');
      assertHidden(minimal(), 'pasted-secret-2', { GSA_BRIDGE_LOG_LEVEL: 'pasted-secret-2' });
    });
  });
});

describe('loadConfig', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gsa-bridge-config-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function writeConfig(content: string, name = 'config.json'): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  }

  it('loads config.example.json, which sets every key explicitly', async () => {
    const example = JSON.parse(await readFile('config.example.json', 'utf8')) as Record<string, unknown>;
    const loaded = await loadConfig({ path: 'config.example.json', env: CREDENTIALS });
    expect(loaded.path).toBe(resolve('config.example.json'));
    // Equal to the file apart from the credentials and the resolved dataDir: no default had to be filled in, so every key is documented by example.
    expect(loaded.config.reviews.dataDir).toBe(resolve('data'));
    const reviews = { ...loaded.config.reviews, dataDir: (example.reviews as { dataDir: string }).dataDir };
    expect({ ...loaded.config, api: { ...loaded.config.api, clientId: '', clientSecret: '' }, reviews }).toEqual(example);
  });

  it('documents every key of config.example.json in docs/configuration.md', async () => {
    const example = JSON.parse(await readFile('config.example.json', 'utf8')) as unknown;
    const docs = await readFile('docs/configuration.md', 'utf8');
    const keys = new Set<string>();
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(visit);
      else if (typeof value === 'object' && value !== null) {
        for (const [key, child] of Object.entries(value)) {
          keys.add(key);
          visit(child);
        }
      }
    };
    visit(example);
    expect(keys.size).toBeGreaterThan(40);
    // A key is documented as `key`, or as the prefix of its children (`rateLimit.requests`).
    expect([...keys].filter((key) => !docs.includes(`${key}\``) && !docs.includes(`\`${key}.`))).toEqual([]);
  });

  it('loads config.example.json without credentials only when they are not required', async () => {
    const error = await loadError(loadConfig({ path: 'config.example.json', env: {} }));
    expect(error.problems.map((problem) => problem.path)).toEqual(['api.clientId', 'api.clientSecret']);
    await expect(loadConfig({ path: 'config.example.json', env: {}, requireCredentials: false })).resolves.toMatchObject({
      config: { servers: [{ name: 'ovddykvbs' }] },
    });
  });

  it('takes the path from GSA_BRIDGE_CONFIG, and --config over it', async () => {
    const fromEnv = await writeConfig(JSON.stringify(minimal({ log: { level: 'debug' } })), 'env.json');
    const fromFlag = await writeConfig(JSON.stringify(minimal({ log: { level: 'error' } })), 'flag.json');
    expect((await loadConfig({ env: { GSA_BRIDGE_CONFIG: fromEnv } })).config.log.level).toBe('debug');
    expect((await loadConfig({ path: fromFlag, env: { GSA_BRIDGE_CONFIG: fromEnv } })).config.log.level).toBe('error');
  });

  it('applies the environment over the file', async () => {
    const path = await writeConfig(JSON.stringify(minimal()));
    const { config } = await loadConfig({ path, env: { GSA_CLIENT_SECRET: 'env-secret', GSA_CLIENT_ID: '' } });
    expect(config.api).toMatchObject({ clientId: 'client-1', clientSecret: 'env-secret' });
  });

  it('reports a missing file', async () => {
    const error = await loadError(loadConfig({ env: { GSA_BRIDGE_CONFIG: join(dir, 'nope.json') } }));
    expect(error.message).toBe(`config file not found: ${join(dir, 'nope.json')} (set --config FILE or GSA_BRIDGE_CONFIG)`);
    expect(error.problems).toEqual([{ path: '', message: error.message }]);
    expect(error.file).toBe(join(dir, 'nope.json'));
  });

  it('names the default path when ./config.json is missing', async () => {
    const error = await loadError(loadConfig({ env: CREDENTIALS, cwd: dir }));
    expect(error.message).toBe('config file not found: ./config.json (set --config FILE or GSA_BRIDGE_CONFIG)');
  });

  it('reads ./config.json from the working directory by default', async () => {
    await writeConfig(JSON.stringify(minimal({ log: { level: 'trace' } })));
    const loaded = await loadConfig({ env: {}, cwd: dir });
    expect(loaded.path).toBe(join(dir, 'config.json'));
    expect(loaded.config.log.level).toBe('trace');
  });

  it('resolves a relative reviews.dataDir against the config file\'s directory, not the working directory', async () => {
    const path = await writeConfig(JSON.stringify(minimal({ reviews: { dataDir: 'state/reviews' } })));
    const elsewhere = join(dir, 'elsewhere');
    expect((await loadConfig({ path, env: {}, cwd: elsewhere })).config.reviews.dataDir).toBe(join(dir, 'state', 'reviews'));
    expect((await loadConfig({ path: 'config.json', env: {}, cwd: dir })).config.reviews.dataDir).toBe(join(dir, 'state', 'reviews'));
    const absolute = await writeConfig(JSON.stringify(minimal({ reviews: { dataDir: '/var/lib/gsa-bridge' } })), 'absolute.json');
    expect((await loadConfig({ path: absolute, env: {}, cwd: elsewhere })).config.reviews.dataDir).toBe(resolve('/var/lib/gsa-bridge'));
    // With no file at all, the working directory is all there is.
    const fromEnvironment = await loadConfig({ env: CREDENTIALS, requireFile: false, cwd: elsewhere });
    expect(fromEnvironment.config.reviews.dataDir).toBe(join(elsewhere, 'data'));
  });

  it('builds the configuration from the environment alone when no file is required', async () => {
    const loaded = await loadConfig({ env: { ...CREDENTIALS, GSA_API_URL: 'http://127.0.0.1:5000' }, requireFile: false, cwd: dir });
    expect(loaded.path).toBeNull();
    expect(loaded.config.servers).toEqual([]);
    expect(loaded.config.api).toMatchObject({ baseUrl: 'http://127.0.0.1:5000', clientId: 'id-from-env', clientSecret: 'secret-from-env' });
    const withoutCredentials = await loadError(loadConfig({ env: {}, requireFile: false, cwd: dir }));
    expect(withoutCredentials.problems.map((problem) => problem.path)).toEqual(['api.clientId', 'api.clientSecret']);
  });

  it('still requires a file the host named, even when no file is required', async () => {
    const named = join(dir, 'named.json');
    await loadError(loadConfig({ path: named, env: CREDENTIALS, requireFile: false }));
    await loadError(loadConfig({ env: { ...CREDENTIALS, GSA_BRIDGE_CONFIG: named }, requireFile: false }));
  });

  it('reports a file that cannot be read', async () => {
    const error = await loadError(loadConfig({ path: dir, env: CREDENTIALS }));
    expect(error.message).toBe(`config file could not be read: ${dir} (it is a directory)`);
  });

  it.each([
    ['a trailing comma', '{\n  "servers": [],\n  "log": { "level": "info", }\n}', 3, 27, 'trailing comma before "}" is not allowed'],
    ['a comment', '{\n  // the api\n  "servers": []\n}', 2, 3, 'comments are not allowed in JSON'],
    ['a missing comma', '{\n  "servers": []\n  "log": {}\n}', 3, 3, 'expected "," (missing comma?)'],
    ['a truncated file', '{\n  "servers": [', 2, 15, 'unexpected end of file: expected "]"'],
    ['an empty file', '', 1, 1, 'the file is empty'],
  ])('reports invalid JSON with its position: %s', async (_name, content, line, column, reason) => {
    const path = await writeConfig(content);
    const error = await loadError(loadConfig({ path, env: CREDENTIALS }));
    expect(error.message).toBe(`config file is not valid JSON: ${path}, line ${line}, column ${column}: ${reason}`);
  });

  it('does not quote the file when its JSON is invalid', async () => {
    const path = await writeConfig('{\n  "api": { "clientSecret": hunter2-unquoted }\n}');
    const error = await loadError(loadConfig({ path, env: CREDENTIALS }));
    expect(error.message).toBe(`config file is not valid JSON: ${path}, line 2, column 28: expected a value (text must be in double quotes)`);
    expect(String(error)).not.toContain('hunter2');
    expect(error.cause).toBeUndefined();
  });

  it('accepts a file saved with a byte-order mark', async () => {
    const path = await writeConfig(`\uFEFF${JSON.stringify(minimal())}`);
    expect((await loadConfig({ path, env: {} })).config.servers[0]!.name).toBe('ovddykvbs');
  });
});

describe('maskSecrets and collectSecrets', () => {
  const config = parseConfig(
    withServers(
      { name: 'a', adapters: [websocket({ token: 'ws-token' }), rcon({ password: 'rcon-password', notifyCommand: 'pm {steamId} {message}' })] },
      { name: 'b', adapters: [websocket({ port: 8788, token: '' })] },
    ),
    { GSA_CLIENT_SECRET: 'client-secret' },
  );

  it('masks every secret and nothing else', () => {
    const masked = maskSecrets(config);
    expect(masked.api.clientSecret).toBe('***');
    expect(masked.api.clientId).toBe('client-1');
    expect(masked.servers[0]!.adapters).toEqual([
      expect.objectContaining({ type: 'websocket', token: '***', port: 8787 }),
      expect.objectContaining({ type: 'rcon', password: '***', notifyCommand: 'pm {steamId} {message}' }),
    ]);
    const serialized = JSON.stringify(masked);
    for (const secret of ['client-secret', 'ws-token', 'rcon-password']) expect(serialized).not.toContain(secret);
  });

  it('leaves unset secrets empty so hosts can see they are unset', () => {
    expect(maskSecrets(config).servers[1]!.adapters[0]).toMatchObject({ token: '' });
    const withoutSecret = parseConfig({ servers: [] }, {}, { requireCredentials: false });
    expect(maskSecrets(withoutSecret).api.clientSecret).toBe('');
  });

  it('does not modify the configuration it masks', () => {
    maskSecrets(config);
    expect(config.api.clientSecret).toBe('client-secret');
    expect(config.servers[0]!.adapters[0]).toMatchObject({ token: 'ws-token' });
  });

  it('collects every non-empty secret, longest first', () => {
    expect(collectSecrets(config)).toEqual(['client-secret', 'rcon-password', 'ws-token']);
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['localhost', true],
    ['128.0.0.1', false],
    ['0.0.0.0', false],
    ['localhost.example.com', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe('describeCredentialSources', () => {
  const sourcesOf = (env: Record<string, string>): ReadonlyMap<string, string> => applyEnvironment(minimal(), env).sources;

  it('names the file when both keys come from it, and each variable that overrides a key', () => {
    expect(describeCredentialSources(sourcesOf({}), '/etc/gsa-bridge/config.json')).toBe('api.clientId and api.clientSecret in /etc/gsa-bridge/config.json');
    expect(describeCredentialSources(sourcesOf({ GSA_CLIENT_ID: 'x' }), '/c.json')).toBe(
      'api.clientSecret in /c.json and GSA_CLIENT_ID (set in the environment, it overrides api.clientId)',
    );
    expect(describeCredentialSources(sourcesOf(CREDENTIALS), '/c.json')).toBe(
      'GSA_CLIENT_ID and GSA_CLIENT_SECRET (set in the environment, they override api.clientId and api.clientSecret)',
    );
    expect(describeCredentialSources(sourcesOf({ GSA_CLIENT_SECRET: ' ' }), null)).toBe('api.clientId and api.clientSecret');
  });
});

describe('changedSettings', () => {
  const base = (): Record<string, unknown> =>
    minimal({ servers: [{ name: 'alpha', adapters: [websocket({ port: 8787 })] }, { name: 'beta', adapters: [] }] });

  it('lists the paths of settings that differ, never their values; adapters are left to the reload', () => {
    const before = parseConfig(base());
    const after = parseConfig({
      ...base(),
      api: { clientId: 'client-1', clientSecret: 'the-new-secret', timeoutMs: 2500 },
      mute: { defaultAlert: 'Quiet, please.' },
      servers: [{ name: 'alpha', allowActions: ['restart'], adapters: [websocket({ port: 9999 })] }, { name: 'beta', adapters: [] }],
    });
    const changed = changedSettings(before, after);
    expect(changed).toEqual(['api.clientSecret', 'api.timeoutMs', 'mute.defaultAlert', 'servers[0].allowActions']);
    expect(JSON.stringify(changed)).not.toContain('the-new-secret');
  });

  it('matches servers by name: a reordering is no change; added and removed servers are named', () => {
    const before = parseConfig(base());
    const reordered = parseConfig({ ...base(), servers: [{ name: 'beta', adapters: [] }, { name: 'alpha', adapters: [websocket({ port: 8787 })] }] });
    expect(changedSettings(before, reordered)).toEqual([]);
    const swapped = parseConfig({ ...base(), servers: [{ name: 'alpha', adapters: [] }, { name: 'gamma', adapters: [] }] });
    expect(changedSettings(before, swapped)).toEqual(['servers[1] (gamma, new)', 'servers (beta removed)']);
  });

  it('covers keys it was never told about (a section a later schema adds)', () => {
    const before = parseConfig(base());
    const withNewKey = { ...before, mute: { ...before.mute, gatedChannels: ['global'] } } as BridgeConfig;
    expect(changedSettings(before, withNewKey)).toEqual(['mute.gatedChannels']);
  });
});
