// `gsa-bridge emulator` takes its keys from a config file or the environment, never from argv: the System API key
// from `api.system.key` or GSA_SYSTEM_API_KEY beside the client id and secret; unset or empty keeps the demo key.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { optionsFromConfig, optionsFromEnvironment } from '../../src/cli/emulatorCommand.js';

const dirs: string[] = [];

afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function configFile(api: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gsa-bridge-emulator-keys-'));
  dirs.push(dir);
  const path = join(dir, 'config.json');
  await writeFile(path, JSON.stringify({ api: { clientId: 'file-client', clientSecret: 'file-secret', ...api }, servers: [{ name: 'alpha', id: 7, adapters: [] }] }));
  return path;
}

describe('emulator command keys', () => {
  it('takes GSA_SYSTEM_API_KEY as the system key; unset or empty keeps the demo key', () => {
    expect(optionsFromEnvironment({ env: { GSA_SYSTEM_API_KEY: 'from-env' } })).toStrictEqual({ systemKey: 'from-env' });
    expect(optionsFromEnvironment({ env: { GSA_SYSTEM_API_KEY: '', GSA_CLIENT_SECRET: 's' } })).toStrictEqual({ clientSecret: 's' });
    expect(optionsFromEnvironment({ env: {} })).toStrictEqual({});
  });

  it('takes api.system.key from --config, GSA_SYSTEM_API_KEY over it; none keeps the demo key', async () => {
    const withKey = await configFile({ system: { key: 'file-system-key' } });
    expect(await optionsFromConfig(withKey, { env: {} })).toMatchObject({ clientId: 'file-client', systemKey: 'file-system-key', servers: [{ name: 'alpha', id: 7 }] });
    expect(await optionsFromConfig(withKey, { env: { GSA_SYSTEM_API_KEY: 'env-key' } })).toMatchObject({ systemKey: 'env-key' });
    const without = await optionsFromConfig(await configFile({}), { env: {} });
    expect(without).not.toHaveProperty('systemKey');
  });
});
