// SourceRconClient against the fake Source RCON game servers over real loopback TCP: login quirks (SRCDS's empty
// packet, id -1, ARK's silence), multi-packet replies (mirror and quiet time), pipelining with interleaved
// replies, unknown ids and pushed packets, and the lifetime rules (timeouts, backoff after a refused login,
// reconnect after a drop and after a restart, one session at a time, no unhandled errors, close()).
// Time-dependent rules run on fake timers (setTimeout and Date only: socket I/O stays real).
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RconError } from '../../adapters/rcon/errors.js';
import { encodeSourceRconPacket } from '../../adapters/rcon/sourceRconCodec.js';
import { SourceRconClient, type ReconnectScheduled, type SourceRconClientOptions, type UnsolicitedPacket } from '../../adapters/rcon/sourceRconClient.js';
import { ARK_NO_RESPONSE, FakeSourceRconServer, type FakeSourceRconServerOptions } from '../fixtures/fakeSourceRconServer.js';
import { waitForIo as waitFor, settleIo as settle, rconFailure as failure } from '../fixtures/ioWaits.js';

const PASSWORD = 'hunter2-Secret';
const LABEL = 'game-rcon';

const servers: FakeSourceRconServer[] = [];
const clients: SourceRconClient[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

async function fake(options: Partial<FakeSourceRconServerOptions> & Pick<FakeSourceRconServerOptions, 'quirks'>): Promise<FakeSourceRconServer> {
  const server = await FakeSourceRconServer.start({ password: PASSWORD, ...options });
  servers.push(server);
  return server;
}

function client(server: FakeSourceRconServer, options: Partial<SourceRconClientOptions> = {}): SourceRconClient {
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
  clients.push(made);
  return made;
}

function useFakeTime(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
}

describe('SourceRconClient: login', () => {
  it.each(['whole', 'split', 'merged'] as const)('logs in to SRCDS past its empty RESPONSE_VALUE, and runs commands (%s writes)', async (writeMode) => {
    const server = await fake({ quirks: 'srcds', writeMode });
    const rcon = client(server);
    rcon.start();
    await rcon.whenReady();
    expect(rcon.status).toMatchObject({ state: 'ready', connected: true, ready: true });
    await expect(rcon.command('status')).resolves.toBe('reply to status');
    expect(server.commands).toEqual(['status']);
    expect(server.logins).toBe(1);
  });

  it.each(['whole', 'split', 'merged'] as const)('takes id -1 after SRCDS\'s empty packet as a refused login, names the key and adapter, never the password (%s writes)', async (writeMode) => {
    const server = await fake({ quirks: 'srcds', password: 'the-right-one', writeMode });
    const authFailed: RconError[] = [];
    const rcon = client(server, { onAuthFailed: (error) => authFailed.push(error) });
    const sent = failure(rcon.command('too early'));
    rcon.start();
    const error = await failure(rcon.whenReady());
    expect(error.code).toBe('auth_failed');
    expect(error.message).toContain(`servers[].adapters[].password of adapter ${LABEL}`);
    expect(error.message).not.toContain(PASSWORD);
    expect(authFailed).toHaveLength(1);
    expect(rcon.ready).toBe(false);
    expect((await sent).code).toBe('not_connected');
    expect(server.commands).toEqual([]);
  });

  it('turns ARK\'s silence on a wrong password into auth_timeout after exactly authTimeoutMs, naming the likely cause', async () => {
    useFakeTime();
    const server = await fake({ quirks: 'ark', password: 'the-right-one' });
    const rcon = client(server, { replyEnd: { kind: 'quiet' }, label: 'ark-main' });
    rcon.start();
    const ready = rcon.whenReady({ timeoutMs: 60_000 });
    const outcome = failure(ready);
    await waitFor(() => server.loginAttempts === 1, 'the login reaches the server');
    await vi.advanceTimersByTimeAsync(4_999);
    expect(rcon.status.state).toBe('authenticating');
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;
    expect(error.code).toBe('auth_timeout');
    expect(error.message).toBe(
      'no answer to the RCON login within 5 s: the password (servers[].adapters[].password of adapter ark-main) is probably wrong (ARK says nothing to a wrong password), or the port is not an RCON port',
    );
    await waitFor(() => server.sessions === 0, 'the silent session is closed');
    expect(rcon.status).toMatchObject({ state: 'waiting', authFailures: 1 });
  });

  it('waits at least authFailureDelayMs before logging in again, doubling per refusal (fake timers)', async () => {
    useFakeTime();
    const server = await fake({ quirks: 'squad', password: 'the-right-one' });
    const scheduled: ReconnectScheduled[] = [];
    // random 0: backoffDelayMs gives the low end of its range, i.e. exactly the floor.
    const rcon = client(server, { random: () => 0, authFailureDelayMs: 300_000, onReconnectScheduled: (event) => scheduled.push(event) });
    rcon.start();
    await waitFor(() => scheduled.length === 1, 'first refusal');
    expect(scheduled[0]).toMatchObject({ delayMs: 300_000, afterAuthFailure: true, attempt: 1 });
    await vi.advanceTimersByTimeAsync(299_999);
    await settle();
    expect(server.loginAttempts).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await waitFor(() => scheduled.length === 2, 'second refusal');
    expect(server.loginAttempts).toBe(2);
    expect(scheduled[1]).toMatchObject({ delayMs: 600_000, afterAuthFailure: true, attempt: 2 });
    await vi.advanceTimersByTimeAsync(599_999);
    await settle();
    expect(server.loginAttempts).toBe(2);
    expect(server.maxConcurrentSessions).toBe(1);
  });

  it('takes Squad closing the connection during the login as a drop (normal backoff), naming the password as what to check if it repeats', async () => {
    useFakeTime();
    const server = await fake({ quirks: 'squad', password: 'the-right-one', wrongPassword: 'close' });
    const scheduled: ReconnectScheduled[] = [];
    const rcon = client(server, { random: () => 0, reconnectMinDelayMs: 1_000, reconnectMaxDelayMs: 60_000, authFailureDelayMs: 300_000, onReconnectScheduled: (event) => scheduled.push(event) });
    rcon.start();
    const error = await failure(rcon.whenReady({ timeoutMs: 60_000, failFast: true }));
    expect(error.code).toBe('disconnected');
    expect(error.message).toContain('dropped during the login, before any answer');
    expect(error.message).toContain(`check servers[].adapters[].password of adapter ${LABEL} (Squad closes the connection on a wrong password)`);
    await waitFor(() => scheduled.length === 1, 'reconnect scheduled');
    expect(scheduled[0]).toMatchObject({ delayMs: 500, afterAuthFailure: false });
    // The normal backoff still spaces a password Squad keeps refusing: doubling, up to reconnectMaxDelayMs.
    await vi.advanceTimersByTimeAsync(500);
    await waitFor(() => scheduled.length === 2, 'second attempt closed too');
    expect(scheduled[1]).toMatchObject({ delayMs: 1_000, afterAuthFailure: false, attempt: 2 });
  });

  it('never logs the password, at any level, through a refused login, a timeout and a good login', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'trace' }, new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(chunk.toString()); done(); } }));
    const refusing = await fake({ quirks: 'srcds', password: 'other' });
    const bad = client(refusing, { logger });
    bad.start();
    const error = await failure(bad.whenReady());
    const server = await fake({ quirks: 'srcds' });
    const good = client(server, { logger });
    good.start();
    await good.whenReady();
    await good.command('status');
    await good.close();
    await bad.close();
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.join('\n')).not.toContain(PASSWORD);
    expect(JSON.stringify(error) + error.message + String(error.stack)).not.toContain(PASSWORD);
  });
});

describe('SourceRconClient: replies', () => {
  const longText = 'Zoë 日本語 🎮 '.repeat(1_200); // ~22 KB: six packets, cut inside characters

  it.each([
    ['srcds', 'whole'],
    ['srcds', 'split'],
    ['srcds', 'merged'],
    ['squad', 'whole'],
    ['squad', 'split'],
    ['squad', 'merged'],
  ] as const)('joins a multi-packet reply by the mirror trick (%s, %s writes)', async (quirks, writeMode) => {
    const server = await fake({ quirks, writeMode, respond: (command) => (command === 'long' ? longText : `short ${command}`) });
    const rcon = client(server, { maxInFlight: 3 });
    rcon.start();
    await rcon.whenReady();
    const replies = await Promise.all([rcon.command('long'), rcon.command('a'), rcon.command('long'), rcon.command('b')]);
    expect(replies).toEqual([longText, 'short a', longText, 'short b']);
    expect(Buffer.byteLength(longText)).toBeGreaterThan(5 * 4096);
  });

  it('ends a reply after the quiet time (fake timers), joining its packets', async () => {
    useFakeTime();
    const server = await fake({ quirks: 'ark', respond: () => ({ packets: [{ body: 'part one, ' }, { body: 'part two' }] }) });
    const unsolicited: UnsolicitedPacket[] = [];
    const rcon = client(server, { replyEnd: { kind: 'quiet', quietMs: 100 }, onUnsolicited: (packet) => unsolicited.push(packet) });
    rcon.start();
    await waitFor(() => rcon.ready, 'logged in');
    let reply: string | undefined;
    void rcon.command('GetChat').then((text) => (reply = text));
    await waitFor(() => server.commands.length === 1, 'command sent');
    // A stray packet after the reply: once it is seen, the reply's packets (sent before it) have been read too.
    server.sendRaw(encodeSourceRconPacket(424_242, 0, 'marker'));
    await waitFor(() => unsolicited.length === 1, 'marker read');
    await vi.advanceTimersByTimeAsync(99);
    expect(reply).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(reply).toBe('part one, part two');
    expect(unsolicited[0]).toMatchObject({ id: 424_242, reason: 'unknown_id', text: 'marker' });
  });

  it('ends a quiet-rule reply at once on a packet shorter than endsBelowBodyBytes (no quiet wait)', async () => {
    useFakeTime();
    const server = await fake({ quirks: 'ark', respond: () => 'short answer' });
    const rcon = client(server, { replyEnd: { kind: 'quiet', quietMs: 100, endsBelowBodyBytes: 4000 } });
    rcon.start();
    await waitFor(() => rcon.ready, 'logged in');
    let reply: string | undefined;
    void rcon.command('ListPlayers').then((text) => (reply = text));
    await waitFor(() => reply !== undefined, 'answered without advancing the clock');
    expect(reply).toBe('short answer');
  });

  it('takes ARK\'s "Server received, But no response!!" as the answer of a command with no output', async () => {
    const server = await fake({ quirks: 'ark', respond: () => undefined });
    const rcon = client(server, { replyEnd: { kind: 'quiet', quietMs: 20 } });
    rcon.start();
    await rcon.whenReady();
    await expect(rcon.command('ServerChat hi')).resolves.toBe(ARK_NO_RESPONSE);
  });

  it('pipelines: every command in flight at once, replies answered in reverse order each reach their own caller', async () => {
    const server = await fake({ quirks: 'ark', respond: (command) => `answer of ${command}` });
    const rcon = client(server, { replyEnd: { kind: 'quiet', quietMs: 20 }, maxInFlight: 4 });
    rcon.start();
    await rcon.whenReady();
    server.holdReplies = true;
    const replies = Promise.all(['one', 'two', 'three', 'four', 'five'].map((command) => rcon.command(command)));
    await waitFor(() => server.commands.length === 4, 'four commands in flight');
    await settle();
    expect(server.commands).toEqual(['one', 'two', 'three', 'four']); // the fifth waits for the depth
    server.releaseHeld('reverse');
    await waitFor(() => server.heldReplies === 1, 'the fifth sent once a slot freed');
    server.releaseHeld();
    expect(await replies).toEqual(['answer of one', 'answer of two', 'answer of three', 'answer of four', 'answer of five']);
  });

  it('uses a fresh id per packet: never 0 or -1, never reused in a session', async () => {
    const server = await fake({ quirks: 'srcds' });
    const rcon = client(server, { maxInFlight: 8, maxQueuedCommands: 1_000 });
    rcon.start();
    await rcon.whenReady();
    await Promise.all(Array.from({ length: 200 }, (_, index) => rcon.command(`c${index}`)));
    const ids = server.packets.map((packet) => packet.id);
    expect(ids).toHaveLength(1 + 2 * 200); // login + (command + mirror) each
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => id > 0)).toBe(true);
  });

  it('wraps ids from 2^31-1 back to 1, never using 0 or -1', async () => {
    const server = await fake({ quirks: 'srcds' });
    const rcon = client(server, { firstRequestId: 2 ** 31 - 3, maxInFlight: 4 });
    rcon.start();
    await rcon.whenReady();
    server.holdReplies = true;
    // The login took 2^31-3; commands take …-2, …-1 (+ mirror ids), then wrap to 1.
    const replies = Promise.all(['a', 'b', 'c'].map((command) => rcon.command(command)));
    await waitFor(() => server.heldReplies === 6, 'three commands held');
    server.holdReplies = false;
    server.releaseHeld();
    expect(await replies).toEqual(['reply to a', 'reply to b', 'reply to c']);
    expect(server.packets.map((packet) => packet.id)).toEqual([2 ** 31 - 3, 2 ** 31 - 2, 2 ** 31 - 1, 1, 2, 3, 4]);
  });

  it('drops a reply for an unknown id (logged, given to onUnsolicited) and never hands it to the waiting command', async () => {
    const server = await fake({ quirks: 'srcds' });
    const unsolicited: UnsolicitedPacket[] = [];
    const rcon = client(server, { onUnsolicited: (packet) => unsolicited.push(packet) });
    rcon.start();
    await rcon.whenReady();
    server.holdReplies = true;
    const reply = rcon.command('ListPlayers');
    await waitFor(() => server.heldReplies === 2, 'reply and mirror held');
    server.sendRaw(encodeSourceRconPacket(77_777, 0, 'not yours'));
    await waitFor(() => unsolicited.length === 1, 'stranger seen');
    server.releaseHeld();
    await expect(reply).resolves.toBe('reply to ListPlayers');
    expect(unsolicited).toMatchObject([{ id: 77_777, type: 0, text: 'not yours', reason: 'unknown_id' }]);
  });

  it('routes Squad\'s pushed chat (type 1) to onUnsolicited, never into a pending command\'s reply', async () => {
    const server = await fake({ quirks: 'squad' });
    const pushed: UnsolicitedPacket[] = [];
    const rcon = client(server, { onUnsolicited: (packet) => pushed.push(packet) });
    rcon.start();
    await rcon.whenReady();
    server.holdReplies = true;
    const reply = rcon.command('ListPlayers');
    await waitFor(() => server.heldReplies === 2, 'reply held');
    const line = '[ChatAll] [Online IDs:EOS: 0002a10386a3463a9e4b0d5d1f0e0c0a steam: 76561198000000001] Zoë : hi (there): 日本';
    server.pushChat(line);
    await waitFor(() => pushed.length === 1, 'chat pushed');
    server.releaseHeld();
    await expect(reply).resolves.toBe('reply to ListPlayers');
    expect(pushed).toMatchObject([{ type: 1, text: line, reason: 'pushed' }]);
  });

  it('times a command out after commandTimeoutMs (ARK hangs on an empty command), and drops its late reply', async () => {
    useFakeTime();
    const server = await fake({ quirks: 'ark' });
    const rcon = client(server, { replyEnd: { kind: 'quiet', quietMs: 20 } });
    rcon.start();
    await waitFor(() => rcon.ready, 'logged in');
    const outcome = failure(rcon.command(''));
    await waitFor(() => server.commands.length === 1, 'sent');
    await vi.advanceTimersByTimeAsync(4_999);
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('the command may have run');
    expect(rcon.ready).toBe(true);
  });

  it('drops the connection on a packet size above the cap, with code protocol, and reconnects', async () => {
    const server = await fake({ quirks: 'srcds' });
    const reasons: RconError[] = [];
    const rcon = client(server, { maxPacketSize: 4096 + 10, onDisconnected: (reason) => reasons.push(reason) });
    rcon.start();
    await rcon.whenReady();
    const header = Buffer.alloc(4);
    header.writeInt32LE(4096 + 11);
    server.sendRaw(header);
    await waitFor(() => reasons.length === 1, 'dropped');
    expect(reasons[0]?.code).toBe('protocol');
    expect(reasons[0]?.message).toContain('above the cap of 4106');
    await waitFor(() => server.logins === 2, 'reconnected');
  });
});

describe('SourceRconClient: lifetime', () => {
  it('fails commands at once while not logged in (not_connected), and in-flight ones when the connection drops (disconnected, sent)', async () => {
    const server = await fake({ quirks: 'srcds' });
    const rcon = client(server);
    expect((await failure(rcon.command('before start'))).code).toBe('not_connected');
    rcon.start();
    await rcon.whenReady();
    server.holdReplies = true;
    const pending = failure(rcon.command('ListPlayers'));
    await waitFor(() => server.heldReplies === 2, 'held');
    server.dropConnections();
    const error = await pending;
    expect(error).toMatchObject({ code: 'disconnected', sent: true });
    await waitFor(() => rcon.ready, 'back');
    server.holdReplies = false;
    await expect(rcon.command('again')).resolves.toBe('reply to again');
  });

  it('reconnects after a drop after the backoff, not before (fake timers)', async () => {
    useFakeTime();
    const server = await fake({ quirks: 'srcds' });
    const scheduled: ReconnectScheduled[] = [];
    const rcon = client(server, { random: () => 0, reconnectMinDelayMs: 1_000, reconnectMaxDelayMs: 60_000, onReconnectScheduled: (event) => scheduled.push(event) });
    rcon.start();
    await waitFor(() => rcon.ready, 'logged in');
    server.dropConnections();
    await waitFor(() => scheduled.length === 1, 'drop seen');
    expect(scheduled[0]).toMatchObject({ delayMs: 500, attempt: 1, afterAuthFailure: false });
    expect(scheduled[0]?.reason.code).toBe('disconnected');
    await vi.advanceTimersByTimeAsync(499);
    await settle();
    expect(server.connections).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await waitFor(() => rcon.ready, 'logged in again');
    expect(server.logins).toBe(2);
  });

  it('rides out a server restart with capped exponential backoff on the same port (fake timers)', async () => {
    useFakeTime();
    const server = await fake({ quirks: 'squad' });
    const scheduled: ReconnectScheduled[] = [];
    const rcon = client(server, { random: () => 0, reconnectMinDelayMs: 1_000, reconnectMaxDelayMs: 8_000, onReconnectScheduled: (event) => scheduled.push(event) });
    rcon.start();
    await waitFor(() => rcon.ready, 'logged in');
    await server.goDown();
    await waitFor(() => scheduled.length === 1, 'drop seen');
    for (let failed = 1; failed < 7; failed++) {
      await vi.advanceTimersByTimeAsync(scheduled.at(-1)!.delayMs);
      await waitFor(() => scheduled.length === failed + 1, `attempt ${failed} refused`);
    }
    expect(scheduled.map((event) => event.delayMs)).toEqual([500, 1_000, 2_000, 4_000, 4_000, 4_000, 4_000]);
    expect(scheduled.slice(1).every((event) => event.reason.code === 'connect_failed')).toBe(true);
    await server.comeUp();
    await vi.advanceTimersByTimeAsync(4_000);
    await waitFor(() => rcon.ready, 'back after the restart');
    expect(server.logins).toBe(2);
    expect(server.maxConcurrentSessions).toBe(1);
  });

  it('grows the backoff while sessions die young (a kick loop), and starts over after a session that lasted (fake timers)', async () => {
    useFakeTime();
    const server = await fake({ quirks: 'squad' });
    const scheduled: ReconnectScheduled[] = [];
    let kick = true;
    const rcon = client(server, {
      random: () => 0,
      reconnectMinDelayMs: 1_000,
      reconnectMaxDelayMs: 60_000,
      stableSessionMs: 30_000,
      onReconnectScheduled: (event) => scheduled.push(event),
      // Another tool logging in from the same address: Squad drops us right after each login.
      onReady: () => {
        if (kick) setImmediate(() => {
          server.dropConnections();
        });
      },
    });
    rcon.start();
    for (let drop = 1; drop <= 4; drop++) {
      await waitFor(() => scheduled.length === drop, `drop ${drop}`);
      if (drop === 4) kick = false;
      await vi.advanceTimersByTimeAsync(scheduled.at(-1)!.delayMs);
    }
    expect(scheduled.map((event) => event.delayMs)).toEqual([500, 1_000, 2_000, 4_000]);
    await waitFor(() => rcon.ready, 'a session that stays');
    await vi.advanceTimersByTimeAsync(30_000);
    server.dropConnections();
    await waitFor(() => scheduled.length === 5, 'drop after a long session');
    expect(scheduled[4]?.delayMs).toBe(500);
    expect(server.maxConcurrentSessions).toBe(1);
  });

  it('sends the keepalive when idle, and a missed answer closes the session and reconnects (fake timers)', async () => {
    useFakeTime();
    let answer = true;
    const server = await fake({ quirks: 'srcds', respond: (command) => (command === 'ShowNextMap' && !answer ? { silent: true } : `ok ${command}`) });
    const reasons: RconError[] = [];
    const rcon = client(server, {
      random: () => 0,
      keepaliveIntervalMs: 30_000,
      keepaliveCommand: 'ShowNextMap',
      replyEnd: { kind: 'single' },
      onDisconnected: (reason) => reasons.push(reason),
    });
    rcon.start();
    await waitFor(() => rcon.ready, 'logged in');
    await vi.advanceTimersByTimeAsync(29_999);
    await settle();
    expect(server.commands).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await waitFor(() => server.commands.length === 1, 'first keepalive');
    expect(server.commands).toEqual(['ShowNextMap']);
    answer = false;
    await settle();
    await vi.advanceTimersByTimeAsync(30_000);
    await waitFor(() => server.commands.length === 2, 'second keepalive');
    await vi.advanceTimersByTimeAsync(4_999);
    await settle();
    expect(reasons).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await waitFor(() => reasons.length === 1, 'missed keepalive closes');
    expect(reasons[0]).toMatchObject({ code: 'timeout' });
    expect(reasons[0]?.message).toContain('did not answer the keepalive');
    await vi.advanceTimersByTimeAsync(20);
    await waitFor(() => server.logins === 2, 'reconnected');
  });

  it('caps the command rate: excess commands wait their turn in the queue (fake timers)', async () => {
    useFakeTime();
    const server = await fake({ quirks: 'srcds' });
    const rcon = client(server, { rateCap: { commands: 2, perMs: 1_000 }, maxInFlight: 10, commandTimeoutMs: 60_000, maxQueuedCommands: 3 });
    rcon.start();
    await waitFor(() => rcon.ready, 'logged in');
    const replies = Promise.all(['a', 'b', 'c', 'd', 'e'].map((command) => rcon.command(command)));
    const refused = failure(rcon.command('f'));
    expect((await refused).code).toBe('queue_full');
    await waitFor(() => server.commands.length === 2, 'first two');
    await vi.advanceTimersByTimeAsync(999);
    await settle();
    expect(server.commands).toEqual(['a', 'b']);
    await vi.advanceTimersByTimeAsync(1);
    await waitFor(() => server.commands.length === 4, 'next two');
    await vi.advanceTimersByTimeAsync(1_000);
    await waitFor(() => server.commands.length === 5, 'last');
    expect(await replies).toEqual(['a', 'b', 'c', 'd', 'e'].map((command) => `reply to ${command}`));
  });

  it('caps over a long window too (Conan-style: 3 per 30 s) (fake timers)', async () => {
    useFakeTime();
    const server = await fake({ quirks: 'srcds' });
    const rcon = client(server, { rateCap: { commands: 3, perMs: 30_000 }, commandTimeoutMs: 120_000, maxInFlight: 4 });
    rcon.start();
    await waitFor(() => rcon.ready, 'logged in');
    const replies = Promise.all(['1', '2', '3', '4'].map((command) => rcon.command(command)));
    await waitFor(() => server.commands.length === 3, 'first three');
    await vi.advanceTimersByTimeAsync(29_999);
    await settle();
    expect(server.commands).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    await waitFor(() => server.commands.length === 4, 'the fourth, 30 s after the first');
    await replies;
  });

  it('keeps one session at a time through a drop storm, with Squad dropping older logins, and no unhandled error', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    process.on('uncaughtException', onUnhandled);
    try {
      const server = await fake({ quirks: 'squad', writeMode: 'split', dropOlderSessions: true });
      const rcon = client(server, { reconnectMinDelayMs: 1, reconnectMaxDelayMs: 5, keepaliveIntervalMs: 5, keepaliveCommand: 'ShowNextMap', commandTimeoutMs: 50 });
      rcon.start();
      const outcomes: Promise<unknown>[] = [];
      let loginsBeforeDrop = 0;
      for (let round = 0; round < 25; round++) {
        // A login after the last drop (a missed keepalive on a loaded machine may add one more: that is fine).
        await waitFor(() => rcon.ready && server.logins > loginsBeforeDrop, `logged in again in round ${round}`);
        for (let index = 0; index < 3; index++) outcomes.push(rcon.command(`round ${round}`).catch((error: unknown) => error));
        if (round % 3 === 0) await settle();
        loginsBeforeDrop = server.logins;
        server.dropConnections();
      }
      await rcon.close();
      await Promise.all(outcomes);
      await settle();
      expect(server.maxConcurrentSessions).toBe(1);
      expect(server.logins).toBeGreaterThanOrEqual(25);
      // Nothing opened since close(): a marker connection is next in the backlog. (That no reconnect timer outlives
      // close() is proven on fake time in "close() stops for good" below.)
      const connectionsAfterClose = server.connections;
      expect(await server.connectionsSoFar()).toBe(connectionsAfterClose);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      process.off('uncaughtException', onUnhandled);
    }
  });

  it('close() stops for good: while waiting to reconnect, while connecting, and commands after it fail with closed', async () => {
    useFakeTime();
    const server = await fake({ quirks: 'srcds' });
    const waiting = client(server, { random: () => 0, reconnectMinDelayMs: 1_000 });
    waiting.start();
    await waitFor(() => waiting.ready, 'logged in');
    server.dropConnections();
    await waitFor(() => waiting.status.state === 'waiting', 'waiting');
    await waiting.close();
    await vi.advanceTimersByTimeAsync(3_600_000);
    await settle();
    expect(server.connections).toBe(1);
    expect((await failure(waiting.command('x'))).code).toBe('closed');
    expect((await failure(waiting.whenReady())).code).toBe('closed');

    const connecting = client(server);
    connecting.start();
    const ready = failure(connecting.whenReady());
    await connecting.close();
    expect((await ready).code).toBe('closed');
    await vi.advanceTimersByTimeAsync(3_600_000);
    await settle();
    expect(server.connections).toBeLessThanOrEqual(2);
    expect(server.sessions).toBe(0);
    expect(connecting.status).toMatchObject({ state: 'closed', connected: false });
  });

  it('one-shot use (reconnect: false): a refused login fails whenReady, and nothing tries again', async () => {
    useFakeTime();
    const server = await fake({ quirks: 'srcds', password: 'the-right-one' });
    const rcon = client(server, { reconnect: false });
    rcon.start();
    const error = await failure(rcon.whenReady({ failFast: true }));
    expect(error.code).toBe('auth_failed');
    await waitFor(() => rcon.status.state === 'idle', 'idle after the refusal');
    await vi.advanceTimersByTimeAsync(3_600_000);
    await settle();
    expect(server.loginAttempts).toBe(1);
  });

  it('survives callbacks that throw: the session stays up and replies still arrive', async () => {
    const server = await fake({ quirks: 'squad' });
    const rcon = client(server, {
      onReady: () => {
        throw new Error('owner bug in onReady');
      },
      onUnsolicited: () => {
        throw new Error('owner bug in onUnsolicited');
      },
    });
    rcon.start();
    await rcon.whenReady();
    server.pushChat('[ChatAll] [Online IDs:EOS: 0002a10386a3463a9e4b0d5d1f0e0c0a steam: 76561198000000001] A : b');
    await expect(rcon.command('ListPlayers')).resolves.toBe('reply to ListPlayers');
    expect(rcon.ready).toBe(true);
    expect(server.logins).toBe(1);
  });

  it('reports a refused TCP connection as connect_failed to a failFast waiter and keeps trying', async () => {
    const server = await fake({ quirks: 'srcds' });
    await server.goDown();
    const rcon = client(server);
    rcon.start();
    const error = await failure(rcon.whenReady({ failFast: true }));
    expect(error.code).toBe('connect_failed');
    expect(error.message).toContain(LABEL);
    await server.comeUp();
    await rcon.whenReady();
    expect(rcon.ready).toBe(true);
  });
});
