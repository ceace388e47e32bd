// What shares the machine with the sidecar in the soak: the quiet mod whose muted players must stay blocked while
// another source floods, a probe that checks the right token always gets in, and two hostile local processes'
// worth of traffic on the same mod port: a wrong-token loop and an idle-socket flood (raw TCP, no upgrade).
// Each records what it saw on the soak clock; the judgement is in invariants.ts. Every loop is bounded in rate
// and in what it holds, and stops on stop().
import { connect, type Socket } from 'node:net';
import { WebSocket } from 'ws';

/** One verdict the quiet mod received for a muted player. */
export interface QuietVerdict {
  readonly player: string;
  readonly sentAt: number;
  readonly at: number;
  readonly allow: boolean;
  readonly reason: string;
}

/**
 * A mod on its own server that chats a little, as the muted players given: every player every `everyMs`.
 * Reconnects 100 ms after any close, like the fleet's mods.
 */
export class QuietMod {
  readonly verdicts: QuietVerdict[] = [];
  readonly #url: string;
  readonly #token: string;
  readonly #players: readonly string[];
  readonly #now: () => number;
  readonly #pending = new Map<string, { readonly player: string; readonly sentAt: number }>();
  #socket: WebSocket | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #seq = 0;
  sent = 0;

  constructor(url: string, token: string, players: readonly string[], now: () => number) {
    this.#url = url;
    this.#token = token;
    this.#players = players;
    this.#now = now;
  }

  start(everyMs: number): void {
    this.#connect();
    this.#timer = setInterval(() => {
      this.#chatRound();
    }, everyMs);
  }

  #connect(): void {
    if (this.#stopped) return;
    const socket = new WebSocket(this.#url, { headers: { authorization: `Bearer ${this.#token}` } });
    this.#socket = socket;
    socket.on('message', (data: Buffer) => {
      let frame: { type?: unknown; id?: unknown; allow?: unknown; reason?: unknown };
      try {
        frame = JSON.parse(data.toString()) as typeof frame;
      } catch {
        return;
      }
      if (frame.type !== 'chat.verdict' || typeof frame.id !== 'string') return;
      const pending = this.#pending.get(frame.id);
      if (pending === undefined) return;
      this.#pending.delete(frame.id);
      this.verdicts.push({ ...pending, at: this.#now(), allow: frame.allow === true, reason: typeof frame.reason === 'string' ? frame.reason : '?' });
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.#pending.clear();
      if (this.#socket === socket) this.#socket = undefined;
      if (!this.#stopped) setTimeout(() => { this.#connect(); }, 100).unref();
    });
  }

  #chatRound(): void {
    const socket = this.#socket;
    if (socket?.readyState !== WebSocket.OPEN) return;
    for (const player of this.#players) {
      const id = `q${this.#seq++}`;
      this.#pending.set(id, { player, sentAt: this.#now() });
      socket.send(JSON.stringify({ type: 'chat', id, player: { steam_id: player }, channel: 'global', text: 'let me speak' }));
      this.sent += 1;
    }
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#socket?.close();
  }
}

/** One attempt of the right token: how long until the upgrade was accepted, or why it was not. */
export interface TokenProbe {
  readonly at: number;
  readonly ms: number;
  readonly ok: boolean;
  readonly failure?: string;
}

/**
 * Opens a fresh connection with the right token every `everyMs` and closes it once it is open: the real mod
 * reconnecting while the neighbours misbehave. Probes that started while the sidecar was down are marked by the
 * caller (isUp) and not judged.
 */
export class RightTokenProbe {
  readonly probes: TokenProbe[] = [];
  readonly #url: string;
  readonly #token: string;
  readonly #now: () => number;
  readonly #isUp: () => boolean;
  #timer: NodeJS.Timeout | undefined;
  #inFlight = false;

  constructor(url: string, token: string, now: () => number, isUp: () => boolean) {
    this.#url = url;
    this.#token = token;
    this.#now = now;
    this.#isUp = isUp;
  }

  start(everyMs: number): void {
    this.#timer = setInterval(() => {
      this.#probe();
    }, everyMs);
  }

  #probe(): void {
    if (this.#inFlight || !this.#isUp()) return;
    this.#inFlight = true;
    const at = this.#now();
    const socket = new WebSocket(this.#url, { headers: { authorization: `Bearer ${this.#token}` }, handshakeTimeout: 5000 });
    let done = false;
    const finish = (ok: boolean, failure?: string): void => {
      if (done) return;
      done = true;
      this.#inFlight = false;
      // A probe cut by a kill -9 says nothing about the token: dropped unless the sidecar is still up.
      if (ok || this.#isUp()) this.probes.push({ at, ms: this.#now() - at, ok, ...(failure === undefined ? {} : { failure }) });
      socket.close();
    };
    socket.on('open', () => { finish(true); });
    socket.on('unexpected-response', (_request, response) => { finish(false, `HTTP ${response.statusCode ?? '?'}`); });
    socket.on('error', (error) => { finish(false, error.message); });
    socket.on('close', () => { finish(false, 'closed before open'); });
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

/** A local process guessing the mod token: one wrong upgrade after another, at most one every `everyMs`. */
export class WrongTokenLoop {
  attempts = 0;
  refusals = new Map<string, number>();
  readonly #url: string;
  #timer: NodeJS.Timeout | undefined;
  #inFlight = false;

  constructor(url: string) {
    this.#url = url;
  }

  start(everyMs: number): void {
    this.#timer = setInterval(() => {
      this.#attempt();
    }, everyMs);
  }

  #attempt(): void {
    if (this.#inFlight) return;
    this.#inFlight = true;
    this.attempts += 1;
    const socket = new WebSocket(this.#url, { headers: { authorization: `Bearer wrong-${this.attempts}` }, handshakeTimeout: 5000 });
    const count = (what: string): void => {
      this.refusals.set(what, (this.refusals.get(what) ?? 0) + 1);
    };
    let done = false;
    const finish = (what: string): void => {
      if (done) return;
      done = true;
      this.#inFlight = false;
      count(what);
      socket.terminate();
    };
    socket.on('unexpected-response', (_request, response) => { finish(`HTTP ${response.statusCode ?? '?'}`); });
    socket.on('open', () => { finish('accepted (!)'); });
    socket.on('error', () => { finish('error'); });
    socket.on('close', () => { finish('closed'); });
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

/**
 * A local process holding raw TCP connections to the mod port that never upgrade: keeps up to `target` open,
 * opening at most `perTick` new ones every `tickMs` to replace those the sidecar closed.
 */
export class IdleSocketFlood {
  opened = 0;
  closedBySidecar = 0;
  peakOpen = 0;
  readonly #port: number;
  readonly #sockets = new Set<Socket>();
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(port: number) {
    this.#port = port;
  }

  get open(): number {
    return this.#sockets.size;
  }

  start(target: number, perTick: number, tickMs: number): void {
    this.#timer = setInterval(() => {
      for (let i = 0; i < perTick && this.#sockets.size < target; i += 1) this.#openOne();
    }, tickMs);
  }

  #openOne(): void {
    const socket = connect(this.#port, '127.0.0.1');
    this.opened += 1;
    this.#sockets.add(socket);
    this.peakOpen = Math.max(this.peakOpen, this.#sockets.size);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.#sockets.delete(socket);
      if (!this.#stopped) this.closedBySidecar += 1;
    });
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }
}
