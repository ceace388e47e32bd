// The Rust WebRCON client's lifetime against the fake Rust server, with vitest's fake timers driving every wait of
// the client (keepalive, command timeouts, backoff) while the sockets stay real: minutes without a pong, a silent
// server found by the keepalive, a wrong password backing off for minutes, reconnects after a drop and a restart with
// a capped backoff, one session at a time through a drop storm, close() for good, and the password in no log line
// and no error.
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebRconClient, type WebRconClientOptions, type WebRconDisconnect, type WebRconLogger } from '../../adapters/rcon/webRconClient.js';
import { RconError } from '../../adapters/rcon/errors.js';
import { FakeRustWebRconServer } from '../fixtures/fakeRustWebRconServer.js';
import { captureLogger, type LogLine } from '../fixtures/capturedLogLines.js';
import { patientMs } from '../fixtures/patience.js';

const PASSWORD = 'Hunter2$ecret!';
const ALICE = '76561198000000001';
// Only the client's own timers are faked; socket I/O stays real.
const FAKE_TIMERS: Parameters<typeof vi.useFakeTimers>[0] = { toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] };
const realSetTimeout = globalThis.setTimeout.bind(globalThis);
const realSleep = (ms: number): Promise<void> => new Promise((resolve) => realSetTimeout(resolve, ms));
// random → 0.999999: every backoff step is its full length (no jitter), so the schedule is exact.
const NO_JITTER = (): number => 0.999_999_9;

let server: FakeRustWebRconServer | undefined;
const clients: WebRconClient[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await server?.stop();
  server = undefined;
});

async function startServer(): Promise<FakeRustWebRconServer> {
  server = await FakeRustWebRconServer.start({ password: PASSWORD, players: [{ steamId: ALICE, name: 'Alice' }] });
  return server;
}

function makeClient(port: number, lines: LogLine[], overrides: Partial<WebRconClientOptions> = {}): WebRconClient {
  const client = new WebRconClient({
    host: '127.0.0.1',
    port,
    password: PASSWORD,
    label: 'rust-main',
    logger: captureLogger(lines),
    keepaliveMs: 30_000,
    commandTimeoutMs: 5_000,
    random: NO_JITTER,
    ...overrides,
  });
  clients.push(client);
  client.start();
  return client;
}

/** Polls `check` in real time until it stops throwing (5 s at most). vi.waitFor would advance the fake clock. */
async function waitFor(check: () => void): Promise<void> {
  const deadline = performance.now() + patientMs(5_000);
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (performance.now() > deadline) throw error;
      await realSleep(5);
    }
  }
}

describe('WebRconClient lifetime (fake timers, real sockets)', () => {
  it('keeps a session for many minutes with no pong at all, using serverinfo as the keepalive', async () => {
    const fake = await startServer();
    vi.useFakeTimers(FAKE_TIMERS);
    const client = makeClient(fake.port, []);
    await waitFor(() => {
      expect(client.connected).toBe(true);
    });
    for (let minute = 1; minute <= 20; minute++) {
      await vi.advanceTimersByTimeAsync(30_000);
      await waitFor(() => {
        expect(fake.commands).toHaveLength(1 + minute);
        expect(client.status.pendingCommands).toBe(0);
      });
    }
    // Ten minutes: the probe on open plus one keepalive every 30 s, all answered, never a ping, never a reconnect.
    expect(fake.commandTexts()).toEqual(Array<string>(21).fill('serverinfo'));
    expect(fake.pingsReceived).toBe(0);
    expect(fake.sessionsOpened).toBe(1);
    expect(client.status).toMatchObject({ connected: true, sessions: 1, state: 'open' });
  });

  it('finds a silent server through the keepalive, closes the session and reconnects', async () => {
    const fake = await startServer();
    vi.useFakeTimers(FAKE_TIMERS);
    const lines: LogLine[] = [];
    const disconnects: WebRconDisconnect[] = [];
    const client = makeClient(fake.port, lines, { onDisconnected: (info) => disconnects.push(info) });
    await waitFor(() => {
      expect(client.connected).toBe(true);
    });
    fake.silent = true;
    await vi.advanceTimersByTimeAsync(30_000);
    await waitFor(() => {
      expect(fake.commands).toHaveLength(2);
    });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(client.connected).toBe(true); // not before the command timeout
    await vi.advanceTimersByTimeAsync(1);
    await waitFor(() => {
      expect(client.status.state).toBe('waiting');
      expect(fake.openSessions).toBe(0);
    });
    expect(disconnects).toEqual([{ reason: 'no answer to the keepalive within 5000 ms', reconnectInMs: 2_000 }]);
    expect(lines.some((line) => line.level === 'warn' && line.message.includes('no answer to the keepalive'))).toBe(true);
    fake.silent = false;
    await vi.advanceTimersByTimeAsync(2_000);
    await waitFor(() => {
      expect(client.connected).toBe(true);
    });
    expect(fake.sessionsOpened).toBe(2);
    expect(fake.maxConcurrentSessions).toBe(1);
    expect(client.status.sessions).toBe(2);
  });

  it('backs off for minutes after a wrong password instead of hammering the server', async () => {
    const fake = await startServer();
    vi.useFakeTimers(FAKE_TIMERS);
    const lines: LogLine[] = [];
    const client = makeClient(fake.port, lines, { password: 'not-the-password' });
    const expected = [60_000, 120_000, 240_000, 480_000, 900_000, 900_000];
    for (const [index, delay] of expected.entries()) {
      await waitFor(() => {
        expect(fake.wrongPasswordAttempts).toBe(index + 1);
        expect(client.status.state).toBe('waiting');
      });
      await vi.advanceTimersByTimeAsync(delay - 1);
      await realSleep(20);
      expect(fake.wrongPasswordAttempts).toBe(index + 1); // nothing before the wait is over
      await vi.advanceTimersByTimeAsync(1);
    }
    await waitFor(() => {
      expect(fake.wrongPasswordAttempts).toBe(expected.length + 1);
    });
    const retries = lines.filter((line) => line.bindings['code'] === 'auth_failed').map((line) => line.bindings['retryInMs']);
    expect(retries.slice(0, expected.length)).toEqual(expected);
    // About 45 minutes of fake time, 7 attempts: Rust bans after 5 in a row for rcon.banduration (300 s).
    expect(fake.sessionsOpened).toBe(0);
    expect(client.status.lastError?.code).toBe('auth_failed');
  });

  it('reconnects after a drop, and after a restart with a backoff capped at reconnectMaxDelayMs', async () => {
    const fake = await startServer();
    vi.useFakeTimers(FAKE_TIMERS);
    const lines: LogLine[] = [];
    const client = makeClient(fake.port, lines);
    await waitFor(() => {
      expect(client.connected).toBe(true);
    });
    fake.dropAll();
    await waitFor(() => {
      expect(client.status.state).toBe('waiting');
      expect(fake.openSessions).toBe(0);
    });
    await vi.advanceTimersByTimeAsync(2_000);
    await waitFor(() => {
      expect(client.status.sessions).toBe(2);
    });

    await fake.goDown();
    const failureLines = (): LogLine[] => lines.filter((line) => line.bindings['code'] === 'disconnected' || line.bindings['code'] === 'connect_failed').slice(1);
    await waitFor(() => {
      expect(failureLines()).toHaveLength(1);
    });
    const expected = [2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000];
    for (const [index, delay] of expected.entries()) {
      expect(failureLines()[index]?.bindings['retryInMs']).toBe(delay);
      if (index === expected.length - 1) break;
      await vi.advanceTimersByTimeAsync(delay);
      await waitFor(() => {
        expect(failureLines()).toHaveLength(index + 2);
      });
    }
    await fake.comeBack(); // the same port again
    await vi.advanceTimersByTimeAsync(60_000);
    await waitFor(() => {
      expect(client.connected).toBe(true);
    });
    expect(client.status.sessions).toBe(3);
    expect(fake.maxConcurrentSessions).toBe(1);
    // Once a session answered, the backoff starts over: the next drop waits 2 s again.
    fake.dropAll();
    await waitFor(() => {
      expect(client.status.state).toBe('waiting');
    });
    expect(lines.at(-1)?.bindings['retryInMs']).toBe(2_000);
  });

  it('never reconnects after close(), whether it was waiting, connecting or open', async () => {
    const fake = await startServer();
    vi.useFakeTimers(FAKE_TIMERS);
    const waiting = makeClient(fake.port, []);
    await waitFor(() => {
      expect(waiting.connected).toBe(true);
    });
    fake.dropAll();
    await waitFor(() => {
      expect(waiting.status.state).toBe('waiting');
    });
    await waiting.close();
    const connecting = makeClient(fake.port, []);
    expect(connecting.status.state).toBe('connecting');
    await connecting.close();
    const open = makeClient(fake.port, []);
    await waitFor(() => {
      expect(open.connected).toBe(true);
    });
    await open.close();
    await vi.advanceTimersByTimeAsync(30 * 60_000);
    // The server sees the closes over real sockets: waited for, not slept on.
    await waitFor(() => {
      expect(fake.openSessions).toBe(0);
    });
    expect(fake.sessionsOpened).toBeLessThanOrEqual(3);
    const sessionsAfterClose = fake.sessionsOpened;
    await vi.advanceTimersByTimeAsync(30 * 60_000);
    await realSleep(20);
    expect(fake.sessionsOpened).toBe(sessionsAfterClose);
    for (const client of [waiting, connecting, open]) expect(client.status.state).toBe('closed');
  });

  it('keeps exactly one session through a storm of drops, restarts, silences and commands, with no unhandled error', async () => {
    const fake = await startServer();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    process.on('uncaughtException', onUnhandled);
    try {
      vi.useFakeTimers(FAKE_TIMERS);
      const codes = new Set<string>();
      const client = makeClient(fake.port, [], { random: () => 0.3 });
      await waitFor(() => {
        expect(client.connected).toBe(true);
      });
      for (let round = 0; round < 30; round++) {
        const commands = [client.command('playerlist'), client.command(`mute ${ALICE}`, { silentOk: true }), client.command('echo x')].map((promise) =>
          promise.catch((error: unknown) => {
            codes.add(error instanceof RconError ? error.code : 'not an RconError');
            return '';
          }),
        );
        switch (round % 5) {
          case 0:
            fake.dropAll();
            break;
          case 1:
            fake.dropAll();
            fake.dropAll();
            break;
          case 2:
            fake.silent = true;
            break;
          case 3:
            await fake.restart(0);
            break;
          default:
            fake.silent = false;
        }
        let settled = 0;
        for (const command of commands) void command.then(() => settled++);
        await vi.advanceTimersByTimeAsync(1_000 + ((round * 7_919) % 40_000));
        await realSleep(10);
        // Every command settles: by its answer, its timeout (fake time) or the drop of its session (real I/O).
        for (let step = 0; step < 100 && settled < commands.length; step++) {
          await vi.advanceTimersByTimeAsync(1_000);
          await realSleep(5);
        }
        expect(settled).toBe(commands.length);
        expect(fake.openSessions).toBeLessThanOrEqual(1);
      }
      fake.silent = false;
      for (let step = 0; step < 20 && !client.connected; step++) {
        await vi.advanceTimersByTimeAsync(60_000);
        await realSleep(20);
      }
      expect(client.connected).toBe(true);
      expect(await client.command('echo calm')).toBe('calm');
      expect(fake.maxConcurrentSessions).toBe(1);
      expect([...codes].every((code) => ['not_connected', 'disconnected', 'timeout'].includes(code))).toBe(true);
      await client.close();
      await realSleep(20);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      process.off('uncaughtException', onUnhandled);
    }
  });

  it('never writes the password into a log line or an error: connect, wrong password, drop, reconnect, restart, close', async () => {
    const fake = await startServer();
    vi.useFakeTimers(FAKE_TIMERS);
    const output: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        output.push(chunk.toString('utf8'));
        done();
      },
    });
    // A real pino logger at the lowest level: the client's structural logger type must accept it.
    const logger: WebRconLogger = pino({ level: 'trace' }, destination);
    const texts: string[] = [];
    const keep = (error: unknown): void => {
      if (error instanceof Error) texts.push(error.message, error.stack ?? '', JSON.stringify(error));
    };
    const options = {
      logger,
      onAuthFailed: keep,
      onDisconnected: (info: WebRconDisconnect) => texts.push(info.reason),
    };
    const WRONG = 'Wr0ng$Pass!';

    const wrong = makeClient(fake.port, [], { ...options, password: WRONG });
    await wrong.ready(5_000).catch(keep);
    const badHost = makeClient(fake.port, [], { ...options, host: 'bad host name' }); // the URL constructor throws, quoting the URL
    await waitFor(() => {
      expect(badHost.status.lastError?.code).toBe('connect_failed');
    });
    texts.push(badHost.status.lastError?.message ?? '');
    await wrong.close();
    await badHost.close();

    const client = makeClient(fake.port, [], options);
    await client.command('serverinfo').catch(keep); // not connected yet
    await waitFor(() => {
      expect(client.connected).toBe(true);
    });
    await client.command('echo hi');
    fake.dropAll();
    await waitFor(() => {
      expect(client.status.state).toBe('waiting');
    });
    await client.command('serverinfo').catch(keep);
    texts.push(client.status.lastError?.message ?? '');
    await vi.advanceTimersByTimeAsync(2_000);
    await waitFor(() => {
      expect(client.connected).toBe(true);
    });
    await fake.goDown();
    await waitFor(() => {
      expect(client.status.state).toBe('waiting');
    });
    await vi.advanceTimersByTimeAsync(2_000);
    await waitFor(() => {
      expect(client.status.lastError?.code).toBe('connect_failed');
    });
    texts.push(client.status.lastError?.message ?? '');
    await fake.comeBack();
    fake.silent = true;
    await vi.advanceTimersByTimeAsync(4_000);
    await realSleep(30);
    await vi.advanceTimersByTimeAsync(5_000); // the probe on open goes unanswered: a dead session
    await realSleep(30);
    const pending = client.command('echo never', { timeoutMs: 60_000 }).catch(keep);
    await client.close();
    await pending;
    await client.command('x').catch(keep);

    const everything = [...output, ...texts].join('\n');
    expect(output.length).toBeGreaterThan(5);
    expect(texts.length).toBeGreaterThan(5);
    expect(everything).toContain('ws://127.0.0.1:');
    expect(everything).toContain('/***');
    for (const secret of [PASSWORD, WRONG]) {
      for (const form of [secret, encodeURIComponent(secret), encodeURI(secret), secret.replace('$', '%24')]) {
        expect(everything, form).not.toContain(form);
      }
    }
  });
});
