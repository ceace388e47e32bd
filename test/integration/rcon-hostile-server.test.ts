// A broken or hostile game server against the RCON clients, over real loopback sockets to the fake game servers:
// - an answer that never ends is cut at the per-reply cap (and what one connection holds at its own cap), the
//   command fails with a code naming the cap, and the client reconnects with the normal backoff;
// - a flood of malformed or stray frames costs one log line per kind, then one summary a minute (fake time);
// - a connection closed during the login is a drop (normal backoff), never taken for a wrong password.
// Waits that prove something did not happen use fake timers; real I/O is awaited on causal signals.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RconError } from '../../adapters/rcon/errors.js';
import { encodeSourceRconPacket } from '../../adapters/rcon/sourceRconCodec.js';
import { SourceRconClient, type ReconnectScheduled, type SourceRconClientOptions } from '../../adapters/rcon/sourceRconClient.js';
import { WebRconClient, type WebRconClientOptions } from '../../adapters/rcon/webRconClient.js';
import { captureLogger, type LogLine } from '../fixtures/capturedLogLines.js';
import { FakeRustWebRconServer } from '../fixtures/fakeRustWebRconServer.js';
import { FakeSourceRconServer, type FakeSourceRconServerOptions } from '../fixtures/fakeSourceRconServer.js';
import { waitForIo as waitFor, settleIo as settle } from '../fixtures/ioWaits.js';

const PASSWORD = 'hunter2-Secret';
const LABEL = 'game-rcon';
const MiB = 1024 * 1024;
const FAKE_TIMERS: Parameters<typeof vi.useFakeTimers>[0] = { toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'], now: 1_000_000 };

const sourceServers: FakeSourceRconServer[] = [];
const rustServers: FakeRustWebRconServer[] = [];
const sourceClients: SourceRconClient[] = [];
const rustClients: WebRconClient[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all([...sourceClients.splice(0).map((client) => client.close()), ...rustClients.splice(0).map((client) => client.close())]);
  await Promise.all([...sourceServers.splice(0).map((server) => server.stop()), ...rustServers.splice(0).map((server) => server.stop())]);
});

async function sourceFake(options: Partial<FakeSourceRconServerOptions> & Pick<FakeSourceRconServerOptions, 'quirks'>): Promise<FakeSourceRconServer> {
  const server = await FakeSourceRconServer.start({ password: PASSWORD, ...options });
  sourceServers.push(server);
  return server;
}

function sourceClient(server: FakeSourceRconServer, options: Partial<SourceRconClientOptions> = {}): SourceRconClient {
  const made = new SourceRconClient({
    host: server.host,
    port: server.port,
    password: PASSWORD,
    label: LABEL,
    replyEnd: { kind: 'mirror' },
    reconnectMinDelayMs: 20,
    reconnectMaxDelayMs: 200,
    ...options,
  });
  sourceClients.push(made);
  return made;
}

async function rustFake(): Promise<FakeRustWebRconServer> {
  const server = await FakeRustWebRconServer.start({ password: PASSWORD });
  rustServers.push(server);
  return server;
}

function rustClient(port: number, lines: LogLine[], options: Partial<WebRconClientOptions> = {}): WebRconClient {
  const made = new WebRconClient({ host: '127.0.0.1', port, password: PASSWORD, label: 'rust-main', logger: captureLogger(lines), ...options });
  rustClients.push(made);
  made.start();
  return made;
}

/** pino's JSON lines, parsed, so a test reads level, message and fields. */
function jsonLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    }),
  );
  return { logger, lines };
}

type Outcome = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly error: unknown };

function track(promise: Promise<string>): { outcome: Outcome | undefined } {
  const tracked: { outcome: Outcome | undefined } = { outcome: undefined };
  promise.then(
    (text) => {
      tracked.outcome = { ok: true, text };
    },
    (error: unknown) => {
      tracked.outcome = { ok: false, error };
    },
  );
  return tracked;
}

function codeOf(outcome: Outcome | undefined): string | undefined {
  if (outcome === undefined) return undefined;
  if (outcome.ok) return `resolved with ${outcome.text.length} characters`;
  return outcome.error instanceof RconError ? outcome.error.code : String(outcome.error);
}

describe('Source RCON: an answer that never ends', () => {
  it('is cut at maxReplyBytes (1 MiB by default) with reply_too_large, and the client reconnects with the normal backoff', async () => {
    const server = await sourceFake({
      quirks: 'srcds',
      // The first session's ListPlayers never ends: packets with its id and never the mirror.
      respond: (command, session) => (command === 'ListPlayers' && session.number === 1 ? { endless: { body: 'x'.repeat(4_000) } } : `reply to ${command}`),
    });
    const scheduled: ReconnectScheduled[] = [];
    const rcon = sourceClient(server, { commandTimeoutMs: 600_000, onReconnectScheduled: (event) => scheduled.push(event) });
    rcon.start();
    await rcon.whenReady();
    const answer = track(rcon.command('ListPlayers'));
    let peakBuffered = 0;
    // The old client kept every packet until commandTimeoutMs: 16 MiB sent with no outcome is the failure.
    await waitFor(() => {
      peakBuffered = Math.max(peakBuffered, rcon.status.bufferedBytes);
      return answer.outcome !== undefined || server.bytesSent > 16 * MiB;
    }, 'the endless answer cut');
    expect(codeOf(answer.outcome)).toBe('reply_too_large');
    const error = (answer.outcome as { error: RconError }).error;
    expect(error.message).toContain(`RCON server of ${LABEL} sent more than 1 MiB (maxReplyBytes)`);
    expect(peakBuffered).toBeLessThanOrEqual(1 * MiB);
    await waitFor(() => scheduled.length > 0, 'the reconnect scheduled');
    expect(scheduled[0]).toMatchObject({ afterAuthFailure: false, attempt: 1 });
    expect(scheduled[0]?.reason.code).toBe('reply_too_large');
    await waitFor(() => rcon.ready && server.logins === 2, 'logged in again');
    expect(rcon.status.bufferedBytes).toBe(0);
    await expect(rcon.command('ListPlayers')).resolves.toBe('reply to ListPlayers');
    expect(server.maxConcurrentSessions).toBe(1);
  });

  it('drops the connection at maxBufferedBytes (4 MiB by default) when several unfinished answers together pass it', async () => {
    const big = Buffer.alloc(900 * 1024, 0x61); // under the per-reply cap, five of them over the per-connection one
    // ARK's quirks: no mirror ever comes back, so every answer stays unfinished.
    const server = await sourceFake({ quirks: 'ark', respond: () => ({ packets: [{ body: big }] }) });
    const reasons: RconError[] = [];
    const rcon = sourceClient(server, { maxInFlight: 5, commandTimeoutMs: 600_000, onDisconnected: (reason) => reasons.push(reason) });
    rcon.start();
    await rcon.whenReady();
    const answers = ['a', 'b', 'c', 'd', 'e'].map((command) => track(rcon.command(command)));
    let peakBuffered = 0;
    await waitFor(() => {
      peakBuffered = Math.max(peakBuffered, rcon.status.bufferedBytes);
      return reasons.length > 0 || (server.bytesSent >= 5 * big.length && answers.some((answer) => answer.outcome !== undefined));
    }, 'the connection dropped at the cap');
    expect(reasons[0]?.code).toBe('buffer_limit');
    expect(reasons[0]?.message).toContain(`RCON server of ${LABEL} sent more than 4 MiB (maxBufferedBytes)`);
    expect(peakBuffered).toBeLessThanOrEqual(4 * MiB);
    await waitFor(() => answers.every((answer) => answer.outcome !== undefined), 'every command failed');
    expect(answers.map((answer) => codeOf(answer.outcome))).toEqual(['disconnected', 'disconnected', 'disconnected', 'disconnected', 'disconnected']);
    await waitFor(() => rcon.ready && server.logins === 2, 'logged in again');
    expect(rcon.status.bufferedBytes).toBe(0);
    expect(server.maxConcurrentSessions).toBe(1);
  });
});

describe('Source RCON: a flood of stray packets', () => {
  it('logs 10,000 replies for unknown ids as one warning, then one summary with the count after the interval (fake time)', async () => {
    vi.useFakeTimers(FAKE_TIMERS);
    const server = await sourceFake({ quirks: 'srcds' });
    const { logger, lines } = jsonLogger();
    let strays = 0;
    const rcon = sourceClient(server, { logger, onUnsolicited: () => (strays += 1) });
    rcon.start();
    await waitFor(() => rcon.ready, 'logged in');
    const flood = Buffer.concat(Array.from({ length: 10_000 }, (_, index) => encodeSourceRconPacket(900_000 + index, 0, 'not yours')));
    server.sendRaw(flood);
    await waitFor(() => strays === 10_000, 'every stray packet read');
    const aboutUnknownIds = (): Record<string, unknown>[] => lines.filter((line) => /unknown id/.test(String(line['msg'])));
    expect(aboutUnknownIds()).toHaveLength(1);
    expect(aboutUnknownIds()[0]).toMatchObject({ level: 40, id: 900_000 });
    expect(String(aboutUnknownIds()[0]?.['msg'])).toContain('repeats are summed up every 60 s');

    await vi.advanceTimersByTimeAsync(60_000);
    expect(aboutUnknownIds()).toHaveLength(2);
    expect(aboutUnknownIds()[1]).toMatchObject({ level: 40, kind: 'unknown_id', repeats: 9_999, sinceMs: 60_000 });
    expect(String(aboutUnknownIds()[1]?.['msg'])).toBe(`RCON ${LABEL}: 9999 more replies for unknown ids dropped in the last 60 s`);

    // A quiet interval ends the run: nothing more is said, and the next stray is news again.
    await vi.advanceTimersByTimeAsync(120_000);
    expect(aboutUnknownIds()).toHaveLength(2);
    server.sendRaw(encodeSourceRconPacket(42_424_242, 0, 'again'));
    await waitFor(() => strays === 10_001, 'the late stray read');
    expect(aboutUnknownIds()).toHaveLength(3);
    expect(rcon.ready).toBe(true);
  });
});

describe('Source RCON: a connection closed during the login', () => {
  it('is a drop: the next attempt comes after the normal backoff, not the wait after a refused password (fake time)', async () => {
    vi.useFakeTimers(FAKE_TIMERS);
    const server = await sourceFake({ quirks: 'srcds' });
    server.dropNextLogins = 1;
    const scheduled: ReconnectScheduled[] = [];
    const authFailed: RconError[] = [];
    const { logger, lines } = jsonLogger();
    // random 0: backoffDelayMs gives the low end of its range, half the step.
    const rcon = sourceClient(server, {
      logger,
      random: () => 0,
      reconnectMinDelayMs: 1_000,
      reconnectMaxDelayMs: 60_000,
      authFailureDelayMs: 300_000,
      onAuthFailed: (error) => authFailed.push(error),
      onReconnectScheduled: (event) => scheduled.push(event),
    });
    rcon.start();
    await waitFor(() => scheduled.length === 1, 'the drop seen');
    expect(scheduled[0]).toMatchObject({ delayMs: 500, attempt: 1, afterAuthFailure: false });
    expect(scheduled[0]?.reason.code).toBe('disconnected');
    expect(scheduled[0]?.reason.message).toContain('dropped during the login, before any answer');
    expect(authFailed).toEqual([]);
    expect(rcon.status.authFailures).toBe(0);
    expect(lines.some((line) => line['code'] === 'auth_failed')).toBe(false);
    await vi.advanceTimersByTimeAsync(499);
    await settle();
    expect(server.loginAttempts).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await waitFor(() => rcon.ready, 'logged in on the second attempt');
    expect([server.loginAttempts, server.logins]).toEqual([2, 1]);
  });

});

describe('Rust WebRCON: an answer that never ends', () => {
  it('cuts a message over maxMessageBytes (1 MiB by default): the command fails with reply_too_large, and the client reconnects', async () => {
    const fake = await rustFake();
    let session1Answers = 0;
    fake.respond = (command, session) => {
      if (command !== 'playerlist' || session !== 1) return undefined;
      session1Answers += 1;
      return 'x'.repeat(2 * MiB);
    };
    const lines: LogLine[] = [];
    const client = rustClient(fake.port, lines, { reconnectMinDelayMs: 20, reconnectMaxDelayMs: 200 });
    await client.ready(10_000);
    const answer = track(client.command('playerlist', { timeoutMs: 600_000 }));
    await waitFor(() => answer.outcome !== undefined, 'the answer settled');
    expect(session1Answers).toBe(1);
    expect(codeOf(answer.outcome)).toBe('reply_too_large');
    expect((answer.outcome as { error: RconError }).error.message).toContain('rust webrcon of adapter rust-main: the server sent a message of more than 1 MiB (maxMessageBytes)');
    await waitFor(() => client.status.sessions === 2 && client.connected, 'reconnected');
    expect(lines.some((line) => line.bindings['code'] === 'reply_too_large' && line.level === 'warn')).toBe(true);
    expect(lines.some((line) => line.bindings['code'] === 'auth_failed')).toBe(false);
    await expect(client.command('playerlist')).resolves.toBe('[]');
    expect(fake.maxConcurrentSessions).toBe(1);
  });
});

describe('Rust WebRCON: a flood of malformed messages', () => {
  it('logs 10,000 each of non-JSON, binary and foreign-identifier frames as one warning per kind, then one summary per kind (fake time)', async () => {
    const fake = await rustFake();
    vi.useFakeTimers(FAKE_TIMERS);
    const lines: LogLine[] = [];
    const client = rustClient(fake.port, lines, { keepaliveMs: 0 });
    await waitFor(() => client.connected && fake.openSessions === 1, 'connected');
    for (let index = 0; index < 10_000; index++) {
      fake.pushRaw(`not json ${index}`);
      fake.pushBinary(Buffer.from([0xde, 0xad, index & 0xff]));
      fake.pushReply(1_000_000 + index, 'not yours');
    }
    // Frames arrive in order: once this answer is in, every frame before it was read.
    await expect(client.command('echo done')).resolves.toBe('done');
    const warnings = (): LogLine[] => lines.filter((line) => line.level === 'warn');
    expect(warnings()).toHaveLength(3);
    expect(warnings().map((line) => line.message)).toEqual([
      expect.stringContaining('sent a message that is not WebRCON (not JSON); dropped (repeats are summed up every 60 s)'),
      expect.stringContaining('sent a binary frame; dropped'),
      expect.stringContaining('a reply for an identifier this client never sent (1000000); dropped'),
    ]);

    await vi.advanceTimersByTimeAsync(60_000);
    const summaries = warnings().slice(3);
    expect(summaries.map((line) => [line.bindings['kind'], line.bindings['repeats']])).toEqual([
      ['not_webrcon', 9_999],
      ['binary', 9_999],
      ['unknown_identifier', 9_999],
    ]);
    expect(summaries[0]?.message).toBe('rust webrcon of adapter rust-main: 9999 more messages that are not WebRCON dropped in the last 60 s');
    // The adapter is named in the message; the field is the adapter logger's (the client adds none, or pino would
    // write the key twice).
    expect(summaries.every((line) => line.message.startsWith('rust webrcon of adapter rust-main:') && line.bindings['adapter'] === undefined)).toBe(true);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(warnings()).toHaveLength(6);
  });
});

describe('Rust WebRCON: a connection cut during the upgrade with no answer', () => {
  it('is a drop: the next attempt after the normal backoff, no auth_failed (fake time)', async () => {
    const fake = await rustFake();
    vi.useFakeTimers(FAKE_TIMERS);
    fake.dropNextUpgrades = 1;
    const lines: LogLine[] = [];
    const authFailed: RconError[] = [];
    // random → almost 1: every step is its full length, so the first reconnect waits reconnectMinDelayMs exactly.
    const client = rustClient(fake.port, lines, { random: () => 0.999_999_9, onAuthFailed: (error) => authFailed.push(error) });
    await waitFor(() => fake.droppedUpgrades === 1 && client.status.state === 'waiting', 'the cut seen');
    expect(authFailed).toEqual([]);
    expect(lines.some((line) => line.bindings['code'] === 'auth_failed')).toBe(false);
    const failure = lines.find((line) => line.bindings['code'] === 'connect_failed');
    expect(failure?.bindings['retryInMs']).toBe(2_000);
    expect(failure?.message).toContain('the server closed the connection before answering the WebSocket upgrade');
    await vi.advanceTimersByTimeAsync(1_999);
    await settle();
    expect(fake.sessionsOpened).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    await waitFor(() => client.connected, 'connected on the second attempt');
    expect(fake.wrongPasswordAttempts).toBe(0);
  });
});
