// ModClient: a small reference client for mod protocol v1, for mod authors to read and copy. It connects to the
// sidecar's mod WebSocket, matches replies to requests by id, reconnects with backoff, and keeps waiting for review
// results across reconnects. Compiled (dist/adapters/websocket/referenceClient.js) it needs nothing but `ws` and the
// project's one backoff rule (dist/src/time/backoff.js, itself dependency-free): the protocol types below are
// imported as types only and vanish from the JavaScript.
// Must never hide a failure: every request either resolves with the sidecar's answer or rejects with a ModClientError.
//
//   const client = new ModClient({ url: 'ws://127.0.0.1:8787/', token: 'change-me', onMuteChanged: (e) => … });
//   await client.connected();
//   const verdict = await client.chat({ steam_id: '76561198000000001' }, 'global', 'hello');
//   if (!verdict.allow) showToPlayer(verdict.alert);
import { randomBytes } from 'node:crypto';
import { WebSocket } from 'ws';
import { backoffDelayMs } from '../../src/time/backoff.js';
import type {
  ChatVerdictMessage,
  ErrorMessage,
  ModPlayer,
  MuteChangedMessage,
  MuteStatusMessage,
  ReviewResultMessage,
  ServerActionResultMessage,
  SidecarMessage,
  WelcomeMessage,
} from './protocol.js';

/** A player as the protocol names them: at least one of steam_id (17 digits) / eos_id (32 hex). */
export type Player = ModPlayer;
export type ServerAction = 'start' | 'stop' | 'restart' | 'update' | 'wipe' | 'cancel-scheduled' | 'broadcast';

// Omit that keeps each member of a union apart (plain Omit would merge `{ok: true}` and `{ok: false, error}`).
type Without<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export type ChatVerdict = Without<ChatVerdictMessage, 'type' | 'id'>;
export type MuteStatus = Without<MuteStatusMessage, 'type' | 'id'>;
export type ReviewResult = Without<ReviewResultMessage, 'type'>;
export type ServerActionResult = Without<ServerActionResultMessage, 'type' | 'id'>;
export type MuteChange = Without<MuteChangedMessage, 'type'>;

export interface ReviewReceipt {
  /** The sidecar stored the review durably: it will reach GSA even if the sidecar restarts. */
  readonly queued: true;
  /** Resolves when GSA answered (ok or not); survives reconnects. Rejects only when the client is closed first. */
  readonly result: Promise<ReviewResult>;
}

/**
 * `code` is the sidecar's wire code (bad_message, forbidden, rate_limited, not_eligible, …), or one of the client's own:
 * `timeout` (no reply in time), `not_connected` (sent while disconnected), `disconnected` (the connection
 * dropped before the reply), `closed` (close() was called).
 */
export class ModClientError extends Error {
  readonly code: string;
  /** For bad_message: the offending field, like `stars` or `player.steam_id`. */
  readonly path: string | undefined;

  constructor(code: string, message: string, path?: string) {
    super(path === undefined ? `${code}: ${message}` : `${code} at ${path}: ${message}`);
    this.name = 'ModClientError';
    this.code = code;
    this.path = path;
  }
}

export interface ModClientOptions {
  /** The sidecar's mod WebSocket, e.g. 'ws://127.0.0.1:8787/'. */
  readonly url: string;
  /** Sent as `Authorization: Bearer <token>`. Leave it out when the sidecar has no token (loopback only). */
  readonly token?: string | undefined;
  /** How long a request waits for its reply. Default 5000 ms. */
  readonly requestTimeoutMs?: number | undefined;
  /** First reconnect delay; it doubles on each failed attempt. Default 250 ms. */
  readonly reconnectMinDelayMs?: number | undefined;
  /** Longest reconnect delay. Default 10000 ms. */
  readonly reconnectMaxDelayMs?: number | undefined;
  /** A refresh found a player's mute status changed: block or unblock their chat at once. */
  readonly onMuteChanged?: ((change: MuteChange) => void) | undefined;
  /** Every review.result, including those for reviews this process did not send (it restarted meanwhile). */
  readonly onReviewResult?: ((result: ReviewResult) => void) | undefined;
  /** Each (re)connection, after the sidecar's welcome. */
  readonly onConnected?: ((welcome: WelcomeMessage) => void) | undefined;
  /** Connection problems (refused, 401, dropped); the client keeps reconnecting. */
  readonly onConnectionError?: ((error: Error) => void) | undefined;
  /** `error` frames that answer no pending request, e.g. a join with a bad player (join and leave have no reply). */
  readonly onUnmatchedError?: ((error: ModClientError) => void) | undefined;
}

interface PendingRequest {
  readonly resolve: (reply: SidecarMessage) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

interface PendingReviewResult {
  readonly resolve: (result: ReviewResult) => void;
  readonly reject: (error: Error) => void;
}

export class ModClient {
  readonly #options: ModClientOptions;
  readonly #requestTimeoutMs: number;
  /** Unique per client instance, so ids stay unique across reconnects and the sidecar's routing of review results. */
  readonly #idPrefix = randomBytes(6).toString('hex');
  #nextId = 1;
  readonly #pending = new Map<string, PendingRequest>();
  readonly #reviewResults = new Map<string, PendingReviewResult>();
  #socket: WebSocket | undefined;
  #welcome: WelcomeMessage | undefined;
  #waitingForWelcome: ((welcome: WelcomeMessage) => void)[] = [];
  #reconnectAttempt = 0;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: ModClientOptions) {
    this.#options = options;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 5_000;
    this.#connect();
  }

  /** The current connection's welcome; undefined while disconnected. */
  get welcome(): WelcomeMessage | undefined {
    return this.#welcome;
  }

  /** Resolves with the welcome once connected (at once if connected now). */
  connected(): Promise<WelcomeMessage> {
    if (this.#welcome !== undefined) return Promise.resolve(this.#welcome);
    if (this.#closed) return Promise.reject(new ModClientError('closed', 'the client was closed'));
    return new Promise((resolve) => {
      this.#waitingForWelcome.push(resolve);
    });
  }

  /**
   * May this line be shown? When `allow` is false, show `alert` to the player instead. `channel`: one of global,
   * local, team, squad, tribe, clan, admin, other; only those in the sidecar's mute.gatedChannels are checked (the
   * others come back allowed with reason `not_gated`), and any other string is never checked.
   */
  async chat(player: Player, channel: string, text: string): Promise<ChatVerdict> {
    const reply = await this.#request<ChatVerdictMessage>('chat.verdict', { type: 'chat', player, channel, text });
    return reply.allow ? { allow: true, reason: reply.reason } : { allow: false, reason: reply.reason, alert: reply.alert };
  }

  async checkMute(player: Player): Promise<MuteStatus> {
    const reply = await this.#request<MuteStatusMessage>('mute.status', { type: 'mute.check', player });
    return { player: reply.player, muted: reply.muted, alert: reply.alert, source: reply.source };
  }

  /**
   * Resolves once the review is stored durably; `result` resolves later with GSA's answer. When this rejects with
   * `timeout` or `disconnected` the review may have been stored anyway: its result then reaches onReviewResult only.
   */
  async review(player: Player, stars: number, comment: string): Promise<ReviewReceipt> {
    const id = this.#newId();
    // Registered before sending: on a fast service the result can arrive right behind review.queued.
    const result = new Promise<ReviewResult>((resolve, reject) => {
      this.#reviewResults.set(id, { resolve, reject });
    });
    // A caller that only awaits `queued` must not get an unhandled rejection when close() cancels the result.
    result.catch(() => undefined);
    try {
      await this.#request('review.queued', { type: 'review', player, stars, comment }, id);
    } catch (error) {
      this.#reviewResults.delete(id);
      throw error;
    }
    return { queued: true, result };
  }

  /** Tells the sidecar a player joined, which warms their mute status. No reply. */
  join(player: Player): void {
    this.#fireAndForget({ type: 'player.join', player });
  }

  leave(player: Player): void {
    this.#fireAndForget({ type: 'player.leave', player });
  }

  /**
   * Rejects with code `forbidden` unless the host allowed the action; `countdown` (minutes) is for update only; `text`
   * is the broadcast (required for broadcast) or the in-game notice of update, restart and stop.
   */
  async serverAction(action: ServerAction, countdown?: number, text?: string): Promise<ServerActionResult> {
    const message = { type: 'server.action', action, ...(countdown === undefined ? {} : { countdown }), ...(text === undefined ? {} : { message: text }) };
    const reply = await this.#request<ServerActionResultMessage>('server.action.result', message);
    return reply.ok ? { ok: true, status: reply.status, message: reply.message } : { ok: false, error: reply.error };
  }

  /** A JSON-level ping, for engines whose WebSocket cannot send ping frames; resolves with the round trip in ms. */
  async ping(): Promise<number> {
    const started = performance.now();
    await this.#request('pong', { type: 'ping' });
    return performance.now() - started;
  }

  /** Closes for good: pending requests and review results reject with code `closed`; no reconnect. */
  close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    const closedError = (): ModClientError => new ModClientError('closed', 'the client was closed');
    this.#failPending(closedError);
    for (const [id, waiter] of this.#reviewResults) {
      this.#reviewResults.delete(id);
      waiter.reject(closedError());
    }
    const socket = this.#socket;
    this.#socket = undefined;
    this.#welcome = undefined;
    if (socket === undefined || socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      socket.once('close', () => {
        resolve();
      });
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      else socket.close(1000, 'mod closing');
    });
  }

  // ---- Connection -------------------------------------------------------------------------------------------------

  #connect(): void {
    const headers: Record<string, string> = {};
    if (this.#options.token !== undefined) headers['authorization'] = `Bearer ${this.#options.token}`;
    const socket = new WebSocket(this.#options.url, { headers });
    this.#socket = socket;
    socket.on('message', (data, isBinary) => {
      if (!isBinary) this.#onMessage(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8'));
    });
    socket.on('unexpected-response', (_request, response) => {
      // 401: wrong or missing token. The host may fix it and restart the sidecar, so keep trying (with backoff).
      this.#options.onConnectionError?.(new ModClientError('unauthorized', `the sidecar answered HTTP ${response.statusCode ?? '?'} to the upgrade`));
      socket.terminate();
    });
    socket.on('error', (error) => {
      this.#options.onConnectionError?.(error);
    });
    socket.on('close', () => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      this.#welcome = undefined;
      // Replies to requests on this connection can never arrive; review results can (on the next connection).
      this.#failPending(() => new ModClientError('disconnected', 'the connection to the sidecar dropped before the reply'));
      this.#scheduleReconnect();
    });
  }

  #scheduleReconnect(): void {
    if (this.#closed) return;
    // Doubling from the minimum up to the maximum, with jitter: many mods restarting at once should not reconnect in lockstep.
    this.#reconnectAttempt++;
    const delay = backoffDelayMs(this.#reconnectAttempt, {
      minDelayMs: this.#options.reconnectMinDelayMs ?? 250,
      maxDelayMs: this.#options.reconnectMaxDelayMs ?? 10_000,
    });
    this.#reconnectTimer = setTimeout(() => {
      this.#connect();
    }, delay);
  }

  // ---- Incoming messages ------------------------------------------------------------------------------------------

  #onMessage(text: string): void {
    let message: SidecarMessage;
    try {
      message = JSON.parse(text) as SidecarMessage;
    } catch {
      return; // The sidecar only sends JSON; ignore anything else rather than crash the game.
    }
    switch (message.type) {
      case 'welcome':
        this.#onWelcome(message);
        return;
      case 'mute.changed':
        this.#options.onMuteChanged?.({ player: message.player, muted: message.muted, alert: message.alert });
        return;
      case 'review.result':
        this.#onReviewResult(message);
        return;
      case 'error': {
        const error = errorFrom(message);
        if (!this.#settle(message.id, undefined, error)) this.#options.onUnmatchedError?.(error);
        return;
      }
      default:
        this.#settle(message.id, message, undefined);
    }
  }

  #onWelcome(welcome: WelcomeMessage): void {
    this.#welcome = welcome;
    this.#reconnectAttempt = 0;
    const waiting = this.#waitingForWelcome;
    this.#waitingForWelcome = [];
    for (const resolve of waiting) resolve(welcome);
    this.#options.onConnected?.(welcome);
  }

  #onReviewResult(message: ReviewResultMessage): void {
    const result: ReviewResult = message.ok ? { id: message.id, ok: true } : { id: message.id, ok: false, error: message.error };
    this.#options.onReviewResult?.(result);
    if (message.id === undefined) return;
    const waiter = this.#reviewResults.get(message.id);
    if (waiter === undefined) return;
    this.#reviewResults.delete(message.id);
    waiter.resolve(result);
  }

  /** Hands a reply to the request with its id; false when none waits (no id, or the request already timed out). */
  #settle(id: string | undefined, reply: SidecarMessage | undefined, error: Error | undefined): boolean {
    const pending = id === undefined ? undefined : this.#pending.get(id);
    if (id === undefined || pending === undefined) return false;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    if (error !== undefined) pending.reject(error);
    else if (reply !== undefined) pending.resolve(reply);
    return true;
  }

  // ---- Outgoing messages ------------------------------------------------------------------------------------------

  #newId(): string {
    return `${this.#idPrefix}-${this.#nextId++}`;
  }

  /** Sends a request and resolves with the reply of type `expected` that carries its id. */
  #request<Reply extends SidecarMessage>(expected: Reply['type'], message: Record<string, unknown>, id = this.#newId()): Promise<Reply> {
    if (this.#closed) return Promise.reject(new ModClientError('closed', 'the client was closed'));
    const socket = this.#socket;
    if (socket === undefined || this.#welcome === undefined || socket.readyState !== WebSocket.OPEN) {
      return Promise.reject(new ModClientError('not_connected', 'not connected to the sidecar; await connected() first'));
    }
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new ModClientError('timeout', `no ${expected} within ${this.#requestTimeoutMs} ms`));
      }, this.#requestTimeoutMs);
      this.#pending.set(id, {
        resolve: (reply) => {
          if (reply.type === expected) resolve(reply as Reply);
          else reject(new ModClientError('unexpected_reply', `expected ${expected}, got ${reply.type}`));
        },
        reject,
        timer,
      });
      socket.send(JSON.stringify({ ...message, id }));
    });
  }

  #fireAndForget(message: Record<string, unknown>): void {
    if (this.#closed) throw new ModClientError('closed', 'the client was closed');
    const socket = this.#socket;
    if (socket === undefined || socket.readyState !== WebSocket.OPEN) {
      throw new ModClientError('not_connected', 'not connected to the sidecar; await connected() first');
    }
    socket.send(JSON.stringify(message));
  }

  #failPending(makeError: () => Error): void {
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      clearTimeout(pending.timer);
      pending.reject(makeError());
    }
  }
}

function errorFrom(message: ErrorMessage): ModClientError {
  return new ModClientError(message.code, message.message, message.path);
}
