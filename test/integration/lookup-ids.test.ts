// Which id GSA is asked by (servers[].lookupIds), end to end: a real sidecar over a real mod WebSocket against the
// emulator, which records the id each mute call named. A player muted by Steam64 only, whose chat line carries both
// ids (as 7 Days to Die's and Squad's do), is blocked by default and let through with eos-first: the key decides.
// `both` costs two calls for a new player and none once cached. `mute-check` and the running sidecar agree, and both
// name the id they sent.
import { Writable } from 'node:stream';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/app/config.js';
import type { VerdictEvent } from '../../src/bridge/events.js';
import { silentLogger } from '../../src/log/logger.js';
import { startSidecar, type Sidecar } from '../../src/sidecar.js';
import { runCliInProcess } from '../fixtures/inProcessCli.js';
import { connectMod, type ModSocket } from '../fixtures/modSocket.js';
import { PATIENT_DECISION_TIMEOUT_MS } from '../fixtures/patience.js';
import { modListenerPort } from '../fixtures/sidecarHarness.js';
import { emulatorWorld } from '../fixtures/emulatorWorld.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER = 'ovddykvbs';
const TOKEN = 'lookup-ids-token';
const STEAM = '76561198000000281';
const EOS = '0002bfc5aaaa0000bbbb0000cccc0281';
/** One player, both ids on every line, as 7 Days to Die's and Squad's chat carries them. */
const BOTH_IDS = { steam_id: STEAM, eos_id: EOS, name: 'Crossplay' };

const world = emulatorWorld(SERVER);
const { sidecars, sockets } = world;

function configFile(dataDir: string, lookupIds?: string): Record<string, unknown> {
  return {
    api: { baseUrl: world.emulator.url, clientId: world.emulator.clientId, clientSecret: world.emulator.clientSecret, retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 } },
    servers: [{ name: SERVER, id: 4711, ...(lookupIds === undefined ? {} : { lookupIds }), adapters: [{ type: 'websocket', port: 0, token: TOKEN }] }],
    // Verdicts that need the service wait for it; answers keep for an hour, so nothing goes stale during a test.
    mute: { decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS, mutedTtlMs: 3_600_000, unmutedTtlMs: 3_600_000 },
    reviews: { dataDir },
  };
}

async function start(lookupIds?: string, logger = silentLogger()): Promise<{ sidecar: Sidecar; mod: ModSocket; verdicts: VerdictEvent[] }> {
  const sidecar = await startSidecar(parseConfig(configFile(await tempDir('lookup-ids'), lookupIds), {}), { logger });
  sidecars.push(sidecar);
  const verdicts: VerdictEvent[] = [];
  sidecar.events.on('verdict', (event) => verdicts.push(event));
  const mod = await connectMod(`ws://127.0.0.1:${String(modListenerPort(sidecar))}/`, TOKEN);
  sockets.push(mod);
  await mod.waitFor((frame) => frame.type === 'welcome');
  return { sidecar, mod, verdicts };
}

let lineNumber = 0;
async function chat(mod: ModSocket, player: Record<string, string>): Promise<Record<string, unknown>> {
  const id = `line-${String(++lineNumber)}`;
  mod.send({ type: 'chat', id, player, channel: 'global', text: 'hello' });
  return mod.waitFor((frame) => frame.id === id);
}

/** The player ids each mute call named, in arrival order, as the emulator read them from the body. */
const askedAtEmulator = (): unknown[] => world.emulator.calls.filter((call) => call.endpoint === 'mute').map((call) => call.player);

describe('servers[].lookupIds: which id a player with both is asked by', () => {
  it('asks by the Steam64 by default, so a player muted by Steam64 only is blocked', async () => {
    world.emulator.mute(SERVER, STEAM, 'Muted on Steam');
    const { sidecar, mod, verdicts } = await start();
    expect(await chat(mod, BOTH_IDS)).toMatchObject({ allow: false, reason: 'muted', alert: 'Muted on Steam' });
    expect(askedAtEmulator()).toEqual([{ steam_id: STEAM }]);
    // The answer is kept under both ids: a line carrying only the EOS id is decided from the cache.
    expect(await chat(mod, { eos_id: EOS, name: 'Crossplay' })).toMatchObject({ allow: false, reason: 'muted' });
    expect(verdicts.at(-1)).toMatchObject({ source: 'cache', asked: { kind: 'steam', id: STEAM } });
    expect(askedAtEmulator()).toHaveLength(1);
    expect(sidecar.config.servers[0]?.lookupIds).toBe('steam-first');
  });

  it('with eos-first asks by the EOS id, which the emulator does not know muted: the same line is allowed', async () => {
    world.emulator.mute(SERVER, STEAM, 'Muted on Steam');
    const { mod } = await start('eos-first');
    expect(await chat(mod, BOTH_IDS)).toMatchObject({ allow: true, reason: 'ok' });
    expect(askedAtEmulator()).toEqual([{ eos_id: EOS }]);
  });

  it('asks a player with one id by that id, whatever the rule', async () => {
    const { mod } = await start('eos-first');
    expect(await chat(mod, { steam_id: STEAM, name: 'Steam only' })).toMatchObject({ allow: true, reason: 'ok' });
    expect(askedAtEmulator()).toEqual([{ steam_id: STEAM }]);
  });

  it('with both: muted when either id is, two calls for a new player, none once cached', async () => {
    world.emulator.mute(SERVER, EOS, 'Muted on Epic');
    const { mod, verdicts } = await start('both');
    expect(await chat(mod, BOTH_IDS)).toMatchObject({ allow: false, reason: 'muted', alert: 'Muted on Epic' });
    expect(askedAtEmulator()).toEqual([{ steam_id: STEAM }, { eos_id: EOS }]);
    expect(verdicts.at(-1)).toMatchObject({ reason: 'muted', source: 'service', asked: { kind: 'eos', id: EOS } });
    // Cached under both ids: neither this line nor one carrying the Steam64 alone asks again.
    expect(await chat(mod, BOTH_IDS)).toMatchObject({ allow: false, reason: 'muted' });
    expect(await chat(mod, { steam_id: STEAM, name: 'Crossplay' })).toMatchObject({ allow: false, reason: 'muted' });
    expect(verdicts.slice(-2).map((event) => event.source)).toEqual(['cache', 'cache']);
    expect(askedAtEmulator()).toHaveLength(2);

    // Muted by the Steam64 alone counts too; a player muted by neither is allowed after both answered.
    const other = { steam_id: '76561198000000282', eos_id: '0002bfc5aaaa0000bbbb0000cccc0282', name: 'Other' };
    world.emulator.mute(SERVER, other.steam_id, 'Muted on Steam');
    expect(await chat(mod, other)).toMatchObject({ allow: false, reason: 'muted', alert: 'Muted on Steam' });
    const clean = { steam_id: '76561198000000283', eos_id: '0002bfc5aaaa0000bbbb0000cccc0283', name: 'Clean' };
    expect(await chat(mod, clean)).toMatchObject({ allow: true, reason: 'ok' });
    expect(askedAtEmulator()).toHaveLength(6);
  });

  it('sends a review of a player with both ids by the first id the rule asks by', async () => {
    for (const [rule, expected] of [
      [undefined, { steam_id: STEAM }],
      ['eos-first', { eos_id: EOS }],
      ['both', { steam_id: STEAM }],
    ] as const) {
      const { mod } = await start(rule);
      const id = `review-${String(rule)}`;
      mod.send({ type: 'review', id, player: BOTH_IDS, stars: 5, comment: 'Fair admins' });
      expect(await mod.waitFor((frame) => frame.type === 'review.result' && frame.id === id)).toMatchObject({ ok: true });
      expect(world.emulator.calls.filter((call) => call.endpoint === 'review').map((call) => call.player)).toEqual([expected]);
      await Promise.all(sockets.splice(0).map((socket) => socket.close()));
      await Promise.all(sidecars.splice(0).map((sidecar) => sidecar.stop()));
      world.emulator.reset();
    }
  });

  it('a reload that changes it applies to the lookups from then on, keeping what is cached', async () => {
    world.emulator.mute(SERVER, STEAM, 'Muted on Steam');
    const dataDir = await tempDir('lookup-ids-reload');
    const sidecar = await startSidecar(parseConfig(configFile(dataDir), {}), { logger: silentLogger() });
    sidecars.push(sidecar);
    const mod = await connectMod(`ws://127.0.0.1:${String(modListenerPort(sidecar))}/`, TOKEN);
    sockets.push(mod);
    await mod.waitFor((frame) => frame.type === 'welcome');
    expect(await chat(mod, BOTH_IDS)).toMatchObject({ allow: false, reason: 'muted' });

    const report = await sidecar.reconfigure(parseConfig(configFile(dataDir, 'eos-first'), {}));
    expect(report).toMatchObject({ settingsChanged: ['servers[0].lookupIds'], restarted: [], muteCacheCleared: false });
    // The cached answer stands; a new player is asked by the EOS id now.
    expect(await chat(mod, BOTH_IDS)).toMatchObject({ allow: false, reason: 'muted' });
    const newcomer = { steam_id: '76561198000000284', eos_id: '0002bfc5aaaa0000bbbb0000cccc0284', name: 'Newcomer' };
    world.emulator.mute(SERVER, newcomer.steam_id, 'Muted on Steam');
    expect(await chat(mod, newcomer)).toMatchObject({ allow: true, reason: 'ok' });
    expect(askedAtEmulator()).toEqual([{ steam_id: STEAM }, { eos_id: newcomer.eos_id }]);
  });
});

describe('mute-check and the running sidecar agree, and name the id they sent', () => {
  it('both ask by the Steam64 and say muted; the log and the JSON name steam_id', async () => {
    world.emulator.mute(SERVER, STEAM, 'Muted on Steam');
    const logLines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line !== '') logLines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const { mod } = await start(undefined, pino({ level: 'debug' }, sink));
    expect(await chat(mod, BOTH_IDS)).toMatchObject({ allow: false, reason: 'muted' });
    // The client's line about the lookup names the id it sent and its kind, not the one it did not.
    const lookupLines = logLines.map((line) => String(line.msg)).filter((message) => message.startsWith('mute check'));
    expect(lookupLines).toEqual([`mute check ${SERVER}/steam_id ${STEAM}: 200`]);

    const dir = await tempDir('lookup-ids-cli');
    const path = join(dir, 'config.json');
    await writeFile(path, JSON.stringify(configFile(dir)));
    const debug = { GSA_BRIDGE_LOG_LEVEL: 'debug' };
    const bySteam = await runCliInProcess(['mute-check', '--config', path, '--server', SERVER, '--steam-id', STEAM], debug);
    expect(bySteam.code).toBe(0);
    expect(JSON.parse(bySteam.stdout)).toEqual({
      server: SERVER,
      steam_id: STEAM,
      eos_id: null,
      muted: true,
      alert: 'Muted on Steam',
      asked: { steam_id: STEAM },
      muted_by: { steam_id: STEAM },
      lookup_ids: 'steam-first',
    });
    expect(bySteam.stderr).toContain(`mute check ${SERVER}/steam_id ${STEAM}: 200`);

    // Given both ids, it asks as the sidecar does for that server (the config's rule, steam-first here).
    const byBoth = await runCliInProcess(['mute-check', '--config', path, '--server', SERVER, '--steam-id', STEAM, '--eos-id', EOS], debug);
    expect(JSON.parse(byBoth.stdout)).toMatchObject({ steam_id: STEAM, eos_id: EOS, muted: true, asked: { steam_id: STEAM }, lookup_ids: 'steam-first' });
    expect(byBoth.stderr).not.toContain(`eos_id ${EOS}`);
    expect(askedAtEmulator()).toEqual([{ steam_id: STEAM }, { steam_id: STEAM }, { steam_id: STEAM }]);
  });

  it('follows --lookup-ids over the config, and with both names every id it asked', async () => {
    world.emulator.mute(SERVER, STEAM, 'Muted on Steam');
    const dir = await tempDir('lookup-ids-cli-rule');
    const path = join(dir, 'config.json');
    await writeFile(path, JSON.stringify(configFile(dir, 'both')));
    const eosFirst = await runCliInProcess(['mute-check', '--config', path, '--server', SERVER, '--steam-id', STEAM, '--eos-id', EOS, '--lookup-ids', 'eos-first']);
    expect(JSON.parse(eosFirst.stdout)).toMatchObject({ muted: false, alert: null, asked: { eos_id: EOS }, muted_by: null, lookup_ids: 'eos-first' });
    const both = await runCliInProcess(['mute-check', '--config', path, '--server', SERVER, '--steam-id', STEAM, '--eos-id', EOS]);
    expect(JSON.parse(both.stdout)).toMatchObject({ muted: true, alert: 'Muted on Steam', asked: { steam_id: STEAM, eos_id: EOS }, muted_by: { steam_id: STEAM }, lookup_ids: 'both' });
    expect(askedAtEmulator()).toEqual([{ eos_id: EOS }, { steam_id: STEAM }, { eos_id: EOS }]);

    // A bad id is refused even when the rule would not ask by it; a bad rule is a usage error. Nothing is sent.
    const callsBefore = world.emulator.calls.length;
    const badEos = await runCliInProcess(['mute-check', '--config', path, '--server', SERVER, '--steam-id', STEAM, '--eos-id', 'zz', '--lookup-ids', 'steam-first']);
    expect(badEos.code).toBe(2);
    expect(badEos.stderr).toMatch(/eos_id: must be 32 hexadecimal/);
    const badRule = await runCliInProcess(['mute-check', '--config', path, '--server', SERVER, '--steam-id', STEAM, '--lookup-ids', 'eos']);
    expect(badRule.code).toBe(2);
    expect(badRule.stderr).toMatch(/--lookup-ids must be one of steam-first, eos-first, both/);
    expect(world.emulator.calls).toHaveLength(callsBefore);
  });
});
