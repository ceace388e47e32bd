// The Rust WebRCON client against the fake Rust server over real loopback WebSockets, real time: replies matched by
// Identifier with several commands in flight and answers out of order, stray replies dropped, pushed chat parsed
// (odd names, unicode, malformed inner JSON), mute/unmute that Rust answers with silence, and the three ways a wrong
// password shows up. Backoff and keepalive timing live in webrcon-lifetime.test.ts (fake timers).
import { afterEach, describe, expect, it } from 'vitest';
import { WebRconClient, type RustChatMessage, type WebRconClientOptions, type WebRconInbound } from '../../adapters/rcon/webRconClient.js';
import { RconError } from '../../adapters/rcon/errors.js';
import { FakeRustWebRconServer, type WrongPasswordBehaviour } from '../fixtures/fakeRustWebRconServer.js';
import { captureLogger, type LogLine } from '../fixtures/capturedLogLines.js';

const PASSWORD = 'correct-horse-42';
const ALICE = '76561198000000001';
const BOB = '76561198000000002';

let server: FakeRustWebRconServer | undefined;
const clients: WebRconClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await server?.stop();
  server = undefined;
});

async function startServer(wrongPassword?: WrongPasswordBehaviour): Promise<FakeRustWebRconServer> {
  server = await FakeRustWebRconServer.start({
    password: PASSWORD,
    ...(wrongPassword === undefined ? {} : { wrongPassword }),
    players: [
      { steamId: ALICE, name: 'Alice' },
      { steamId: BOB, name: 'Bob (the builder)' },
    ],
  });
  return server;
}

function makeClient(port: number, lines: LogLine[], overrides: Partial<WebRconClientOptions> = {}): WebRconClient {
  const client = new WebRconClient({
    host: '127.0.0.1',
    port,
    password: PASSWORD,
    label: 'rust-test',
    logger: captureLogger(lines),
    // Long keepalive: these tests look at commands, not at the keepalive (only the first probe on open).
    keepaliveMs: 600_000,
    random: () => 0.5,
    ...overrides,
  });
  clients.push(client);
  client.start();
  return client;
}

async function rejection(promise: Promise<unknown>): Promise<RconError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RconError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('WebRconClient against the fake Rust server', () => {
  it('matches replies by Identifier with several commands in flight, answered out of order', async () => {
    const fake = await startServer();
    const delays: Record<string, number> = { 'echo first': 120, 'echo second': 0, 'echo third': 60, 'echo fourth': 10 };
    fake.respond = (command) => { const delayMs = delays[command]; return delayMs === undefined ? undefined : { message: command.slice(5), delayMs }; };
    const client = makeClient(fake.port, []);
    await client.ready(5_000);
    const order: string[] = [];
    const replies = await Promise.all(
      Object.keys(delays).map((command) =>
        client.command(command).then((reply) => {
          order.push(reply);
          return reply;
        }),
      ),
    );
    expect(replies).toEqual(['first', 'second', 'third', 'fourth']);
    expect(order).not.toEqual(replies); // they really came back out of order
    const identifiers = fake.commands.map((command) => command.identifier as number);
    expect(new Set(identifiers).size).toBe(identifiers.length);
    expect(identifiers).toEqual([...identifiers].sort((a, b) => a - b));
    expect(fake.commands.every((command) => command.name === 'WebRcon')).toBe(true);
  });

  it('drops a reply for an identifier it never sent, and never hands it to a waiting command', async () => {
    const fake = await startServer();
    const lines: LogLine[] = [];
    fake.respond = (command) => (command === 'echo slow' ? { message: 'slow', delayMs: 80 } : undefined);
    const client = makeClient(fake.port, lines);
    await client.ready(5_000);
    const slow = client.command('echo slow');
    fake.pushReply(999_999, 'not yours');
    fake.pushReply(0, 'console line, not a reply');
    expect(await slow).toBe('slow');
    expect(lines.some((line) => line.level === 'warn' && line.message.includes('never sent') && line.bindings['identifier'] === 999_999)).toBe(true);
  });

  it('never hands a late reply (its command timed out) to the command waiting now', async () => {
    const fake = await startServer();
    fake.respond = (command) => (command === 'echo late' ? { message: 'late', delayMs: 150 } : command === 'echo now' ? { message: 'now', delayMs: 300 } : undefined);
    const client = makeClient(fake.port, []);
    await client.ready(5_000);
    expect((await rejection(client.command('echo late', { timeoutMs: 50 }))).code).toBe('timeout');
    // The late reply arrives while 'echo now' waits; it must be dropped, not taken as the answer.
    expect(await client.command('echo now')).toBe('now');
  });

  it('delivers pushed chat parsed, keeps odd names and unicode, and survives malformed inner JSON', async () => {
    const fake = await startServer();
    const lines: LogLine[] = [];
    const chats: RustChatMessage[] = [];
    const consoleMessages: WebRconInbound[] = [];
    const client = makeClient(fake.port, lines, { onChat: (chat) => chats.push(chat), onConsole: (message) => consoleMessages.push(message) });
    await client.ready(5_000);
    fake.pushChat({ channel: 0, message: 'hi', userId: ALICE, username: 'Alice', time: 1_763_726_400 });
    fake.pushChatRaw('{"Channel":0,"Message":"broken"'); // malformed inner JSON
    fake.pushChat({ channel: 1, message: '!review 5 Great admins ✓ 👍', userId: BOB, username: '[GSA] Bob "the" (builder): ünï 名前' });
    fake.pushChatRaw('{"Channel":0,"Message":"legacy","UserId":76561198000000003,"Username":"Old plugin"}');
    fake.pushRaw('this is not json');
    fake.pushConsole('[event] assets/bundled/prefabs/fx/cargo.prefab', 'Generic');
    await expect.poll(() => consoleMessages.length).toBe(1);
    expect(chats).toEqual([
      { kind: 'player', channel: 'global', text: 'hi', steamId: ALICE, name: 'Alice', time: 1_763_726_400 },
      { kind: 'player', channel: 'team', text: '!review 5 Great admins ✓ 👍', steamId: BOB, name: '[GSA] Bob "the" (builder): ünï 名前', time: expect.any(Number) as number },
      { kind: 'player', channel: 'global', text: 'legacy', steamId: '76561198000000003', name: 'Old plugin', time: undefined },
    ]);
    expect(consoleMessages[0]).toMatchObject({ identifier: 0, type: 'Generic' });
    const protocolWarnings = lines.filter((line) => line.level === 'warn' && line.bindings['code'] === 'protocol');
    expect(protocolWarnings.map((line) => line.message)).toEqual([expect.stringContaining('chat message that cannot be read'), expect.stringContaining('not WebRCON')]);
    expect(client.connected).toBe(true);
    expect(await client.command('echo still alive')).toBe('still alive');
  });

  it('reads playerlist as JSON and mutes through Rust, which answers a working mute with silence', async () => {
    const fake = await startServer();
    const client = makeClient(fake.port, []);
    await client.ready(5_000);
    const players = JSON.parse(await client.command('playerlist')) as { SteamID: string; DisplayName: string }[];
    expect(players.map((player) => [player.SteamID, player.DisplayName])).toEqual([
      [ALICE, 'Alice'],
      [BOB, 'Bob (the builder)'],
    ]);
    // A silent mute resolves as soon as a later command is answered (Rust runs commands in order) …
    const [mute, after] = await Promise.all([client.command(`mute ${ALICE}`, { silentOk: true }), client.command('serverinfo')]);
    expect(mute).toBe('');
    expect(JSON.parse(after)).toMatchObject({ Hostname: 'Fake Rust Server' });
    // … or at its timeout when nothing follows.
    expect(await client.command(`unmute ${ALICE}`, { silentOk: true, timeoutMs: 200 })).toBe('');
    expect(await client.command('mute 76561198999999999', { silentOk: true })).toBe('Player not found');
    expect(fake.muteLog).toEqual([
      { action: 'mute', steamId: ALICE },
      { action: 'unmute', steamId: ALICE },
    ]);
    // Without silentOk, silence is a timeout.
    expect((await rejection(client.command(`mute ${BOB}`, { timeoutMs: 200 }))).code).toBe('timeout');
  });

  it('fails fast with not_connected before the first session and closed after close()', async () => {
    const fake = await startServer();
    const client = new WebRconClient({ host: '127.0.0.1', port: fake.port, password: PASSWORD, label: 'rust-test', logger: captureLogger([]) });
    clients.push(client);
    expect((await rejection(client.command('serverinfo'))).code).toBe('not_connected');
    client.start();
    await client.ready(5_000);
    const pending = client.command('echo never answered', { timeoutMs: 60_000 });
    fake.silent = true;
    const pendingRejection = rejection(pending);
    await client.close();
    expect((await pendingRejection).code).toBe('closed');
    expect((await rejection(client.command('serverinfo'))).code).toBe('closed');
    expect((await rejection(client.ready())).code).toBe('closed');
    expect(client.status.state).toBe('closed');
  });

  it('fails the pending commands with disconnected when the connection drops', async () => {
    const fake = await startServer();
    const client = makeClient(fake.port, []);
    await client.ready(5_000);
    fake.silent = true;
    const pending = rejection(client.command('echo lost', { timeoutMs: 60_000 }));
    await expect.poll(() => fake.commands.some((command) => command.message === 'echo lost')).toBe(true);
    fake.dropAll();
    const error = await pending;
    expect(error.code).toBe('disconnected');
    expect(error.message).toContain('may have run');
  });

  for (const mode of ['fleck', 'http401', 'closeAfterOpen'] as const) {
    it(`reports a wrong password (${mode}) as auth_failed naming the adapter and the config key, and waits minutes`, async () => {
      const fake = await startServer(mode);
      const lines: LogLine[] = [];
      const authFailures: RconError[] = [];
      const client = makeClient(fake.port, lines, { password: 'wrong-password', passwordKey: 'servers[0].adapters[1].password', onAuthFailed: (error) => authFailures.push(error) });
      const error = await rejection(client.ready(5_000));
      expect(error.code).toBe('auth_failed');
      expect(error.message).toContain('servers[0].adapters[1].password');
      expect(error.message).toContain('rust-test');
      expect(error.message).toContain('ws://127.0.0.1:');
      expect(error.message).not.toContain('wrong-password');
      if (mode === 'fleck') expect(error.message).toContain('the server cut the connection instead of answering the WebSocket upgrade');
      expect(authFailures).toHaveLength(1);
      expect(client.status).toMatchObject({ state: 'waiting', connected: false, lastError: { code: 'auth_failed' } });
      const logged = lines.find((line) => line.bindings['code'] === 'auth_failed');
      expect(logged?.level).toBe('error');
      // random 0.5 → 75% of the first step (60 s).
      expect(logged?.bindings['retryInMs']).toBe(45_000);
      expect(fake.wrongPasswordAttempts).toBe(1);
      expect(fake.sessionsOpened).toBe(0);
    });
  }

  it('shows why hammering is dangerous: after 5 wrong passwords Rust refuses even the right one', async () => {
    const fake = await startServer();
    const hammering = makeClient(fake.port, [], { password: 'wrong-password', authRetryMinDelayMs: 5, authRetryMaxDelayMs: 5 });
    await expect.poll(() => fake.wrongPasswordAttempts).toBe(5);
    await hammering.close();
    // The hammering client may have tried again before it closed, and the fake may count that attempt only after
    // close() resolved: the right password's refusal is at least one more.
    const refusedBefore = fake.bannedRefusals;
    const right = makeClient(fake.port, []);
    const error = await rejection(right.ready(5_000));
    // The password is right: only the ban refuses it.
    expect(error.code).toBe('auth_failed');
    expect(error.message).toContain('rcon.banduration');
    expect(fake.bannedRefusals).toBeGreaterThan(refusedBefore);
    expect(fake.wrongPasswordAttempts).toBe(5);
  });

  it('tells a server that is down (connection refused) from a wrong password', async () => {
    const fake = await startServer();
    const port = fake.port;
    await fake.stop();
    const lines: LogLine[] = [];
    const client = makeClient(port, lines);
    await expect.poll(() => client.status.lastError?.code).toBe('connect_failed');
    expect(client.status.state).toBe('waiting');
    expect(lines.some((line) => line.bindings['code'] === 'auth_failed')).toBe(false);
  });
});
