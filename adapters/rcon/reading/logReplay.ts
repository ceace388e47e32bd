// A host's own log, read offline the way the live adapter reads it (`gsa-bridge log check`): the same profile reader
// and chatPattern (LineReading), one line after another, tallied into what a host needs to trust gating before
// turning it on: chat read (speaker name, the ids the line carries, channel), the server's lines, joins and leaves,
// lines ignored, and chat-like lines nothing could read, with samples.
// With no console there is no player list: the names a join line of the file brought in stand for it (a leave line
// takes them out), so a reader that settles names by the list (ARK's splits) reads as it would live on that server.
// Which listed player a name is, and whether an id a name printed is theirs (Conan), the live player list decides.
// It must never do I/O (the command feeds it lines), never keep more than a bounded number of entries per list, and
// never hold a sample longer than a log line's warning shows.

import type { UnattributedReason } from '../../../src/bridge/port.js';
import { printableText } from '../../../src/text/printableText.js';
import type { RconLineSource, RosterPresence } from '../profiles/profile.js';
import type { ChatPattern } from './chatPattern.js';
import { LineReading } from './lineReading.js';

/** One chat line as read: who spoke, as far as the line itself says. */
export interface ReplayedChat {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly name: string;
  readonly channel: string;
  readonly steamId?: string | undefined;
  readonly eosId?: string | undefined;
  /** The game's own id on the line (7 Days to Die `Steam_…`, `XBL_…`). */
  readonly platformId?: string | undefined;
  readonly entityId?: number | undefined;
  /** How it was read when not the game's plain chat line (`/me`, `chatPattern`, a chat mod's line). */
  readonly readAs?: string | undefined;
  /** More than one way to split the speaker's name: the live player list decides (the longest listed one). */
  readonly readings?: number | undefined;
}

export interface ReplayedServerLine {
  readonly line: number;
  readonly text: string;
}

/** A join or leave as the line said it (the ids it carries), at its line number. */
export type ReplayedPresence = RosterPresence & { readonly line: number };

export interface UnattributedSample {
  readonly line: number;
  readonly reason: UnattributedReason;
  /** Why the reader could not read it. */
  readonly why: string;
  /** The line, printable and cut short. */
  readonly text: string;
}

export interface LogReplayResult {
  readonly lines: number;
  readonly chat: readonly ReplayedChat[];
  readonly server: readonly ReplayedServerLine[];
  readonly presence: readonly ReplayedPresence[];
  /** Chat-like lines that could not be tied to a player, by reason. */
  readonly unattributed: Readonly<Partial<Record<UnattributedReason, number>>>;
  readonly ignored: number;
  /** Up to MAX_SAMPLES unattributed lines. */
  readonly samples: readonly UnattributedSample[];
  /** How many of each there were, however many the lists above hold. */
  readonly counts: { readonly chat: number; readonly server: number; readonly presence: number; readonly unattributed: number };
  /** A list above stopped at MAX_ENTRIES. */
  readonly truncated: boolean;
}

export const MAX_SAMPLES = 10;
/** Entries kept per list: a year of chat must not take the machine's memory. */
export const MAX_ENTRIES = 10_000;
const SAMPLE_LENGTH = 300;

export class LogReplay {
  readonly #reading: LineReading;
  /** Who the file's own join lines brought in: the player list's stand-in. */
  readonly #names = new Set<string>();
  #lines = 0;
  readonly #chat: ReplayedChat[] = [];
  readonly #server: ReplayedServerLine[] = [];
  readonly #presence: ReplayedPresence[] = [];
  readonly #unattributed: Partial<Record<UnattributedReason, number>> = {};
  readonly #samples: UnattributedSample[] = [];
  readonly #counts = { chat: 0, server: 0, presence: 0, unattributed: 0 };
  #ignored = 0;
  #truncated = false;

  constructor(source: RconLineSource, chatPattern?: Pick<ChatPattern, 'match'>) {
    this.#reading = new LineReading({ source, chatPattern });
  }

  /** The next line of the file, as the log decoder gave it (no line ending). */
  line(raw: string): void {
    this.#lines += 1;
    const line = this.#lines;
    const read = this.#reading.read(raw, [...this.#names]);
    // A line read both as chat and as the game's join line (a name holding `(X): `): live, the player list decides; here
    // the id the join line carries, or a name the file already brought in, makes it the join.
    const presence = read.kind === 'player' ? read.presence : undefined;
    if (presence !== undefined && (presence.steamId !== undefined || presence.eosId !== undefined || (presence.name !== undefined && this.#names.has(presence.name)))) {
      this.#present(line, presence);
      return;
    }
    switch (read.kind) {
      case 'player':
        this.#counts.chat += 1;
        this.#keep(this.#chat, {
          line,
          name: read.name,
          channel: read.channel,
          steamId: read.steamId,
          eosId: read.eosId,
          platformId: read.platformId,
          entityId: read.entityId,
          readAs: read.readAs,
          readings: read.readings === undefined ? undefined : read.readings.length,
        });
        return;
      case 'server':
        this.#counts.server += 1;
        this.#keep(this.#server, { line, text: printableText(read.text, SAMPLE_LENGTH) });
        return;
      case 'roster':
        if (read.presence === undefined) this.#ignored += 1;
        else this.#present(line, read.presence);
        return;
      case 'ignored':
        this.#ignored += 1;
        return;
      case 'unparsed':
        this.#counts.unattributed += 1;
        this.#unattributed.unreadable = (this.#unattributed.unreadable ?? 0) + 1;
        if (this.#samples.length < MAX_SAMPLES) this.#samples.push({ line, reason: 'unreadable', why: read.reason, text: printableText(raw, SAMPLE_LENGTH) });
        return;
    }
  }

  result(): LogReplayResult {
    return {
      lines: this.#lines,
      chat: this.#chat,
      server: this.#server,
      presence: this.#presence,
      unattributed: this.#unattributed,
      ignored: this.#ignored,
      samples: this.#samples,
      counts: { ...this.#counts },
      truncated: this.#truncated,
    };
  }

  #present(line: number, presence: RosterPresence): void {
    if (presence.name !== undefined) {
      if (presence.kind === 'join') this.#names.add(presence.name);
      else this.#names.delete(presence.name);
    }
    this.#counts.presence += 1;
    this.#keep(this.#presence, { line, ...presence });
  }

  #keep<T>(list: T[], entry: T): void {
    if (list.length < MAX_ENTRIES) list.push(entry);
    else this.#truncated = true;
  }
}
