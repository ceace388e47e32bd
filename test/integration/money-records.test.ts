// The money ledger on real files in a fresh directory per test: `asked` on disk before begin resolves, the fate after
// settle, a restart that finds an unanswered request (settled unconfirmed once, never anything sent), settle that
// never rejects, the bound kept by compaction, torn and damaged lines, and the errors begin rejects with.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MoneyNotRecordedError } from '../../src/bridge/moneyLedger.js';
import { MoneyRecords, UNANSWERED_MESSAGE, type MoneyRecordsOptions } from '../../src/ledger/moneyRecords.js';
import { tempDir } from '../fixtures/tempDir.js';
import { LogCapture, records, sampleOrder, until } from '../fixtures/ledgerRig.js';

const open: MoneyRecords[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((ledger) => ledger.close()));
});

async function openLedger(dataDir: string, options: Partial<MoneyRecordsOptions> = {}): Promise<{ ledger: MoneyRecords; log: LogCapture; file: string }> {
  const log = new LogCapture();
  let now = 1_800_000_000_000;
  const ledger = await MoneyRecords.open({ dataDir, logger: log.logger, clock: { now: () => (now += 1000) }, ...options });
  open.push(ledger);
  return { ledger, log, file: path.join(dataDir, 'orders.jsonl') };
}

async function restart(ledger: MoneyRecords): Promise<void> {
  open.splice(open.indexOf(ledger), 1);
  await ledger.close();
}

describe('recording', () => {
  it('has the whole request in orders.jsonl when begin resolves, and its fate once settle resolves', async () => {
    const dir = await tempDir('money');
    const { ledger, file } = await openLedger(dir);
    const { id } = await ledger.begin(sampleOrder(1));
    expect(await records(file)).toEqual([
      {
        v: 1,
        op: 'asked',
        id,
        at: expect.any(Number) as number,
        kind: 'order',
        server: 'ovddykvbs',
        player: { steam_id: '76561198000000001', name: 'Buyer 1' },
        item: 101,
        adapter: 'ws-main',
        request_id: 'req-1',
      },
    ]);
    expect(ledger.list()).toEqual([expect.objectContaining({ id, state: 'pending' })]);
    await ledger.settle(id, { ok: true, state: 'done', message: 'Thank you for your order!' });
    expect((await records(file))[1]).toEqual({ v: 1, op: 'settled', id, at: expect.any(Number) as number, state: 'done', message: 'Thank you for your order!' });
    const tokens = await ledger.begin(sampleOrder(2, 'tokens'));
    await ledger.settle(tokens.id, { ok: false, state: 'refused', message: 'Not enough tokens' });
    expect(ledger.list()).toEqual([
      expect.objectContaining({ id, kind: 'order', item: 101, amount: undefined, state: 'done', message: 'Thank you for your order!', adapter: 'ws-main', requestId: 'req-1' }),
      expect.objectContaining({ id: tokens.id, kind: 'tokens', item: undefined, amount: 2, state: 'refused', message: 'Not enough tokens' }),
    ]);
  });

  it('a restart settles an unanswered request unconfirmed, once, and lists it; the others keep their fate', async () => {
    const dir = await tempDir('money');
    const first = await openLedger(dir);
    const answered = await first.ledger.begin(sampleOrder(1));
    await first.ledger.settle(answered.id, { ok: true, state: 'done', message: 'Done!' });
    const lost = await first.ledger.begin(sampleOrder(2, 'tokens'));
    await restart(first.ledger);

    const second = await openLedger(dir);
    expect(second.ledger.unconfirmedAtOpen).toBe(1);
    expect(second.ledger.list().map((entry) => [entry.id, entry.state, entry.message])).toEqual([
      [answered.id, 'done', 'Done!'],
      [lost.id, 'unconfirmed', UNANSWERED_MESSAGE],
    ]);
    expect(second.log.warnings().filter((line) => line.msg.includes(lost.id) && line.msg.includes('never sent again'))).toHaveLength(1);
    await restart(second.ledger);
    const third = await openLedger(dir);
    expect(third.ledger.unconfirmedAtOpen).toBe(0);
    expect((await records(third.file)).filter((line) => line.op === 'settled' && line.id === lost.id)).toEqual([expect.objectContaining({ state: 'unconfirmed', message: UNANSWERED_MESSAGE })]);
  });

  it('settle never rejects: an answer it cannot record reads as unconfirmed, and a second settle is ignored', async () => {
    const dir = await tempDir('money');
    const { ledger, file, log } = await openLedger(dir);
    const { id } = await ledger.begin(sampleOrder(1));
    await rm(file);
    await mkdir(file);
    await expect(ledger.settle(id, { ok: true, state: 'done', message: 'Done!' })).resolves.toBeUndefined();
    expect(ledger.list()).toEqual([expect.objectContaining({ id, state: 'unconfirmed', message: expect.stringContaining('could not be recorded') as string })]);
    expect(log.containing('could not record GSA\'s answer (done)')).toHaveLength(1);
    await expect(ledger.settle(id, { ok: true, state: 'done' })).resolves.toBeUndefined();
    expect(log.containing(`settle(${id}) ignored`)).toHaveLength(1);
  });

  it('rejects begin with `invalid` for a request that would not read back, `storage` when it cannot write, `closed` after close', async () => {
    const dir = await tempDir('money');
    const { ledger, file } = await openLedger(dir);
    const invalid = await ledger.begin({ ...sampleOrder(1), player: { name: 'no id' } }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(MoneyNotRecordedError);
    expect(invalid).toMatchObject({ code: 'invalid' });
    await mkdir(file);
    const failed = await ledger.begin(sampleOrder(2)).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 'storage' });
    expect(ledger.list()).toEqual([]);
    await restart(ledger);
    const closed = await ledger.begin(sampleOrder(3)).catch((error: unknown) => error);
    expect(closed).toBeInstanceOf(MoneyNotRecordedError);
    expect(closed).toMatchObject({ code: 'closed' });
  });
});

describe('the file', () => {
  it('keeps the newest keepRecords requests and every unanswered one once it grows past the margin', async () => {
    const dir = await tempDir('money');
    const { ledger, file, log } = await openLedger(dir, { keepRecords: 3, compactSlack: 1 });
    const waiting = await ledger.begin(sampleOrder(0));
    const ids = [waiting.id];
    for (let n = 1; n <= 4; n++) {
      const { id } = await ledger.begin(sampleOrder(n));
      ids.push(id);
      await ledger.settle(id, { ok: true, state: 'done', message: `order ${n}` });
    }
    await until(() => log.containing('compacted the money ledger').length === 1, 'the compaction');
    const kept = await records(file);
    expect(kept.map((line) => `${ids.indexOf(String(line.id))}:${String(line.op)}`)).toEqual(['0:asked', '2:asked', '2:settled', '3:asked', '3:settled', '4:asked', '4:settled']);
    expect(ledger.list().map((entry) => ids.indexOf(entry.id))).toEqual([0, 2, 3, 4]);
  });

  it('cuts a torn last line, and moves a damaged one to orders.damaged.jsonl; a request whose fate was on it is unconfirmed', async () => {
    const dir = await tempDir('money');
    const asked = (id: string): string => JSON.stringify({ v: 1, op: 'asked', id, at: 1, kind: 'tokens', server: 'ovddykvbs', player: { eos_id: '0002abc' }, amount: 5, adapter: 'rcon-1' });
    const damaged = '{"v":1,"op":"settled","id":"a","at":2,"state":"do';
    await writeFile(path.join(dir, 'orders.jsonl'), `${asked('a')}\n${damaged}\n${asked('b')}\n{"v":1,"op":"settled","id":"b","at":3,"sta`);
    const { ledger, log, file } = await openLedger(dir);
    expect(await readFile(path.join(dir, 'orders.damaged.jsonl'), 'utf8')).toBe(`${damaged}\n`);
    expect(log.warnings().filter((line) => line.msg.includes('torn last line'))).toHaveLength(1);
    expect(log.warnings().filter((line) => line.msg.includes('line 2 of') && line.msg.includes('orders.damaged.jsonl'))).toHaveLength(1);
    expect(ledger.list().map((entry) => [entry.id, entry.state])).toEqual([
      ['a', 'unconfirmed'],
      ['b', 'unconfirmed'],
    ]);
    const lines = await records(file);
    expect(lines.map((line) => `${String(line.id)}:${String(line.op)}`)).toEqual(['a:asked', 'b:asked', 'a:settled', 'b:settled']);
  });
});
