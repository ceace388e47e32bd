// The sidecar as a host runs it: `gsa-bridge run` in its own process, a mod over a real WebSocket, the
// emulator as GSA. Covers SIGKILL with reviews acknowledged while GSA is down, a torn journal tail on
// restart, SIGTERM and SIGHUP, and secrets in the log.
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useProcessHarness } from '../fixtures/processHarness.js';
import { waitForOutput } from '../fixtures/sidecarProcess.js';
import { tempDir } from '../fixtures/tempDir.js';
import { patientMs } from '../fixtures/patience.js';

const SERVER = 'ovddykvbs';
const TOKEN = 'mod-token-7c0ffee';
const CLIENT_SECRET = 'client-secret-d00dfeed';

const harness = useProcessHarness({ server: SERVER, clientSecret: CLIENT_SECRET, modToken: TOKEN, label: 'sidecar' });
const { writeSetup, startGsa, startSidecar, connect } = harness;

function steamId(index: number): string {
  return `7656119${String(index).padStart(10, '0')}`;
}

async function waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('crash safety', () => {
  it('delivers every acknowledged review after SIGKILL while GSA was down, with no duplicates', async () => {
    const setup = await writeSetup();
    const first = await startSidecar(setup); // GSA is down: nothing listens on gsaPort yet
    const mod = await connect(first);
    const count = 300;
    for (let index = 0; index < count; index++) {
      mod.send({ type: 'review', id: `r${index}`, player: { steam_id: steamId(index) }, stars: (index % 5) + 1, comment: `review #${index} ✓` });
    }
    await waitUntil(() => mod.received.filter((frame) => frame.type === 'review.queued').length === count, patientMs(20_000), 'every review.queued');
    const acknowledged = new Set(mod.received.filter((frame) => frame.type === 'review.queued').map((frame) => frame.id));
    expect(acknowledged.size).toBe(count);

    first.child.kill('SIGKILL');
    expect(await first.exited()).toBe('SIGKILL');
    await mod.close();

    const emulator = await startGsa(setup);
    const second = await startSidecar(setup);
    await waitUntil(() => emulator.reviews.length >= count, 30_000, `${count} reviews at the emulator`);
    // No sleep for duplicates: a later review queues behind anything replayed twice, so once it has arrived every
    // such send has begun, and SIGTERM waits for sends in flight before the process exits.
    const late = await connect(second);
    late.send({ type: 'review', id: 'last', player: { steam_id: steamId(count) }, stars: 5, comment: 'the last review' });
    await waitUntil(() => emulator.reviews.some((review) => review.comment === 'the last review'), patientMs(10_000), 'the later review at the emulator');
    second.child.kill('SIGTERM');
    expect(await second.exited()).toBe(0);
    const arrived = emulator.reviews.map((review) => review.comment).filter((comment) => comment !== 'the last review');
    const duplicates = arrived.length - new Set(arrived).size;
    expect(duplicates).toBe(0);
    expect(new Set(arrived)).toEqual(new Set(Array.from({ length: count }, (_, index) => `review #${index} ✓`)));
    const byComment = new Map(emulator.reviews.map((review) => [review.comment, review]));
    expect(byComment.get('review #7 ✓')).toMatchObject({ steamId: steamId(7), stars: 3 });
  }, patientMs(60_000));

  it('keeps every complete record when the journal tail is torn, and logs what it dropped', async () => {
    const setup = await writeSetup();
    const first = await startSidecar(setup);
    const mod = await connect(first);
    for (let index = 0; index < 5; index++) {
      mod.send({ type: 'review', id: `t${index}`, player: { steam_id: steamId(index) }, stars: 4, comment: `torn #${index}` });
    }
    await waitUntil(() => mod.received.filter((frame) => frame.type === 'review.queued').length === 5, patientMs(10_000), 'five review.queued');
    first.child.kill('SIGKILL');
    await first.exited();
    await mod.close();

    const journal = join(setup.dataDir, 'reviews.jsonl');
    const before = await readFile(journal, 'utf8');
    await appendFile(journal, '{"v":1,"op":"queued","id":"half-writ');

    const emulator = await startGsa(setup);
    const second = await startSidecar(setup);
    await waitUntil(() => emulator.reviews.length >= 5, patientMs(20_000), 'five reviews at the emulator');
    expect(new Set(emulator.reviews.map((review) => review.comment))).toEqual(new Set([0, 1, 2, 3, 4].map((index) => `torn #${index}`)));
    expect(second.output()).toMatch(/dropped|torn|truncat/i);
    expect(before.length).toBeGreaterThan(0);
  }, patientMs(40_000));
});

describe('gsa-bridge run', () => {
  it('answers a mod, and on SIGTERM finishes and exits 0', async () => {
    const setup = await writeSetup();
    const emulator = await startGsa(setup);
    emulator.mute(SERVER, steamId(2), 'Muted by admin');
    const sidecar = await startSidecar(setup);
    const mod = await connect(sidecar);
    mod.send({ type: 'chat', id: 'c1', player: { steam_id: steamId(1) }, channel: 'global', text: 'hi' });
    mod.send({ type: 'chat', id: 'c2', player: { steam_id: steamId(2) }, channel: 'global', text: 'hi' });
    expect(await mod.waitFor((frame) => frame.id === 'c1')).toMatchObject({ type: 'chat.verdict', allow: true, reason: 'ok' });
    expect(await mod.waitFor((frame) => frame.id === 'c2')).toMatchObject({ type: 'chat.verdict', allow: false, reason: 'muted', alert: 'Muted by admin' });

    const started = Date.now();
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
    // The contract's 10 s (the process's own stop deadline is 9 s), stretched on a busy machine: a start of the
    // child's shutdown can wait seconds for a core there.
    expect(Date.now() - started).toBeLessThan(patientMs(10_000));
  });

  it('keeps running on SIGHUP with an invalid file, logging why', async () => {
    const setup = await writeSetup();
    await startGsa(setup);
    const sidecar = await startSidecar(setup);
    const valid = await readFile(setup.configPath, 'utf8');
    await writeFile(setup.configPath, '{ "api": { "flavor": "v9" }, "servers": [] }');
    sidecar.child.kill('SIGHUP');
    await waitForOutput(sidecar, /config file is invalid; keeping the running config/);
    expect(sidecar.output()).toContain('api.flavor: must be one of: v1, v2');
    const mod = await connect(sidecar);
    mod.send({ type: 'ping', id: 'p' });
    expect(await mod.waitFor((frame) => frame.type === 'pong')).toMatchObject({ type: 'pong' });
    await writeFile(setup.configPath, valid);
  });

  it('exits 2 with the problem for an invalid config', async () => {
    const dir = await tempDir('bad');
    const path = join(dir, 'config.json');
    await writeFile(path, '{ "api": { "clientId": "a", "clientSecret": "b" }, "servers": [{ "name": "x", "adapters": [{ "type": "websocket", "port": -1 }] }] }');
    const sidecar = harness.spawn(path);
    expect(await sidecar.exited()).toBe(2);
    expect(sidecar.output()).toContain('servers[0].adapters[0].port: must be 0–65535 (0: any free port)');
  });

  it('never logs the client secret or the mod token, even at debug level', async () => {
    const setup = await writeSetup();
    const emulator = await startGsa(setup);
    emulator.injectFault({ kind: 'status', status: 500, message: `echo ${CLIENT_SECRET}` });
    const sidecar = await startSidecar(setup);
    const mod = await connect(sidecar);
    mod.send({ type: 'chat', id: 'c', player: { steam_id: steamId(1) }, channel: 'global', text: TOKEN });
    mod.send({ type: 'review', id: 'r', player: { steam_id: steamId(1) }, stars: 5, comment: 'fine' });
    await mod.waitFor((frame) => frame.type === 'review.result');
    sidecar.child.kill('SIGTERM');
    await sidecar.exited();
    const log = sidecar.output();
    expect(log.length).toBeGreaterThan(200);
    expect(log).not.toContain(CLIENT_SECRET);
    expect(log).not.toContain(TOKEN);
  });
});
