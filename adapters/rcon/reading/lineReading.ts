// Reading the lines of one source (a log file, a console's stream of log lines) into what they say, the same way
// live and offline: the rcon adapter reads each new line through it, and `gsa-bridge log check` replays a host's
// own log file through it with no console, no GSA and no config. One LineReading per source, fed in order.
// It asks the profile's own reader first; only a line that reader did not take as chat (nor as the server's, a
// join or a copy of chat already read) is offered to the host's `chatPattern`, so a pattern can never re-read a
// vanilla line as somebody else's. It decides nothing about who the speaker is (the player list does: the
// adapter's roster) and sends nothing.

import { isChatChannel, type ChatChannel } from '../../../src/bridge/port.js';
import type { RconChatLine, RconLineReader, RconLineSource } from '../profiles/profile.js';
import type { ChatPattern } from './chatPattern.js';

export interface LineReadingOptions {
  /** The profile's log-line source: its reader and where a line's message starts. */
  readonly source: RconLineSource;
  /** The host's `chatPattern`, compiled; absent: only the profile's reader reads chat. */
  readonly chatPattern?: Pick<ChatPattern, 'match'> | undefined;
}

/**
 * A pattern's `channel` group in the one vocabulary: a vocabulary word (any case) is that channel, no group is
 * global (a plugin that prints no channel has one public chat), and any other word (`Staff`, `[G]`) is `other`.
 */
function channelOf(channel: string | undefined): ChatChannel {
  if (channel === undefined || channel === '') return 'global';
  const word = channel.toLowerCase();
  return isChatChannel(word) ? word : 'other';
}

export class LineReading {
  readonly #source: RconLineSource;
  readonly #read: RconLineReader;
  readonly #pattern: Pick<ChatPattern, 'match'> | undefined;

  constructor(options: LineReadingOptions) {
    this.#source = options.source;
    this.#read = options.source.newReader();
    this.#pattern = options.chatPattern;
  }

  /** One line, in the order the source wrote it. `knownNames`: the names the player list shows now. */
  read(line: string, knownNames: readonly string[]): RconChatLine {
    const read = this.#read(line, knownNames);
    const pattern = this.#pattern;
    if (pattern === undefined || !(read.kind === 'unparsed' || (read.kind === 'ignored' && read.echo !== true))) return read;
    const message = this.#source.messageOf(line);
    const match = message === undefined ? undefined : pattern.match(message);
    if (match === undefined || match.name === '') return read;
    return { kind: 'player', channel: channelOf(match.channel), name: match.name, text: match.message, readAs: 'chatPattern' };
  }
}
