// The durable report outbox with real files in a fresh directory per test and a scripted send (GSA's errors are the
// client's own classes): stored before enqueue resolves, sent once, a not-sent failure retried on the backoff (fake
// timers), a refusal and an ambiguous answer final, and what a restart makes of each journal state: queued only
// (sent), sending (unconfirmed, never sent), sending + not_sent (sent), a torn last line, a damaged middle line;
// compaction, close, and the errors enqueue rejects with.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReportOutcome } from '../../src/bridge/port.js';
import { ReportNotStoredError } from '../../src/bridge/reportStore.js';
import { NetworkError, RateLimitedError, TimeoutError, UnavailableError, ValidationError } from '../../src/gsa/errors.js';
import { ReportOutbox, type ReportOutboxOptions, type StoredReport } from '../../src/ledger/reportOutbox.js';
import { tempDir } from '../fixtures/tempDir.js';
import { LogCapture, opsOf, records, sampleReport, scriptedSend, until, type ScriptedSend } from '../fixtures/ledgerRig.js';

const outboxes: ReportOutbox[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(outboxes.splice(0).map((outbox) => outbox.close()));
});

interface Rig {
  readonly outbox: ReportOutbox;
  readonly results: { report: StoredReport; outcome: ReportOutcome }[];
  readonly log: LogCapture;
  readonly journal: string;
}

async function openOutbox(dataDir: string, sender: ScriptedSend, options: Partial<ReportOutboxOptions> = {}): Promise<Rig> {
  const results: Rig['results'] = [];
  const log = new LogCapture();
  const outbox = await ReportOutbox.open({
    dataDir,
    send: sender.send,
    onResult: (report, outcome) => results.push({ report, outcome }),
    logger: log.logger,
    random: () => 0,
    retry: { minDelayMs: 1000, maxDelayMs: 60_000 },
    ...options,
  });
  outboxes.push(outbox);
  return { outbox, results, log, journal: path.join(dataDir, 'reports.jsonl') };
}

/** Closes it and forgets it (a later open of the same directory is a restart). */
async function stop(rig: Rig): Promise<void> {
  outboxes.splice(outboxes.indexOf(rig.outbox), 1);
  await rig.outbox.close();
}

describe('storing and sending', () => {
  it('has the whole report in reports.jsonl when enqueue resolves, and sends nothing before start()', async () => {
    const dir = await tempDir('report-outbox');
    const sender = scriptedSend();
    const rig = await openOutbox(dir, sender);
    const { id } = await rig.outbox.enqueue(sampleReport(1));
    const lines = await records(rig.journal);
    expect(lines).toEqual([
      {
        v: 1,
        op: 'queued',
        id,
        at: expect.any(Number) as number,
        server: 'ovddykvbs',
        player: { steam_id: '76561198000000001', name: 'Reporter 1' },
        character_id: 1001,
        coords: 'X_1 Y_2 Z_3',
        type: 2,
        reported_player: 81,
        comment: 'report 1: he keeps griefing my base',
        origin: { adapter: 'ws-main', ref: 'conn-1', request_id: 'req-1' },
      },
    ]);
    expect(rig.outbox.pending).toBe(1);
    expect(sender.calls).toEqual([]);
    expect(rig.outbox.list().map((entry) => entry.state)).toEqual(['pending']);
  });

  it('sends a report once, `sending` journaled before the send and `delivered` with GSA\'s message after; a restart sends nothing', async () => {
    const dir = await tempDir('report-outbox');
    let linesAtSend: Record<string, unknown>[] = [];
    const sender = scriptedSend([{ message: 'Report received' }]);
    const rig = await openOutbox(dir, {
      ...sender,
      send: async (report) => {
        linesAtSend = await records(path.join(dir, 'reports.jsonl'));
        return sender.send(report);
      },
    });
    rig.outbox.start();
    const { id } = await rig.outbox.enqueue(sampleReport(1));
    await until(() => rig.results.length === 1, 'the result');
    expect(opsOf(linesAtSend, [id])).toEqual(['r0:queued', 'r0:sending']);
    expect(rig.results[0]?.outcome).toEqual({ ok: true, message: 'Report received' });
    expect(rig.results[0]?.report).toMatchObject({ id, comment: 'report 1: he keeps griefing my base', characterId: 1001 });
    await stop(rig);
    expect(opsOf(await records(rig.journal), [id])).toEqual(['r0:queued', 'r0:sending', 'r0:delivered']);
    expect((await records(rig.journal))[2]).toMatchObject({ op: 'delivered', message: 'Report received' });

    const again = await openOutbox(dir, sender);
    again.outbox.start();
    expect(again.outbox.pending).toBe(0);
    expect(again.outbox.list()).toEqual([expect.objectContaining({ state: 'delivered', message: 'Report received' })]);
    expect(sender.calls).toHaveLength(1);
  });

  it('retries a report GSA surely did not get (network, not processed) after the backoff, and delivers it then', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const dir = await tempDir('report-outbox');
    const sender = scriptedSend([{ error: new NetworkError('connection refused') }, { message: 'Report received' }]);
    const rig = await openOutbox(dir, sender);
    rig.outbox.start();
    const { id } = await rig.outbox.enqueue(sampleReport(1));
    await until(() => rig.log.containing('cannot send reports to GSA').length === 1, 'the retry warning');
    expect(opsOf(await records(rig.journal), [id])).toEqual(['r0:queued', 'r0:sending', 'r0:not_sent']);
    expect(rig.outbox.list()[0]).toMatchObject({ state: 'pending', reason: { code: 'network' } });
    // random() = 0: the first wait is half of retry.minDelayMs.
    await vi.advanceTimersByTimeAsync(499);
    expect(sender.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => rig.results.length === 1, 'the result');
    expect(sender.calls).toHaveLength(2);
    expect(rig.results[0]?.outcome).toEqual({ ok: true, message: 'Report received' });
    expect(opsOf(await records(rig.journal), [id])).toEqual(['r0:queued', 'r0:sending', 'r0:not_sent', 'r0:sending', 'r0:delivered']);
  });

  it("waits as long as GSA's Retry-After asks when that is longer than the backoff", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const dir = await tempDir('report-outbox');
    const sender = scriptedSend([{ error: new RateLimitedError('429 from GSA', 30_000) }, { error: new UnavailableError('maintenance', undefined) }]);
    const rig = await openOutbox(dir, sender);
    rig.outbox.start();
    await rig.outbox.enqueue(sampleReport(1));
    await until(() => rig.log.containing('cannot send reports to GSA').length === 1, 'the retry warning');
    await vi.advanceTimersByTimeAsync(29_999);
    expect(sender.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => sender.calls.length === 2, 'the second attempt');
    // A second failure in a row: the backoff's second step (2 s, halved by random() = 0).
    await until(() => rig.log.containing('reports still cannot be sent').length === 1, 'the second wait');
    await vi.advanceTimersByTimeAsync(999);
    expect(sender.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => rig.results.length === 1, 'the result');
    expect(sender.calls).toHaveLength(3);
  });

  it('settles a refusal as refused (GSA\'s words to the player) and never sends it again', async () => {
    const dir = await tempDir('report-outbox');
    const refusal = new ValidationError('GSA refused the fields (422)', { type: ['unknown type'] }, { status: 422, serviceMessage: 'The selected type is invalid.' });
    const sender = scriptedSend([{ error: refusal }]);
    const rig = await openOutbox(dir, sender);
    rig.outbox.start();
    const { id } = await rig.outbox.enqueue(sampleReport(1));
    await until(() => rig.results.length === 1, 'the result');
    expect(rig.results[0]?.outcome).toEqual({ ok: false, error: { code: 'invalid', message: 'The selected type is invalid.' } });
    await stop(rig);
    expect(opsOf(await records(rig.journal), [id])).toEqual(['r0:queued', 'r0:sending', 'r0:refused']);
    const again = await openOutbox(dir, sender, { concurrency: 1 });
    again.outbox.start();
    await again.outbox.enqueue(sampleReport(2));
    await until(() => again.results.length === 1, 'the later report');
    expect(sender.calls.map((report) => report.comment)).toEqual(['report 1: he keeps griefing my base', 'report 2: he keeps griefing my base']);
    expect(again.outbox.list().map((entry) => entry.state)).toEqual(['refused', 'delivered']);
  });

  it.each([
    ['an answer lost after sending (maybeProcessed)', new TimeoutError('no answer in 10 s', { maybeProcessed: true })],
    ['a failure that is no GsaError', new TypeError('fetch failed in an unexpected way')],
  ])('settles %s as unconfirmed and never sends it again', async (_what, error) => {
    const dir = await tempDir('report-outbox');
    const sender = scriptedSend([{ error }]);
    const rig = await openOutbox(dir, sender, { concurrency: 1 });
    rig.outbox.start();
    await rig.outbox.enqueue(sampleReport(1));
    await until(() => rig.results.length === 1, 'the result');
    expect(rig.results[0]?.outcome).toEqual({ ok: false, error: { code: 'unconfirmed', message: expect.stringContaining('may have been stored') as string } });
    expect(rig.outbox.pending).toBe(0);
    // Oldest first, one at a time: had the first been put back, it would go before this one.
    await rig.outbox.enqueue(sampleReport(2));
    await until(() => rig.results.length === 2, 'the later report');
    expect(sender.calls).toHaveLength(2);
    await stop(rig);
    const again = await openOutbox(dir, sender, { concurrency: 1 });
    again.outbox.start();
    expect(again.outbox.pending).toBe(0);
    expect(again.outbox.list().map((entry) => entry.state)).toEqual(['unconfirmed', 'delivered']);
  });
});

/** A journal written by hand, as a process that stopped at some point left it. */
async function writeJournal(dir: string, lines: readonly object[], tail = ''): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'reports.jsonl'), lines.map((line) => `${JSON.stringify(line)}\n`).join('') + tail);
}

function queued(id: string, n: number): object {
  return {
    v: 1,
    op: 'queued',
    id,
    at: 1_800_000_000_000 + n,
    server: 'ovddykvbs',
    player: { steam_id: `7656119800000000${n}` },
    character_id: n,
    coords: 'X_1 Y_2 Z_3',
    type: 'griefing',
    comment: `old report ${n}`,
    origin: { adapter: 'ws-main', ref: 'gone' },
  };
}

const sending = (id: string): object => ({ v: 1, op: 'sending', id, at: 1_800_000_001_000 });
const notSent = (id: string): object => ({ v: 1, op: 'not_sent', id, at: 1_800_000_002_000, code: 'network', message: 'connection refused' });

describe('a restart', () => {
  it('sends a report that was only queued, and one whose last attempt was journaled not sent', async () => {
    const dir = await tempDir('report-outbox');
    await writeJournal(dir, [queued('a', 1), queued('b', 2), sending('b'), notSent('b')]);
    const sender = scriptedSend();
    const rig = await openOutbox(dir, sender);
    expect(rig.outbox.pending).toBe(2);
    expect(rig.outbox.unconfirmedAtOpen).toBe(0);
    rig.outbox.start();
    await until(() => rig.results.length === 2, 'both results');
    expect(sender.calls.map((report) => report.id).sort()).toEqual(['a', 'b']);
    expect(sender.calls.find((report) => report.id === 'a')).toMatchObject({ comment: 'old report 1', type: 'griefing', characterId: 1, player: { steamId: '76561198000000001' } });
  });

  it('never sends a report whose `sending` has no outcome: it is unconfirmed, logged and journaled, and sends = 0', async () => {
    const dir = await tempDir('report-outbox');
    await writeJournal(dir, [queued('a', 1), sending('a'), notSent('a'), sending('a')]);
    const sender = scriptedSend();
    const rig = await openOutbox(dir, sender, { concurrency: 1 });
    expect(rig.outbox.pending).toBe(0);
    expect(rig.outbox.unconfirmedAtOpen).toBe(1);
    expect(rig.outbox.list()).toEqual([
      expect.objectContaining({ state: 'unconfirmed', reason: { code: 'sidecar_stopped', message: expect.stringContaining('the sidecar stopped while this report was being sent') as string } }),
    ]);
    expect(rig.log.warnings().filter((line) => line.msg.includes('report a for ovddykvbs') && line.msg.includes('GSA may have it'))).toHaveLength(1);
    expect((await records(rig.journal)).at(-1)).toMatchObject({ op: 'unconfirmed', id: 'a', code: 'sidecar_stopped' });
    // A later report goes through the same one-at-a-time line: had `a` been pending, it would have gone first.
    rig.outbox.start();
    await rig.outbox.enqueue(sampleReport(9));
    await until(() => rig.results.length === 1, 'the later report');
    expect(sender.calls.map((report) => report.comment)).toEqual(['report 9: he keeps griefing my base']);
    expect(rig.results.map((result) => result.report.id)).not.toContain('a');

    // And once journaled, the next start says nothing more of it.
    await stop(rig);
    const again = await openOutbox(dir, sender);
    expect(again.outbox.unconfirmedAtOpen).toBe(0);
    expect((await records(again.journal)).filter((line) => line.op === 'unconfirmed')).toHaveLength(1);
  });

  it('cuts a torn last line with a warning, keeps what was whole, and appends on a line boundary after it', async () => {
    const dir = await tempDir('report-outbox');
    const whole = [queued('a', 1)];
    await writeJournal(dir, whole, '{"v":1,"op":"sending","id":"a","at":18000000');
    const sender = scriptedSend();
    const rig = await openOutbox(dir, sender);
    expect(rig.log.warnings().filter((line) => line.msg.includes('torn last line'))).toHaveLength(1);
    expect(await readFile(rig.journal, 'utf8')).toBe(`${JSON.stringify(whole[0])}\n`);
    // The torn `sending` never finished its write, so that attempt never started: `a` is pending.
    expect(rig.outbox.pending).toBe(1);
    rig.outbox.start();
    await until(() => rig.results.length === 1, 'the result');
    expect(opsOf(await records(rig.journal), ['a'])).toEqual(['r0:queued', 'r0:sending', 'r0:delivered']);
  });

  it('moves a damaged middle line to reports.damaged.jsonl, logged, and never resends a report it may have been about', async () => {
    const dir = await tempDir('report-outbox');
    const damaged = '{"v":1,"op":"sen\u0000ding","id":"a","at":1}';
    await writeFile(path.join(dir, 'reports.jsonl'), `${[JSON.stringify(queued('a', 1)), damaged, JSON.stringify(queued('b', 2))].join('\n')}\n`);
    const sender = scriptedSend();
    const rig = await openOutbox(dir, sender, { concurrency: 1 });
    expect(await readFile(path.join(dir, 'reports.damaged.jsonl'), 'utf8')).toBe(`${damaged}\n`);
    expect(rig.log.warnings().filter((line) => line.msg.includes('line 2 of') && line.msg.includes('reports.damaged.jsonl'))).toHaveLength(1);
    expect(rig.log.lines.some((line) => line.msg.includes('sen\u0000ding'))).toBe(false);
    // The damaged line names `a`: it may have been a's `sending`. `b` came after it, so it is not in doubt.
    expect(rig.outbox.list().map((entry) => [entry.report.id, entry.state, entry.reason?.code])).toEqual([
      ['a', 'unconfirmed', 'journal_damaged'],
      ['b', 'pending', undefined],
    ]);
    rig.outbox.start();
    await until(() => rig.results.length === 1, 'the result');
    expect(sender.calls.map((report) => report.id)).toEqual(['b']);
    expect((await records(rig.journal)).some((line) => String(line.op).includes('\u0000'))).toBe(false);
  });
});

describe('bounds and shutdown', () => {
  it('compacts past compactAfterSettled: keeps every unsettled report (with its attempt in flight) and the newest settled ones', async () => {
    const dir = await tempDir('report-outbox');
    const sender = scriptedSend([], { 'still out': 'hang' });
    const rig = await openOutbox(dir, sender, { concurrency: 2, compactAfterSettled: 4, keepSettled: 2 });
    rig.outbox.start();
    const held = await rig.outbox.enqueue(sampleReport(0, { comment: 'still out' }));
    const ids: string[] = [held.id];
    for (let n = 1; n <= 5; n++) ids.push((await rig.outbox.enqueue(sampleReport(n))).id);
    await until(() => rig.results.length === 5, 'five results');
    await until(() => rig.log.containing('compacted the report journal').length === 1, 'the compaction');
    expect(opsOf(await records(rig.journal), ids)).toEqual(['r0:queued', 'r0:sending', 'r4:queued', 'r4:delivered', 'r5:queued', 'r5:delivered']);
    expect(rig.outbox.list().map((entry) => entry.state)).toEqual(['sending', 'delivered', 'delivered']);
    sender.release('Report received late');
    await until(() => rig.results.length === 6, 'the late result');
    await stop(rig);
    const again = await openOutbox(dir, sender);
    expect(again.outbox.list().map((entry) => [ids.indexOf(entry.report.id), entry.state])).toEqual([
      [0, 'delivered'],
      [4, 'delivered'],
      [5, 'delivered'],
    ]);
  });

  it('leaves pending reports pending on close, and refuses new ones after it with code `closed`', async () => {
    const dir = await tempDir('report-outbox');
    const sender = scriptedSend();
    const rig = await openOutbox(dir, sender);
    await rig.outbox.enqueue(sampleReport(1));
    await stop(rig);
    const refused = await rig.outbox.enqueue(sampleReport(2)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ReportNotStoredError);
    expect(refused).toMatchObject({ code: 'closed' });
    const again = await openOutbox(dir, sender);
    expect(again.outbox.pending).toBe(1);
    expect(sender.calls).toHaveLength(0);
  });

  it('rejects with code `storage` when the journal cannot be written, and with `invalid` for a report that would not read back', async () => {
    const dir = await tempDir('report-outbox');
    const rig = await openOutbox(dir, scriptedSend());
    const invalid = await rig.outbox.enqueue(sampleReport(1, { player: { name: 'no id at all' } })).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ReportNotStoredError);
    expect(invalid).toMatchObject({ code: 'invalid' });
    // A directory where the journal was: no append can succeed.
    await rm(rig.journal, { force: true });
    await mkdir(rig.journal);
    const failed = await rig.outbox.enqueue(sampleReport(2)).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ReportNotStoredError);
    expect(failed).toMatchObject({ code: 'storage' });
    expect(rig.outbox.pending).toBe(0);
  });
});
