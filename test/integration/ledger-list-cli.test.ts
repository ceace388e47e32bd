// `gsa-bridge orders list` and `reports list` as a host uses them, in-process (the real CLI entry, an empty
// environment, a config of the test's own) on data directories the ledger itself wrote: one line per record with
// when, server, player, what, state and GSA's answer; --json as one array; an empty ledger said plainly; --state; a
// hostile name or comment that cannot fake a line; and a sidecar holding the directory (its lock, its files open)
// does not stop the listing.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirLock } from '../../src/datadir/dataDirLock.js';
import { TimeoutError, ValidationError } from '../../src/gsa/errors.js';
import { MoneyRecords } from '../../src/ledger/moneyRecords.js';
import { ReportOutbox } from '../../src/ledger/reportOutbox.js';
import { silentLogger } from '../../src/log/logger.js';
import { VERSION } from '../../src/version.js';
import { runCliInProcess } from '../fixtures/inProcessCli.js';
import { SERVER, sampleOrder, sampleReport, scriptedSend, until } from '../fixtures/ledgerRig.js';
import { tempDir } from '../fixtures/tempDir.js';

const T0 = Date.UTC(2026, 10, 29, 10, 0, 0);

/** A config whose reviews.dataDir is `data` next to it; listing needs no credentials. */
async function setup(): Promise<{ configPath: string; dataDir: string }> {
  const dir = await tempDir('ledger-list');
  const configPath = path.join(dir, 'config.json');
  await writeFile(configPath, JSON.stringify({ api: { baseUrl: 'http://127.0.0.1:9' }, servers: [{ name: SERVER, adapters: [] }], reviews: { dataDir: 'data' } }));
  return { configPath, dataDir: path.join(dir, 'data') };
}

function stepClock(): { now: () => number } {
  let now = T0;
  return { now: () => (now += 60_000) };
}

describe('orders list', () => {
  it('prints one line per order and token spend, oldest first, while a sidecar holds the directory; --json is one array', async () => {
    const { configPath, dataDir } = await setup();
    const lock = await DataDirLock.acquire(dataDir, { version: VERSION });
    const ledger = await MoneyRecords.open({ dataDir, logger: silentLogger(), clock: stepClock() });
    try {
      const bought = await ledger.begin(sampleOrder(1));
      await ledger.settle(bought.id, { ok: true, state: 'done', message: 'Thank you for your order!' });
      const spent = await ledger.begin({ ...sampleOrder(2, 'tokens'), player: { eosId: '0002abcdef', name: 'Eve\n2026-01-01  fake  line' } });
      await ledger.settle(spent.id, { ok: false, state: 'refused', message: 'Not enough tokens' });
      const waiting = await ledger.begin(sampleOrder(3));

      const run = await runCliInProcess(['orders', 'list', '--config', configPath]);
      expect(run.code).toBe(0);
      const lines = run.stdout.split('\n').filter((line) => line !== '');
      expect(lines).toEqual([
        `2026-11-29T10:01:00.000Z  ovddykvbs  76561198000000001 "Buyer 1"  order item 101  done  "Thank you for your order!"  (${bought.id}, adapter ws-main request "req-1")`,
        `2026-11-29T10:03:00.000Z  ovddykvbs  0002abcdef "Eve\\n2026-01-01  fake  line"  tokens 2  refused  "Not enough tokens"  (${spent.id}, adapter ws-main request "req-2")`,
        `2026-11-29T10:05:00.000Z  ovddykvbs  76561198000000003 "Buyer 3"  order item 103  pending  (${waiting.id}, adapter ws-main request "req-3")`,
      ]);
      expect(run.stderr).toContain(`3 orders and token spends in ${dataDir}`);

      const json = await runCliInProcess(['orders', 'list', '--json', '--config', configPath]);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual([
        {
          id: bought.id,
          at: '2026-11-29T10:01:00.000Z',
          kind: 'order',
          server: 'ovddykvbs',
          player: { steam_id: '76561198000000001', name: 'Buyer 1' },
          item: 101,
          amount: null,
          state: 'done',
          message: 'Thank you for your order!',
          settled_at: '2026-11-29T10:02:00.000Z',
          adapter: 'ws-main',
          request_id: 'req-1',
        },
        expect.objectContaining({ id: spent.id, kind: 'tokens', item: null, amount: 2, state: 'refused', player: { eos_id: '0002abcdef', name: 'Eve\n2026-01-01  fake  line' } }),
        expect.objectContaining({ id: waiting.id, state: 'pending', message: null, settled_at: null }),
      ]);
    } finally {
      await ledger.close();
      await lock.release();
    }
  });

  it('says plainly when nothing was recorded (no data directory yet), exit 0; --json prints []', async () => {
    const { configPath, dataDir } = await setup();
    const run = await runCliInProcess(['orders', 'list', '--config', configPath]);
    expect(run).toMatchObject({ code: 0, stdout: `no orders or token spends recorded in ${dataDir}\n` });
    const json = await runCliInProcess(['orders', 'list', '--json', '--config', configPath]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([]);
  });
});

describe('reports list', () => {
  it('lists every report with its state and why, --state filters, --json is one array', async () => {
    const { configPath, dataDir } = await setup();
    const refusal = new ValidationError('GSA refused the report (422)', {}, { status: 422, serviceMessage: 'The selected type is invalid.' });
    const sender = scriptedSend([{ message: 'Report received' }, { error: refusal }, { error: new TimeoutError('no answer in 10 s', { maybeProcessed: true }) }]);
    const results: string[] = [];
    const outbox = await ReportOutbox.open({ dataDir, logger: silentLogger(), send: sender.send, onResult: (report) => results.push(report.id), clock: stepClock(), concurrency: 1 });
    const ids: string[] = [];
    try {
      outbox.start();
      ids.push((await outbox.enqueue(sampleReport(1))).id);
      ids.push((await outbox.enqueue(sampleReport(2, { comment: 'one two three four five six seven eight nine ten' }))).id);
      ids.push((await outbox.enqueue(sampleReport(3, { player: { steamId: '76561198000000003', name: 'Mal"lory\n' }, reportedPlayer: undefined }))).id);
      await until(() => results.length === 3, 'three results');
    } finally {
      await outbox.close();
    }
    const later = await ReportOutbox.open({ dataDir, logger: silentLogger(), send: sender.send, onResult: () => undefined, clock: { now: () => T0 + 3_600_000 } });
    try {
      ids.push((await later.enqueue(sampleReport(4, { type: 'cheating' }))).id);
    } finally {
      await later.close();
    }

    const run = await runCliInProcess(['reports', 'list', '--config', configPath]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe(`2026-11-29T10:01:00.000Z  delivered    ovddykvbs  76561198000000001 "Reporter 1"  type 2 against 81  "report 1: he keeps griefing my base"  "Report received"  (${ids[0]})`);
    // After the time (24 characters and two spaces): the rest of each line.
    expect(lines[1]?.slice(26)).toBe(`refused      ovddykvbs  76561198000000002 "Reporter 2"  type 2 against 81  "one two three four five six seven eight …"  invalid: "GSA refused the report (422)"  (${ids[1]})`);
    expect(lines[2]?.slice(26)).toBe(`unconfirmed  ovddykvbs  76561198000000003 "Mal\\"lory\\n"  type 2  "report 3: he keeps griefing my base"  timeout: "no answer in 10 s"  (${ids[2]})`);
    expect(lines[3]).toBe(`2026-11-29T11:00:00.000Z  pending      ovddykvbs  76561198000000004 "Reporter 4"  type "cheating" against 81  "report 4: he keeps griefing my base"  (${ids[3]})`);

    const unconfirmed = await runCliInProcess(['reports', 'list', '--state', 'unconfirmed', '--config', configPath]);
    expect(unconfirmed.stdout.split('\n').filter((line) => line !== '')).toEqual([lines[2]]);
    const none = await runCliInProcess(['reports', 'list', '--state', 'sending', '--config', configPath]);
    expect(none).toMatchObject({ code: 0, stdout: `no sending reports recorded in ${dataDir}\n` });

    const json = await runCliInProcess(['reports', 'list', '--json', '--config', configPath]);
    const listed = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(listed.map((entry) => [entry.id, entry.state])).toEqual([
      [ids[0], 'delivered'],
      [ids[1], 'refused'],
      [ids[2], 'unconfirmed'],
      [ids[3], 'pending'],
    ]);
    expect(listed[0]).toEqual({
      id: ids[0],
      at: '2026-11-29T10:01:00.000Z',
      state: 'delivered',
      server: 'ovddykvbs',
      player: { steam_id: '76561198000000001', name: 'Reporter 1' },
      character_id: 1001,
      coords: 'X_1 Y_2 Z_3',
      type: 2,
      reported_player: 81,
      comment: 'report 1: he keeps griefing my base',
      adapter: 'ws-main',
      request_id: 'req-1',
      settled_at: expect.any(String) as string,
      message: 'Report received',
      reason: null,
    });
    expect(listed[1]).toMatchObject({ reason: { code: 'invalid', message: 'GSA refused the report (422)' }, message: null });
  });

  it('names damaged lines it cannot list, on stderr', async () => {
    const { configPath, dataDir } = await setup();
    const outbox = await ReportOutbox.open({ dataDir, logger: silentLogger(), send: scriptedSend().send, onResult: () => undefined });
    await outbox.enqueue(sampleReport(1));
    await outbox.close();
    await writeFile(path.join(dataDir, 'reports.jsonl'), '{"v":1,"op":"queued","id":"broken\n', { flag: 'a' });
    const run = await runCliInProcess(['reports', 'list', '--config', configPath]);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n').filter((line) => line !== '')).toHaveLength(1);
    expect(run.stderr).toContain(`1 line(s) of ${path.join(dataDir, 'reports.jsonl')} do not read as a record`);
  });
});

describe('help', () => {
  it('lists both commands in --help, each with its own help', async () => {
    const help = await runCliInProcess(['--help']);
    expect(help.stdout).toContain('gsa-bridge orders list [--json] [--config FILE]');
    expect(help.stdout).toContain('gsa-bridge reports list [--state pending|sending|delivered|refused|unconfirmed] [--json] [--config FILE]');
    expect((await runCliInProcess(['orders', 'list', '--help'])).stdout).toContain('It only reads, so it is safe next to a running sidecar. Exit 0.');
    expect((await runCliInProcess(['reports', '--help'])).stdout).toContain('gsa-bridge reports list:');
    const wrong = await runCliInProcess(['reports', 'list', '--state', 'dead', '--config', 'nowhere.json']);
    expect(wrong.code).toBe(2);
  });
});
