// "Delivered" means GSA's documented success, end to end: a real node:http server on loopback answers each review
// with a 2xx a broken or lying service could send, the real GsaClient and ReviewOutbox send to it, and the real CLI
// entry (in-process) lists what is on disk and re-queues it. Every answer but a JSON object holding a `data` string
// must end in unconfirmed.jsonl and `reviews list --state unconfirmed`, never in `--state delivered`, and
// `reviews retry --all-unconfirmed` must send it again (once the service answers as documented, it is delivered).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReviewOutcome } from '../../src/bridge/port.js';
import { ReviewOutbox, type OutboxReview } from '../../src/reviews/reviewOutbox.js';
import { GsaClient } from '../../src/gsa/index.js';
import { silentLogger } from '../../src/log/logger.js';
import { runCliInProcess } from '../fixtures/inProcessCli.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER = 'ovddykvbs';
const ALICE = '76561198000000001';
const WAIT = { timeout: 10_000, interval: 10 };
const DOCUMENTED_SUCCESS = '{"data":"Done!"}';

/** What the service answers to a review whose comment is `comment`. */
interface Answer {
  readonly comment: string;
  readonly status: number;
  readonly body: string;
}

const NOT_DOCUMENTED: readonly Answer[] = [
  { comment: '202 message error: failed', status: 202, body: '{"message":"error: failed"}' },
  { comment: '200 message stored? maybe', status: 200, body: '{"message":"stored? maybe"}' },
  { comment: '200 status 400', status: 200, body: '{"status":400}' },
  { comment: '200 success "false"', status: 200, body: '{"success":"false"}' },
  { comment: '202 without data', status: 202, body: '{"queued":true}' },
  { comment: '200 empty object', status: 200, body: '{}' },
  { comment: '200 data not a string', status: 200, body: '{"data":5}' },
  { comment: '200 a JSON array', status: 200, body: '[{"data":"Done!"}]' },
];
const DOCUMENTED: Answer = { comment: '200 the documented success', status: 200, body: DOCUMENTED_SUCCESS };

/** A stand-in for GSA on loopback: answers each review by its comment, or with the documented success once `honest`. */
class ReviewService {
  readonly received: string[] = [];
  honest = false;
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(answers: readonly Answer[]): Promise<ReviewService> {
    const byComment = new Map(answers.map((answer) => [answer.comment, answer]));
    const server = createServer();
    const service = new ReviewService(server);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      let text = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (text += chunk));
      request.on('end', () => {
        const comment = new URLSearchParams(text).get('comment') ?? '';
        service.received.push(comment);
        const answer = service.honest ? { status: 200, body: DOCUMENTED_SUCCESS } : byComment.get(comment);
        if (request.url !== `/api/v1/gameserver/${SERVER}/review` || answer === undefined) {
          response.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"not a review this test sends"}');
          return;
        }
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return service;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => {
        resolve();
      });
      this.#server.closeAllConnections();
    });
  }
}

const closing: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function listJson(configPath: string, state: string): Promise<Record<string, unknown>[]> {
  const run = await runCliInProcess(['reviews', 'list', '--json', '--state', state, '--config', configPath]);
  expect(run.code).toBe(0);
  return run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function jsonLines(file: string): Promise<Record<string, unknown>[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('a review is delivered only on GSA\'s documented success', () => {
  it('leaves every other 2xx unconfirmed (unconfirmed.jsonl, reviews list), and reviews retry sends them again', async () => {
    const service = await ReviewService.start([...NOT_DOCUMENTED, DOCUMENTED]);
    closing.push(() => service.close());
    const dir = await tempDir('documented-success');
    const configPath = path.join(dir, 'config.json');
    const dataDir = path.join(dir, 'data');
    // Listing and re-queueing read only the data directory: the config needs no credentials.
    await writeFile(configPath, JSON.stringify({ api: { baseUrl: 'http://127.0.0.1:9' }, servers: [{ name: SERVER, adapters: [] }], reviews: { dataDir: 'data' } }));
    const client = new GsaClient({ baseUrl: service.url, clientId: 'id', clientSecret: 'secret-not-in-any-answer', timeoutMs: 5000, retry: { retries: 0 } });
    closing.push(() => client.close());

    const results: { review: OutboxReview; outcome: ReviewOutcome }[] = [];
    const openOutbox = async (): Promise<ReviewOutbox> => {
      const outbox = await ReviewOutbox.open({
        dataDir,
        send: (review) => client.submitReview(review.server, review.player, review.stars, review.comment),
        onResult: (review, outcome) => results.push({ review, outcome }),
        logger: silentLogger(),
        retryMinDelayMs: 20,
        retryMaxDelayMs: 50,
      });
      closing.push(() => outbox.close());
      return outbox;
    };

    const outbox = await openOutbox();
    const origin = { adapter: 'websocket', ref: 'conn-1' };
    const queued = new Map<string, OutboxReview>();
    for (const answer of [...NOT_DOCUMENTED, DOCUMENTED]) {
      queued.set(answer.comment, await outbox.enqueue({ server: SERVER, player: { steamId: ALICE }, stars: 3, comment: answer.comment, origin }));
    }
    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(NOT_DOCUMENTED.length + 1);
    }, WAIT);
    await outbox.close();

    const outcomeOf = (comment: string): ReviewOutcome | undefined => results.find((result) => result.review.comment === comment)?.outcome;
    expect(outcomeOf(DOCUMENTED.comment)).toEqual({ ok: true });
    for (const { comment } of NOT_DOCUMENTED) {
      expect(outcomeOf(comment), comment).toMatchObject({ ok: false, error: { code: 'unconfirmed' } });
    }
    // Each was sent once and never again on its own: GSA may have stored it.
    expect([...service.received].sort()).toEqual([...NOT_DOCUMENTED, DOCUMENTED].map((answer) => answer.comment).sort());

    // Written whole where a host finds it, each with what came back and how to re-send it.
    const letters = await jsonLines(path.join(dataDir, 'unconfirmed.jsonl'));
    expect(letters.map((letter) => letter.comment).sort()).toEqual(NOT_DOCUMENTED.map((answer) => answer.comment).sort());
    for (const answer of NOT_DOCUMENTED) {
      const letter = letters.find((entry) => entry.comment === answer.comment);
      expect(letter, answer.comment).toMatchObject({
        op: 'unconfirmed',
        id: queued.get(answer.comment)?.id,
        error: { code: 'bad_response', status: answer.status, message: expect.stringContaining(`the service answered ${answer.status} (application/json) with ${answer.body}:`) as string },
      });
      const { message } = letter?.error as { message: string };
      expect(message).toContain('the review may or may not be stored');
      expect(message).toContain('gsa-bridge reviews retry');
    }

    const unconfirmed = await listJson(configPath, 'unconfirmed');
    expect(unconfirmed.map((row) => row.id).sort()).toEqual(NOT_DOCUMENTED.map((answer) => queued.get(answer.comment)?.id).sort());
    expect(unconfirmed.every((row) => row.state === 'unconfirmed')).toBe(true);
    expect((await listJson(configPath, 'delivered')).map((row) => [row.id, row.receipt])).toEqual([[queued.get(DOCUMENTED.comment)?.id, 'Done!']]);

    // The host re-queues them; the next run sends each once more, and now GSA answers as documented.
    const retry = await runCliInProcess(['reviews', 'retry', '--all-unconfirmed', '--config', configPath]);
    expect(retry).toMatchObject({ code: 0, stderr: `${NOT_DOCUMENTED.length} reviews re-queued in the journal; the sidecar delivers them when it next runs\n` });
    expect(await listJson(configPath, 'unconfirmed')).toEqual([]);
    service.honest = true;
    results.length = 0;
    const reopened = await openOutbox();
    reopened.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(NOT_DOCUMENTED.length);
    }, WAIT);
    await reopened.close();
    expect(results.map((result) => result.outcome)).toEqual(NOT_DOCUMENTED.map(() => ({ ok: true })));
    expect(service.received).toHaveLength(2 * NOT_DOCUMENTED.length + 1);
    expect((await listJson(configPath, 'delivered')).map((row) => row.id).sort()).toEqual([...queued.values()].map((review) => review.id).sort());
    expect(await listJson(configPath, 'unconfirmed')).toEqual([]);
  });
});
