// The RCON adapter: gates a game server's chat with no mod installed. One logged-in RCON session per game server
// (rconConnection.ts); the game profile (profiles/) says how its game lists players, where chat comes from and
// which builder makes each command; this file is the same for every game (composition, never a subclass).
// It polls the player list (joins warm the mute cache at the lowest budget priority; leaves are reported), reads
// chat (polled or pushed, as the profile says), asks the bridge about each player's line, and acts on a muted
// speaker through the profile's commands with a per-player cooldown; a `!review` line becomes a review.
// It must never: build a command by hand (commandText.ts does), block start() on the game (a game server that is
// down must not stop the sidecar: readiness shows it), gate the server's own lines, act on a verdict the service
// did not give (the policy's "unknown"), or throw out of a push (muteChanged, reviewResult).

import type { Logger } from 'pino';
import {
  BridgeRefusal,
  type Adapter,
  type BridgeSink,
  type ChatVerdict,
  type PlayerIdentity,
  type ReviewOrigin,
  type ReviewOutcome,
} from '../../src/bridge/port.js';
import type { ChatReviewCommand } from '../registryTypes.js';
import { parseReviewCommand } from './chatCommand.js';
import { checkPlayerId, commandPlayerId, compileNotifyTemplate, type NotifyCommand } from './commandText.js';
import { isRconError } from './errors.js';
import type { RconOptions } from './options.js';
import { diffPlayerLists, type ListedPlayer } from './profiles/parsedLines.js';
import type { RconChatLine, RconProfile } from './profiles/profile.js';
import { openRconConnection, type RconConnection } from './rconConnection.js';

export interface RconAdapterOptions {
  /** The adapter's stable id: logs, readiness, the review journal's origin. */
  readonly id: string;
  readonly options: RconOptions;
  readonly profile: RconProfile;
  /** Carries `server` and `adapter` fields. */
  readonly logger: Logger;
  /** The review chat command, read at each line (a reload may change it); absent: chat reviews are off. */
  readonly reviewCommand?: (() => ChatReviewCommand) | undefined;
  /** The alert cooldown's clock. @default Date.now */
  readonly now?: (() => number) | undefined;
}

/** What the player is told after typing the review command. Short: a chat box shows a line or two. */
const REVIEW_QUEUED = 'Thanks! Your review was received and will be sent to GameServerApp.';
const REVIEW_DELIVERED = 'Your review was delivered. Thank you!';

function refusalText(error: BridgeRefusal): string {
  switch (error.code) {
    case 'bad_input':
      return `Review not taken: ${error.message}.`;
    case 'cooldown':
      return `Review not taken: you reviewed recently (${error.message.replace(/^this player reviewed recently; /, '')}).`;
    case 'unavailable':
      return 'Review not taken right now; please try again later.';
    default:
      return 'Review not taken.';
  }
}

/** One muted player's answers so far: when they were last answered, how many alerts since the last kick. */
interface OffenderState {
  lastActionAt: number;
  alerts: number;
}

/** The shortest gap between two reads of the player list made for a speaker it did not show yet. */
const EXTRA_LIST_READ_MS = 1_000;

/** Most offenders remembered; past it the stalest go (a cooldown long over carries nothing). */
const MAX_OFFENDERS = 10_000;

export class RconAdapter implements Adapter {
  readonly type = 'rcon';
  readonly id: string;
  /** Every profile reads chat after the game broadcast it (ARK's GetChat, Squad's and Rust's pushes): a muted line was seen. */
  readonly chatAlreadyShown = true;
  /**
   * The "tell this player" capability: a private message (ark ServerChatTo, squad AdminWarn, rust the host's
   * notifyCommand). Absent on rust without notifyCommand: Rust has no private message of its own.
   */
  readonly tellPlayer?: (player: PlayerIdentity, text: string) => Promise<void>;

  readonly #options: RconOptions;
  readonly #profile: RconProfile;
  readonly #logger: Logger;
  readonly #connection: RconConnection;
  readonly #reviewCommand: (() => ChatReviewCommand) | undefined;
  readonly #now: () => number;
  readonly #notify: NotifyCommand | undefined;
  readonly #enforceMute: boolean;
  #sink: BridgeSink | undefined;
  #stopped = false;
  #stopping: Promise<void> | undefined;
  readonly #timers = new Set<NodeJS.Timeout>();
  /** The last player list the game gave (`players` or `none`); undefined until the first one. */
  #players: readonly ListedPlayer[] | undefined;
  #playersPoll: Promise<void> | undefined;
  /** When the player list was last asked for (performance.now), for the extra reads of unknown speakers. */
  #listReadAt = Number.NEGATIVE_INFINITY;
  #chatPollRunning = false;
  readonly #offenders = new Map<string, OffenderState>();
  /** Steam64 ids this adapter muted with the game's own mute, and when: not muted again within the cooldown. */
  readonly #nativeMutedAt = new Map<string, number>();
  /** Steam64 ids whose mute ended while they were away: unmuted in the game when they are listed again. */
  readonly #pendingUnmutes = new Set<string>();

  constructor(config: RconAdapterOptions) {
    this.id = config.id;
    this.#options = config.options;
    this.#profile = config.profile;
    this.#logger = config.logger;
    this.#reviewCommand = config.reviewCommand;
    this.#now = config.now ?? (() => Date.now());
    this.#enforceMute = config.options.enforceMute !== false && config.profile.commands.mute !== undefined;
    // Validated by the schema already; compiled once here.
    this.#notify = config.options.notifyCommand === undefined ? undefined : compileNotifyTemplate(config.options.notifyCommand);
    this.#connection = openRconConnection({
      options: config.options,
      transport: config.profile.transport,
      label: config.id,
      logger: config.logger,
      commandTimeoutMs: config.options.commandTimeoutMs,
      handlers: {
        onReady: () => {
          // A fresh session: read who is online at once rather than a poll period later.
          void this.#pollPlayers();
        },
        onPushedText: (text) => {
          if (this.#profile.chat.kind === 'pushed') this.#onChatLine(this.#profile.chat.read(text, (id) => this.#nameOf(id)));
        },
        onRustChat: (chat) => {
          if (this.#profile.chat.kind === 'webrcon') this.#onChatLine(this.#profile.chat.read(chat));
        },
      },
    });
    if (this.#profile.commands.tell !== undefined || this.#notify !== undefined) {
      this.tellPlayer = (player, text) => this.#tell(player, text);
    }
  }

  /** Logged in to the game right now. */
  get ready(): boolean {
    return !this.#stopped && this.#connection.ready;
  }

  /** Connects in the background and starts the polls; resolves at once, whether the game answers or not. */
  start(sink: BridgeSink): Promise<void> {
    if (this.#stopped) return Promise.reject(new Error(`rcon adapter ${this.id} was stopped; build a new one`));
    this.#sink = sink;
    this.#connection.start();
    this.#every(this.#options.pollPlayersMs, () => this.#pollPlayers());
    if (this.#profile.chat.kind === 'poll') this.#every(this.#options.pollChatMs, () => this.#pollChat());
    const tell = this.tellPlayer === undefined ? 'no private messages (set notifyCommand)' : 'private messages';
    this.#logger.info(`rcon adapter ${this.id}: profile ${this.#profile.name} on ${this.#options.host}:${this.#options.port}, ${tell}`);
    return Promise.resolve();
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#stopped = true;
      for (const timer of this.#timers) clearTimeout(timer);
      this.#timers.clear();
      await this.#connection.close();
    })();
    return this.#stopping;
  }

  muteChanged(player: PlayerIdentity, muted: boolean, _alert: string | undefined): void {
    try {
      if (!muted) this.#offenders.delete(this.#keyOf(player));
      if (!this.#enforceMute || player.steamId === undefined || checkPlayerId(player.steamId, ['steam']) === undefined) return;
      // Only players who are (or were just) on this server: the game mutes online players only.
      if (muted) {
        if (this.#isListed(player)) this.#nativeMute(player.steamId);
        return;
      }
      this.#nativeMutedAt.delete(player.steamId);
      const unmute = this.#profile.commands.unmute;
      if (unmute === undefined) return;
      // The game unmutes online players only: one who is away is unmuted when the player list sees them again.
      if (this.#isListed(player)) void this.#send(unmute(player.steamId), 'unmute');
      else this.#pendingUnmutes.add(player.steamId);
    } catch (error) {
      this.#logger.error({ err: error }, 'could not act on a mute change');
    }
  }

  reviewResult(_origin: ReviewOrigin, outcome: ReviewOutcome, player: PlayerIdentity): void {
    const text = outcome.ok ? REVIEW_DELIVERED : `Your review was not accepted: ${outcome.error.message}`;
    void this.#tellQuietly(player, text);
  }

  // ---- Polls ------------------------------------------------------------------------------------------------------

  /** Runs `task` every `intervalMs` after the previous run ended (never two at once), until stop(). */
  #every(intervalMs: number, task: () => Promise<void>): void {
    const tick = (): void => {
      if (this.#stopped) return;
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        if (this.#stopped) return;
        // A poll while logged out would only fail: the session reconnects by itself, the next tick tries again.
        const run = this.#connection.ready ? task() : Promise.resolve();
        run
          .catch((error: unknown) => {
            this.#logger.error({ err: error }, 'an RCON poll failed');
          })
          .finally(tick);
      }, intervalMs);
      timer.unref();
      this.#timers.add(timer);
    };
    tick();
  }

  /** Reads the player list and reports joins and leaves; concurrent callers share one read. */
  #pollPlayers(): Promise<void> {
    this.#playersPoll ??= this.#readPlayers().finally(() => {
      this.#playersPoll = undefined;
    });
    return this.#playersPoll;
  }

  async #readPlayers(): Promise<void> {
    this.#listReadAt = performance.now();
    let answer: string;
    try {
      answer = await this.#connection.command(this.#profile.players.command);
    } catch (error) {
      this.#logCommandFailure(error, this.#profile.players.command);
      return;
    }
    if (this.#stopped) return;
    const list = this.#profile.players.read(answer);
    for (const odd of list.unparsed.slice(0, 3)) this.#logger.debug({ reason: odd.reason }, 'player list line not understood');
    // Only a recognised list says who is online: an empty or foreign answer must not make everyone leave.
    if (list.status !== 'players' && list.status !== 'none') return;
    const { joined, left } = diffPlayerLists(this.#players ?? [], list.players);
    this.#players = list.players;
    const sink = this.#sink;
    if (sink === undefined) return;
    for (const listed of left) {
      const player = identityOf(listed);
      this.#offenders.delete(this.#keyOf(player));
      if (listed.steamId !== undefined) this.#nativeMutedAt.delete(listed.steamId);
      sink.playerLeft(player);
    }
    for (const listed of joined) this.#joined(sink, identityOf(listed));
    // The game drops a muted player's chat, so no line of theirs ever makes the cache look again: ask about those
    // this adapter muted. Free while the answer is fresh; a stale one is refreshed in the background (the refresh
    // class), and a changed answer comes back as muteChanged (→ unmute).
    for (const listed of list.players) {
      if (listed.steamId !== undefined && this.#nativeMutedAt.has(listed.steamId)) void sink.checkMute(identityOf(listed));
    }
  }

  #joined(sink: BridgeSink, player: PlayerIdentity): void {
    // A whole server of joins arrives with the first list: warm behind every chat line's lookup.
    sink.playerJoined(player, { lowPriority: true });
    if (!this.#enforceMute || player.steamId === undefined) return;
    const steamId = player.steamId;
    const unmute = this.#profile.commands.unmute;
    if (this.#pendingUnmutes.delete(steamId) && unmute !== undefined) void this.#send(unmute(steamId), 'unmute');
    // Joins the warm-up lookup in flight (no second request); mutes before they speak when the service answers in time.
    void sink.checkMute(player).then((status) => {
      if (status.muted && status.source !== 'policy' && !this.#stopped) this.#nativeMute(steamId);
    });
  }

  async #pollChat(): Promise<void> {
    const source = this.#profile.chat;
    if (source.kind !== 'poll' || this.#chatPollRunning) return;
    this.#chatPollRunning = true;
    try {
      let answer: string;
      try {
        answer = await this.#connection.command(source.command);
      } catch (error) {
        this.#logCommandFailure(error, source.command);
        return;
      }
      const lines = source.read(answer, (this.#players ?? []).map((player) => player.name));
      // In order: a player's two lines in one poll are judged in the order they were said.
      for (const line of lines) await this.#handleChatLine(line);
    } finally {
      this.#chatPollRunning = false;
    }
  }

  // ---- Chat -------------------------------------------------------------------------------------------------------

  #onChatLine(line: RconChatLine): void {
    this.#handleChatLine(line).catch((error: unknown) => {
      this.#logger.error({ err: error }, 'a chat line could not be handled');
    });
  }

  async #handleChatLine(line: RconChatLine): Promise<void> {
    const sink = this.#sink;
    if (sink === undefined || this.#stopped) return;
    if (line.kind === 'unparsed') {
      this.#logger.debug({ reason: line.reason }, 'chat line not understood');
      return;
    }
    if (line.kind !== 'player') return; // The server's own lines and other notices are never gated.
    const player = await this.#speaker(line);
    if (player === undefined) return;

    const reviewCommand = this.#reviewCommand?.();
    if (reviewCommand !== undefined) {
      const review = parseReviewCommand(line.text, reviewCommand);
      // A review is not chat: it goes through the review policy, not the mute gate (as with the mod's review.submit).
      if (review.kind === 'refused') {
        await this.#tellQuietly(player, review.message);
        return;
      }
      if (review.kind === 'review') {
        await this.#submitReview(sink, player, review.stars, review.comment);
        return;
      }
    }

    const verdict: ChatVerdict = sink.chatNow?.(player, line.channel, line.text) ?? (await sink.chat(player, line.channel, line.text));
    // Only the service's own "muted": the policy's guess ("unknown") is not a reason to warn or mute anyone, and a
    // line the bridge did not gate ("not_gated": team chat, by default) is allowed like any other.
    if (verdict.allow || verdict.reason !== 'muted' || this.#isStopped()) return;
    await this.#actOnMutedSpeaker(player, verdict.alert);
  }

  /**
   * The speaker with their ids: as the line says (squad, rust), else by name through the player list (ark). A name
   * not listed yet gets one fresh read of the list; a name listed twice cannot be told apart and is skipped.
   */
  async #speaker(line: Extract<RconChatLine, { kind: 'player' }>): Promise<PlayerIdentity | undefined> {
    if (line.steamId !== undefined || line.eosId !== undefined) return { steamId: line.steamId, eosId: line.eosId, name: line.name };
    let matches = this.#listedByName(line.name);
    if (matches.length === 0) {
      // At most one extra read a second: a name the list never shows (a renamed player, an odd print) must not
      // turn every line of theirs into a ListPlayers against the game's rate cap. A line waits for its turn.
      const waitMs = this.#listReadAt + EXTRA_LIST_READ_MS - performance.now();
      if (waitMs > 0) await this.#sleep(waitMs);
      matches = this.#listedByName(line.name);
      // No second look at the clock: a timer may fire a fraction of a millisecond "early" by performance.now().
      if (matches.length === 0 && !this.#isStopped()) {
        await this.#pollPlayers();
        matches = this.#listedByName(line.name);
      }
    }
    const [only, ...others] = matches;
    if (only === undefined || others.length > 0) {
      this.#logger.debug({ matches: matches.length }, 'a chat line whose speaker cannot be told by the player list; not gated');
      return undefined;
    }
    return identityOf(only);
  }

  #listedByName(name: string): ListedPlayer[] {
    return (this.#players ?? []).filter((player) => player.name === name);
  }

  #nameOf(id: string): string | undefined {
    const lower = id.toLowerCase();
    return this.#players?.find((player) => player.steamId === id || player.eosId?.toLowerCase() === lower)?.name;
  }

  #isListed(player: PlayerIdentity): boolean {
    const eosId = player.eosId?.toLowerCase();
    return (this.#players ?? []).some((listed) => (player.steamId !== undefined && listed.steamId === player.steamId) || (eosId !== undefined && listed.eosId?.toLowerCase() === eosId));
  }

  /**
   * The profile's answer to a muted speaker, at most once per player per alertCooldownMs: rust's own mute (when
   * enforced), the alert as a private message, and after `kickAfterAlerts` alerts the kick. The cooldown is taken
   * before any await, so two lines read together get one answer.
   */
  async #actOnMutedSpeaker(player: PlayerIdentity, alert: string): Promise<void> {
    const key = this.#keyOf(player);
    const now = this.#now();
    const state = this.#offenders.get(key);
    if (state !== undefined && now - state.lastActionAt < this.#options.alertCooldownMs) return;
    const offender = state ?? { lastActionAt: now, alerts: 0 };
    offender.lastActionAt = now;
    offender.alerts += 1;
    this.#offenders.delete(key);
    this.#offenders.set(key, offender);
    if (this.#offenders.size > MAX_OFFENDERS) this.#offenders.delete(this.#offenders.keys().next().value ?? key);

    if (this.#enforceMute && player.steamId !== undefined) this.#nativeMute(player.steamId);
    await this.#tellQuietly(player, alert);
    const kickAfter = this.#options.kickAfterAlerts;
    const kick = this.#profile.commands.kick;
    if (kickAfter > 0 && offender.alerts >= kickAfter && kick !== undefined) {
      offender.alerts = 0;
      const id = this.#commandId(player);
      if (id !== undefined) await this.#send(kick(id, alert), 'kick');
    }
  }

  /** The game's own mute, unless this adapter sent it within the cooldown (a muted player's lines keep coming in tests and with plugins). */
  #nativeMute(steamId: string): void {
    const mute = this.#profile.commands.mute;
    if (!this.#enforceMute || mute === undefined) return;
    const last = this.#nativeMutedAt.get(steamId);
    const now = this.#now();
    if (last !== undefined && now - last < this.#options.alertCooldownMs) return;
    this.#nativeMutedAt.set(steamId, now);
    void this.#send(mute(steamId), 'mute');
  }

  // ---- Reviews ----------------------------------------------------------------------------------------------------

  async #submitReview(sink: BridgeSink, player: PlayerIdentity, stars: number, comment: string): Promise<void> {
    const ref = player.steamId ?? player.eosId ?? '';
    try {
      await sink.submitReview({ player, stars, comment, origin: { adapter: this.id, ref } });
    } catch (error) {
      if (error instanceof BridgeRefusal) {
        await this.#tellQuietly(player, refusalText(error));
        return;
      }
      this.#logger.error({ err: error }, 'a chat review could not be submitted');
      await this.#tellQuietly(player, 'Review not taken right now; please try again later.');
      return;
    }
    await this.#tellQuietly(player, REVIEW_QUEUED);
  }

  // ---- Commands ---------------------------------------------------------------------------------------------------

  async #tell(player: PlayerIdentity, text: string): Promise<void> {
    const command = this.#tellCommand(player, text);
    if (command === undefined) throw new Error(`rcon adapter ${this.id} cannot address this player (no usable id)`);
    // Nothing is read from the answer; Rust answers a working command with nothing at all.
    await this.#connection.command(command, { silentOk: true });
  }

  #tellCommand(player: PlayerIdentity, text: string): string | undefined {
    const tell = this.#profile.commands.tell;
    if (tell !== undefined) {
      const id = this.#commandId(player);
      return id === undefined ? undefined : tell(id, text);
    }
    if (this.#notify !== undefined && player.steamId !== undefined && checkPlayerId(player.steamId, ['steam']) !== undefined) {
      return this.#notify({ steamId: player.steamId, name: player.name, message: text });
    }
    return undefined;
  }

  /** Tells a player something when this adapter can; a failure is logged, never thrown (a chat line must go on). */
  async #tellQuietly(player: PlayerIdentity, text: string): Promise<void> {
    if (this.tellPlayer === undefined) {
      this.#logger.debug('cannot tell the player (no private message on this game; set notifyCommand)');
      return;
    }
    try {
      await this.tellPlayer(player, text);
    } catch (error) {
      this.#logCommandFailure(error, 'tell');
    }
  }

  #commandId(player: PlayerIdentity): string | undefined {
    try {
      return commandPlayerId(player, this.#profile.commandIds).id;
    } catch {
      return undefined;
    }
  }

  async #send(command: string, what: string): Promise<void> {
    try {
      await this.#connection.command(command, { silentOk: true });
    } catch (error) {
      this.#logCommandFailure(error, what);
    }
  }

  #logCommandFailure(error: unknown, what: string): void {
    if (this.#stopped) return;
    // Command text is not logged: it may carry player text. The code says what happened.
    const code = isRconError(error) ? error.code : undefined;
    if (code === 'not_connected' || code === 'closed') this.#logger.debug({ code }, `RCON ${what} not sent: not logged in`);
    else this.#logger.warn({ code, err: isRconError(error) ? undefined : error }, `RCON ${what} failed${isRconError(error) ? `: ${error.message}` : ''}`);
  }

  /** Resolves after `ms`; unref'd, so it never holds the process. Callers check #isStopped() afterwards. */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      setTimeout(resolve, ms).unref();
    });
  }

  /** Read after an await: stop() may have run meanwhile (a method, so the compiler does not keep an earlier narrowing). */
  #isStopped(): boolean {
    return this.#stopped;
  }

  #keyOf(player: PlayerIdentity): string {
    return player.steamId !== undefined ? `steam:${player.steamId}` : `eos:${(player.eosId ?? '').toLowerCase()}`;
  }
}

function identityOf(listed: ListedPlayer): PlayerIdentity {
  return { steamId: listed.steamId, eosId: listed.eosId, name: listed.name };
}
