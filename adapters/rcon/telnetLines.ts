// The line framing of a telnet console stream: bytes split or merged any way become whole lines (CRLF or LF), decoded
// as UTF-8 only once a line is whole, telnet negotiation bytes dropped, and a 7DTD log entry that holds bare LFs (a
// stack trace) joined into one line. The client decides what a line means (login, banner, answer, pushed log).
// It must never: hold more than maxLineBytes of an unfinished line (the sink is told, and the client drops the
// session), hand on a line after the sink says the session is over, or log anything (a line before the login may be
// an echoed password).

/** A multi-line log entry (a stack trace) is handed on after this many lines even without its CRLF. */
const MAX_ENTRY_LINES = 256;

export interface TelnetLineSink {
  /** A whole line, CR/LF removed; a joined log entry has its lines joined by `\n`. */
  readonly line: (line: string) => void;
  /** A line grew past maxLineBytes: nothing more is read from this chunk. */
  readonly tooLong: () => void;
  /** False once a line ended the session: the rest of the read belongs to no one. */
  readonly live: () => boolean;
  /** Bare-LF log entries are joined only once the login is through (banner or ready). */
  readonly joinsLogEntries: () => boolean;
  /** Which lines are the server's own log lines. */
  readonly isPushed: (line: string) => boolean;
}

export class TelnetLineFramer {
  readonly #maxLineBytes: number;
  readonly #sink: TelnetLineSink;
  /** Bytes of the unfinished line. */
  #partial = Buffer.alloc(0);
  /** A CRLF-ended line was seen: bare LFs then continue a log entry. */
  #seenCrlf = false;
  /** The lines of a log entry that holds bare LFs, until its CRLF. */
  #logEntry: string[] | undefined;
  #logEntryBytes = 0;

  constructor(maxLineBytes: number, sink: TelnetLineSink) {
    this.#maxLineBytes = maxLineBytes;
    this.#sink = sink;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(0x0a, start);
      if (end < 0) break;
      const piece = chunk.subarray(start, end);
      const bytes = this.#partial.length === 0 ? piece : Buffer.concat([this.#partial, piece]);
      this.#partial = Buffer.alloc(0);
      start = end + 1;
      if (bytes.length > this.#maxLineBytes) {
        this.#sink.tooLong();
        return;
      }
      this.#framed(decodeLine(bytes), bytes.at(-1) === 0x0d);
      if (!this.#sink.live()) return;
    }
    const rest = chunk.subarray(start);
    if (rest.length > 0) {
      // Checked before the bytes are kept: an unfinished line never passes the cap, even by one read.
      if (this.#partial.length + rest.length > this.#maxLineBytes) {
        this.#sink.tooLong();
        return;
      }
      this.#partial = this.#partial.length === 0 ? Buffer.from(rest) : Buffer.concat([this.#partial, rest]);
    }
  }

  /** The unfinished line, trimmed and lower-cased: the login prompts may come without a line end. */
  unfinishedLine(): string {
    return decodeLine(this.#partial).trim().toLowerCase();
  }

  dropUnfinished(): void {
    this.#partial = Buffer.alloc(0);
  }

  /**
   * 7DTD ends every console line with CRLF, but a log entry with a stack trace holds bare LFs (V 3.2:
   * `… ERR Missing separator …\nFrom: UnityEngine…\n…\n\r\n`). On a server seen to use CRLF, a log line ended by a
   * bare LF starts an entry that runs to the next CRLF: one line, never answer lines of a waiting command.
   */
  #framed(line: string, crlf: boolean): void {
    if (this.#logEntry !== undefined) {
      this.#logEntry.push(line);
      this.#logEntryBytes += line.length + 1;
      if (crlf || this.#logEntry.length >= MAX_ENTRY_LINES || this.#logEntryBytes > this.#maxLineBytes) {
        const entry = this.#logEntry.join('\n');
        this.#logEntry = undefined;
        this.#logEntryBytes = 0;
        this.#sink.line(entry);
      }
      return;
    }
    if (crlf) this.#seenCrlf = true;
    else if (this.#seenCrlf && this.#sink.joinsLogEntries() && this.#sink.isPushed(line)) {
      this.#logEntry = [line];
      this.#logEntryBytes = line.length;
      return;
    }
    this.#sink.line(line);
  }
}

/**
 * One line's bytes → text: telnet negotiation (IAC, 0xFF, and what follows it) removed, UTF-8 decoded (the line is
 * whole, so no character is cut), the CR of a CRLF removed. 0xFF and 0xFB–0xFE never occur in UTF-8 text.
 */
export function decodeLine(bytes: Buffer): string {
  let clean = bytes;
  if (bytes.includes(0xff)) {
    const kept: number[] = [];
    for (let at = 0; at < bytes.length; at += 1) {
      const byte = bytes[at] ?? 0;
      if (byte !== 0xff) {
        kept.push(byte);
        continue;
      }
      const command = bytes[at + 1];
      if (command === 0xff) kept.push(0xff);
      // WILL, WONT, DO, DONT carry an option byte.
      at += command !== undefined && command >= 0xfb && command <= 0xfe ? 2 : 1;
    }
    clean = Buffer.from(kept);
  }
  const text = clean.toString('utf8');
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}
