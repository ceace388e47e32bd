// The mods of the soak: a few real WebSocket connections to the sidecar that send chat, joins, reviews,
// server actions and pings, reconnect whenever the sidecar goes away, and record when each answer came.
// Must never count a request whose connection died before the answer as late or lost: the sidecar could not
// answer it (it was killed, or the mod hung up), which the soak reports separately.
import { WebSocket } from 'ws';

/** One acknowledged-or-not review, matched later against the emulator and the data directory by content. */
export interface SentReview {
  readonly id: string;
  readonly steamId: string;
  readonly comment: string;
  readonly sentAt: number;
  /** When `review.queued` arrived (soak clock), and the wall clock then (to compare with journal times). */
  ackAt?: number;
  ackWallMs?: number;
  /** When `review.result` arrived, and what it said. */
  resultAt?: number;
  resultOk?: boolean;
  resultCode?: string;
  /** An `error` frame instead of `review.queued` (bad_message, rate_limited …). */
  refusedCode?: string;
}

export interface SentAction {
  readonly id: string;
  readonly sentAt: number;
  answeredAt?: number;
  /** 'ok', the service's failure code from server.action.result, or `error:<code>` for a local refusal. */
  outcome?: string;
  /** The connection closed before an answer. */
  orphaned?: boolean;
}

/** A timed answer on one connection: a verdict (send → verdict) or a ping's echo round trip. */
export interface Timed {
  readonly connection: number;
  readonly sentAt: number;
  readonly ms: number;
}

export interface FleetCounters {
  chatsSent: number;
  verdicts: number;
  /** Verdicts by reason (ok, muted, unknown). */
  readonly reasons: Map<string, number>;
  /** Chats whose connection closed before their verdict. */
  chatsOrphaned: number;
  /** Chats answered with an error frame (rate_limited, unavailable …) rather than a verdict. */
  chatErrors: number;
  joins: number;
  connects: number;
  disconnects: number;
}

/** Told of one chat line's verdict: its reason (ok, muted, unknown, filtered …) and when it arrived. */
export type VerdictListener = (reason: string, at: number) => void;

interface Pending {
  readonly sentAt: number;
  readonly onVerdict?: VerdictListener | undefined;
}

class ModConnection {
  readonly #fleet: ModFleet;
  readonly #index: number;
  readonly #url: string;
  readonly #token: string;
  #socket: WebSocket | undefined;
  #stopped = false;
  /** Chats in flight on this socket: id → sent time. */
  #chats = new Map<string, Pending>();
  #actions = new Set<string>();
  #ping: { readonly id: string; readonly sentAt: number } | undefined;
  #pingSeq = 0;

  constructor(fleet: ModFleet, index: number, url: string, token: string) {
    this.#fleet = fleet;
    this.#index = index;
    this.#url = url;
    this.#token = token;
  }

  get open(): boolean {
    return this.#socket?.readyState === WebSocket.OPEN;
  }

  /** Keeps a connection up until stop(): reconnects 100 ms after any close or failed attempt. */
  run(): void {
    if (this.#stopped) return;
    const socket = new WebSocket(this.#url, { headers: { authorization: `Bearer ${this.#token}` } });
    this.#socket = socket;
    socket.on('open', () => {
      this.#fleet.counters.connects += 1;
    });
    socket.on('message', (data: Buffer) => {
      this.#onFrame(data.toString());
    });
    socket.on('error', () => {
      // 'close' follows; nothing to add.
    });
    socket.on('close', () => {
      this.#fleet.counters.disconnects += 1;
      this.#fleet.counters.chatsOrphaned += this.#chats.size;
      this.#chats = new Map();
      for (const id of this.#actions) this.#fleet.orphanAction(id);
      this.#actions.clear();
      this.#ping = undefined;
      if (this.#socket === socket) this.#socket = undefined;
      if (!this.#stopped) {
        setTimeout(() => {
          this.run();
        }, 100).unref();
      }
    });
  }

  /** A mod that reconnects: closes now, run()'s close handler opens a new connection. */
  reconnect(): void {
    this.#socket?.close();
  }

  stop(): Promise<void> {
    this.#stopped = true;
    const socket = this.#socket;
    if (socket === undefined || socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      socket.once('close', () => {
        resolve();
      });
      socket.close();
    });
  }

  sendChat(id: string, steamId: string, text: string, now: number, onVerdict?: VerdictListener): boolean {
    if (!this.open) return false;
    this.#chats.set(id, { sentAt: now, onVerdict });
    this.#socket?.send(`{"type":"chat","id":"${id}","player":{"steam_id":"${steamId}"},"channel":"global","text":${JSON.stringify(text)}}`);
    return true;
  }

  sendJoin(steamId: string): boolean {
    if (!this.open) return false;
    this.#socket?.send(`{"type":"player.join","player":{"steam_id":"${steamId}","name":"p${steamId.slice(-5)}"}}`);
    return true;
  }

  sendReview(review: SentReview): boolean {
    if (!this.open) return false;
    this.#socket?.send(JSON.stringify({ type: 'review', id: review.id, player: { steam_id: review.steamId }, stars: 4, comment: review.comment }));
    return true;
  }

  sendAction(id: string, action: string): boolean {
    if (!this.open) return false;
    this.#actions.add(id);
    this.#socket?.send(JSON.stringify({ type: 'server.action', id, action }));
    return true;
  }

  /** One ping in flight at a time: its round trip is the transport's share of a verdict's latency. */
  sendPing(now: number): void {
    if (!this.open || this.#ping !== undefined) return;
    const id = `ping-${this.#pingSeq++}`;
    this.#ping = { id, sentAt: now };
    this.#socket?.send(`{"type":"ping","id":"${id}"}`);
  }

  #onFrame(text: string): void {
    const now = this.#fleet.now();
    let frame: Record<string, unknown>;
    try {
      frame = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    const id = typeof frame.id === 'string' ? frame.id : undefined;
    switch (frame.type) {
      case 'chat.verdict': {
        const pending = id === undefined ? undefined : this.#chats.get(id);
        if (id === undefined || pending === undefined) return;
        this.#chats.delete(id);
        const reason = typeof frame.reason === 'string' ? frame.reason : '?';
        this.#fleet.recordVerdict({ connection: this.#index, sentAt: pending.sentAt, ms: now - pending.sentAt }, reason);
        pending.onVerdict?.(reason, now);
        return;
      }
      case 'pong':
        if (this.#ping !== undefined && id === this.#ping.id) {
          this.#fleet.pings.push({ connection: this.#index, sentAt: this.#ping.sentAt, ms: now - this.#ping.sentAt });
          this.#ping = undefined;
        }
        return;
      case 'review.queued':
        if (id !== undefined) this.#fleet.reviewQueued(id, now);
        return;
      case 'review.result':
        if (id !== undefined) this.#fleet.reviewResult(id, now, frame);
        return;
      case 'server.action.result':
        if (id !== undefined) {
          this.#actions.delete(id);
          this.#fleet.actionAnswered(id, now, frame.ok === true ? 'ok' : errorCode(frame));
        }
        return;
      case 'error':
        if (id === undefined) return;
        if (this.#chats.delete(id)) this.#fleet.counters.chatErrors += 1;
        else if (this.#actions.delete(id)) this.#fleet.actionAnswered(id, now, `error:${String(frame.code)}`);
        else this.#fleet.reviewRefused(id, String(frame.code));
        return;
      default:
        return;
    }
  }
}

function errorCode(frame: Record<string, unknown>): string {
  const error = frame.error;
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'failed';
}

export class ModFleet {
  readonly now: () => number;
  readonly #connections: ModConnection[];
  readonly counters: FleetCounters = {
    chatsSent: 0,
    verdicts: 0,
    reasons: new Map(),
    chatsOrphaned: 0,
    chatErrors: 0,
    joins: 0,
    connects: 0,
    disconnects: 0,
  };
  /** Every verdict, with its latency from send to verdict. */
  readonly verdicts: Timed[] = [];
  /** Every ping's echo round trip, in send order per connection: the transport baseline. */
  readonly pings: Timed[] = [];
  readonly reviews = new Map<string, SentReview>();
  readonly actions = new Map<string, SentAction>();
  #next = 0;

  constructor(url: string, token: string, connections: number, now: () => number) {
    this.now = now;
    this.#connections = Array.from({ length: connections }, (_, index) => new ModConnection(this, index, url, token));
  }

  start(): void {
    for (const connection of this.#connections) connection.run();
  }

  get openConnections(): number {
    return this.#connections.filter((c) => c.open).length;
  }

  /** Round-robin over the open connections; undefined when none is open (the sidecar is down). */
  #pick(): ModConnection | undefined {
    for (let i = 0; i < this.#connections.length; i += 1) {
      const connection = this.#connections[(this.#next++) % this.#connections.length];
      if (connection?.open === true) return connection;
    }
    return undefined;
  }

  /** Sends a chat line when a connection is open (true); `onVerdict` hears its verdict, if one comes. */
  chat(steamId: string, text: string, onVerdict?: VerdictListener): boolean {
    const id = `c${this.counters.chatsSent}`;
    if (this.#pick()?.sendChat(id, steamId, text, this.now(), onVerdict) !== true) return false;
    this.counters.chatsSent += 1;
    return true;
  }

  join(steamId: string): void {
    if (this.#pick()?.sendJoin(steamId) === true) this.counters.joins += 1;
  }

  /** Sends a review when a connection is open; only sent reviews are recorded. */
  review(id: string, steamId: string, comment: string): boolean {
    const review: SentReview = { id, steamId, comment, sentAt: this.now() };
    if (this.#pick()?.sendReview(review) !== true) return false;
    this.reviews.set(id, review);
    return true;
  }

  action(id: string, action: string): boolean {
    const sentAt = this.now();
    if (this.#pick()?.sendAction(id, action) !== true) return false;
    this.actions.set(id, { id, sentAt });
    return true;
  }

  ping(): void {
    const now = this.now();
    for (const connection of this.#connections) connection.sendPing(now);
  }

  /** Closes one connection at random-ish (round robin); it reconnects by itself. */
  reconnectOne(): void {
    this.#connections[(this.#next++) % this.#connections.length]?.reconnect();
  }

  async stop(): Promise<void> {
    await Promise.all(this.#connections.map((c) => c.stop()));
  }

  recordVerdict(verdict: Timed, reason: string): void {
    this.counters.verdicts += 1;
    this.counters.reasons.set(reason, (this.counters.reasons.get(reason) ?? 0) + 1);
    this.verdicts.push(verdict);
  }

  reviewQueued(id: string, at: number): void {
    const review = this.reviews.get(id);
    if (review === undefined || review.ackAt !== undefined) return;
    review.ackAt = at;
    review.ackWallMs = Date.now();
  }

  reviewResult(id: string, at: number, frame: Record<string, unknown>): void {
    const review = this.reviews.get(id);
    if (review === undefined || review.resultAt !== undefined) return;
    review.resultAt = at;
    review.resultOk = frame.ok === true;
    if (frame.ok !== true) review.resultCode = errorCode(frame);
  }

  reviewRefused(id: string, code: string): void {
    const review = this.reviews.get(id);
    if (review !== undefined && review.ackAt === undefined) review.refusedCode = code;
  }

  actionAnswered(id: string, at: number, outcome: string): void {
    const action = this.actions.get(id);
    if (action === undefined || action.answeredAt !== undefined) return;
    action.answeredAt = at;
    action.outcome = outcome;
  }

  orphanAction(id: string): void {
    const action = this.actions.get(id);
    if (action !== undefined && action.answeredAt === undefined) action.orphaned = true;
  }
}
