// The fake Rust WebRCON server itself, spoken to with plain sockets, so the client tests rest on a fake that behaves
// like the real server: no pong to a ping, a wrong password cut during the upgrade with a bare close frame (Fleck),
// indented replies echoing the Identifier, chat in Rust's shape, a restart that refuses and then listens again on
// the same port.
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { FakeRustWebRconServer } from '../fixtures/fakeRustWebRconServer.js';

const PASSWORD = 'pw123';
let server: FakeRustWebRconServer | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

function open(port: number, password = PASSWORD): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/${password}`);
    socket.once('open', () => {
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

function nextMessage(socket: WebSocket): Promise<string> {
  return new Promise((resolve) => {
    socket.once('message', (data: Buffer) => {
      resolve(data.toString('utf8'));
    });
  });
}

describe('FakeRustWebRconServer', () => {
  it('never answers a WebSocket ping, and counts it', async () => {
    server = await FakeRustWebRconServer.start({ password: PASSWORD });
    const socket = await open(server.port);
    let pongs = 0;
    socket.on('pong', () => pongs++);
    socket.ping();
    await expect.poll(() => server?.pingsReceived).toBe(1);
    // An answer would travel the same loopback path as a reply: one round trip proves none was queued before it.
    socket.send(JSON.stringify({ Identifier: 1, Message: 'serverinfo', Name: 'WebRcon' }));
    await nextMessage(socket);
    expect(pongs).toBe(0);
    socket.terminate();
  });

  it('cuts a wrong password during the upgrade with a bare close frame, no HTTP answer', async () => {
    server = await FakeRustWebRconServer.start({ password: PASSWORD });
    const port = server.port;
    const bytes = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const tcp = connect(port, '127.0.0.1', () => {
        tcp.write('GET /wrong HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
      });
      tcp.on('data', (chunk) => chunks.push(chunk));
      tcp.on('close', () => {
        resolve(Buffer.concat(chunks));
      });
      tcp.on('error', reject);
    });
    expect([...bytes]).toEqual([0x88, 0x02, 0x03, 0xe8]);
    expect(server.wrongPasswordAttempts).toBe(1);
    expect(server.sessionsOpened).toBe(0);
  });

  it('answers with the Identifier, indented, and pushes chat the way Rust does', async () => {
    server = await FakeRustWebRconServer.start({ password: PASSWORD, players: [{ steamId: '76561198000000001', name: 'Alice' }] });
    const socket = await open(server.port);
    const reply = nextMessage(socket);
    socket.send(JSON.stringify({ Identifier: 77, Message: 'playerlist', Name: 'WebRcon' }));
    const text = await reply;
    expect(text).toContain('\n  "Identifier": 77');
    const parsed = JSON.parse(text) as { Message: string; Type: string; Stacktrace: string };
    expect(parsed.Type).toBe('Generic');
    expect(parsed.Stacktrace).toBe('');
    expect(JSON.parse(parsed.Message)).toEqual([expect.objectContaining({ SteamID: '76561198000000001', DisplayName: 'Alice', OwnerSteamID: '0', Ping: 42 })]);
    const chat = nextMessage(socket);
    server.pushChat({ message: 'hi', userId: '76561198000000001', username: 'Alice', time: 5 });
    const outer = JSON.parse(await chat) as { Message: string; Identifier: number; Type: string; Stacktrace: null };
    expect(outer).toMatchObject({ Identifier: -1, Type: 'Chat', Stacktrace: null });
    expect(JSON.parse(outer.Message)).toEqual({ Channel: 0, Message: 'hi', UserId: '76561198000000001', Username: 'Alice', Color: '#5af', Time: 5 });
    expect(server.commands).toEqual([{ session: 1, identifier: 77, message: 'playerlist', name: 'WebRcon' }]);
    socket.terminate();
  });

  it('restarts: drops every session, refuses connections, then listens on the same port', async () => {
    server = await FakeRustWebRconServer.start({ password: PASSWORD });
    const port = server.port;
    const socket = await open(port);
    const closed = new Promise<void>((resolve) => socket.once('close', () => { resolve(); }));
    await server.goDown();
    await closed;
    await expect(open(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await server.comeBack();
    expect(server.port).toBe(port);
    const again = await open(port);
    expect(server.sessionsOpened).toBe(2);
    expect(server.maxConcurrentSessions).toBe(1);
    again.terminate();
  });
});
