// A review that failed before anything left this process is pending (retried), never unconfirmed: with every file
// descriptor in use (a real EMFILE, in a child process under `prlimit --nofile`), and on a TLS handshake that
// failed (undici's connect phase, which no errno names). Real emulator over loopback, the built outbox in dist/.
import { execFile, spawnSync } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutboxContents } from '../../src/reviews/letters.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { GsaClient, GsaError } from '../../src/gsa/index.js';
import { tempDir } from '../fixtures/tempDir.js';
import { patientMs } from '../fixtures/patience.js';

const SERVER = 'ovddykvbs';
const DIST = fileURLToPath(new URL('../../dist', import.meta.url));
const CHILD = fileURLToPath(new URL('../fixtures/outboxOutOfFds.js', import.meta.url));
const prlimitMissing = spawnSync('prlimit', ['--version']).error !== undefined;

let emulator: GsaEmulator;

beforeAll(async () => {
  emulator = await GsaEmulator.start({ servers: [{ name: SERVER, id: 4711 }] });
});

afterAll(async () => {
  await emulator.close();
});

interface ChildReport {
  readonly exhausted: boolean;
  readonly results: readonly unknown[];
  readonly lines: readonly string[];
}

describe('a review that never left', () => {
  if (prlimitMissing) console.log('skipped the EMFILE test: prlimit (util-linux) is not installed here');
  it.skipIf(prlimitMissing)('is retried when the process is out of file descriptors (EMFILE), and delivered once they are back', async () => {
    const dataDir = await tempDir('not-sent-emfile');
    const { stdout } = await promisify(execFile)(
      'prlimit',
      ['--nofile=256', process.execPath, CHILD, DIST, dataDir, emulator.url, emulator.clientId, emulator.clientSecret, SERVER],
      { timeout: patientMs(20_000) },
    );
    const report = JSON.parse(stdout) as ChildReport;
    expect(report.exhausted).toBe(true);
    // The attempt failed locally with EMFILE: an outage, retried with backoff, not an ambiguous answer.
    expect(report.lines.some((line) => line.startsWith('cannot deliver reviews') && line.includes('EMFILE'))).toBe(true);
    expect(report.results).toEqual([{ ok: true }]);
    expect(emulator.reviews.map((stored) => stored.comment)).toEqual(['out of fds']);
    const contents = await readOutboxContents(dataDir);
    expect(contents.pending).toEqual([]);
    expect(contents.letters).toEqual([]);
  });

  describe('over TLS to something that is not TLS', () => {
    let plain: Server;
    let port: number;
    const sockets = new Set<Socket>();

    beforeAll(async () => {
      // Answers the ClientHello with plain text and hangs up: the handshake fails before any request byte.
      plain = createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      });
      await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
      port = (plain.address() as { port: number }).port;
    });

    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => plain.close(resolve));
    });

    it('says the failed handshake surely stored nothing (maybeProcessed false), so the outbox retries it', async () => {
      const client = new GsaClient({ baseUrl: `https://127.0.0.1:${port}`, clientId: 'id', clientSecret: 'secret', timeoutMs: 2000, retry: { retries: 0 } });
      try {
        const failure = await client.submitReview(SERVER, { steamId: '76561198000000001' }, 5, 'tls').then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(GsaError);
        expect(failure).toMatchObject({ code: 'network', maybeProcessed: false });
      } finally {
        await client.close();
      }
    });
  });
});
