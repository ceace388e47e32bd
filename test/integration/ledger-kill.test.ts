// A real kill -9 in the middle of a request (test/fixtures/ledgerChild.js, the built dist/): a report whose POST
// reached a loopback server that never answers, and a shop order recorded and never settled. Reopened here, the
// report is unconfirmed and never sent again (the server still saw one request; a later report goes through alone),
// and the order is listed unconfirmed, nothing resent (the ledger sends nothing at all).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { MoneyRecords, UNANSWERED_MESSAGE } from '../../src/ledger/moneyRecords.js';
import { ReportOutbox, type StoredReport } from '../../src/ledger/reportOutbox.js';
import type { ReportOutcome } from '../../src/bridge/port.js';
import { LogCapture, records, sampleReport, scriptedSend, until } from '../fixtures/ledgerRig.js';
import { tempDir } from '../fixtures/tempDir.js';

const CHILD = fileURLToPath(new URL('../fixtures/ledgerChild.js', import.meta.url));
const DIST = fileURLToPath(new URL('../../dist', import.meta.url));

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Child {
  readonly child: ChildProcess;
  readonly events: Record<string, unknown>[];
  readonly stderr: () => string;
}

function spawnChild(args: readonly string[]): Child {
  const child = spawn(process.execPath, [CHILD, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', TMPDIR: process.env.TMPDIR ?? '' } });
  const events: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => events.push(JSON.parse(line) as Record<string, unknown>));
  const exited = once(child, 'exit');
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  return { child, events, stderr: () => stderr };
}

async function killHard(child: ChildProcess): Promise<string | null> {
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  const [, signal] = (await exited) as [number | null, string | null];
  return signal;
}

/** A loopback server that takes every request and never answers it: a send whose answer is lost. */
async function silentServer(): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((request) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => bodies.push(body));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, 'close');
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/report`, bodies };
}

describe('kill -9', () => {
  it('while a report is being sent: reopened, it is unconfirmed and never sent again', async () => {
    const dataDir = await tempDir('ledger-kill');
    const gsa = await silentServer();
    const child = spawnChild(['report', DIST, dataDir, gsa.url]);
    await until(() => gsa.bodies.length === 1 || child.child.exitCode !== null, 'the report reaching the server', 30_000);
    expect(child.stderr()).toBe('');
    const id = String(child.events.find((event) => event.event === 'queued')?.id);
    expect(JSON.parse(gsa.bodies[0]!)).toEqual({ id, comment: 'killed while sending' });
    // The send starts only once its `sending` record is fsynced.
    expect((await records(path.join(dataDir, 'reports.jsonl'))).map((line) => line.op)).toEqual(['queued', 'sending']);
    expect(await killHard(child.child)).toBe('SIGKILL');

    const log = new LogCapture();
    const sender = scriptedSend();
    const results: { report: StoredReport; outcome: ReportOutcome }[] = [];
    const outbox = await ReportOutbox.open({ dataDir, logger: log.logger, send: sender.send, onResult: (report, outcome) => results.push({ report, outcome }), concurrency: 1 });
    cleanups.push(() => outbox.close());
    expect(outbox.unconfirmedAtOpen).toBe(1);
    expect(outbox.list()).toEqual([expect.objectContaining({ state: 'unconfirmed', reason: expect.objectContaining({ code: 'sidecar_stopped' }) as object })]);
    expect(log.warnings().filter((line) => line.msg.includes(id))).toHaveLength(1);
    // One at a time, oldest first: had the killed report been pending, it would be sent before this one.
    outbox.start();
    await outbox.enqueue(sampleReport(2));
    await until(() => results.length === 1, 'the later report');
    expect(sender.calls.map((report) => report.comment)).toEqual(['report 2: he keeps griefing my base']);
    expect(gsa.bodies).toHaveLength(1);
  });

  it('after a shop order was recorded and before its answer: reopened, it is listed unconfirmed', async () => {
    const dataDir = await tempDir('ledger-kill');
    const child = spawnChild(['money', DIST, dataDir]);
    await until(() => child.events.some((event) => event.event === 'begun') || child.child.exitCode !== null, 'the order recorded', 30_000);
    expect(child.stderr()).toBe('');
    const id = String(child.events.find((event) => event.event === 'begun')?.id);
    expect((await records(path.join(dataDir, 'orders.jsonl'))).map((line) => [line.op, line.id])).toEqual([['asked', id]]);
    expect(await killHard(child.child)).toBe('SIGKILL');

    const log = new LogCapture();
    const ledger = await MoneyRecords.open({ dataDir, logger: log.logger });
    cleanups.push(() => ledger.close());
    expect(ledger.list()).toEqual([
      expect.objectContaining({ id, kind: 'order', item: 12, state: 'unconfirmed', message: UNANSWERED_MESSAGE, adapter: 'ws-main', requestId: 'buy-1' }),
    ]);
    expect((await records(path.join(dataDir, 'orders.jsonl'))).map((line) => [line.op, line.state])).toEqual([
      ['asked', undefined],
      ['settled', 'unconfirmed'],
    ]);
  });
});
