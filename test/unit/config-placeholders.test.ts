// config check warns about every stand-in value of config.example.json a host may have left in place. The list of
// stand-ins lives in code; this test reads the example itself, so a new placeholder there cannot go unwarned.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { placeholderWarnings } from '../../src/cli/configPlaceholders.js';
import { parseConfig, type BridgeConfig } from '../../src/app/config.js';

const EXAMPLE = new URL('../../config.example.json', import.meta.url);

async function example(): Promise<BridgeConfig> {
  return parseConfig(JSON.parse(await readFile(EXAMPLE, 'utf8')) as unknown, {}, { requireCredentials: false });
}

describe('placeholders from config.example.json', () => {
  it('every non-empty stand-in of the example is warned about, by its path, never showing a secret', async () => {
    const config = await example();
    const warnings = placeholderWarnings(config);
    const expected: string[] = [];
    if (config.api.clientId !== '') expected.push('api.clientId');
    if (config.api.clientSecret !== '') expected.push('api.clientSecret');
    config.servers.forEach((server, index) => {
      expected.push(`servers[${index}].name`);
      if (server.id !== undefined) expected.push(`servers[${index}].id`);
      server.adapters.forEach((adapter, adapterIndex) => {
        if (adapter.type === 'websocket' && adapter.token !== undefined && adapter.token !== '') expected.push(`servers[${index}].adapters[${adapterIndex}].token`);
        if (adapter.type === 'rcon') expected.push(`servers[${index}].adapters[${adapterIndex}].password`);
      });
    });
    expect(warnings.map((warning) => warning.split(' ')[0])).toEqual(expected);
    const secrets = [config.api.clientSecret, ...config.servers.flatMap((server) => server.adapters.map((adapter) => (adapter.type === 'websocket' ? (adapter.token ?? '') : adapter.password)))];
    for (const secret of secrets.filter((value) => value !== '')) for (const warning of warnings) expect(warning).not.toContain(secret);
  });

  it('a config of real values has no warning', async () => {
    const config = await example();
    const real = structuredClone(config);
    real.api.clientId = 'c0ffee-client';
    real.api.clientSecret = 'a-real-secret';
    real.servers = real.servers.map((server) => ({
      ...server,
      name: 'abcdefghi',
      id: 9001,
      adapters: server.adapters.map((adapter) => (adapter.type === 'websocket' ? { ...adapter, token: 'f'.repeat(48) } : { ...adapter, password: 'rcon-real' })),
    }));
    expect(placeholderWarnings(real)).toEqual([]);
  });
});
