// What a mod-only host's `gsa-bridge run` loads: a real process with a websocket-only config (no Redis, no RCON)
// against the emulator, with a preload (through NODE_OPTIONS, so the command line is the host's) that records every
// ES module the loader loads and every CommonJS file in require's cache at exit. A long-lived process pays for every
// module it ever loaded: the Redis driver, the RCON clients and the emulator must stay out of it, and so must what
// undici's and prom-client's indexes load beside what the sidecar uses (fetch, WebSocket, the cluster aggregator).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { patientMs } from '../fixtures/patience.js';
import { spawnSidecar, waitForOutput } from '../fixtures/sidecarProcess.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER = 'ovddykvbs';
const CLIENT_SECRET = 'client-secret-footprint-3b1d';

/** Module customization hooks (they run on the loader's own thread): each ES module's URL, as it loads. */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, nextLoad) {
  appendFileSync(process.env.LOADED_MODULES_FILE, url + '\\n');
  return nextLoad(url, context);
}`;

/** The preload: registers the hooks, and at exit adds the CommonJS files (which require each other outside them). */
const PRELOAD = `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});
process.on('exit', () => {
  const files = Object.keys(createRequire(process.cwd() + '/').cache);
  appendFileSync(process.env.LOADED_MODULES_FILE, files.map((file) => 'file://' + file + '\\n').join(''));
});`;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('gsa-bridge run with a websocket-only config', () => {
  it('loads neither the Redis driver, nor the RCON clients, nor the regular expression engine, nor the emulator, nor undici\'s and prom-client\'s indexes', async () => {
    const emulator = await GsaEmulator.start({ clientSecret: CLIENT_SECRET, servers: [{ name: SERVER, id: 4711 }] });
    cleanups.push(() => emulator.close());
    const dir = await tempDir('run-footprint');
    const configPath = join(dir, 'config.json');
    const modulesFile = join(dir, 'modules.txt');
    await writeFile(
      configPath,
      JSON.stringify({
        api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: CLIENT_SECRET },
        servers: [{ name: SERVER, id: 4711, adapters: [{ type: 'websocket', host: '127.0.0.1', port: 0, token: 'mod-token-footprint-0123456789' }] }],
        reviews: { dataDir: 'data' },
        http: { port: 0 },
      }),
    );
    const sidecar = spawnSidecar(configPath, {
      NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(PRELOAD)}`,
      LOADED_MODULES_FILE: modulesFile,
    });
    cleanups.push(async () => {
      if (sidecar.child.exitCode === null && sidecar.child.signalCode === null) sidecar.child.kill('SIGKILL');
      await sidecar.exited();
    });
    await waitForOutput(sidecar, /gsa-bridge running/);
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);

    const loaded = (await readFile(modulesFile, 'utf8')).split('\n').filter((line) => line !== '');
    const loadedAny = (part: string): string[] => loaded.filter((url) => url.includes(part));
    // The record works: the adapter the config names, and the CommonJS dependencies, are in it.
    expect(loadedAny('/adapters/websocket/websocketAdapter.js')).toHaveLength(1);
    expect(loadedAny('/node_modules/ws/')).not.toEqual([]);
    expect(loadedAny('/node_modules/@redis/')).toEqual([]);
    for (const rconClient of ['rconAdapter.js', 'rconConnection.js', 'sourceRconClient.js', 'webRconClient.js', 'telnetClient.js', 'logTail.js']) {
      expect(loadedAny(`/adapters/rcon/${rconClient}`)).toEqual([]);
    }
    // The rcon schema is eager (the config is validated against it), and so is the chatPattern check it holds; the
    // regular expression engine behind it is required only when a config gives a pattern.
    expect(loadedAny('/adapters/rcon/reading/chatPattern.js')).toHaveLength(1);
    expect(loadedAny('/node_modules/re2js/')).toEqual([]);
    expect(loadedAny('/src/gsaEmulator/')).toEqual([]);
    expect(loadedAny('/src/gameEmulator/')).toEqual([]);
    expect(loadedAny('/src/cli/demoCommand.js')).toEqual([]);
    // Undici and prom-client are loaded from their lib files (src/net/undiciCore.ts, src/ops/promClientCore.ts), not
    // their indexes: no fetch, WebSocket, EventSource or cache stores, no mock agents; no cluster aggregator, no
    // Pushgateway. The files the sidecar does use are there (the layout those modules import still holds).
    expect(loadedAny('/node_modules/undici/lib/dispatcher/pool.js')).not.toEqual([]);
    expect(loadedAny('/node_modules/undici/lib/api/api-request.js')).not.toEqual([]);
    expect(loadedAny('/node_modules/undici/index.js')).toEqual([]);
    expect(loadedAny('/node_modules/undici/lib/web/')).toEqual([]);
    expect(loadedAny('/node_modules/undici/lib/mock/')).toEqual([]);
    expect(loadedAny('/node_modules/undici/lib/cache/')).toEqual([]);
    expect(loadedAny('/node_modules/prom-client/lib/registry.js')).not.toEqual([]);
    expect(loadedAny('/node_modules/prom-client/lib/metrics/')).not.toEqual([]);
    expect(loadedAny('/node_modules/prom-client/index.js')).toEqual([]);
    expect(loadedAny('/node_modules/prom-client/lib/cluster.js')).toEqual([]);
    expect(loadedAny('/node_modules/prom-client/lib/pushgateway.js')).toEqual([]);
  }, patientMs(30_000));
});
