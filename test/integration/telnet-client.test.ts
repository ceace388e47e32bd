// TelnetClient against the fake 7 Days to Die console (src/gameEmulator/sevenDaysConsole.ts) over real loopback TCP:
// the login (prompt, wrong password, banner), framing of bytes split and merged any way, commands one at a time with
// their answers ended by a terminator or a quiet time, log lines pushed while a command waits, caps, reconnects, the
// long wait after a wrong password, one-shot use through openRconConnection, close(), and the password kept out of
// every log line and error, a second password prompt taken as a refusal, and the late answer of a timed-out command
// drained. Time rules run on fake timers (setTimeout and Date only: socket I/O stays real).
import { createServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sevenDaysProfile } from '../../adapters/rcon/profiles/sevenDays.js';
import { parseSevenDaysChat, parseSevenDaysPlayerList, parseSevenDaysPresence } from '../../adapters/rcon/profiles/sevenDaysLines.js';
import { rconOptionsSchema, type RconOptions } from '../../adapters/rcon/options.js';
import { openRconConnection } from '../../adapters/rcon/rconConnection.js';
import type { ReconnectPlan } from '../../adapters/rcon/sessionLifecycle.js';
import type { RconLogger } from '../../adapters/rcon/sourceRconClient.js';
import { TelnetClient, type TelnetClientOptions } from '../../adapters/rcon/telnetClient.js';
import { startSevenDaysConsole, type SevenDaysConsole, type SevenDaysConsoleOptions, type SevenDaysFakePlayer } from '../../src/gameEmulator/sevenDaysConsole.js';
import { patientMs } from '../fixtures/patience.js';
import { waitForIo as waitFor, settleIo as settle, rconFailure as failure } from '../fixtures/ioWaits.js';

const PASSWORD = 'tel-Secret-7d2d';
const LABEL = '7dtd-main';
const LP_END = /^Total of \d+ in the game/;

const ALICE: SevenDaysFakePlayer = { name: 'Alice', entityId: 171, platformId: 'Steam_76561198000000001', crossId: 'EOS_0002BFC568D6401CA9DE387E0AE914C9' };
/** A hostile name: quotes, a colour code, commas, `': ` and multi-byte characters that a split write cuts. */
const HOSTILE: SevenDaysFakePlayer = { name: "[94CBFF]O'Brien, the ': Zoë 日本 🎮[-]", entityId: 172, platformId: 'XBL_2535400000000000', crossId: 'EOS_00027c24c9be4607b57f74c1689fa7c5' };

const games: SevenDaysConsole[] = [];
const clients: TelnetClient[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(games.splice(0).map((game) => game.close()));
});

async function console7(options: Partial<SevenDaysConsoleOptions> = {}): Promise<SevenDaysConsole> {
  const game = await startSevenDaysConsole({ password: PASSWORD, ...options });
  games.push(game);
  return game;
}

function client(game: SevenDaysConsole, options: Partial<TelnetClientOptions> = {}): TelnetClient {
  const made = new TelnetClient({ host: game.host, port: game.port, password: PASSWORD, label: LABEL, reconnectMinDelayMs: 20, reconnectMaxDelayMs: 200, ...options });
  clients.push(made);
  return made;
}

/** Adapter options for openRconConnection (the 7dtd profile's name is the lead's to add; the transport is what counts here). */
function rconOptions(game: SevenDaysConsole, password = PASSWORD): RconOptions {
  return rconOptionsSchema.parse({ type: 'rcon', profile: 'squad', host: game.host, port: game.port, password });
}

function useFakeTime(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
}

function capturedLogger(): { logger: RconLogger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino(
    { level: 'trace' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
  return { logger, lines };
}

describe('TelnetClient: login and commands', () => {
  it.each(['whole', 'split', 'merged'] as const)('logs in past the prompt and banner, reads lp to its Total line and a quiet-ended answer (%s writes)', async (chunking) => {
    const game = await console7({ chunking, players: [ALICE, HOSTILE] });
    const telnet = client(game);
    telnet.start();
    await telnet.whenReady({ timeoutMs: patientMs(10_000) });
    const answer = await telnet.command('lp', { endsAt: LP_END, timeoutMs: patientMs(5_000) });
    // No banner line and no pushed log line is part of the answer: only the rows and the Total line.
    expect(answer.split('\n')).toHaveLength(3);
    const parsed = parseSevenDaysPlayerList(answer);
    expect(parsed.status).toBe('players');
    expect(parsed.players).toEqual([
      { name: 'Alice', entityId: 171, platformId: 'Steam_76561198000000001', steamId: '76561198000000001', eosId: '0002bfc568d6401ca9de387e0ae914c9' },
      { name: HOSTILE.name, entityId: 172, platformId: 'XBL_2535400000000000', eosId: '00027c24c9be4607b57f74c1689fa7c5' },
    ]);
    expect(await telnet.command('version', { timeoutMs: patientMs(5_000) })).toBe('Game version: V 1.0 (b333) Compatibility Version: V 1.0');
    expect(await telnet.command('nosuch', { timeoutMs: patientMs(5_000) })).toBe("*** ERROR: unknown command 'nosuch'");
    expect(game.commands).toEqual(['lp', 'version', 'nosuch']);
  });

  it('sends one command at a time: the second leaves only after the first is answered', async () => {
    let answered = 0;
    const game = await console7({
      respond: (command) => {
        // What the console has received when it answers: never a command beyond the one it answers.
        expect(game.commands.at(-1)).toBe(command);
        answered += 1;
        return [`answer to ${command}`, 'END'];
      },
    });
    const telnet = client(game);
    telnet.start();
    await telnet.whenReady({ timeoutMs: patientMs(10_000) });
    const answers = await Promise.all(['one', 'two', 'three'].map((text) => telnet.command(text, { endsAt: /^END$/, timeoutMs: patientMs(5_000) })));
    expect(answers).toEqual(['answer to one\nEND', 'answer to two\nEND', 'answer to three\nEND']);
    expect(answered).toBe(3);
  });

  it.each(['whole', 'split', 'merged'] as const)('hands log lines pushed in the middle of an answer to onLine, never to the answer (%s writes)', async (chunking) => {
    const pushed: string[] = [];
    const chat = `2021-09-15T20:42:00 1103.462 INF Chat (from '${ALICE.platformId}', entity id '171', to 'Global'): 'Alice': mid-answer`;
    const game = await console7({ chunking, respond: (command) => (command === 'mixed' ? ['row 1', chat, 'row 2', 'END'] : undefined) });
    const telnet = client(game, { onLine: (line) => pushed.push(line) });
    telnet.start();
    await telnet.whenReady({ timeoutMs: patientMs(10_000) });
    expect(await telnet.command('mixed', { endsAt: /^END$/, timeoutMs: patientMs(5_000) })).toBe('row 1\nrow 2\nEND');
    expect(pushed).toContain(chat);
    expect(pushed.some((line) => /INF Executing command 'mixed' by Telnet from 127\.0\.0\.1:\d+$/.test(line))).toBe(true);
    // `say` answers nothing of its own: its chat line is pushed, and the answer is empty after the quiet time.
    expect(await telnet.command('say "restart soon"', { timeoutMs: patientMs(5_000) })).toBe('');
    await waitFor(() => pushed.some((line) => line.endsWith("'Server': restart soon")), 'the say line pushed');
    const say = pushed.find((line) => line.endsWith("'Server': restart soon")) ?? '';
    expect(parseSevenDaysChat(say)).toEqual({ kind: 'server', text: 'restart soon' });
  });

  it.each(['whole', 'split'] as const)('keeps a log entry with a bare-LF stack trace whole, out of the waiting answer (%s writes)', async (chunking) => {
    const pushed: string[] = [];
    // As a V 3.2 server writes a failing command's error: bare LFs inside the entry, CRLF at its end.
    const trace = "2026-09-30T17:49:47 57.593 ERR Missing separator '_' in string: GpNobody\nFrom: UnityEngine.StackTraceUtility:ExtractStackTrace ()\nSdtdConsole:Update ()\n";
    const game = await console7({ chunking, respond: (command) => (command === 'ban remove GpNobody' ? [trace, '"GpNobody" is not a valid user id.'] : undefined) });
    const telnet = client(game, { onLine: (line) => pushed.push(line) });
    telnet.start();
    await telnet.whenReady({ timeoutMs: patientMs(10_000) });
    expect(await telnet.command('ban remove GpNobody', { timeoutMs: patientMs(5_000) })).toBe('"GpNobody" is not a valid user id.');
    expect(pushed).toContain(trace);
    expect(pushed.filter((line) => line.includes('StackTraceUtility'))).toHaveLength(1);
  });

  it.each(['split', 'merged'] as const)('delivers chat, joins and leaves pushed by the game, multi-byte names intact (%s writes)', async (chunking) => {
    const pushed: string[] = [];
    const game = await console7({ chunking });
    const telnet = client(game, { onLine: (line) => pushed.push(line) });
    telnet.start();
    await telnet.whenReady({ timeoutMs: patientMs(10_000) });
    game.join(HOSTILE);
    game.say(HOSTILE.name, "héllo ': wörld 🎮", 'Party');
    game.leave(HOSTILE.name);
    await waitFor(() => pushed.length >= 3, 'three pushed lines');
    expect(parseSevenDaysPresence(pushed[0] ?? '')).toMatchObject({ kind: 'join', entityId: 172, platformId: HOSTILE.platformId, eosId: '00027c24c9be4607b57f74c1689fa7c5', name: HOSTILE.name });
    expect(parseSevenDaysChat(pushed[1] ?? '', (id) => (id === 172 ? HOSTILE.name : undefined))).toMatchObject({
      kind: 'player',
      channel: 'team',
      name: HOSTILE.name,
      entityId: 172,
      platformId: HOSTILE.platformId,
      text: "héllo ': wörld 🎮",
    });
    expect(parseSevenDaysPresence(pushed[2] ?? '')).toMatchObject({ kind: 'leave', entityId: 172 });
  });

  it('refuses a command holding CR, LF or NUL without sending anything', async () => {
    const game = await console7();
    const telnet = client(game);
    telnet.start();
    await telnet.whenReady({ timeoutMs: patientMs(10_000) });
    for (const text of ['say "a"\r\nshutdown', 'lp\n', 'kick\0x']) {
      expect((await failure(telnet.command(text))).code).toBe('invalid_command');
    }
    expect(await telnet.command('version', { timeoutMs: patientMs(5_000) })).toContain('Game version');
    expect(game.commands).toEqual(['version']);
  });

  it('fails a command with not_connected before the login, and with closed after close()', async () => {
    const game = await console7();
    const telnet = client(game);
    expect((await failure(telnet.command('lp'))).code).toBe('not_connected');
    telnet.start();
    await telnet.whenReady({ timeoutMs: patientMs(10_000) });
    await telnet.close();
    expect((await failure(telnet.command('lp'))).code).toBe('closed');
    expect((await failure(telnet.whenReady())).code).toBe('closed');
  });
});

describe('TelnetClient: a wrong password', () => {
  it.each(['whole', 'split', 'merged'] as const)('is auth_failed naming the key and adapter, sent once per connection, never the password (%s writes)', async (chunking) => {
    const game = await console7({ chunking, password: 'the-right-one' });
    const telnet = client(game, { authFailureDelayMs: 300_000 });
    telnet.start();
    const error = await failure(telnet.whenReady({ timeoutMs: patientMs(10_000) }));
    expect(error.code).toBe('auth_failed');
    expect(error.message).toContain(`check "password" of adapter ${LABEL}`);
    expect(JSON.stringify(error) + error.message + String(error.stack)).not.toContain(PASSWORD);
    await waitFor(() => game.openConnections === 0, 'the refused connection is closed');
    // One password on that connection, though the console would have taken two more.
    expect(game.loginAttempts).toBe(1);
    expect(telnet.status).toMatchObject({ state: 'waiting', authFailures: 1 });
    expect(telnet.status.reconnectDelayMs).toBeGreaterThanOrEqual(300_000);
  });

  it.each([
    ['with', '\r\n'],
    ['without', ''],
  ])('takes a second password prompt (%s a line end) as a refusal, and never sends the password again on that connection (fake timers)', async (_with, lineEnd) => {
    // Builds that do not say "Password incorrect" ask again with the plain prompt: a raw console that always does.
    useFakeTime();
    const passwords: string[] = [];
    const server = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.write(`Please enter password:${lineEnd}`);
      let buffered = '';
      socket.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
          passwords.push(buffered.slice(0, end).replace(/\r$/, ''));
          buffered = buffered.slice(end + 1);
          socket.write(`Please enter password:${lineEnd}`);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const telnet = new TelnetClient({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, password: PASSWORD, label: LABEL, authFailureDelayMs: 300_000 });
    clients.push(telnet);
    try {
      let refusal: string | undefined;
      telnet.start();
      void failure(telnet.whenReady()).then((error) => (refusal = error.code));
      // Fake time stands still: no login timeout can end this; only the second prompt (or a second password) does.
      await waitFor(() => refusal !== undefined || passwords.length > 1, 'the refusal');
      expect(refusal).toBe('auth_failed');
      await waitFor(() => telnet.status.state === 'waiting', 'the refused connection closed');
      expect(passwords).toEqual([PASSWORD]);
      expect(telnet.status).toMatchObject({ authFailures: 1 });
      expect(telnet.status.reconnectDelayMs).toBeGreaterThanOrEqual(300_000);
    } finally {
      await telnet.close();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    }
  });

  it('waits at least authFailureDelayMs before logging in again, doubling per refusal (fake timers)', async () => {
    useFakeTime();
    const game = await console7({ password: 'the-right-one' });
    const plans: ReconnectPlan[] = [];
    // random 0: backoffDelayMs gives the low end of its range, i.e. exactly the floor.
    const telnet = client(game, { random: () => 0, authFailureDelayMs: 300_000, onReconnectScheduled: (plan) => plans.push(plan) });
    telnet.start();
    await waitFor(() => plans.length === 1, 'first refusal');
    expect(plans[0]).toMatchObject({ delayMs: 300_000, afterAuthFailure: true, attempt: 1 });
    await vi.advanceTimersByTimeAsync(299_999);
    await settle();
    expect(game.connections).toBe(1);
    expect(game.loginAttempts).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await waitFor(() => plans.length === 2, 'second refusal');
    expect(game.connections).toBe(2);
    expect(game.loginAttempts).toBe(2);
    expect(plans[1]).toMatchObject({ delayMs: 600_000, afterAuthFailure: true, attempt: 2 });
  });

  it('never logs the password, at any level, through a refused login, a good session, a drop and a reconnect', async () => {
    const { logger, lines } = capturedLogger();
    const refusing = await console7({ password: 'other' });
    const bad = client(refusing, { logger });
    bad.start();
    await failure(bad.whenReady({ timeoutMs: patientMs(10_000) }));
    const game = await console7();
    const good = client(game, { logger });
    good.start();
    await good.whenReady({ timeoutMs: patientMs(10_000) });
    await good.command('lp', { endsAt: LP_END, timeoutMs: patientMs(5_000) });
    game.dropConnections();
    await waitFor(() => game.connections === 2 && good.ready, 'reconnected');
    await good.close();
    await bad.close();
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.join('\n')).not.toContain(PASSWORD);
  });
});

describe('TelnetClient: lifetime', () => {
  it('reconnects after the server drops the session, and fails the command that waited with disconnected', async () => {
    const down: string[] = [];
    let readies = 0;
    const game = await console7({ respond: (command) => (command === 'hang' ? [] : undefined) });
    const telnet = client(game, { onDisconnected: (reason) => down.push(reason.code), onReady: () => (readies += 1) });
    telnet.start();
    await telnet.whenReady({ timeoutMs: patientMs(10_000) });
    const waiting = telnet.command('hang', { endsAt: /^never$/, timeoutMs: patientMs(10_000) });
    await waitFor(() => game.commands.includes('hang'), 'the command reached the console');
    game.dropConnections();
    const error = await failure(waiting);
    expect(error.code).toBe('disconnected');
    expect(error).toMatchObject({ sent: true });
    await waitFor(() => readies === 2, 'logged in again');
    expect(down).toEqual(['disconnected']);
    expect(game.connections).toBe(2);
    expect(await telnet.command('version', { timeoutMs: patientMs(5_000) })).toContain('Game version');
  });

  it('drops a session whose line passes maxLineBytes (buffer_limit), then reconnects', async () => {
    const down: string[] = [];
    const game = await console7();
    const telnet = client(game, { maxLineBytes: 4_096, onDisconnected: (reason) => down.push(reason.code) });
    telnet.start();
    await telnet.whenReady({ timeoutMs: patientMs(10_000) });
    game.pushRaw('x'.repeat(5_000));
    await waitFor(() => down.length === 1, 'dropped');
    expect(down).toEqual(['buffer_limit']);
    await waitFor(() => game.connections === 2 && telnet.ready, 'reconnected');
  });

  it('fails an answer past maxReplyBytes with reply_too_large and drops the session', async () => {
    const game = await console7({ respond: (command) => (command === 'flood' ? Array.from({ length: 200 }, (_, row) => `row ${row} ${'y'.repeat(100)}`) : undefined) });
    const telnet = client(game, { maxReplyBytes: 4_096 });
    telnet.start();
    await telnet.whenReady({ timeoutMs: patientMs(10_000) });
    expect((await failure(telnet.command('flood', { endsAt: /^never$/, timeoutMs: patientMs(5_000) }))).code).toBe('reply_too_large');
    await waitFor(() => game.connections === 2 && telnet.ready, 'reconnected');
  });

  it("drains a timed-out command's late answer: the next command leaves only once the console was quiet, and gets its own answer (fake timers)", async () => {
    useFakeTime();
    const { logger, lines } = capturedLogger();
    // Both answers are written by the test, when it chooses: `slow` answers only after it timed out.
    const game = await console7({ respond: (command) => (command === 'slow' || command === 'next' ? [] : undefined) });
    const telnet = client(game, { logger, quietMs: 200 });
    telnet.start();
    await waitFor(() => telnet.ready, 'logged in');
    const slow = failure(telnet.command('slow', { endsAt: /^END$/, timeoutMs: 1_000 }));
    await waitFor(() => game.commands.includes('slow'), 'slow reached the console');
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await slow).code).toBe('timeout');

    let nextAnswer: string | undefined;
    void telnet.command('next', { endsAt: /^END$/, timeoutMs: 60_000 }).then((answer) => (nextAnswer = answer));
    game.pushRaw('late row of slow\r\nEND\r\n');
    // Drained, the late lines are logged as such; taken as `next`'s answer, they would settle it instead.
    await waitFor(() => lines.some((line) => line.includes('a late answer line of a command that timed out')) || nextAnswer !== undefined, 'the late answer read');
    expect(nextAnswer).toBeUndefined();
    expect(game.commands).toEqual(['slow']);
    // Quiet for quietMs since the last late line: the drain ends and `next` is sent.
    await vi.advanceTimersByTimeAsync(200);
    await waitFor(() => game.commands.includes('next'), 'next reached the console');
    game.pushRaw('row of next\r\nEND\r\n');
    await waitFor(() => nextAnswer !== undefined, "next's answer");
    expect(nextAnswer).toBe('row of next\nEND');
  });

  it('close() stops everything: the waiting command fails with closed, and no reconnect follows (fake timers)', async () => {
    useFakeTime();
    const game = await console7({ respond: (command) => (command === 'hang' ? [] : undefined) });
    const telnet = client(game);
    telnet.start();
    await waitFor(() => telnet.ready || game.openConnections > 0, 'connected');
    // The banner ends on its own line, without the quiet timer.
    await waitFor(() => telnet.ready, 'logged in');
    const waiting = telnet.command('hang', { endsAt: /^never$/ });
    await waitFor(() => game.commands.includes('hang'), 'the command reached the console');
    const waitingFailure = failure(waiting);
    await telnet.close();
    expect((await waitingFailure).code).toBe('closed');
    await waitFor(() => game.openConnections === 0, 'the console saw the close');
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    await settle();
    expect(game.connections).toBe(1);
    expect(telnet.status.state).toBe('closed');
  });

  it('one-shot through openRconConnection: a wrong password fails waitReady with auth_failed and never tries again (fake timers)', async () => {
    useFakeTime();
    const game = await console7({ password: 'the-right-one' });
    const connection = openRconConnection({
      options: rconOptions(game),
      transport: { kind: 'telnet', answerEnds: [{ command: /^(lp|listplayers)$/, endsAt: LP_END }] },
      label: LABEL,
      logger: pino({ level: 'silent' }),
      oneShot: true,
    });
    connection.start();
    expect((await failure(connection.waitReady(60_000))).code).toBe('auth_failed');
    await vi.advanceTimersByTimeAsync(2 * 60 * 60_000);
    await settle();
    expect(game.connections).toBe(1);
    await connection.close();
  });

  it("the 7dtd profile's lp answer ends at its Total line at once, with no quiet time waited (fake timers)", async () => {
    useFakeTime();
    const game = await console7({ players: [ALICE], chunking: 'split' });
    const transport = sevenDaysProfile.transport;
    if (transport.kind !== 'telnet') throw new Error('7dtd speaks telnet');
    const connection = openRconConnection({ options: rconOptions(game), transport, label: LABEL, logger: pino({ level: 'silent' }), oneShot: true });
    connection.start();
    await waitFor(() => connection.ready, 'logged in');
    let answer: string | undefined;
    let failed: unknown;
    void connection.command('lp').then(
      (text) => (answer = text),
      (error: unknown) => (failed = error),
    );
    // Fake time stands still: an answer ended by a quiet time would never come; only its Total line can end it.
    await waitFor(() => answer !== undefined || failed !== undefined, 'the lp answer');
    expect(failed).toBeUndefined();
    expect(parseSevenDaysPlayerList(answer ?? '')).toMatchObject({ status: 'players', players: [{ name: 'Alice', entityId: 171 }] });
    await connection.close();
  });

  it('one-shot through openRconConnection: lp ends at its Total line by the transport rule, and a closed port fails fast', async () => {
    const game = await console7({ players: [ALICE], chunking: 'split' });
    const transport = { kind: 'telnet', answerEnds: [{ command: /^(lp|listplayers)$/, endsAt: LP_END }], quietMs: 60_000 } as const;
    const options = rconOptions(game);
    const connection = openRconConnection({ options, transport, label: LABEL, logger: pino({ level: 'silent' }), oneShot: true });
    connection.start();
    await connection.waitReady(patientMs(10_000));
    // quietMs is a minute: only the Total line can have ended this answer in time.
    const answer = await connection.command('lp', { timeoutMs: patientMs(5_000) });
    expect(parseSevenDaysPlayerList(answer)).toMatchObject({ status: 'players', players: [{ name: 'Alice', entityId: 171 }] });
    await connection.close();
    const port = game.port;
    await game.close();
    games.splice(games.indexOf(game), 1);
    const dead = openRconConnection({ options: { ...options, port }, transport, label: LABEL, logger: pino({ level: 'silent' }), oneShot: true });
    dead.start();
    expect((await failure(dead.waitReady(patientMs(60_000)))).code).toBe('connect_failed');
    await dead.close();
  });
});
