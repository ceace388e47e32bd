/**
 * `GsaEmulator`: a local, stateful stand-in for the GameServerApp service on a node:http server, with
 * an in-process control surface for tests and demos (the same controls exist over HTTP under /_emulator/).
 * It has no authentication on its controls: bind it to loopback only. Must never log or answer with
 * the client secret or the System API key, and closing must never wait on idle keep-alive sockets or pending latency.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { CallCounters, WindowReport, WindowSpec } from './arrivals.js';
import { AcceptedCredentials, AcceptedSystemKey } from './auth.js';
import { EmulatorInputError } from './errors.js';
import { parseFaultSpec, parseWindowSpec, type FaultSpec } from './faults.js';
import type { BudgetReport } from './keyBudget.js';
import type { AlertKey } from './modApi.js';
import { createRequestHandler } from './routes.js';
import {
  EmulatorState,
  type ActionRecord,
  type EmulatorSnapshot,
  type RecordedCall,
  type ServerEntry,
  type StoredReview,
} from './state.js';
import type { ServiceIdentity, SystemActionRecord } from './systemState.js';
import {
  setAccess as applyAccess,
  setCatalogue as applyCatalogue,
  setReportSettings as applyReportSettings,
  setUi as applyUi,
  setWallet as applyWallet,
  type AccessInput,
  type CatalogueInput,
  type ReportSettingsInput,
  type UiInput,
  type WalletInput,
} from './featureControl.js';
import type { StoredReport } from './featureState.js';
import type { OrderRecord, TokenSpendRecord, WalletRecord } from './shopState.js';

export interface EmulatorOptions {
  /** Interface to listen on. Default '127.0.0.1'; the control surface is unauthenticated, keep it local. */
  host?: string;
  /** Default 0: an ephemeral port, read it back from `url`. */
  port?: number;
  /** Default 'demo-client'. */
  clientId?: string;
  /** Default 'demo-secret'. */
  clientSecret?: string;
  /**
   * The one System API v2 key accepted (`Authorization: Bearer <key>` on `/system-api/v2/…`); its calls count in the
   * enforced budget apart from the client id's. Default 'demo-system-key'. @example process.env.GSA_SYSTEM_API_KEY
   */
  systemKey?: string;
  /** Known servers: container `name` for the mod API, numeric `id` for webhooks. Default [{ name: 'ovddykvbs', id: 4711 }]. */
  servers?: readonly { name: string; id?: number }[];
  /** Key(s) of the mute alert text. Default 'muted-alert-tex', as the service documents. */
  alertKey?: AlertKey;
  /** Clock for `at` timestamps in ms, and for the System API's cooldowns. Default: performance.now() (monotonic, fractional). */
  now?: () => number;
  /**
   * Unix ms: when System API mutes end (period codes, `eod`…, dates) and what `until` reads. Default: the wall time at
   * start plus however far `now` has moved since, so a test that moves `now` moves this with it.
   */
  wallClock?: () => number;
  /** How many calls `calls` keeps, latest first to go; older calls only count in `counters()`. Default 10,000. */
  callLogLimit?: number;
  /** Watch this strict window from the start (see `watchWindow`). */
  window?: WindowSpec;
  /**
   * Enforce the service's API budget from the start (see `enforceBudget`): at most `requests` calls per key in any
   * `intervalMs`, 429 with Retry-After past it, X-RateLimit-Limit / -Remaining on every answer of the key's calls.
   * Default: not enforced (every call is answered, no X-RateLimit headers). @example { requests: 100, intervalMs: 60000 }
   */
  enforceBudget?: WindowSpec;
}

export const DEFAULT_EMULATOR_CLIENT_ID = 'demo-client';
export const DEFAULT_EMULATOR_CLIENT_SECRET = 'demo-secret';
export const DEFAULT_EMULATOR_SYSTEM_KEY = 'demo-system-key';
export const DEFAULT_EMULATOR_SERVERS: readonly { readonly name: string; readonly id: number }[] = [{ name: 'ovddykvbs', id: 4711 }];

const ALERT_KEYS: readonly AlertKey[] = ['muted-alert-tex', 'muted-alert-text', 'both'];

export class GsaEmulator {
  /** Base URL without a trailing slash, e.g. 'http://127.0.0.1:54321'. */
  readonly url: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly systemKey: string;
  readonly #server: Server;
  readonly #state: EmulatorState;
  readonly #timers: Set<NodeJS.Timeout>;
  readonly #now: () => number;
  readonly #wallClock: () => number;
  #closed: Promise<void> | undefined;

  private constructor(
    url: string,
    clientId: string,
    clientSecret: string,
    systemKey: string,
    server: Server,
    state: EmulatorState,
    timers: Set<NodeJS.Timeout>,
    clocks: { readonly now: () => number; readonly wallClock: () => number },
  ) {
    this.#now = clocks.now;
    this.#wallClock = clocks.wallClock;
    this.systemKey = systemKey;
    this.url = url;
    this.clientId = clientId;
    this.clientSecret = clientSecret;
    this.#server = server;
    this.#state = state;
    this.#timers = timers;
  }

  /**
   * Starts listening and resolves once the port is bound.
   * @throws EmulatorInputError for bad options; rejects with the listen error (e.g. EADDRINUSE).
   */
  static async start(options: EmulatorOptions = {}): Promise<GsaEmulator> {
    const host = options.host ?? '127.0.0.1';
    const clientId = options.clientId ?? DEFAULT_EMULATOR_CLIENT_ID;
    const clientSecret = options.clientSecret ?? DEFAULT_EMULATOR_CLIENT_SECRET;
    const alertKey = options.alertKey ?? 'muted-alert-tex';
    if (clientId === '') throw new EmulatorInputError('clientId: must not be empty');
    if (clientSecret === '') throw new EmulatorInputError('clientSecret: must not be empty');
    const systemKey = options.systemKey ?? DEFAULT_EMULATOR_SYSTEM_KEY;
    // A bearer token is one run of visible characters; a key with spaces could never be presented.
    if (!/^[\x21-\x7e]+$/.test(systemKey)) throw new EmulatorInputError('systemKey: must be non-empty printable ASCII without spaces');
    if (!ALERT_KEYS.includes(alertKey)) throw new EmulatorInputError(`alertKey: must be one of ${ALERT_KEYS.join(', ')}`);

    const state = new EmulatorState(options.callLogLimit);
    if (options.window !== undefined) state.arrivals.watchWindow(parseWindowSpec(options.window));
    if (options.enforceBudget !== undefined) state.budget.enforce(parseWindowSpec(options.enforceBudget));
    for (const server of options.servers ?? DEFAULT_EMULATOR_SERVERS) state.addServer(server.name, server.id);

    const timers = new Set<NodeJS.Timeout>();
    const defer = (ms: number, fn: () => void): void => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        fn();
      }, ms);
      timers.add(timer);
    };
    const now = options.now ?? (() => performance.now());
    const wallClock = options.wallClock ?? wallClockFollowing(now);
    const server = createServer(
      createRequestHandler({
        state,
        credentials: new AcceptedCredentials(clientId, clientSecret),
        systemKey: new AcceptedSystemKey(systemKey),
        alertKey,
        now,
        wallClock,
        defer,
      }),
    );

    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    const urlHost = host.includes(':') ? `[${host}]` : host;
    return new GsaEmulator(`http://${urlHost}:${port}`, clientId, clientSecret, systemKey, server, state, timers, { now, wallClock });
  }

  /** The known servers, in the order they were added. */
  get servers(): readonly ServerEntry[] {
    return this.#state.servers;
  }

  /** Adds a server, or gives a known one an id. @throws EmulatorInputError if the id belongs to another server. */
  addServer(name: string, id?: number): void {
    this.#state.addServer(name, id);
  }

  /** Mutes a player (steam_id or eos_id) on a server; without `alert` clients show their own text. */
  mute(server: string, playerId: string, alert?: string): void {
    this.#state.mute(server, playerId, alert);
  }

  unmute(server: string, playerId: string): void {
    this.#state.unmute(server, playerId);
  }

  /** With a message the player's reviews get 403 and that message; null lets them review again. */
  setIneligible(server: string, playerId: string, message: string | null): void {
    this.#state.setIneligible(server, playerId, message);
  }

  /** A locked server refuses `cancel-scheduled` with 409, as when a scheduled action is already running. */
  lock(serverId: number, locked: boolean): void {
    this.#state.lock(serverId, locked);
  }

  /** Queues a fault for the next matching requests, after any faults already queued. @throws EmulatorInputError */
  injectFault(fault: FaultSpec): void {
    this.#state.faults.add(parseFaultSpec(fault));
  }

  clearFaults(): void {
    this.#state.faults.clear();
  }

  /** The latest non-control requests that reached the server (up to `callLogLimit`), in arrival order; a snapshot. */
  get calls(): readonly RecordedCall[] {
    return this.#state.calls;
  }

  /** Totals of every non-control request since start or reset, however many the call log still holds. */
  counters(): CallCounters {
    return this.#state.arrivals.counters();
  }

  /**
   * Starts (or restarts) checking a strict window on arrival: at most `requests` non-control requests in any
   * `intervalMs`, as the service counts one API key: the mod API's (System API calls count against their own key, not
   * here). Read the result with `windowReport()`.
   * @throws EmulatorInputError for a non-positive `requests` or `intervalMs`.
   */
  watchWindow(spec: WindowSpec): void {
    this.#state.arrivals.watchWindow(parseWindowSpec(spec));
  }

  /** What the window watch saw; null when none was started. */
  windowReport(): WindowReport | null {
    return this.#state.arrivals.windowReport();
  }

  /**
   * Enforces the service's API budget per key from now on, its counts starting over (null stops enforcing): at most
   * `requests` calls with accepted keys in any `intervalMs`, counted on arrival across servers and endpoints; a call
   * past it gets 429 `Too Many Attempts.` with Retry-After (whole seconds, rounded up) and is not counted or
   * processed. Stricter than the service's fixed window, so whatever passes here passes there.
   * @throws EmulatorInputError for a `requests` that is not a whole number of 1 or more, or a non-positive `intervalMs`.
   */
  enforceBudget(spec: WindowSpec | null): void {
    this.#state.budget.enforce(spec === null ? null : parseWindowSpec(spec));
  }

  /** The enforced budget and what each key spent (counted, refused with 429, inside the window now); null when off. */
  budgetReport(): BudgetReport | null {
    return this.#state.budget.report(this.#now());
  }

  get reviews(): readonly StoredReview[] {
    return this.#state.reviews;
  }

  /** The queued actions of a server, oldest first. */
  actions(serverId: number): readonly ActionRecord[] {
    return this.#state.actions(serverId);
  }

  /** Everything `GET /_emulator/state` answers. */
  snapshot(): EmulatorSnapshot {
    return this.#state.snapshot(this.#wallClock());
  }

  /**
   * Seeds a System API player with its linked accounts; answers its uuid (default: derived from the first id, the
   * uuid a Steam/EOS id gets when the mod API sees it). A player made on sight of one of these ids is replaced.
   * @throws EmulatorInputError when a seeded player already holds an id or the uuid.
   */
  addPlayer(player: { ids: readonly ServiceIdentity[]; name?: string; uuid?: string }): string {
    return this.#state.system.addPlayer(player);
  }

  /** Marks a game server (by id) offline or back online: offline, its System API actions but `start` get 400. */
  setServerOnline(serverId: number, online: boolean): void {
    this.#requireServerId(serverId);
    this.#state.system.setOnline(serverId, online);
  }

  /** Mutes a System API player dashboard-wide without the API (no cooldown): until `until` (Unix ms), or for good. */
  systemMute(uuid: string, until: number | null = null, note = ''): void {
    this.#state.system.mute(uuid, until, note);
  }

  systemUnmute(uuid: string): void {
    this.#state.system.unmute(uuid);
  }

  /** The System API game-server actions and broadcasts accepted, oldest first. */
  systemActions(): readonly SystemActionRecord[] {
    return this.#state.system.actions;
  }

  /**
   * What the access check (`integration-mod`) answers for a player (steam_id or eos_id) on every server; until set,
   * GSA's answer for an unrestricted server: allowed, no message, no roles. A player not allowed also has their
   * reports refused (`allowed: false` with this message). @throws EmulatorInputError
   */
  setAccess(playerId: string, access: Omit<AccessInput, 'player'>): void {
    applyAccess(this.#state, { player: playerId, ...access });
  }

  /** Replaces parts of a server's report form (title, description, players, types). @throws EmulatorInputError */
  setReportSettings(server: string, settings: Omit<ReportSettingsInput, 'server'>): void {
    applyReportSettings(this.#state, { server, ...settings });
  }

  /** The reports stored, oldest first. */
  get reports(): readonly StoredReport[] {
    return this.#state.features.reports;
  }

  /** Replaces a server's shop catalogue. @throws EmulatorInputError for a bad item, a repeated id or an unknown server. */
  setCatalogue(server: string, items: CatalogueInput['items']): void {
    applyCatalogue(this.#state, { server, items });
  }

  /** Sets a player's credit and/or tokens (defaults 1000 and 100). @throws EmulatorInputError */
  setWallet(playerId: string, money: Omit<WalletInput, 'player'>): void {
    applyWallet(this.#state, { player: playerId, ...money });
  }

  /** A player's credit and tokens now. */
  wallet(playerId: string): WalletRecord {
    return this.#state.shop.wallet(playerId);
  }

  /** Every shop order that arrived (faulted, refused and unanswered ones too), oldest first, with what became of it. */
  orders(): readonly OrderRecord[] {
    return this.#state.shop.orders;
  }

  /** Every token spend that arrived, as `orders`. */
  tokenSpends(): readonly TokenSpendRecord[] {
    return this.#state.shop.tokenSpends;
  }

  /** Replaces what a server's `settings` and/or `button-modal` answer (their identifier aside). @throws EmulatorInputError */
  setUi(server: string, ui: Omit<UiInput, 'server'>): void {
    applyUi(this.#state, { server, ...ui });
  }

  #requireServerId(serverId: number): void {
    if (this.#state.serverById(serverId) === undefined) throw new EmulatorInputError(`serverId: ${serverId} is not the id of a known server`);
  }

  /** Clears mutes, reviews, calls, counters, faults, actions, locks and ineligibility, the System API's mutes,
   * cooldowns, offline marks and actions, and the Mod API v2 features' reports, orders and spends (access, report
   * forms, catalogues, credit, tokens and UI settings back to their defaults); keeps servers, System API players,
   * credentials and the watched window's spec (its count starts over). */
  reset(): void {
    this.#state.reset();
  }

  /** Stops listening and destroys every open socket, idle keep-alive or mid-latency; safe to call twice. */
  close(): Promise<void> {
    this.#closed ??= new Promise<void>((resolve) => {
      for (const timer of this.#timers) clearTimeout(timer);
      this.#timers.clear();
      this.#server.close(() => {
        resolve();
      });
      this.#server.closeAllConnections();
    });
    return this.#closed;
  }
}

/** Wall time that moves with `now`: Date.now() at start plus `now`'s progress since (monotonic, test-controllable). */
function wallClockFollowing(now: () => number): () => number {
  const wallAtStart = Date.now();
  const nowAtStart = now();
  return () => wallAtStart + (now() - nowAtStart);
}
