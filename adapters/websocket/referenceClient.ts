// ModClient: a small reference client for mod protocol v1, for mod authors to read and copy. It connects to the
// sidecar's mod WebSocket, matches replies to requests by id, reconnects with backoff, and keeps waiting for review
// and report results across reconnects. Compiled (dist/adapters/websocket/referenceClient.js) it needs nothing but `ws`,
// its words (referenceClientTypes.js) and the project's one backoff rule (dist/src/time/backoff.js, itself
// dependency-free): the protocol types below are imported as types only and vanish from the JavaScript.
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
  ModApiDataMessage,
  MoneyResultMessage,
  PlayerAccessResultMessage,
  ReportResultMessage,
  ReportSettingsResultMessage,
} from './modApiMessages.js';
import type {
  ChatVerdictMessage,
  ErrorMessage,
  MuteStatusMessage,
  ServerActionResultMessage,
  SidecarMessage,
  WelcomeMessage,
} from './protocol.js';
import {
  ModClientError,
  type AccessResult,
  type ChatVerdict,
  type ModClientOptions,
  type MoneyResult,
  type MuteStatus,
  type Player,
  type ReportFields,
  type ReportReceipt,
  type ReportResult,
  type ReportSettings,
  type ReviewReceipt,
  type ReviewResult,
  type ServerAction,
  type ServerActionResult,
  type ShopQuery,
} from './referenceClientTypes.js';

export * from './referenceClientTypes.js';

interface PendingRequest {
  readonly resolve: (reply: SidecarMessage) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** A review's or a report's result, awaited by the id of its request. */
interface PendingResult {
  readonly resolve: (result: ReviewResult | ReportResult) => void;
  readonly reject: (error: Error) => void;
}

export class ModClient {
  readonly #options: ModClientOptions;
  readonly #requestTimeoutMs: number;
  /** Unique per client instance, so ids stay unique across reconnects and the sidecar's routing of review and report results. */
  readonly #idPrefix = randomBytes(6).toString('hex');
  #nextId = 1;
  readonly #pending = new Map<string, PendingRequest>();
  readonly #results = new Map<string, PendingResult>();
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
    return this.#queue<ReviewResult>('review.queued', { type: 'review', player, stars, comment });
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

  // ---- GSA's Mod API features: each needs the host's `allowRequests` to name its group, else `forbidden` -----------

  /** GSA's access check (whitelist, bans, custom roles). Group `access`. */
  async playerAccess(player: Player): Promise<AccessResult> {
    const reply = await this.#request<PlayerAccessResultMessage>('player.access.result', { type: 'player.access', player });
    return { player: reply.player, allowed: reply.allowed, message: reply.message, roles: reply.roles, source: reply.source };
  }

  /** The report form as GSA configured it: the players that may be reported and the report types. Group `reports`. */
  async reportSettings(player: Player): Promise<ReportSettings> {
    const reply = await this.#request<ReportSettingsResultMessage>('report.settings.result', { type: 'report.settings', player });
    return { title: reply.title, description: reply.description, players: reply.players, types: reply.types };
  }

  /** As review(): resolves once the report is stored durably; `result` later with GSA's answer. Group `reports`. */
  async report(report: ReportFields): Promise<ReportReceipt> {
    return this.#queue<ReportResult>('report.queued', { type: 'report', ...report });
  }

  /** GSA's shop index for the player, as GSA sent it. Group `shop`. */
  async shopList(player: Player, query: ShopQuery = {}): Promise<unknown> {
    return (await this.#request<ModApiDataMessage>('shop.list.result', { type: 'shop.list', player, ...query })).data;
  }

  /** One pack (GSA's pack id), as GSA sent it. Group `shop`. */
  async shopItem(player: Player, item: number | string): Promise<unknown> {
    return (await this.#request<ModApiDataMessage>('shop.item.result', { type: 'shop.item', player, item })).data;
  }

  /**
   * Orders a pack for the player. Group `shop`. Never call it again for an `unconfirmed` result, nor after a `timeout`
   * or `disconnected` rejection: the order may have gone through, and money moves at most once.
   */
  async shopOrder(player: Player, item: number | string): Promise<MoneyResult> {
    return moneyResult(await this.#request<MoneyResultMessage>('shop.order.result', { type: 'shop.order', player, item }));
  }

  /** Spends the player's tokens. Group `tokens`. The same rule as shopOrder: never resend one whose fate is unknown. */
  async consumeTokens(player: Player, amount: number): Promise<MoneyResult> {
    return moneyResult(await this.#request<MoneyResultMessage>('token.consume.result', { type: 'token.consume', player, amount }));
  }

  /** The dashboard's key bindings and radial menu settings, as GSA sent them. Group `ui`. */
  async uiSettings(): Promise<unknown> {
    return (await this.#request<ModApiDataMessage>('ui.settings.result', { type: 'ui.settings' })).data;
  }

  /** The vote screen (title, description, buttons), as GSA sent it. Group `ui`. */
  async uiModal(): Promise<unknown> {
    return (await this.#request<ModApiDataMessage>('ui.modal.result', { type: 'ui.modal' })).data;
  }

  /** A JSON-level ping, for engines whose WebSocket cannot send ping frames; resolves with the round trip in ms. */
  async ping(): Promise<number> {
    const started = performance.now();
    await this.#request('pong', { type: 'ping' });
    return performance.now() - started;
  }

  /** Closes for good: pending requests and review and report results reject with code `closed`; no reconnect. */
  close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    const closedError = (): ModClientError => new ModClientError('closed', 'the client was closed');
    this.#failPending(closedError);
    for (const [id, waiter] of this.#results) {
      this.#results.delete(id);
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
      // Replies to requests on this connection can never arrive; review and report results can (on the next connection).
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
      case 'review.result': {
        const result: ReviewResult = message.ok ? { id: message.id, ok: true } : { id: message.id, ok: false, error: message.error };
        this.#options.onReviewResult?.(result);
        this.#resolveResult(message.id, result);
        return;
      }
      case 'report.result': {
        const result = reportResult(message);
        this.#options.onReportResult?.(result);
        this.#resolveResult(message.id, result);
        return;
      }
      case 'player.access.result':
        // Without an id it was not asked for: the host refuses a player this mod said joined.
        if (message.id !== undefined) this.#settle(message.id, message, undefined);
        else this.#options.onAccessRefused?.({ player: message.player, allowed: message.allowed, message: message.message, roles: message.roles, source: message.source });
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

  #resolveResult(id: string | undefined, result: ReviewResult | ReportResult): void {
    const waiter = id === undefined ? undefined : this.#results.get(id);
    if (id === undefined || waiter === undefined) return;
    this.#results.delete(id);
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

  /** A request the sidecar stores durably (review, report): `queued` once stored, `result` when GSA answered. */
  async #queue<Result extends ReviewResult | ReportResult>(
    expected: 'review.queued' | 'report.queued',
    message: Record<string, unknown>,
  ): Promise<{ readonly queued: true; readonly result: Promise<Result> }> {
    const id = this.#newId();
    // Registered before sending: on a fast service the result can arrive right behind the `queued` reply. Only the
    // matching result type arrives for an id: its `queued` reply's type named which.
    const result = new Promise<Result>((resolve, reject) => {
      this.#results.set(id, { resolve: resolve as (result: ReviewResult | ReportResult) => void, reject });
    });
    // A caller that only awaits `queued` must not get an unhandled rejection when close() cancels the result.
    result.catch(() => undefined);
    try {
      await this.#request(expected, message, id);
    } catch (error) {
      this.#results.delete(id);
      throw error;
    }
    return { queued: true, result };
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

function reportResult(message: ReportResultMessage): ReportResult {
  return message.ok ? { id: message.id, ok: true, message: message.message } : { id: message.id, ok: false, error: message.error };
}

function moneyResult(reply: MoneyResultMessage): MoneyResult {
  return { ok: reply.ok, state: reply.state, message: reply.message };
}
