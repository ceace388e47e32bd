// Reviews that must never be lost, as a host runs the sidecar: real `gsa-bridge run` processes on one data
// directory (the second is refused and changes nothing; SIGKILL and an immediate restart works), the review
// cooldown across a restart and a SIGHUP, and `gsa-bridge reviews list|retry` with and without a running sidecar.
import { createHash } from 'node:crypto';
import { chown, mkdir, readdir, readFile, realpath, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import type { ModSocket } from '../fixtures/modSocket.js';
import { AS_NOBODY, NEW_NETWORK_NAMESPACE, networkNamespaceUnavailable, spawnSquatter } from '../fixtures/lockProcess.js';
import { useProcessHarness, type ProcessSetup } from '../fixtures/processHarness.js';
import { runCliInProcess } from '../fixtures/inProcessCli.js';
import { patientMs } from '../fixtures/patience.js';

const SERVER = 'ovddykvbs';
const TOKEN = 'mod-token-lock-4b1d';
const CLIENT_SECRET = 'client-secret-lock-77aa';
const ALICE = '76561198000000001';
const BOB = '76561198000000002';

const noNamespace = networkNamespaceUnavailable();
if (noNamespace !== undefined) console.warn(`reviews-lock: skipping the second run in another network namespace: ${noNamespace}`);
const canSquatAsNobody = process.platform === 'linux' && process.getuid?.() === 0;
if (!canSquatAsNobody) console.warn('reviews-lock: skipping the squatter run as nobody: it needs Linux (abstract sockets) and root (setpriv)');

const harness = useProcessHarness({ server: SERVER, clientSecret: CLIENT_SECRET, modToken: TOKEN, label: 'lock' });
const { writeSetup, startGsa, startSidecar, connect } = harness;

/** Sends one review and returns the sidecar's answer to it (review.queued or an error). */
async function review(mod: ModSocket, id: string, steamId: string, comment: string): Promise<Record<string, unknown>> {
  mod.send({ type: 'review', id, player: { steam_id: steamId }, stars: 4, comment });
  return mod.waitFor((frame) => frame.id === id && (frame.type === 'review.queued' || frame.type === 'error'));
}

async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = patientMs(15_000)): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The real CLI entry, in-process, with an empty environment. */
const cli = runCliInProcess;

interface ListedReview {
  readonly id: string;
  readonly state: string;
  readonly comment: string;
  readonly reason: { readonly code: string } | null;
  readonly held?: boolean;
}

async function listed(setup: ProcessSetup, ...args: string[]): Promise<ListedReview[]> {
  const run = await cli(['reviews', 'list', '--json', ...args, '--config', setup.configPath]);
  expect(run.code).toBe(0);
  return run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ListedReview);
}

describe('one sidecar per data directory', () => {
  it('refuses a second run on the same directory at once, naming it and the holder, and changes nothing', async () => {
    const setup = await writeSetup();
    const emulator = await startGsa(setup);
    const first = await startSidecar(setup);
    expect(first.output()).toContain(`data directory ${setup.dataDir} locked`);
    expect(first.output()).toContain(`review outbox: ${setup.dataDir} (`);
    const mod = await connect(first);
    for (let index = 0; index < 3; index++) expect(await review(mod, `a${index}`, `7656119800000001${index}`, `kept ${index}`)).toMatchObject({ type: 'review.queued' });
    await waitUntil(() => emulator.reviews.length === 3, 'three deliveries');
    // Mostly finished records: a journal the old code compacted (renamed over) on open.
    const journal = join(setup.dataDir, 'reviews.jsonl');
    await waitUntil(async () => (await readFile(journal, 'utf8')).split('\n').filter((line) => line.includes('"op":"delivered"')).length === 3, 'three delivered records');
    const before = { bytes: await readFile(journal), inode: (await stat(journal)).ino };

    const second = harness.spawn(setup.configPath);
    expect(await second.exited()).toBe(2);
    expect(second.output()).toContain(`the data directory ${setup.dataDir} is in use by another gsa-bridge (pid ${first.child.pid ?? 0}, host ${hostname()}, version ${VERSION},`);
    expect(second.output()).toContain('Nothing was changed. (The directory is reviews.dataDir in the config file.)');
    expect(second.output()).not.toMatch(/review journal/);
    expect((await stat(journal)).ino).toBe(before.inode);
    expect(await readFile(journal)).toEqual(before.bytes);

    // The first one still appends to the file on disk, not to a deleted inode.
    expect(await review(mod, 'after', BOB, 'still durable')).toMatchObject({ type: 'review.queued' });
    expect(await readFile(journal, 'utf8')).toContain('still durable');
  }, patientMs(30_000));

  it.skipIf(noNamespace !== undefined)('refuses a second run from another network namespace (a second container on the same volume)', async () => {
    const setup = await writeSetup();
    const emulator = await startGsa(setup);
    const first = await startSidecar(setup);
    const mod = await connect(first);
    expect(await review(mod, 'n1', ALICE, 'before the second run')).toMatchObject({ type: 'review.queued' });
    const journal = join(setup.dataDir, 'reviews.jsonl');
    await waitUntil(() => emulator.reviews.length === 1, 'the delivery');
    await waitUntil(async () => (await readFile(journal, 'utf8')).includes('"op":"delivered"'), 'the delivered record');
    const before = { bytes: await readFile(journal), inode: (await stat(journal)).ino };

    const second = harness.spawn(setup.configPath, NEW_NETWORK_NAMESPACE);
    // Ends as soon as it exits, or took the lock (what the abstract-socket lock let it do: it is its own network).
    await waitUntil(() => second.child.exitCode !== null || second.output().includes('locked for this process'), 'the second run to exit or lock');
    expect(second.output()).not.toMatch(/review journal|locked for this process/);
    expect(await second.exited()).toBe(2);
    expect(second.output()).toContain(`the data directory ${setup.dataDir} is in use by another gsa-bridge (pid ${first.child.pid ?? 0}, host ${hostname()}, version ${VERSION},`);
    expect((await stat(journal)).ino).toBe(before.inode);
    expect(await readFile(journal)).toEqual(before.bytes);
  }, patientMs(30_000));

  it.skipIf(!canSquatAsNobody)('is not kept from its directory by nobody squatting the old abstract socket name, nor does retry ask them', async () => {
    const setup = await writeSetup();
    await mkdir(setup.dataDir, { mode: 0o700 });
    const squatter = spawnSquatter(createHash('sha256').update(await realpath(setup.dataDir)).digest('hex'), AS_NOBODY);
    expect(await squatter.next('bound')).toEqual({ event: 'bound', uid: 65534 });

    const emulator = await startGsa(setup);
    emulator.setIneligible(SERVER, BOB, 'Play 2 hours before reviewing.');
    const first = await startSidecar(setup);
    const mod = await connect(first);
    expect(await review(mod, 'dead1', BOB, 'refused for now')).toMatchObject({ type: 'review.queued' });
    await mod.waitFor((frame) => frame.id === 'dead1' && frame.type === 'review.result');
    const [dead] = await listed(setup);

    const second = harness.spawn(setup.configPath);
    expect(await second.exited()).toBe(2);
    expect(second.output()).toContain(`(pid ${first.child.pid ?? 0}, host ${hostname()}, version ${VERSION},`);
    expect(second.output()).not.toContain('9.9.9');

    emulator.reset();
    const retried = await cli(['reviews', 'retry', dead!.id, '--config', setup.configPath]);
    expect(retried).toMatchObject({ code: 0, stdout: `re-queued ${dead!.id}\n` });
    expect(retried.stderr).toContain(`by the running sidecar (pid ${first.child.pid ?? 0}, host ${hostname()},`);
    expect(squatter.events.filter((event) => event.event === 'request')).toEqual([]);
  }, patientMs(30_000));

  it('starts again at once after SIGKILL: no stale lock to clean by hand', async () => {
    const setup = await writeSetup();
    const first = await startSidecar(setup); // GSA down: the review stays pending
    const mod = await connect(first);
    expect(await review(mod, 'k', ALICE, 'survives kill -9')).toMatchObject({ type: 'review.queued' });
    first.child.kill('SIGKILL');
    await first.exited();
    await mod.close();

    const emulator = await startGsa(setup);
    const second = await startSidecar(setup);
    expect(second.output()).toContain(`data directory ${setup.dataDir} locked`);
    await waitUntil(() => emulator.reviews.length === 1, 'the pending review delivered');
    expect(emulator.reviews[0]).toMatchObject({ comment: 'survives kill -9' });
  }, patientMs(30_000));
});

describe('the review cooldown', () => {
  it('holds across SIGKILL and restart, and across SIGHUP', async () => {
    const setup = await writeSetup({ cooldownMs: 600_000 });
    const emulator = await startGsa(setup);
    const first = await startSidecar(setup);
    let mod = await connect(first);
    expect(await review(mod, 'r1', ALICE, 'first')).toMatchObject({ type: 'review.queued' });
    await waitUntil(() => emulator.reviews.length === 1, 'the review delivered');
    // Killed only once `delivered` is on disk: a kill before that re-sends it by design (reviewJournal.ts).
    await waitUntil(async () => (await readFile(join(setup.dataDir, 'reviews.jsonl'), 'utf8')).includes('"op":"delivered"'), 'the delivered record');

    first.child.kill('SIGKILL');
    await first.exited();
    await mod.close();
    const second = await startSidecar(setup);
    mod = await connect(second);
    expect(await review(mod, 'r2', ALICE, 'again after restart')).toMatchObject({ type: 'error', code: 'rate_limited' });
    expect(await review(mod, 'r3', BOB, 'another player')).toMatchObject({ type: 'review.queued' });

    second.child.kill('SIGHUP');
    await waitUntil(() => (second.output().match(/gsa-bridge running/g)?.length ?? 0) === 2, 'the reload');
    await mod.close();
    mod = await connect(second);
    expect(await review(mod, 'r4', ALICE, 'again after reload')).toMatchObject({ type: 'error', code: 'rate_limited' });
    expect(await review(mod, 'r5', BOB, 'again after reload')).toMatchObject({ type: 'error', code: 'rate_limited' });
    expect(emulator.reviews.map((stored) => stored.comment).sort()).toEqual(['another player', 'first']);
  }, patientMs(30_000));
});

describe('gsa-bridge reviews', () => {
  it('lists dead and unconfirmed reviews and re-queues chosen ones, without a sidecar and through a running one', async () => {
    const setup = await writeSetup();
    const emulator = await startGsa(setup);
    emulator.setIneligible(SERVER, BOB, 'Play 2 hours before reviewing.');
    const first = await startSidecar(setup);
    const mod = await connect(first);
    expect(await review(mod, 'dead1', BOB, 'refused for now')).toMatchObject({ type: 'review.queued' });
    await mod.waitFor((frame) => frame.id === 'dead1' && frame.type === 'review.result');
    emulator.injectFault({ kind: 'drop', afterProcessing: true, endpoint: 'review' });
    expect(await review(mod, 'maybe1', ALICE, 'did it arrive?')).toMatchObject({ type: 'review.queued' });
    await mod.waitFor((frame) => frame.id === 'maybe1' && frame.type === 'review.result');

    // `list` only reads: safe while the sidecar runs.
    let rows = await listed(setup);
    expect(rows.map((row) => [row.state, row.comment, row.reason?.code])).toEqual([
      ['dead', 'refused for now', 'not_eligible'],
      ['unconfirmed', 'did it arrive?', 'network'],
    ]);
    const [dead, unconfirmed] = rows;
    const text = await cli(['reviews', 'list', '--state', 'dead', '--config', setup.configPath]);
    expect(text.stdout).toMatch(new RegExp(`^${dead!.id}  dead +${SERVER}  ${BOB}  4★  "refused for now"  not_eligible 403: `));
    expect(text.stdout.split('\n')).toHaveLength(2);

    // Through the running sidecar: it journals and delivers at once.
    emulator.reset(); // BOB is eligible now, and the unconfirmed copy GSA did store is forgotten
    const retried = await cli(['reviews', 'retry', dead!.id, 'no-such-id', '--config', setup.configPath]);
    expect(retried.code).toBe(1);
    expect(retried.stdout).toBe(`re-queued ${dead!.id}\n`);
    expect(retried.stderr).toContain(`by the running sidecar (pid ${first.child.pid ?? 0}`);
    expect(retried.stderr).toContain('no dead or unconfirmed review with id no-such-id');
    // Only an unknown id: one line naming it, and no "0 reviews re-queued … it delivers them now".
    expect(await cli(['reviews', 'retry', 'no-such-id', '--config', setup.configPath])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: no dead or unconfirmed review with id no-such-id (see gsa-bridge reviews list); nothing was re-queued\n',
    });
    await waitUntil(async () => (await listed(setup)).length === 1, 'the re-queued review delivered');
    expect(emulator.reviews).toMatchObject([{ comment: 'refused for now', steamId: BOB }]);
    // Delivered reviews are listed on request, also while the sidecar runs; a dead or unconfirmed one never is.
    expect(await listed(setup, '--state', 'delivered')).toMatchObject([{ id: dead!.id, state: 'delivered', server: SERVER, player: { steam_id: BOB }, stars: 4, receipt: 'Done!' }]);
    rows = await listed(setup);
    expect(rows.map((row) => row.id)).toEqual([unconfirmed!.id]);

    // Without a sidecar: the CLI takes the lock itself; the review waits for the next run.
    first.child.kill('SIGTERM');
    expect(await first.exited()).toBe(0);
    const offline = await cli(['reviews', 'retry', '--all-unconfirmed', '--config', setup.configPath]);
    expect(offline).toMatchObject({ code: 0, stdout: `re-queued ${unconfirmed!.id}\n` });
    expect(await listed(setup)).toMatchObject([{ id: unconfirmed!.id, state: 'pending', reason: null }]);
    expect((await cli(['reviews', 'retry', unconfirmed!.id, '--config', setup.configPath])).stdout).toBe(`already pending ${unconfirmed!.id}\n`);
    await startSidecar(setup);
    await waitUntil(async () => (await listed(setup)).length === 0, 'the unconfirmed review delivered on the next run');
    expect(emulator.reviews.map((stored) => stored.comment)).toEqual(['refused for now', 'did it arrive?']);
  }, patientMs(40_000));

  it('lists a review whose letter could not be written under its fate, from the journal, until the sidecar writes the letter', async () => {
    const setup = await writeSetup();
    const emulator = await startGsa(setup);
    // unconfirmed.jsonl cannot be opened for writing, even by root: a directory stands where the file goes.
    await mkdir(join(setup.dataDir, 'unconfirmed.jsonl'), { recursive: true });
    const sidecar = await startSidecar(setup);
    const mod = await connect(sidecar);
    emulator.injectFault({ kind: 'drop', afterProcessing: true, endpoint: 'review' });
    expect(await review(mod, 'held1', ALICE, 'letter blocked')).toMatchObject({ type: 'review.queued' });
    await mod.waitFor((frame) => frame.id === 'held1' && frame.type === 'review.result');
    await waitUntil(() => sidecar.output().includes('stays in the journal as unconfirmed'), 'the log line saying where the review is');

    await waitUntil(async () => (await listed(setup)).length === 1, 'the held review listed');
    expect(await listed(setup)).toMatchObject([{ state: 'unconfirmed', comment: 'letter blocked', reason: { code: 'network' }, held: true }]);
    const text = await cli(['reviews', 'list', '--config', setup.configPath]);
    expect(text.stdout).toContain('unconfirmed');
    expect(text.stdout).toContain('not yet in its letter file: the sidecar retries writing it');
    expect(text.stderr).toContain(`could not read ${join(setup.dataDir, 'unconfirmed.jsonl')}`);

    await rm(join(setup.dataDir, 'unconfirmed.jsonl'), { recursive: true });
    await waitUntil(async () => (await listed(setup)).some((row) => row.held === undefined), 'the letter written', 20_000);
    const [row] = await listed(setup);
    expect(row).toMatchObject({ state: 'unconfirmed', comment: 'letter blocked' });
    expect(row?.held).toBeUndefined();
    expect(emulator.reviews).toHaveLength(1);
  }, patientMs(40_000));

  it.runIf(process.getuid?.() === 0)('refuses to write a directory another user owns while no sidecar runs (files would become root\'s)', async () => {
    const setup = await writeSetup();
    await mkdir(setup.dataDir, { mode: 0o700 });
    await chown(setup.dataDir, 4242, 4242);
    const run = await cli(['reviews', 'retry', '--all-dead', '--config', setup.configPath]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${setup.dataDir} belongs to uid 4242, and this command runs as uid 0`);
    expect(await readdir(setup.dataDir)).toEqual([]);
  });

  it('exits 2 on a usage mistake', async () => {
    const setup = await writeSetup();
    expect((await cli(['reviews', 'retry', '--config', setup.configPath])).code).toBe(2);
    expect((await cli(['reviews', 'retry', 'x', '--all-dead', '--config', setup.configPath])).code).toBe(2);
    expect((await cli(['reviews', 'list', '--state', 'lost', '--config', setup.configPath])).code).toBe(2);
    expect((await cli(['reviews', 'frobnicate'])).code).toBe(2);
  });
});
