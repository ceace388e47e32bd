// The game-console adapter: gates a game server's chat with no mod installed. One logged-in console session per game
// server (rconConnection.ts: Source RCON, WebRCON or telnet, as the profile says); the profile (profiles/) says where
// chat comes from (a polled command, pushed packets, the console's stream, or the game's log file), how the player
// list is read, and which builder makes each command; this file is the same for every game (composition, never a
// subclass). It reads the player list (playerRoster.ts: joins warm the mute cache at the lowest budget priority,
// leaves are reported), reads chat, asks the bridge about each player's line, and has the game answer a muted
// speaker (playerAnswers.ts); a `!review` line becomes a review, `!shop` / `!buy` lines the shop (chatShop.ts); a
// player GSA does not admit is kicked (removePlayer, playerKick.ts).
// It must never: block start() on the game (a game server that is down must not stop the sidecar: readiness shows
// it), gate the server's own lines, guess a speaker (two players with one name), act on a verdict the service did
// not give (the policy's "unknown"), read chat from the console when a log file is configured, or throw out of a
// push (muteChanged, reviewResult).

import type { Logger } from 'pino';
import {
  type Adapter,
  type BridgeSink,
  type ChatVerdict,
  type PlayerIdentity,
  type RemovalReason,
  type ReviewOrigin,
  type ReviewOutcome,
  type UnattributedReason,
} from '../../src/bridge/port.js';
import type { Clock } from '../../src/time/clock.js';
import type { ChatReviewCommand, ChatShopCommand } from '../base/registryTypes.js';
import { parseReviewCommand } from './chatCommand.js';
import { reviewResultText, submitChatReview } from './chatReview.js';
import { ChatShop } from './chatShop.js';
import { isRconError } from './errors.js';
import type { RconOptions } from './options.js';
import { PlayerAnswers } from './playerAnswers.js';
import { PlayerKick } from './playerKick.js';
import { PlayerRoster, identityOf, type SpeakerLookup } from './playerRoster.js';
import type { PlayerListParse } from './profiles/parsedLines.js';
import type { RconChatLine, RconProfile } from './profiles/profile.js';
import type { RconConnection } from './connectionPort.js';
import { openRconConnection } from './rconConnection.js';
import { compileChatPattern } from './reading/chatPattern.js';
import { LineReading } from './reading/lineReading.js';
import { rconUnattributedFix } from './reading/unattributedFix.js';
import { UnattributedChat } from '../base/unattributedChat.js';
import { LogTail } from './sources/logTail.js';

export interface RconAdapterOptions {
  /** The adapter's stable id: logs, readiness, the review journal's origin. */
  readonly id: string;
  readonly options: RconOptions;
  readonly profile: RconProfile;
  /** Carries `server` and `adapter` fields. */
  readonly logger: Logger;
  /** The review chat command, read at each line (a reload may change it); absent: chat reviews are off. */
  readonly reviewCommand?: (() => ChatReviewCommand) | undefined;
  /** The shop chat commands, read at each line; undefined while the server does not allow `shop`. Absent: no shop in chat. */
  readonly shopCommand?: (() => ChatShopCommand | undefined) | undefined;
  /** The alert cooldown's clock. @default Date.now */
  readonly now?: (() => number) | undefined;
  /** The clock the console's pace is measured on (rconConnection.ts). @default performance.now() */
  readonly paceClock?: Clock | undefined;
}

/** Why a speaker was not found, as the unattributed-chat counter names it. */
function unattributedReason(lookup: Exclude<SpeakerLookup, { kind: 'found' | 'presence' }>): UnattributedReason {
  switch (lookup.kind) {
    case 'not-listed':
      return 'not_listed';
    case 'ambiguous':
      return 'ambiguous';
    case 'unconfirmed-id':
      return 'unconfirmed_id';
  }
}

/** A line without its raw text (GetChat, pushes): what a warning's sample shows of it. */
function sampleOf(line: Extract<RconChatLine, { kind: 'player' }>): string {
  return `${line.name}: ${line.text}`;
}

/** Lines of the log waiting for their verdicts before the log tail stops reading; it reads on below the second. */
const MAX_LINES_WAITING = 1_000;
const LINES_WAITING_RESUME = 250;

export class RconAdapter implements Adapter {
  readonly type = 'rcon';
  readonly id: string;
  /** Every source reads chat after the game broadcast it (GetChat, pushes, the log): a muted line was seen. */
  readonly chatAlreadyShown = true;
  /** The "tell this player" capability; absent where the game has no private message and no notifyCommand is set. */
  readonly tellPlayer?: (player: PlayerIdentity, text: string) => Promise<void>;
  /**
   * The "remove this player" capability (access.enforce): the host's kickCommand, else the profile's kick. Absent
   * where there is neither (Conan without kickCommand), so the bridge can say once that this adapter cannot enforce.
   */
  readonly removePlayer?: (player: PlayerIdentity, reason: RemovalReason) => Promise<void>;

  readonly #options: RconOptions;
  readonly #profile: RconProfile;
  readonly #logger: Logger;
  readonly #connection: RconConnection;
  readonly #reviewCommand: (() => ChatReviewCommand) | undefined;
  readonly #shopCommand: (() => ChatShopCommand | undefined) | undefined;
  readonly #kick: PlayerKick;
  /** Absent when the adapter cannot whisper: the shop's words are then ordinary chat. */
  readonly #shop: ChatShop | undefined;
  readonly #roster: PlayerRoster;
  readonly #answers: PlayerAnswers;
  readonly #logTail: LogTail | undefined;
  #sink: BridgeSink | undefined;
  #stopped = false;
  #stopping: Promise<void> | undefined;
  readonly #timers = new Set<NodeJS.Timeout>();
  #chatPollRunning = false;
  /** Lines of a log or stream are judged in the order they were written, one after another. */
  #lineChain: Promise<void> = Promise.resolve();
  /** Lines on #lineChain not judged yet; the log tail reads on only while fewer than MAX_LINES_WAITING wait. */
  #linesWaiting = 0;
  /** The log tail's wait for room (see #roomForLines). */
  #roomWaiters: (() => void)[] = [];
  readonly #unattributed: UnattributedChat;

  constructor(config: RconAdapterOptions) {
    this.id = config.id;
    this.#options = config.options;
    this.#profile = config.profile;
    this.#logger = config.logger;
    this.#reviewCommand = config.reviewCommand;
    this.#shopCommand = config.shopCommand;
    const consoleChat = config.options.logFile === undefined ? config.profile.chat.console : undefined;
    // Checked at load already: compiling it again cannot fail. The engine is loaded only when a pattern is set.
    const chatPattern = config.options.chatPattern === undefined ? undefined : compileChatPattern(config.options.chatPattern);
    // One reader per source: a profile's reader may pair lines of one stream (7 Days to Die's chat mods).
    const streamReading = consoleChat?.kind === 'stream' ? new LineReading({ source: consoleChat, chatPattern }) : undefined;
    this.#connection = openRconConnection({
      options: config.options,
      transport: config.profile.transport,
      label: config.id,
      logger: config.logger,
      commandTimeoutMs: config.options.commandTimeoutMs,
      paceClock: config.paceClock,
      handlers: {
        onReady: () => {
          // A fresh session: read who is online at once rather than a poll period later.
          void this.#roster.refresh();
        },
        onPushedText: (text) => {
          if (consoleChat?.kind === 'pushed') this.#onChatLine(consoleChat.read(text, (id) => this.#roster.nameOf(id)));
        },
        onRustChat: (chat) => {
          if (consoleChat?.kind === 'webrcon') this.#onChatLine(consoleChat.read(chat));
        },
        onLine: (line) => {
          if (streamReading !== undefined) this.#onOrderedLine(line, streamReading);
        },
      },
    });
    this.#roster = new PlayerRoster({
      readList: () => this.#readPlayerList(),
      logger: config.logger,
      onJoined: (listed) => {
        this.#joined(identityOf(listed));
      },
      onLeft: (listed) => {
        const player = identityOf(listed);
        this.#answers.left(player);
        this.#sink?.playerLeft(player);
      },
      onList: (players) => {
        // The game drops the chat of a player it muted, so no line of theirs makes the cache look again: ask about
        // those this adapter muted. Free while the answer is fresh; a changed answer comes back as muteChanged.
        for (const listed of players) {
          const player = identityOf(listed);
          if (this.#answers.mutedInGame(player)) void this.#sink?.checkMute(player);
        }
      },
    });
    this.#kick = new PlayerKick({
      adapterId: config.id,
      profile: config.profile,
      options: config.options,
      listed: (player) => this.#roster.find(player),
      command: (text) => this.#connection.command(text, { silentOk: true }),
      tell: (player, text) => this.#answers.tellQuietly(player, text),
    });
    this.#answers = new PlayerAnswers({
      adapterId: config.id,
      profile: config.profile,
      options: config.options,
      roster: this.#roster,
      kick: this.#kick,
      send: (command, what) => this.#send(command, what),
      // Nothing is read from the answer; Rust answers a working command with nothing at all.
      sendOrThrow: async (command) => {
        await this.#connection.command(command, { silentOk: true });
      },
      logFailure: (error, what) => {
        this.#logCommandFailure(error, what);
      },
      logger: config.logger,
      now: config.now ?? (() => Date.now()),
    });
    const logChat = config.profile.chat.logFile;
    if (config.options.logFile !== undefined && logChat !== undefined) {
      const logReading = new LineReading({ source: logChat, chatPattern });
      this.#logTail = new LogTail({
        path: config.options.logFile,
        logger: config.logger,
        onLine: (line) => {
          this.#onOrderedLine(line, logReading);
        },
        room: () => this.#roomForLines(),
      });
    }
    if (this.#answers.canTell) this.tellPlayer = (player, text) => this.#answers.tell(player, text);
    if (this.#kick.source !== undefined) this.removePlayer = (player, reason) => this.#kick.remove(player, reason.message);
    this.#shop = this.#answers.canTell
      ? new ChatShop({ adapterId: config.id, tell: (player, text) => this.#answers.tellQuietly(player, text), logger: config.logger })
      : undefined;
    const now = config.now ?? (() => Date.now());
    this.#unattributed = new UnattributedChat({
      logger: config.logger,
      label: `rcon adapter ${config.id}`,
      fix: rconUnattributedFix(config.profile),
      count: (reason) => {
        this.#sink?.chatLineRead?.(reason);
      },
      now,
    });
  }

  /** Logged in to the game right now. */
  get ready(): boolean {
    return !this.#stopped && this.#connection.ready;
  }

  /** Connects in the background and starts the polls; resolves at once, whether the game answers or not. */
  async start(sink: BridgeSink): Promise<void> {
    if (this.#stopped) throw new Error(`rcon adapter ${this.id} was stopped; build a new one`);
    this.#sink = sink;
    this.#connection.start();
    this.#every(this.#options.pollPlayersMs, () => this.#roster.refresh());
    const consoleChat = this.#profile.chat.console;
    if (this.#logTail === undefined && consoleChat?.kind === 'poll') this.#every(this.#options.pollChatMs ?? 1_000, () => this.#pollChat());
    const tell = this.tellPlayer === undefined ? 'no private messages (set notifyCommand)' : 'private messages';
    const kick = this.#kick.source === undefined ? 'no kick (set kickCommand)' : `kicks by ${this.#kick.source === 'kickCommand' ? 'kickCommand' : 'the game\'s own command'}`;
    const source = this.#logTail === undefined ? `chat from the ${this.#profile.transport.kind} console` : 'chat from the game log';
    this.#logger.info(`rcon adapter ${this.id}: profile ${this.#profile.name} on ${this.#options.host}:${String(this.#options.port)}, ${source}, ${tell}, ${kick}`);
    const warning = this.#profile.chat.consoleWarning;
    if (this.#logTail === undefined && warning !== undefined) this.#logger.warn(`rcon adapter ${this.id}: ${warning}`);
    // Starting the tail only takes the file's current end (or notes that it is absent): it never waits on the game.
    await this.#logTail?.start();
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#stopped = true;
      this.#wakeLogReader();
      this.#roster.close();
      for (const timer of this.#timers) clearTimeout(timer);
      this.#timers.clear();
      await Promise.all([this.#connection.close(), this.#logTail?.close()]);
    })();
    return this.#stopping;
  }

  muteChanged(player: PlayerIdentity, muted: boolean, alert: string | undefined): void {
    try {
      this.#answers.muteChanged(player, muted, alert);
    } catch (error) {
      this.#logger.error({ err: error }, 'could not act on a mute change');
    }
  }

  reviewResult(_origin: ReviewOrigin, outcome: ReviewOutcome, player: PlayerIdentity): void {
    void this.#answers.tellQuietly(player, reviewResultText(outcome));
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

  async #readPlayerList(): Promise<PlayerListParse | undefined> {
    const players = this.#profile.players;
    const command = players.command;
    try {
      return players.read(await this.#connection.command(command));
    } catch (error) {
      this.#logCommandFailure(error, command);
      return undefined;
    }
  }

  #joined(player: PlayerIdentity): void {
    const sink = this.#sink;
    if (sink === undefined) return;
    // A whole server of joins arrives with the first list: warm behind every chat line's lookup.
    sink.playerJoined(player, { lowPriority: true });
    this.#answers.joined(player);
    if (!this.#answers.mutesInGame) return;
    // Joins the warm-up lookup in flight (no second request); mutes before they speak when the service answers in time.
    void sink.checkMute(player).then((status) => {
      if (status.muted && status.source !== 'policy' && !this.#stopped) this.#answers.muteInGameNow(player, status.alert ?? '');
    });
  }

  async #pollChat(): Promise<void> {
    const source = this.#profile.chat.console;
    if (source?.kind !== 'poll' || this.#chatPollRunning) return;
    this.#chatPollRunning = true;
    try {
      let answer: string;
      try {
        answer = await this.#connection.command(source.command);
      } catch (error) {
        this.#logCommandFailure(error, source.command);
        return;
      }
      const lines = source.read(answer, this.#roster.knownNames());
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

  /** A line of the log or of the console stream: read with the names listed when its turn comes, in order. */
  #onOrderedLine(text: string, reading: LineReading): void {
    this.#linesWaiting += 1;
    this.#lineChain = this.#lineChain.then(async () => {
      try {
        await this.#handleChatLine(reading.read(text, this.#roster.knownNames()), text);
      } catch (error) {
        this.#logger.error({ err: error }, 'a chat line could not be handled');
      } finally {
        this.#linesWaiting -= 1;
        if (this.#linesWaiting <= LINES_WAITING_RESUME) this.#wakeLogReader();
      }
    });
  }

  /**
   * The log tail asks before each read: with MAX_LINES_WAITING lines waiting for their verdicts, it waits until most
   * are judged. A burst in the game's log (a flood, a restart's catch-up) then waits in the file, not in memory, and
   * what the burst leaves behind dies young rather than filling the heap for V8 to give back later.
   */
  #roomForLines(): Promise<void> | undefined {
    if (this.#linesWaiting < MAX_LINES_WAITING || this.#stopped) return undefined;
    return new Promise((resolve) => {
      this.#roomWaiters.push(resolve);
    });
  }

  #wakeLogReader(): void {
    for (const wake of this.#roomWaiters.splice(0)) wake();
  }

  /** `raw`: the line as the game wrote it, when it came as a line of its own (a log, the console stream). */
  async #handleChatLine(line: RconChatLine, raw?: string): Promise<void> {
    const sink = this.#sink;
    if (sink === undefined || this.#stopped) return;
    if (line.kind === 'unparsed') {
      // It looked like chat and nothing could read it: counted and reported, never dropped in silence.
      this.#logger.debug({ reason: line.reason }, 'chat line not understood');
      this.#unattributed.note('unreadable', raw ?? line.reason);
      return;
    }
    if (line.kind === 'roster') {
      if (line.learned !== undefined) this.#roster.learn(line.learned.name, line.learned.mojangId);
      // A read in flight may have been answered before this join: the joiner is on a read begun after the line.
      void this.#roster.readSince(performance.now());
      return;
    }
    if (line.kind !== 'player') return; // The server's own lines and other notices are never gated.
    const lookup = await this.#roster.speaker(line, (ms) => this.#sleep(ms), () => this.#isStopped());
    if (this.#isStopped()) return;
    // A join or leave line a crafted name made look like chat: the list was just read; nobody spoke.
    if (lookup.kind === 'presence') return;
    if (lookup.kind !== 'found') {
      // Never guessed: the line is not gated, and the host hears of it.
      this.#unattributed.note(unattributedReason(lookup), raw ?? sampleOf(line));
      return;
    }
    sink.chatLineRead?.();
    const player = lookup.player;
    // The text the speaker's reading leaves (a line read several ways leaves a different text for each).
    const text = lookup.text;

    const reviewCommand = this.#reviewCommand?.();
    if (reviewCommand !== undefined) {
      const review = parseReviewCommand(text, reviewCommand);
      // A review is not chat: it goes through the review policy, not the mute gate (as with the mod's review.submit).
      if (review.kind === 'refused') {
        await this.#answers.tellQuietly(player, review.message);
        return;
      }
      if (review.kind === 'review') {
        const tell = (to: PlayerIdentity, text: string): Promise<void> => this.#answers.tellQuietly(to, text);
        await submitChatReview({ sink, adapterId: this.id, player, stars: review.stars, comment: review.comment, tell, logger: this.#logger });
        return;
      }
    }
    // The shop is not chat either: taken here like a review, answered in the background (a GSA call must not hold up
    // the lines read after it). Without the shop allowed, a whisper, or the bridge's Mod API, the words are chat.
    const shopCommand = this.#shopCommand?.();
    if (shopCommand !== undefined && this.#shop !== undefined && sink.modApi !== undefined && this.#shop.take(sink.modApi, player, text, shopCommand)) return;

    const verdict: ChatVerdict = sink.chatNow?.(player, line.channel, text) ?? (await sink.chat(player, line.channel, text));
    if (verdict.allow || this.#isStopped()) return;
    // The chat filter's block: the line is already shown, so the speaker is told its alert (the filter's warning)
    // where the game can; never an in-game mute or a kick, which answer only GSA's own mute.
    if (verdict.reason === 'filtered') {
      await this.#answers.tellQuietly(player, verdict.alert);
      return;
    }
    // Only the service's own "muted": the policy's guess ("unknown") is not a reason to warn or mute anyone, and a
    // line the bridge did not gate ("not_gated": team chat, by default) is allowed like any other.
    if (verdict.reason !== 'muted') return;
    await this.#answers.mutedSpeaker(player, verdict.alert);
  }

  // ---- Commands ---------------------------------------------------------------------------------------------------

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
}
