// The mod WebSocket (mod protocol v1) from the outside: real ws clients over loopback against a real sidecar
// (bridge, mute cache, durable outbox, service client) talking to the GSA emulator. Nothing of the project is mocked.
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { pino, type Logger } from 'pino';
import { WebSocket, type ClientOptions } from 'ws';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocketAdapter } from '../../adapters/websocket/websocketAdapter.js';
import type { WebsocketAdapterConfig } from '../../src/app/config.js';
import { silentLogger } from '../../src/log/logger.js';
import type { Clock } from '../../src/time/clock.js';
import { PRODUCT_NAME, VERSION } from '../../src/version.js';
import { connectMod } from '../fixtures/modSocket.js';
import { HARNESS_SERVER, HARNESS_SERVER_ID, HARNESS_TOKEN, startSidecarHarness, type SidecarHarness } from '../fixtures/sidecarHarness.js';
import { patientMs } from '../fixtures/patience.js';

const SERVER = HARNESS_SERVER;
const SERVER_ID = HARNESS_SERVER_ID;
const TOKEN = HARNESS_TOKEN;
const STEAM = '76561198000000001';
const STEAM_2 = '76561198000000002';
const STEAM_3 = '76561198000000003';
const EOS = '0123456789abcdef0123456789abcdef';
const DEFAULT_ALERT = 'You are muted on this server.';

type Frame = Record<string, unknown>;

// ---- A sidecar against the emulator ---------------------------------------------------------------------------------

const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  // Last started, first stopped: clients before the sidecar before the emulator.
  while (cleanups.length > 0) await cleanups.pop()?.();
});

function startHarness(adapter: Partial<WebsocketAdapterConfig> = {}): Promise<SidecarHarness> {
  return startSidecarHarness((stop) => cleanups.push(stop), { adapter });
}

function adapterConfig(overrides: Partial<WebsocketAdapterConfig> = {}): WebsocketAdapterConfig {
  return { type: 'websocket', host: '127.0.0.1', port: 0, token: TOKEN, maxFrameBytes: 16_384, maxMessagesPerSecond: 0, maxUnauthenticatedConnections: 128, handshakeTimeoutMs: 5000, ...overrides };
}

/** A second listener on the harness's bridge, built directly so a test can set what the config does not expose. */
async function startDirectAdapter(
  harness: SidecarHarness,
  options: { config?: WebsocketAdapterConfig; heartbeatMs?: number; clock?: Clock; logger?: Logger } = {},
): Promise<WebSocketAdapter> {
  const adapter = new WebSocketAdapter({
    options: options.config ?? adapterConfig(),
    id: 'direct',
    serverName: SERVER,
    sidecar: 'gsa-bridge/test',
    logger: options.logger ?? silentLogger(),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  await adapter.start(harness.sidecar.bridges.get(SERVER)!);
  cleanups.push(() => adapter.stop());
  return adapter;
}

// ---- A mod connection that records what it receives --------------------------------------------------------------

interface Waiter {
  readonly match: (frame: Frame) => boolean;
  readonly resolve: (frame: Frame) => void;
}

class Peer {
  readonly socket: WebSocket;
  /** Received and not yet taken by next(). */
  readonly inbox: Frame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly #waiters = new Set<Waiter>();

  private constructor(socket: WebSocket) {
    this.socket = socket;
    // Connection failures show as `closed`; the test decides whether that was expected.
    socket.on('error', () => undefined);
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as Frame;
      for (const waiter of this.#waiters) {
        if (waiter.match(frame)) {
          this.#waiters.delete(waiter);
          waiter.resolve(frame);
          return;
        }
      }
      this.inbox.push(frame);
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
      });
    });
  }

  /** Opens a connection and waits for the welcome (left in the inbox). */
  static async connect(url: string, options: { token?: string | null; via?: 'header' | 'query'; client?: ClientOptions } = {}): Promise<Peer> {
    const token = options.token === undefined ? TOKEN : options.token;
    const headers: Record<string, string> = {};
    let target = url;
    if (token !== null && options.via === 'query') target = `${url}?token=${encodeURIComponent(token)}`;
    else if (token !== null) headers['authorization'] = `Bearer ${token}`;
    const socket = new WebSocket(target, { headers, ...options.client });
    const peer = new Peer(socket);
    cleanups.push(async () => {
      if (socket.readyState !== WebSocket.CLOSED) {
        socket.terminate();
        await peer.closed;
      }
    });
    const welcome = peer.next((frame) => frame['type'] === 'welcome', 5_000, false);
    welcome.catch(() => undefined);
    await Promise.race([
      welcome,
      peer.closed.then(({ code }) => {
        throw new Error(`closed (${code}) before the welcome`);
      }),
    ]);
    return peer;
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** The first frame (already received or still to come) that matches; taken out of the inbox unless `take` is false. */
  next(match: (frame: Frame) => boolean, timeoutMs = patientMs(5_000), take = true): Promise<Frame> {
    const index = this.inbox.findIndex(match);
    if (index >= 0) {
      const frame = this.inbox[index]!;
      if (take) this.inbox.splice(index, 1);
      return Promise.resolve(frame);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        match,
        resolve: (frame) => {
          clearTimeout(timer);
          if (!take) this.inbox.push(frame);
          resolve(frame);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`no matching frame within ${timeoutMs} ms; inbox: ${JSON.stringify(this.inbox)}`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  reply(id: string, timeoutMs?: number): Promise<Frame> {
    return this.next((frame) => frame['id'] === id, timeoutMs);
  }

  request(frame: Frame & { id: string }, timeoutMs?: number): Promise<Frame> {
    this.send(frame);
    return this.reply(frame.id, timeoutMs);
  }

  /** Everything received up to the pong for a ping sent now: frames are answered in order when no bridge call is involved. */
  async drain(): Promise<Frame[]> {
    const marker = `drain-${Math.random()}`;
    this.send({ type: 'ping', id: marker });
    await this.reply(marker);
    return this.inbox.splice(0);
  }
}

/** The HTTP status a WebSocket upgrade was refused with. */
function refusedStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.on('unexpected-response', (request, response) => {
      resolve(response.statusCode ?? 0);
      request.destroy();
    });
    socket.on('open', () => {
      socket.terminate();
      reject(new Error('the upgrade was accepted'));
    });
    socket.on('error', () => undefined);
  });
}

async function eventually(check: () => boolean, timeoutMs = patientMs(5_000)): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(10);
  }
}

const chat = (id: string, steamId: string, text = 'hello'): Frame & { id: string } => ({
  type: 'chat',
  id,
  player: { steam_id: steamId, name: 'Rex' },
  channel: 'global',
  text,
});

// ---- Tests ----------------------------------------------------------------------------------------------------------

describe('connecting', () => {
  it('sends the welcome right after the upgrade', async () => {
    const { url } = await startHarness();
    const peer = await Peer.connect(url);
    expect(peer.inbox).toEqual([{ type: 'welcome', protocol: 1, server: SERVER, sidecar: `${PRODUCT_NAME}/${VERSION}` }]);
  });

  it('takes the token from the Authorization header or from ?token=', async () => {
    const { url } = await startHarness();
    const byHeader = await Peer.connect(url, { via: 'header' });
    const byQuery = await Peer.connect(url, { via: 'query' });
    expect(byHeader.inbox[0]).toMatchObject({ type: 'welcome' });
    expect(byQuery.inbox[0]).toMatchObject({ type: 'welcome' });
    expect(await byQuery.request({ type: 'ping', id: 'q' })).toEqual({ type: 'pong', id: 'q' });
  });

  it('takes ?token= even when the engine sends an Authorization header of another kind', async () => {
    const { url } = await startHarness();
    const mod = await connectMod(`${url}?token=${TOKEN}`, 'ignored', { authorization: 'Basic ZW5naW5lOnN0dWZm' });
    expect(await mod.waitFor((frame) => frame.type === 'welcome')).toMatchObject({ type: 'welcome' });
    await mod.close();
  });

  it('answers a wrong or missing token with HTTP 401 and no socket', async () => {
    const { url } = await startHarness();
    expect(await refusedStatus(url, { authorization: 'Bearer wrong-token' })).toBe(401);
    expect(await refusedStatus(url, { authorization: `Bearer ${TOKEN}x` })).toBe(401);
    expect(await refusedStatus(url, { authorization: `Basic ${TOKEN}` })).toBe(401);
    expect(await refusedStatus(url)).toBe(401);
    expect(await refusedStatus(`${url}?token=nope`)).toBe(401);
    expect(await refusedStatus(`${url}?token=`)).toBe(401);
  });

  it('answers plain HTTP with 426 and a short explanation', async () => {
    const { port } = await startHarness();
    const response = await fetch(`http://127.0.0.1:${port}/`);
    expect(response.status).toBe(426);
    expect(await response.text()).toMatch(/WebSocket endpoint/);
  });

  it('accepts any local client when no token is configured', async () => {
    const harness = await startHarness();
    const adapter = await startDirectAdapter(harness, { config: adapterConfig({ token: undefined }) });
    const peer = await Peer.connect(`ws://127.0.0.1:${adapter.port}/`, { token: null });
    expect(await peer.request({ type: 'ping', id: 'open' })).toEqual({ type: 'pong', id: 'open' });
  });

  it('refuses to start without a token on a host other than loopback', async () => {
    const harness = await startHarness();
    const adapter = new WebSocketAdapter({
      options: adapterConfig({ host: '0.0.0.0', token: undefined }),
      id: 'open-door',
      serverName: SERVER,
      sidecar: 'gsa-bridge/test',
      logger: silentLogger(),
    });
    await expect(adapter.start(harness.sidecar.bridges.get(SERVER)!)).rejects.toThrow(/refusing to listen on 0\.0\.0\.0:0 \(adapter open-door\) without a token/);
    expect(adapter.ready).toBe(false);
  });

  it('fails to start with a message naming the adapter id when the port is in use', async () => {
    const harness = await startHarness();
    const adapter = new WebSocketAdapter({
      options: adapterConfig({ port: harness.port }),
      id: 'second-mod',
      serverName: SERVER,
      sidecar: 'gsa-bridge/test',
      logger: silentLogger(),
    });
    await expect(adapter.start(harness.sidecar.bridges.get(SERVER)!)).rejects.toThrow(
      `cannot listen on 127.0.0.1:${harness.port} (adapter second-mod): port in use`,
    );
    expect(adapter.ready).toBe(false);
  });

  it('is ready while listening', async () => {
    const harness = await startHarness();
    expect(harness.sidecar.adapters[0]!.ready).toBe(true);
  });
});

describe('chat and mute checks', () => {
  it('allows an unmuted player', async () => {
    const { url } = await startHarness();
    const peer = await Peer.connect(url);
    expect(await peer.request(chat('c1', STEAM))).toEqual({ type: 'chat.verdict', id: 'c1', allow: true, reason: 'ok' });
  });

  it("blocks a muted player with the service's alert", async () => {
    const { url, emulator } = await startHarness();
    emulator.mute(SERVER, STEAM_2, 'Muted for spamming, 10 min');
    const peer = await Peer.connect(url);
    expect(await peer.request(chat('c2', STEAM_2))).toEqual({
      type: 'chat.verdict',
      id: 'c2',
      allow: false,
      reason: 'muted',
      alert: 'Muted for spamming, 10 min',
    });
  });

  it('blocks with the configured default alert when the service sent none', async () => {
    const { url, emulator } = await startHarness();
    emulator.mute(SERVER, STEAM_3);
    const peer = await Peer.connect(url);
    expect(await peer.request(chat('c3', STEAM_3))).toEqual({ type: 'chat.verdict', id: 'c3', allow: false, reason: 'muted', alert: DEFAULT_ALERT });
  });

  it('answers a chat without id without an id', async () => {
    const { url } = await startHarness();
    const peer = await Peer.connect(url);
    peer.send({ type: 'chat', player: { steam_id: STEAM }, channel: 'global', text: 'no id' });
    expect(await peer.next((frame) => frame['type'] === 'chat.verdict')).toEqual({ type: 'chat.verdict', allow: true, reason: 'ok' });
  });

  it('writes verdict frames exactly as JSON.stringify would, for a first lookup and for a cached player', async () => {
    const { url, emulator } = await startHarness();
    const alert = 'Say "sorry" \\ then wait\n10 min, ü ✓';
    emulator.mute(SERVER, STEAM_2, alert);
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    const texts: string[] = [];
    socket.on('message', (data: Buffer) => texts.push(data.toString('utf8')));
    await new Promise((resolve) => socket.once('open', resolve));
    const verdictText = async (frame: Frame): Promise<string> => {
      const before = texts.length;
      socket.send(JSON.stringify(frame));
      await eventually(() => texts.slice(before).some((text) => text.includes('"chat.verdict"')));
      return texts.slice(before).find((text) => text.includes('"chat.verdict"')) ?? '';
    };
    const id = 'q"1\\ ü';
    // The first line of each player is a lookup (answered later); the second comes from the cache in the same tick.
    for (const round of ['lookup', 'cached']) {
      expect(await verdictText(chat(`${id}${round}`, STEAM_2)), round).toBe(
        JSON.stringify({ type: 'chat.verdict', id: `${id}${round}`, allow: false, reason: 'muted', alert }),
      );
      expect(await verdictText(chat(`${id}${round}`, STEAM))).toBe(JSON.stringify({ type: 'chat.verdict', id: `${id}${round}`, allow: true, reason: 'ok' }));
      expect(await verdictText({ type: 'chat', player: { steam_id: STEAM }, channel: 'global', text: 'no id' })).toBe(
        JSON.stringify({ type: 'chat.verdict', allow: true, reason: 'ok' }),
      );
    }
    socket.close();
  });

  it('answers a batch of cached chat lines sent at once, one verdict each', async () => {
    const { url } = await startHarness();
    const peer = await Peer.connect(url);
    await peer.request(chat('warm', STEAM));
    const ids = Array.from({ length: 200 }, (_, index) => `b${index}`);
    for (const id of ids) peer.send(chat(id, STEAM));
    const verdicts = await Promise.all(ids.map((id) => peer.reply(id)));
    expect(verdicts.map((verdict) => verdict['id'])).toEqual(ids);
    expect(verdicts.every((verdict) => verdict['allow'] === true && verdict['reason'] === 'ok')).toBe(true);
  });

  it('answers mute.check with the player and where the answer came from', async () => {
    const { url, emulator } = await startHarness();
    emulator.mute(SERVER, EOS, 'quiet please');
    const peer = await Peer.connect(url);
    const player = { eos_id: EOS, name: 'Ada' };
    expect(await peer.request({ type: 'mute.check', id: 'm1', player })).toEqual({
      type: 'mute.status',
      id: 'm1',
      player,
      muted: true,
      alert: 'quiet please',
      source: 'service',
    });
    expect(await peer.request({ type: 'mute.check', id: 'm2', player })).toMatchObject({ id: 'm2', muted: true, source: 'cache' });
    const unmuted = await peer.request({ type: 'mute.check', id: 'm3', player: { steam_id: STEAM } });
    expect(unmuted).toEqual({ type: 'mute.status', id: 'm3', player: { steam_id: STEAM }, muted: false, source: 'service' });
  });

  it('pushes mute.changed to every connection when a refresh finds a changed status', async () => {
    const { url, emulator } = await startHarness();
    const peer = await Peer.connect(url);
    const other = await Peer.connect(url);
    expect(await peer.request(chat('before', STEAM))).toMatchObject({ allow: true });
    emulator.mute(SERVER, STEAM, 'Muted by an admin');
    peer.send({ type: 'player.join', player: { steam_id: STEAM, name: 'Rex' } });
    const expected = { type: 'mute.changed', player: { steam_id: STEAM }, muted: true, alert: 'Muted by an admin' };
    expect(await peer.next((frame) => frame['type'] === 'mute.changed')).toMatchObject(expected);
    expect(await other.next((frame) => frame['type'] === 'mute.changed')).toMatchObject(expected);
    expect(await peer.request(chat('after', STEAM))).toMatchObject({ allow: false, reason: 'muted', alert: 'Muted by an admin' });
  });

  it('takes player.join and player.leave without a reply', async () => {
    const { url, emulator } = await startHarness();
    const peer = await Peer.connect(url);
    peer.send({ type: 'player.join', id: 'j', player: { steam_id: STEAM_2 } });
    peer.send({ type: 'player.leave', id: 'l', player: { steam_id: STEAM_2 } });
    expect(await peer.drain()).toEqual([{ type: 'welcome', protocol: 1, server: SERVER, sidecar: `${PRODUCT_NAME}/${VERSION}` }]);
    // The join warmed the cache: the service was asked without a chat line.
    await eventually(() => emulator.calls.some((call) => call.endpoint === 'mute'));
  });
});

describe('reviews', () => {
  it('answers review.queued, then review.result once the service stored it exactly as sent', async () => {
    const { url, emulator } = await startHarness();
    const peer = await Peer.connect(url);
    const comment = 'Great server! Admins are fair. 👍';
    expect(await peer.request({ type: 'review', id: 'r1', player: { steam_id: STEAM, name: 'Rex' }, stars: 4, comment })).toEqual({
      type: 'review.queued',
      id: 'r1',
    });
    expect(await peer.reply('r1')).toEqual({ type: 'review.result', id: 'r1', ok: true });
    expect(emulator.reviews).toEqual([{ server: SERVER, steamId: STEAM, stars: 4, comment, at: expect.any(Number) as unknown }]);
  });

  it('refuses stars out of range with bad_message at path stars', async () => {
    const { url, emulator } = await startHarness();
    const peer = await Peer.connect(url);
    const reply = await peer.request({ type: 'review', id: 'r9', player: { steam_id: STEAM }, stars: 9, comment: '' });
    expect(reply).toEqual({ type: 'error', id: 'r9', code: 'bad_message', message: expect.any(String) as unknown, path: 'stars' });
    expect(emulator.reviews).toEqual([]);
  });

  it('refuses a second review within the cooldown with rate_limited', async () => {
    const { url } = await startHarness();
    const peer = await Peer.connect(url);
    expect(await peer.request({ type: 'review', id: 'a', player: { steam_id: STEAM }, stars: 5, comment: 'one' })).toMatchObject({ type: 'review.queued' });
    expect(await peer.request({ type: 'review', id: 'b', player: { steam_id: STEAM }, stars: 5, comment: 'two' })).toMatchObject({
      type: 'error',
      id: 'b',
      code: 'rate_limited',
    });
  });

  it('reports a review the service refused as review.result ok false', async () => {
    const { url, emulator } = await startHarness();
    emulator.setIneligible(SERVER, STEAM_2, 'You need 2 hours of playtime to review.');
    const peer = await Peer.connect(url);
    expect(await peer.request({ type: 'review', id: 'rx', player: { steam_id: STEAM_2 }, stars: 2, comment: 'meh' })).toMatchObject({ type: 'review.queued' });
    const result = await peer.reply('rx');
    expect(result).toEqual({ type: 'review.result', id: 'rx', ok: false, error: { code: 'not_eligible', message: 'You need 2 hours of playtime to review.' } });
  });

  it('delivers review.result to the new connection after a reconnect', async () => {
    const { url, emulator } = await startHarness();
    emulator.injectFault({ kind: 'latency', ms: 800, endpoint: 'review' });
    const first = await Peer.connect(url);
    expect(await first.request({ type: 'review', id: 'late', player: { steam_id: STEAM }, stars: 5, comment: 'slow service' })).toMatchObject({
      type: 'review.queued',
    });
    first.socket.close();
    await first.closed;
    const second = await Peer.connect(url);
    expect(await second.reply('late')).toEqual({ type: 'review.result', id: 'late', ok: true });
  });

  it('keeps a review.result that finds no connection and sends it right after the next welcome', async () => {
    const { url, emulator, sidecar } = await startHarness();
    emulator.injectFault({ kind: 'latency', ms: 200, endpoint: 'review' });
    const first = await Peer.connect(url);
    expect(await first.request({ type: 'review', id: 'kept', player: { steam_id: STEAM }, stars: 3, comment: '' })).toMatchObject({ type: 'review.queued' });
    first.socket.close();
    await first.closed;
    await eventually(() => sidecar.outbox.pending === 0 && emulator.reviews.length === 1);
    const second = await Peer.connect(url);
    await second.reply('kept');
    expect(second.inbox).toEqual([{ type: 'welcome', protocol: 1, server: SERVER, sidecar: `${PRODUCT_NAME}/${VERSION}` }]);
  });
});

describe('server actions', () => {
  it('runs an allowed action and reports the result', async () => {
    const { url, emulator } = await startHarness();
    const peer = await Peer.connect(url);
    expect(await peer.request({ type: 'server.action', id: 'a1', action: 'restart' })).toEqual({
      type: 'server.action.result',
      id: 'a1',
      ok: true,
      status: expect.any(Number) as unknown,
      message: expect.any(String) as unknown,
    });
    expect(emulator.actions(SERVER_ID)).toMatchObject([{ action: 'restart' }]);
  });

  it('answers forbidden for an action the config does not allow', async () => {
    const { url, emulator } = await startHarness();
    const peer = await Peer.connect(url);
    expect(await peer.request({ type: 'server.action', id: 'a2', action: 'stop' })).toMatchObject({
      type: 'error',
      id: 'a2',
      code: 'forbidden',
      message: expect.stringMatching(/does not allow mods to stop/) as unknown,
    });
    expect(emulator.actions(SERVER_ID)).toEqual([]);
  });
});

describe('frames and limits', () => {
  it('answers a JSON ping with a pong, echoing the id when given', async () => {
    const { url } = await startHarness();
    const peer = await Peer.connect(url);
    expect(await peer.request({ type: 'ping', id: 'p1' })).toEqual({ type: 'pong', id: 'p1' });
    peer.send({ type: 'ping' });
    expect(await peer.next((frame) => frame['type'] === 'pong')).toEqual({ type: 'pong' });
  });

  it('answers every bad frame with exactly one error and keeps the connection open', async () => {
    const { url } = await startHarness();
    const peer = await Peer.connect(url);
    peer.inbox.splice(0);
    const bad: [frame: unknown, expected: Frame][] = [
      ['this is not json', { code: 'bad_json' }],
      ['{"type":"chat",', { code: 'bad_json' }],
      ['[1,2,3]', { code: 'bad_json' }],
      ['null', { code: 'bad_json' }],
      [{ id: 'b1', player: { steam_id: STEAM } }, { code: 'bad_message', path: 'type', id: 'b1' }],
      [{ type: 42, id: 'b2' }, { code: 'bad_message', path: 'type', id: 'b2' }],
      [{ type: 'chat.send', id: 'b3' }, { code: 'unknown_type', id: 'b3' }],
      [{ type: 'chat', id: 'b4', player: { steam_id: '123' }, channel: 'global', text: 'x' }, { code: 'bad_message', path: 'player.steam_id', id: 'b4' }],
      [{ type: 'chat', id: 'b5', player: { name: 'no ids' }, channel: 'global', text: 'x' }, { code: 'bad_message', path: 'player', id: 'b5' }],
      [{ type: 'chat', id: 'b6', player: { steam_id: STEAM }, text: 'x' }, { code: 'bad_message', path: 'channel', id: 'b6' }],
      [{ type: 'review', id: 'b7', player: { steam_id: STEAM }, stars: '5', comment: '' }, { code: 'bad_message', path: 'stars', id: 'b7' }],
      [{ type: 'server.action', id: 'b8', action: 'explode' }, { code: 'bad_message', path: 'action', id: 'b8' }],
      [{ type: 'ping', id: 42 }, { code: 'bad_message', path: 'id' }],
      [{ type: 'ping', id: 'x'.repeat(65) }, { code: 'bad_message', path: 'id' }],
      [{ type: 'player.join', player: { eos_id: 'xyz' } }, { code: 'bad_message', path: 'player.eos_id' }],
    ];
    for (const [frame] of bad) peer.send(frame);
    // Not UTF-8: refused with bad_json rather than closing the socket.
    peer.socket.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    const replies = await peer.drain();
    expect(replies).toHaveLength(bad.length + 1);
    bad.forEach(([, expected], index) => {
      const reply = replies[index]!;
      expect(reply).toMatchObject({ type: 'error', ...expected });
      expect(typeof reply['message']).toBe('string');
      if (!('id' in expected)) expect(reply).not.toHaveProperty('id');
      if (!('path' in expected)) expect(reply).not.toHaveProperty('path');
    });
    expect(replies[bad.length]).toMatchObject({ type: 'error', code: 'bad_json', message: expect.stringMatching(/UTF-8/) as unknown });
    expect(peer.socket.readyState).toBe(WebSocket.OPEN);
    expect(await peer.request(chat('still-works', STEAM))).toMatchObject({ type: 'chat.verdict', allow: true });
  });

  it('answers a binary frame with bad_json (text frames only) and keeps the connection open', async () => {
    const { url } = await startHarness();
    const peer = await Peer.connect(url);
    peer.socket.send(Buffer.from(JSON.stringify({ type: 'ping', id: 'bin' })), { binary: true });
    expect(await peer.reply('bin')).toEqual({ type: 'error', id: 'bin', code: 'bad_json', message: expect.stringMatching(/text frames only/) as unknown });
    peer.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await peer.next((frame) => frame['type'] === 'error')).toMatchObject({ code: 'bad_json' });
    expect(await peer.request({ type: 'ping', id: 'after' })).toEqual({ type: 'pong', id: 'after' });
  });

  it('takes a frame of exactly maxFrameBytes and closes the connection with 1009 on a larger one', async () => {
    const { url } = await startHarness();
    const peer = await Peer.connect(url);
    const frame = JSON.stringify(chat('big', STEAM, ''));
    const padded = JSON.stringify(chat('big', STEAM, 'x'.repeat(16_384 - frame.length)));
    expect(Buffer.byteLength(padded)).toBe(16_384);
    peer.send(padded);
    expect(await peer.reply('big')).toMatchObject({ type: 'chat.verdict', allow: true });
    peer.send(JSON.stringify(chat('too-big', STEAM, 'x'.repeat(16_384))));
    expect((await peer.closed).code).toBe(1009);
  });

  it('answers frames over maxMessagesPerSecond with rate_limited and their id, unprocessed', async () => {
    // The window on a hand-moved clock: it stands still while the frames go through, and moves only when told.
    let now = 10_000;
    const adapter = await startDirectAdapter(await startHarness(), { config: adapterConfig({ maxMessagesPerSecond: 5 }), clock: { now: () => now } });
    const peer = await Peer.connect(`ws://127.0.0.1:${adapter.port}/`);
    const ids = Array.from({ length: 20 }, (_, index) => `p${index}`);
    for (const id of ids) peer.send({ type: 'ping', id });
    const replies = await Promise.all(ids.map((id) => peer.reply(id)));
    // One window: the first five answered, the other fifteen refused with their ids.
    expect(replies.slice(0, 5)).toEqual(ids.slice(0, 5).map((id) => ({ type: 'pong', id })));
    for (const [index, reply] of replies.slice(5).entries()) expect(reply).toMatchObject({ type: 'error', code: 'rate_limited', id: ids[index + 5] });
    // Still the same window a millisecond before its end; the next one takes frames again.
    now += 999;
    expect(await peer.request({ type: 'ping', id: 'same-window' })).toMatchObject({ type: 'error', code: 'rate_limited', id: 'same-window' });
    now += 1;
    expect(await peer.request({ type: 'ping', id: 'later' })).toEqual({ type: 'pong', id: 'later' });
  });

  it('serves several connections at once, each getting its own replies', async () => {
    const { url } = await startHarness();
    const peers = await Promise.all(Array.from({ length: 5 }, () => Peer.connect(url)));
    const replies = await Promise.all(peers.map((peer, index) => peer.request(chat('same-id', index % 2 === 0 ? STEAM : STEAM_2))));
    for (const reply of replies) expect(reply).toMatchObject({ type: 'chat.verdict', id: 'same-id', allow: true });
    for (const peer of peers) expect(await peer.drain()).toEqual([expect.objectContaining({ type: 'welcome' })]);
  });

  it('answers requests concurrently: a slow one does not hold up a fast one', async () => {
    const { url, emulator } = await startHarness();
    const peer = await Peer.connect(url);
    emulator.injectFault({ kind: 'latency', ms: 200, endpoint: 'mute' });
    peer.send(chat('slow', STEAM));
    peer.send({ type: 'ping', id: 'fast' });
    const order: string[] = [];
    await Promise.all(
      ['slow', 'fast'].map(async (id) => {
        await peer.reply(id);
        order.push(id);
      }),
    );
    expect(order).toEqual(['fast', 'slow']);
  });

  it('stops reading a peer that does not read its replies, and resumes once it does', async () => {
    const harness = await startHarness();
    const { emulator } = harness;
    // Only the line that matters is kept: each junk frame logs a debug line, and 60,000 of those would be slow to write.
    const logs: string[] = [];
    const logger = pino({
      level: 'debug',
      hooks: {
        logMethod(args) {
          const text = args.find((arg): arg is string => typeof arg === 'string');
          if (text?.includes('pausing its input') === true) logs.push(text);
        },
      },
    });
    const adapter = await startDirectAdapter(harness, { logger });
    const peer = await Peer.connect(`ws://127.0.0.1:${adapter.port}/`);
    peer.inbox.splice(0);
    let received = 0;
    peer.socket.on('message', () => {
      received++;
    });
    peer.socket.pause();
    // Each tiny frame draws a ~230-byte error: far more than the socket buffers hold.
    const junk = JSON.stringify({ type: 'x'.repeat(40) });
    const floodSize = 60_000;
    for (let index = 0; index < floodSize; index++) peer.send(junk);
    // If the sidecar kept reading, it would process these joins at once (each asks the service).
    const players = [STEAM, STEAM_2, STEAM_3];
    for (const steamId of players) peer.send({ type: 'player.join', player: { steam_id: steamId } });
    // The sidecar says when it stops reading (its unsent replies passed the high-water mark); only the peer reading
    // starts it again (a write completing), and the joins are megabytes behind the junk in the stream.
    await eventually(() => logs.some((line) => line.includes('pausing its input')), 15_000);
    const muteCalls = (): number => emulator.calls.filter((call) => call.endpoint === 'mute').length;
    expect(muteCalls()).toBe(0);
    peer.socket.resume();
    await eventually(() => muteCalls() === players.length, 15_000);
    await eventually(() => received >= floodSize, 15_000);
    expect(peer.socket.readyState).toBe(WebSocket.OPEN);
  });
});

// Heartbeats on fake time: only setInterval is faked (sockets and the peers' own timeouts stay real), so each tick is
// taken by hand, once the sidecar has read what the peer sent before it.
const HEARTBEAT_TIMERS: Parameters<typeof vi.useFakeTimers>[0] = { toFake: ['setInterval', 'clearInterval'] };
const HEARTBEAT_MS = 30_000;

/** One heartbeat tick: 'pinged' when the sidecar kept `peer` (it pings the peers it keeps), 'dropped' when it closed it. */
async function tick(peer: Peer): Promise<'pinged' | 'dropped'> {
  const outcome = Promise.race([once(peer.socket, 'ping').then(() => 'pinged' as const), peer.closed.then(() => 'dropped' as const)]);
  vi.advanceTimersByTime(HEARTBEAT_MS);
  return outcome;
}

/**
 * Resolves once the sidecar has read everything `peer` sent so far: a protocol ping of the peer's own, which the
 * sidecar's socket answers after reading what came before it on the stream. (A ping from the peer is no sign of life
 * to the adapter: only pongs and frames are.)
 */
async function sidecarHasRead(peer: Peer): Promise<void> {
  const pong = once(peer.socket, 'pong');
  peer.socket.ping();
  await pong;
}

describe('heartbeat', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('drops a peer that does not answer pings and keeps one that does', async () => {
    const harness = await startHarness();
    vi.useFakeTimers(HEARTBEAT_TIMERS);
    const adapter = await startDirectAdapter(harness, { heartbeatMs: HEARTBEAT_MS });
    const url = `ws://127.0.0.1:${adapter.port}/`;
    const silent = await Peer.connect(url, { client: { autoPong: false } });
    const responsive = await Peer.connect(url);
    // Tick 1 pings both (a new peer counts as alive); the responsive one's pong goes out before its 'ping' event.
    const silentPinged = once(silent.socket, 'ping');
    expect(await tick(responsive)).toBe('pinged');
    await silentPinged;
    await sidecarHasRead(responsive);
    // Tick 2 drops the silent peer and pings the responsive one again; and so on, as long as it answers.
    expect(await tick(responsive)).toBe('pinged');
    expect((await silent.closed).code).toBe(1006);
    for (let round = 3; round <= 4; round++) {
      await sidecarHasRead(responsive);
      expect(await tick(responsive)).toBe('pinged');
    }
    expect(responsive.socket.readyState).toBe(WebSocket.OPEN);
    expect(adapter.connectionCount).toBe(1);
  });

  it('counts any frame from the peer as a sign of life (JSON pings, for engines without ping frames)', async () => {
    const harness = await startHarness();
    vi.useFakeTimers(HEARTBEAT_TIMERS);
    const adapter = await startDirectAdapter(harness, { heartbeatMs: HEARTBEAT_MS });
    const peer = await Peer.connect(`ws://127.0.0.1:${adapter.port}/`, { client: { autoPong: false } });
    // It never answers a ping frame; a JSON ping (answered, so read) before each tick keeps it.
    for (let round = 0; round < 4; round++) {
      expect(await peer.request({ type: 'ping', id: `alive-${round}` })).toMatchObject({ type: 'pong' });
      expect(await tick(peer)).toBe('pinged');
    }
    expect(peer.socket.readyState).toBe(WebSocket.OPEN);
  });
});

describe('stopping', () => {
  it('answers what is in flight, closes connections with 1001 and stops listening', async () => {
    const harness = await startHarness();
    const adapter = await startDirectAdapter(harness);
    const url = `ws://127.0.0.1:${adapter.port}/`;
    const peer = await Peer.connect(url);
    harness.emulator.injectFault({ kind: 'latency', ms: 150, endpoint: 'mute' });
    peer.send(chat('in-flight', STEAM));
    await eventually(() => harness.emulator.calls.some((call) => call.endpoint === 'mute'));
    const stopped = adapter.stop();
    expect(adapter.ready).toBe(false);
    expect(await peer.reply('in-flight')).toMatchObject({ type: 'chat.verdict', allow: true });
    expect((await peer.closed).code).toBe(1001);
    await stopped;
    await expect(Peer.connect(url)).rejects.toThrow();
  });
});
