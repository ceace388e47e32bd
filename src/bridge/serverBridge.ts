// The bridge for one game server: what its adapters call (BridgeSink) and what pushes news back to them.
// It gates chat through the ChatGate (only lines on the channels in mute.gatedChannels: GSA's mute covers global
// and local chat, so a team line is allowed at once, unchecked), admits reviews into the shared durable outbox,
// runs allowed server actions, and routes mute changes and review results to the adapters. It imports no adapter
// (adapters attach themselves through the AdapterPushes interface) and no config file: it takes its own options
// (options.ts).
// Gated lines pass the chat filter first when one is set (moderation.filter, one for the process: useFilter), so a
// filtered line is blocked whatever the player's mute status; a mute the filter made is applied here at once
// (rememberMuteStatus, which the app layer calls on every bridge). A line is checked by the filter once, whether chatNow
// or chat() decides it: a strike is never counted twice.
// A reload changes its options in place (reconfigure, useClient): its mute cache and cooldowns live on.
// Each attached adapter gets its own view of the bridge (attach() returns it), which names the chat source
// `<server>/<adapter id>` on every lookup it causes, so one adapter's flood takes only its own turns in the API budget.
// GSA's Mod API v2 features (access at the door, reports, the shop, tokens, UI settings) live in serverModApi.ts:
// each sink carries them as `modApi`, and every join an adapter sees passes its door.
// Which id GSA is asked by is chosen here and nowhere else (#lookup, by servers[].lookupIds: lookupIds.ts): the
// client and its dialect send the one id they are given.

import { playerLogId } from '../ids/playerIds.js';
import type { Logger } from 'pino';
import type { GsaClient, MuteLookupKind, PlayerIds } from '../gsa/index.js';
import { DEFAULT_GATED_CHANNELS } from './chatChannels.js';
import { ChatGate } from './chatGate.js';
import { ChatLineEvents } from './chatLineEvents.js';
import { MojangMuteLookup, type MojangMuteCheck } from './mojangMuteLookup.js';
import type { BridgeEvents } from './events.js';
import { VerdictEvents } from './verdictEvents.js';
import { AttachedAdapters, canTellPlayers, shownToPlayers, type PlayerTeller } from './attachedAdapters.js';
import type { LineFilter } from './lineFilter.js';
import { DEFAULT_LOOKUP_IDS, askByEach, askedFields, describeAsked, idsToAsk, type AskedAnswer, type AskedId } from './lookupIds.js';
import { MuteCache, type MuteEntry } from './muteCache.js';
import type { ModApiOptions, MuteOptions, ReviewOptions, ServerOptions } from './options.js';
import type { MoneyLedger } from './moneyLedger.js';
import type { ReportStore } from './reportStore.js';
import { ServerModApi } from './serverModApi.js';
import { BadInputRefusal, UnavailableRefusal } from './errors.js';
import {
  type Adapter,
  type BridgeSink,
  type ChatVerdict,
  type ModApiSink,
  type MuteVerdict,
  type PlayerIdentity,
  type PlayerJoinOptions,
  type ReviewOrigin,
  type ReportOutcome,
  type ReviewOutcome,
  type ReviewRequest,
  type ServerActionName,
  type ServerActionOutcome,
  type UnattributedReason,
} from './port.js';
import { ReviewPolicy } from './reviewPolicy.js';
import { ReviewNotStoredError, type ReviewStore } from './reviewStore.js';
import { ServerActions, type SystemApiAccess } from './serverActions.js';
import { systemClock, type Clock } from '../time/clock.js';

/** What a reload may change in place. */
export interface ServerBridgeSettings {
  readonly server: ServerOptions;
  readonly mute: MuteOptions;
  readonly reviews: ReviewOptions;
  /** How mods' money requests are paced. @default MOD_API_DEFAULTS */
  readonly modApi?: ModApiOptions | undefined;
}

export interface ServerBridgeOptions extends ServerBridgeSettings {
  readonly client: GsaClient;
  readonly outbox: ReviewStore;
  /** The bridge logs with a `server` field added. */
  readonly logger: Logger;
  /** Most players the mute cache remembers. @default 200000 */
  readonly maxCachedPlayers?: number | undefined;
  /** The review cooldown's clock. @default the system clock (the journal's times are wall-clock ms) */
  readonly clock?: Clock | undefined;
  /** Where verdicts, cache hits and misses and queued reviews are published (metrics, the host's log). Optional. */
  readonly events?: BridgeEvents | undefined;
  /**
   * The mute lookup of a player known only by a Mojang id (Minecraft), which GSA's mod API cannot take: the app
   * answers it through the System API. Absent, or answering undefined (no System API key right now, a reload may
   * bring one): such a lookup rejects (MojangLookupMissingError), the gate's policy decides with reason "unknown",
   * and the host is told at most once a minute per player.
   * @default none
   */
  readonly mojangLookup?: MojangMuteCheck | undefined;
  /**
   * GSA's System API, read at each server action (a reload may bring or drop a key): with one, a mod's actions other
   * than wipe go through it; without, through the seed's webhooks. @default none
   */
  readonly systemApi?: SystemApiAccess | undefined;
  /**
   * The chat filter (moderation.filter), shared by every bridge of the process: gated lines are checked against it
   * before the mute gate. A reload swaps it with useFilter(). @default none
   */
  readonly filter?: LineFilter | undefined;
  /** Where mods' reports wait for GSA (durably); absent: reports are refused as unavailable. @default none */
  readonly reports?: ReportStore | undefined;
  /** Where shop orders and token spends are recorded before they are sent; absent: they are refused. @default none */
  readonly money?: MoneyLedger | undefined;
}

export type { PlayerTeller } from './attachedAdapters.js';

/** The verdict for a line on a channel that is not gated: made once, so the hot path allocates nothing. */
const NOT_GATED: ChatVerdict = Object.freeze({ allow: true, reason: 'not_gated' });
const NOT_GATED_ANSWER: Promise<ChatVerdict> = Promise.resolve(NOT_GATED);

export class ServerBridge implements BridgeSink {
  readonly serverName: string;
  readonly #cache: MuteCache;
  #gate: ChatGate;
  /** mute.gatedChannels: a line on another channel never reaches the gate. */
  #gatedChannels: ReadonlySet<string>;
  readonly #policy: ReviewPolicy;
  readonly #actions: ServerActions;
  readonly #outbox: ReviewStore;
  readonly #logger: Logger;
  #settings: ServerBridgeSettings;
  #client: GsaClient;
  readonly #adapters: AttachedAdapters;
  readonly #events: BridgeEvents | undefined;
  /** Publishes verdicts and cache hits from events made once (verdictEvents.ts). */
  readonly #verdicts: VerdictEvents;
  /** The chatLine events of lines reported to the bridge directly (no adapter's sink). */
  readonly #chatLines: ChatLineEvents;
  #closed = false;
  readonly #mojangLookup: MojangMuteLookup;
  #filter: LineFilter | undefined;
  /** GSA's Mod API v2 features: access at the door, and the requests mods make (serverModApi.ts). */
  readonly #modApi: ServerModApi;
  /** The Mod API requests made on the bridge directly (no adapter's sink). */
  readonly modApi: ModApiSink;

  constructor(options: ServerBridgeOptions) {
    const { server } = options;
    this.serverName = server.name;
    this.#settings = { server, mute: options.mute, reviews: options.reviews };
    this.#client = options.client;
    this.#logger = options.logger.child({ server: server.name });
    this.#outbox = options.outbox;
    this.#adapters = new AttachedAdapters(this.#logger);
    this.#cache = new MuteCache({
      mutedTtlMs: options.mute.mutedTtlMs,
      unmutedTtlMs: options.mute.unmutedTtlMs,
      maxEntries: options.maxCachedPlayers,
      lookup: (player, kind, source) => this.#lookup(player, kind, source),
      onChange: (player, entry) => {
        this.#muteChanged(player, entry);
      },
    });
    this.#gate = new ChatGate(this.#cache, options.mute);
    this.#gatedChannels = new Set(options.mute.gatedChannels ?? DEFAULT_GATED_CHANNELS);
    const clock = options.clock ?? systemClock;
    this.#mojangLookup = new MojangMuteLookup(options.mojangLookup, this.#logger, clock);
    this.#policy = new ReviewPolicy(options.reviews, () => clock.now());
    // The cooldown survives restarts and reloads: the journal still knows who reviewed recently.
    for (const accepted of options.outbox.accepted) {
      if (accepted.server === server.name) this.#policy.restore(accepted.player, accepted.at);
    }
    this.#actions = new ServerActions(server, this.#client, options.systemApi);
    this.#events = options.events;
    this.#filter = options.filter;
    this.#verdicts = new VerdictEvents(server.name, (player) => this.#cache.mutedBy(player));
    this.#chatLines = new ChatLineEvents(server.name, undefined);
    this.#modApi = new ServerModApi({
      server: () => this.#settings.server,
      settings: () => this.#settings.modApi,
      client: () => this.#client,
      reports: options.reports,
      money: options.money,
      closed: () => this.#closed,
      logger: this.#logger,
      events: this.#events,
      clock,
    });
    this.modApi = this.#modApi.requests.sinkFor(server.name);
  }

  /**
   * One mute lookup, and the one place the id GSA is asked by is chosen: through the mod API client by the ids
   * servers[].lookupIds picks (idsToAsk; read at each lookup, so a reload applies from the next one), each call
   * taking its own place in the API budget as a lookup of `kind` from `source`; else through mojangLookup for a
   * Minecraft player (the mod API never sees a Mojang id).
   */
  #lookup(player: PlayerIds, kind: MuteLookupKind, source: string | undefined): Promise<AskedAnswer> {
    const { steamId, eosId, mojangId } = player;
    if (steamId !== undefined || eosId !== undefined || mojangId === undefined) {
      // Read at each lookup: a reload with a new API key swaps the client under the cache.
      const client = this.#client;
      return askByEach(idsToAsk(player, this.#lookupIds()), (asked) => client.checkMuted(this.serverName, asked, { kind, source }));
    }
    return this.#mojangLookup.ask(mojangId, kind, source);
  }

  #lookupIds(): NonNullable<ServerOptions['lookupIds']> {
    return this.#settings.server.lookupIds ?? DEFAULT_LOOKUP_IDS;
  }

  /** The ids a lookup of this player asks GSA by now (for the lines that name them). */
  #askedIds(player: PlayerIdentity): AskedId[] {
    if (player.steamId === undefined && player.eosId === undefined && player.mojangId !== undefined) return [{ kind: 'mojang', id: player.mojangId }];
    return idsToAsk(player, this.#lookupIds());
  }

  /** Players in the mute cache (for metrics and the memory benchmark). */
  get cachedPlayers(): number {
    return this.#cache.size;
  }

  /** The settings in force (a reload compares against them). */
  get settings(): ServerBridgeSettings {
    return this.#settings;
  }

  /** The adapters attached now, in attach order. */
  get adapters(): readonly Adapter[] {
    return this.#adapters.list;
  }

  /**
   * An adapter of this server that wants pushes (mute changes, review results). Returns the sink the adapter is to
   * start with: this bridge, naming the adapter as the source of the mute lookups its lines cause (the bridge used
   * directly names the server alone).
   */
  attach(adapter: Adapter): BridgeSink {
    this.#adapters.attach(adapter);
    return this.#sinkFor(`${this.serverName}/${adapter.id}`, adapter);
  }

  /** The adapter was stopped by a reload: it gets no more pushes. */
  detach(adapter: Adapter): void {
    this.#adapters.detach(adapter);
  }

  /**
   * A reload changed this server's settings: allowed actions and GAMESERVER_ID, the gate's policy, timeout and
   * gated channels, the cache's TTLs (for answers stored from now on) and the review limits. The cached players
   * and the cooldowns are kept.
   */
  reconfigure(settings: ServerBridgeSettings): void {
    this.#settings = settings;
    this.#actions.reconfigure(settings.server, this.#client);
    this.#cache.setTtls(settings.mute);
    this.#gate = new ChatGate(this.#cache, settings.mute);
    this.#gatedChannels = new Set(settings.mute.gatedChannels ?? DEFAULT_GATED_CHANNELS);
    this.#policy.setOptions(settings.reviews);
  }

  /**
   * A reload brought a new service client. `keyChanged`: it speaks for other API credentials or another service,
   * so what the old one said about players is forgotten.
   */
  useClient(client: GsaClient, keyChanged: boolean): void {
    this.#client = client;
    this.#actions.reconfigure(this.#settings.server, client);
    if (keyChanged) {
      this.#cache.clear();
      this.#modApi.clear();
    }
  }

  /** A reload turned the chat filter on, off or swapped it (its strikes live in the filter, not here). */
  useFilter(filter: LineFilter | undefined): void {
    this.#filter = filter;
  }

  /**
   * A mute the sidecar made itself (the chat filter's, once GSA accepted it), or a mute or unmute the host made
   * (`gsa-bridge mute`/`unmute`): this bridge decides the player's next line by it at once, without asking GSA, until
   * the entry's TTL runs out and GSA is asked again. The app layer calls it on every bridge of the process. A blocked
   * line shows mute.defaultAlert.
   */
  rememberMuteStatus(player: PlayerIdentity, muted: boolean): void {
    this.#cache.remember(player, { muted, alert: null });
  }

  chat(player: PlayerIdentity, channel: string, text: string): Promise<ChatVerdict> {
    return this.#chat(player, channel, text, this.serverName);
  }

  chatNow(player: PlayerIdentity, channel: string, text: string): ChatVerdict | undefined {
    return this.#chatNow(player, channel, text, undefined);
  }

  #chatNow(player: PlayerIdentity, channel: string, text: string, adapter: Adapter | undefined): ChatVerdict | undefined {
    if (!this.#gatedChannels.has(channel)) {
      this.#verdicts.notGated(this.#events, player, adapter);
      return NOT_GATED;
    }
    const filter = this.#filter;
    // Before the mute gate: a filtered line is blocked (and counts a strike) whatever the player's mute status.
    if (filter !== undefined && !filter.dryRun) {
      const filtered = this.#filtered(filter, player, text, adapter);
      if (filtered !== undefined) return filtered;
    }
    const verdict = this.#gate.decideNow(player);
    // A miss is not counted here: the adapter then calls chat(), which counts it (and checks the filter's dry run).
    if (verdict === undefined) return undefined;
    // A dry run lets every line through, so its check waits until the line is decided here: on a miss chat() takes
    // it, and a line counts one strike, never one here and one there.
    if (filter?.dryRun === true) this.#filtered(filter, player, text, adapter);
    if (this.#events?.chatHeard === true) this.#verdicts.publish(this.#events, player, verdict, 'cache', 0, adapter);
    return verdict;
  }

  checkMute(player: PlayerIdentity): Promise<MuteVerdict> {
    return this.#checkMute(player, this.serverName);
  }

  chatLineRead(unattributed?: UnattributedReason): void {
    this.#chatLineRead(this.#chatLines, unattributed);
  }

  /** One chat-like line read, published when someone listens: made-once events, so a line allocates nothing. */
  #chatLineRead(lines: ChatLineEvents, unattributed: UnattributedReason | undefined): void {
    const events = this.#events;
    if (events?.listens('chatLine') === true) events.emit('chatLine', lines.of(unattributed));
  }

  #chat(player: PlayerIdentity, channel: string, text: string, source: string, adapter?: Adapter): Promise<ChatVerdict> {
    // Before the cache: a line that is not gated costs no cache read, no lookup and no budget.
    if (!this.#gatedChannels.has(channel)) {
      this.#verdicts.notGated(this.#events, player, adapter);
      return NOT_GATED_ANSWER;
    }
    if (this.#filter !== undefined) {
      const filtered = this.#filtered(this.#filter, player, text, adapter);
      if (filtered !== undefined) return Promise.resolve(filtered);
    }
    // One check when nobody listens: the hot path measures nothing and builds no event.
    const events = this.#events;
    if (events?.chatHeard === true) return this.#observedChat(events, player, source, adapter);
    return this.#gate.decide(player, source);
  }

  #checkMute(player: PlayerIdentity, source: string): Promise<MuteVerdict> {
    const status = this.#gate.status(player, source);
    const events = this.#events;
    if (events?.listens('muteCache') !== true) return status;
    return status.then((verdict) => {
      events.emit('muteCache', verdict.source === 'cache' ? this.#verdicts.cacheHit : this.#verdicts.cacheMiss);
      return verdict;
    });
  }

  async submitReview(review: ReviewRequest): Promise<void> {
    if (this.#closed) throw new UnavailableRefusal('the sidecar is shutting down; send the review again after it restarts');
    // GSA's review endpoint takes a Steam64 or an EOS id: a Minecraft player's review could never be delivered.
    if (review.player.steamId === undefined && review.player.eosId === undefined) {
      throw new BadInputRefusal('reviews from this game cannot be sent to GameServerApp yet', 'player');
    }
    // Reserves the cooldown synchronously: a second review of the same player arriving while this one is being
    // fsynced is refused, not admitted too.
    const admission = this.#policy.admit(review.player, review.stars, review.comment);
    let queued: { readonly id: string };
    try {
      queued = await this.#outbox.enqueue({ server: this.serverName, player: review.player, stars: review.stars, comment: admission.comment, origin: review.origin });
    } catch (error) {
      // Not stored, so the player may send it again at once.
      admission.release();
      if (!(error instanceof ReviewNotStoredError)) throw error;
      // The host's problem (disk full, shutting down), not the mod's: say it was not stored, so it is sent again.
      this.#logger.error({ err: error }, 'a review could not be stored');
      throw new UnavailableRefusal('the review could not be stored right now; send it again later');
    }
    this.#logger.info({ review: queued.id, player: playerLogId(review.player), stars: review.stars, adapter: review.origin.adapter }, 'review queued');
    if (this.#events !== undefined) {
      this.#events.emit('review', { server: this.serverName, review: queued.id, result: 'queued' });
      this.#events.emit('outbox', { pending: this.#outbox.pending });
    }
  }

  playerJoined(player: PlayerIdentity, options?: PlayerJoinOptions): void {
    this.#playerJoined(player, options, this.serverName, undefined);
  }

  /** Warms the mute cache and, with access.enforce, checks the player at the door of the adapter that saw the join. */
  #playerJoined(player: PlayerIdentity, options: PlayerJoinOptions | undefined, source: string, adapter: Adapter | undefined): void {
    const lowPriority = options?.lowPriority === true;
    this.#cache.refresh(player, { lowPriority, source });
    this.#modApi.door.joined(player, adapter, lowPriority, source);
  }

  playerLeft(player: PlayerIdentity): void {
    this.#logger.debug({ player: playerLogId(player) }, 'player left');
  }

  serverAction(action: ServerActionName, countdownMinutes?: number, message?: string): Promise<ServerActionOutcome> {
    if (this.#closed) return Promise.reject(new UnavailableRefusal('the sidecar is shutting down'));
    this.#logger.info({ action, countdownMinutes }, 'server action requested by a mod');
    return this.#actions.run(action, countdownMinutes, message);
  }

  /** Whether an adapter can send a player a private message (the "tell this player" capability). */
  canTellPlayers(adapter: Adapter): adapter is PlayerTeller {
    return canTellPlayers(adapter);
  }

  /**
   * Tells one player something privately, through the named adapter or else the first that can. False when no
   * adapter of this server can (a websocket mod shows verdicts itself); never rejects.
   */
  tellPlayer(player: PlayerIdentity, text: string, adapterId?: string): Promise<boolean> {
    return this.#adapters.tell(player, text, adapterId);
  }

  /** The outbox learned a review's fate: to the adapter that received it (AttachedAdapters.forResult). */
  deliverReviewResult(origin: ReviewOrigin, outcome: ReviewOutcome, player: PlayerIdentity): void {
    this.#adapters.forResult(origin, 'review')?.reviewResult(origin, shownToPlayers(outcome), player);
  }

  /** The report outbox learned a report's fate: routed as a review's is. */
  deliverReportResult(origin: ReviewOrigin, outcome: ReportOutcome, player: PlayerIdentity): void {
    const adapter = this.#adapters.forResult(origin, 'report');
    if (adapter !== undefined && adapter.reportResult === undefined) this.#logger.warn({ adapter: adapter.id }, 'report result: the adapter takes no reports');
    adapter?.reportResult?.(origin, shownToPlayers(outcome), player);
  }

  /** Refuses new reviews and actions (chat keeps being answered until the adapters stop). */
  close(): void {
    this.#closed = true;
  }

  /**
   * This bridge as one source's sink, made once per adapter: every method passes straight through, with the source
   * named for those that may ask the service. A cached chat line costs one more call, no allocation.
   */
  #sinkFor(source: string, adapter: Adapter): BridgeSink {
    const chatLines = new ChatLineEvents(this.serverName, adapter.id);
    return {
      serverName: this.serverName,
      chat: (player, channel, text) => this.#chat(player, channel, text, source, adapter),
      chatNow: (player, channel, text) => this.#chatNow(player, channel, text, adapter),
      checkMute: (player) => this.#checkMute(player, source),
      submitReview: (review) => this.submitReview(review),
      playerJoined: (player, options) => {
        this.#playerJoined(player, options, source, adapter);
      },
      playerLeft: (player) => {
        this.playerLeft(player);
      },
      serverAction: (action, countdownMinutes, message) => this.serverAction(action, countdownMinutes, message),
      chatLineRead: (unattributed) => {
        this.#chatLineRead(chatLines, unattributed);
      },
      modApi: this.#modApi.requests.sinkFor(source),
    };
  }

  /** chat() while someone listens: the same decision, timed and published with where it came from. */
  async #observedChat(events: BridgeEvents, player: PlayerIdentity, source: string, adapter: Adapter | undefined): Promise<ChatVerdict> {
    const known = this.#gate.decideNow(player);
    if (known !== undefined) {
      this.#verdicts.publish(events, player, known, 'cache', 0, adapter);
      return known;
    }
    const started = performance.now();
    const verdict = await this.#gate.decide(player, source);
    this.#verdicts.publish(events, player, verdict, verdict.reason === 'unknown' ? 'policy' : 'service', performance.now() - started, adapter);
    return verdict;
  }

  /** The chat filter's verdict for a gated line (published when someone listens), or undefined when it lets it through. */
  #filtered(filter: LineFilter, player: PlayerIdentity, text: string, adapter: Adapter | undefined): ChatVerdict | undefined {
    // A mod shows the verdict's alert itself; an RCON adapter (the line already shown) tells it where it can.
    const alertDelivered = adapter === undefined ? undefined : adapter.chatAlreadyShown !== true || this.canTellPlayers(adapter);
    const verdict = filter.check(player, text, this, adapter?.id, alertDelivered);
    if (verdict !== undefined && this.#events?.chatHeard === true) this.#verdicts.publish(this.#events, player, verdict, 'filter', 0, adapter);
    return verdict;
  }

  #muteChanged(player: PlayerIdentity, entry: MuteEntry): void {
    // Names what GSA was asked by: the id that said muted, or (an unmute) the ids the rule asks by now; nothing for a
    // mute the sidecar made itself (rememberMuteStatus), which asked nobody.
    const asked = entry.mutedBy !== undefined ? [entry.mutedBy] : entry.muted ? [] : this.#askedIds(player);
    const how = asked.length === 0 ? 'a mute this sidecar made, GSA not asked' : `GSA asked by ${describeAsked(asked)}`;
    this.#logger.info({ player: playerLogId(player), asked: askedFields(asked), muted: entry.muted }, `mute status changed (${how})`);
    const alert = entry.muted ? (entry.alert ?? this.#settings.mute.defaultAlert) : undefined;
    for (const adapter of this.#adapters.list) adapter.muteChanged(player, entry.muted, alert);
  }
}
