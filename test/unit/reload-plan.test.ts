// The plan of a reload on its own, with no sidecar running: adapters matched by `<server>/<id>` whatever their
// position in the file, key order not counted as a change, servers coming and going, and when the service client,
// the shared budget and the mute cache must go.
import { describe, expect, it } from 'vitest';
import { parseConfig, type BridgeConfig } from '../../src/app/config.js';
import { planReload, plannedAdapters } from '../../src/app/reloadPlan.js';

type Raw = Record<string, unknown>;

const API = { baseUrl: 'http://127.0.0.1:1', clientId: 'id', clientSecret: 'secret' };

function config(servers: Raw[], extra: Raw = {}): BridgeConfig {
  return parseConfig({ api: API, servers, ...extra }, {});
}

function websocket(id: string, more: Raw = {}): Raw {
  return { type: 'websocket', id, port: 0, ...more };
}

function plan(before: BridgeConfig, after: BridgeConfig) {
  return planReload({ config: before, adapters: plannedAdapters(before) }, { config: after, adapters: plannedAdapters(after) });
}

const keys = (list: readonly { key: string }[]): string[] => list.map((entry) => entry.key);

describe('the plan of a reload', () => {
  it('sorts adapters into added, removed, changed and unchanged by server and id, not by position', () => {
    const before = config([{ name: 'alpha', adapters: [websocket('kept'), websocket('changed'), websocket('gone')] }]);
    const after = config([{ name: 'alpha', adapters: [websocket('changed', { maxFrameBytes: 1024 }), websocket('new'), websocket('kept')] }]);
    const planned = plan(before, after);
    expect(keys(planned.added)).toEqual(['alpha/new']);
    expect(keys(planned.removed)).toEqual(['alpha/gone']);
    expect(keys(planned.changed)).toEqual(['alpha/changed']);
    expect(keys(planned.unchanged)).toEqual(['alpha/kept']);
    expect(keys(planned.next)).toEqual(['alpha/changed', 'alpha/new', 'alpha/kept']);
    expect(planned.service).toEqual({ replaceClient: false, replaceSharedKey: false, replaceSystem: false, clearMuteCache: false });
  });

  it('does not count the order of keys in the file as a change', () => {
    const before = config([{ name: 'alpha', adapters: [{ type: 'websocket', id: 'mod', port: 0, token: 't' }] }]);
    const after = config([{ name: 'alpha', adapters: [{ token: 't', port: 0, id: 'mod', type: 'websocket' }] }]);
    expect(keys(plan(before, after).unchanged)).toEqual(['alpha/mod']);
  });

  it('matches derived ids, so an adapter without an id that keeps its port keeps running', () => {
    const before = config([{ name: 'alpha', adapters: [{ type: 'websocket', port: 8787 }, { type: 'websocket', port: 8788 }] }]);
    const after = config([{ name: 'alpha', adapters: [{ type: 'websocket', port: 8788 }, { type: 'websocket', port: 8787 }] }]);
    const planned = plan(before, after);
    expect(keys(planned.unchanged)).toEqual(['alpha/alpha-websocket-8788', 'alpha/alpha-websocket-8787']);
    expect(planned.added).toEqual([]);
    expect(planned.removed).toEqual([]);
  });

  it('names the servers a reload adds and removes; one adapter id on two servers is two adapters', () => {
    const before = config([
      { name: 'alpha', adapters: [websocket('a-mod')] },
      { name: 'beta', adapters: [websocket('b-mod')] },
    ]);
    const after = config([
      { name: 'alpha', adapters: [websocket('a-mod')] },
      { name: 'gamma', adapters: [websocket('b-mod')] },
    ]);
    const planned = plan(before, after);
    expect(planned.serversAdded).toEqual(['gamma']);
    expect(planned.serversRemoved).toEqual(['beta']);
    expect(keys(planned.added)).toEqual(['gamma/b-mod']);
    expect(keys(planned.removed)).toEqual(['beta/b-mod']);
  });

  it('applies a port override by id before comparing, so an overridden adapter stays unchanged', () => {
    const before = config([{ name: 'alpha', adapters: [{ type: 'websocket', id: 'mod', port: 8787 }] }]);
    const overrides = new Map([['mod', 0]]);
    const planned = planReload({ config: before, adapters: plannedAdapters(before, overrides) }, { config: before, adapters: plannedAdapters(before, overrides) });
    expect(planned.next[0]?.options).toMatchObject({ port: 0 });
    expect(keys(planned.unchanged)).toEqual(['alpha/mod']);
  });

  it('replaces the client when the api section changes, and empties the mute cache only for another key or service', () => {
    const servers = [{ name: 'alpha', adapters: [] }];
    const before = config(servers);
    expect(plan(before, config(servers, { api: { ...API, timeoutMs: 1234 } })).service).toEqual({ replaceClient: true, replaceSharedKey: false, replaceSystem: false, clearMuteCache: false });
    expect(plan(before, config(servers, { api: { ...API, clientSecret: 'other' } })).service).toEqual({ replaceClient: true, replaceSharedKey: false, replaceSystem: false, clearMuteCache: true });
    expect(plan(before, config(servers, { api: { ...API, baseUrl: 'http://127.0.0.1:2' } })).service).toMatchObject({ clearMuteCache: true });
    // Settings outside api the client does not read leave it alone.
    expect(plan(before, config(servers, { mute: { defaultAlert: 'Quiet.' } })).service).toEqual({ replaceClient: false, replaceSharedKey: false, replaceSystem: false, clearMuteCache: false });
  });

  it('replaces the shared budget only when its own settings change', () => {
    const servers = [{ name: 'alpha', adapters: [] }];
    const shared = { redis: 'redis://127.0.0.1:6379/0', nodes: 2 };
    const before = config(servers, { api: { ...API, rateLimit: { shared } } });
    expect(plan(before, config(servers, { api: { ...API, timeoutMs: 1234, rateLimit: { shared } } })).service).toMatchObject({ replaceClient: true, replaceSharedKey: false });
    expect(plan(before, config(servers, { api: { ...API, rateLimit: { shared: { ...shared, nodes: 3 } } } })).service).toMatchObject({ replaceClient: true, replaceSharedKey: true });
    expect(plan(before, config(servers, { api: API })).service).toMatchObject({ replaceClient: true, replaceSharedKey: true });
  });

  it('replaces the System API client when api.system changes, and empties the mute cache only for another System API key', () => {
    const servers = [{ name: 'alpha', adapters: [] }];
    const withKey = (system: Record<string, unknown>) => config(servers, { api: { ...API, system } });
    const before = withKey({ key: 'sys-1' });
    expect(plan(before, withKey({ key: 'sys-1' })).service).toEqual({ replaceClient: false, replaceSharedKey: false, replaceSystem: false, clearMuteCache: false });
    expect(plan(before, withKey({ key: 'sys-1', rateLimit: { requests: 50 } })).service).toEqual({ replaceClient: false, replaceSharedKey: false, replaceSystem: true, clearMuteCache: false });
    expect(plan(before, withKey({ key: 'sys-2' })).service).toMatchObject({ replaceSystem: true, clearMuteCache: true });
    expect(plan(before, config(servers)).service).toMatchObject({ replaceSystem: true, clearMuteCache: true });
    expect(plan(config(servers), before).service).toMatchObject({ replaceSystem: true, clearMuteCache: true });
  });
});
