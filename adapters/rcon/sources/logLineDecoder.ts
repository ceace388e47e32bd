// LogLineDecoder: turns the bytes of one log file, fed in any pieces, into its lines. It picks the encoding from the
// file's first bytes (a UTF-8 BOM, a UTF-16LE BOM, or UTF-16LE without a BOM told by NULs at odd offsets, else
// UTF-8), decodes through a StringDecoder so a character split across two reads is never garbled, joins a line that
// arrives in pieces, strips its LF or CRLF, and cuts a line longer than maxLineLength (the rest up to its newline is
// dropped, so a writer that never ends a line costs at most maxLineLength characters).
// Pure: no I/O, no timers, no logging (it tells its owner through return values and `onCut`).
//
// It must never:
// - hold more than maxLineLength (+1 for a pending CR) characters of an unfinished line, or more than a few bytes of
//   an unfinished character;
// - deliver a BOM as part of a line, or a line ending as part of a line;
// - guess the encoding from bytes that are not the file's first bytes (the owner sniffs the head separately when it
//   starts reading mid-file).
//
//   const decoder = new LogLineDecoder({ maxLineLength: 16384 });
//   decoder.sniff(headBytes);                    // optional: only when reading does not start at byte 0
//   for (const line of decoder.write(chunk)) onLine(line);
//   for (const line of decoder.end()) onLine(line);   // the file is finished: an unterminated last line too
import { StringDecoder } from 'node:string_decoder';

/** What a log file is written in, as far as this reader is concerned. */
export type LogEncoding = 'utf8' | 'utf16le';

export interface LogLineDecoderOptions {
  /** Longest line delivered, in UTF-16 code units (JavaScript characters). @default 16384 */
  readonly maxLineLength?: number | undefined;
  /**
   * Reading starts in the middle of the file, possibly in the middle of a line: everything up to the first line
   * ending is dropped, so the tail of a line written before the reader started is not taken for a whole line.
   * @default false
   */
  readonly startsMidLine?: boolean | undefined;
  /** Told once per line that was cut, with its length before the cut (as far as it was kept). @default none */
  readonly onCut?: ((keptLength: number) => void) | undefined;
}

export const DEFAULT_MAX_LINE_LENGTH = 16_384;

/** Bytes enough to tell the encoding: a BOM needs 3; BOM-less UTF-16LE is judged on up to this many. */
export const SNIFF_BYTES = 64;

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * The encoding of a file whose first bytes are `head`, and how many of them are a BOM. Undefined while `head` is too
 * short to tell (the start of a BOM, or one byte that may be half a UTF-16 code unit).
 * `complete`: `head` is all the file has for now; decide with what there is.
 */
export function sniffEncoding(head: Uint8Array, complete: boolean): { encoding: LogEncoding; bomBytes: number } | undefined {
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf8', bomBytes: 3 };
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf16le', bomBytes: 2 };
  if (!complete) {
    // A BOM's first bytes could still become one; a single byte could be half of a UTF-16 code unit.
    const bomPrefix = head.length < 3 && head.every((byte, i) => byte === UTF8_BOM[i]);
    if (bomPrefix || head.length < 2) return undefined;
  }
  // BOM-less UTF-16LE: ASCII-range text has a NUL at nearly every odd offset and almost none at even ones. UTF-8 log
  // text has no NULs at all, so a clear majority is a safe sign; judged on whole code units only.
  const units = Math.floor(Math.min(head.length, SNIFF_BYTES) / 2);
  if (units >= 1) {
    let oddNuls = 0;
    let evenNuls = 0;
    for (let i = 0; i < units; i++) {
      if (head[2 * i] === 0) evenNuls++;
      if (head[2 * i + 1] === 0) oddNuls++;
    }
    if (oddNuls * 4 >= units * 3 && evenNuls * 4 < units) return { encoding: 'utf16le', bomBytes: 0 };
  }
  return { encoding: 'utf8', bomBytes: 0 };
}

/** One file's bytes to its lines. One instance per file (a new file gets a new decoder: its own encoding). */
export class LogLineDecoder {
  readonly #maxLineLength: number;
  readonly #onCut: ((keptLength: number) => void) | undefined;
  #decoder: StringDecoder | undefined;
  #encoding: LogEncoding | undefined;
  /** Bytes held back until the encoding is known (at most 2). */
  #head: Buffer = Buffer.alloc(0);
  /** BOM bytes still to skip at the start of the data (only when the data starts at byte 0). */
  #bomToSkip = 0;
  #pending = '';
  /** The pending line was cut: the rest up to its newline is dropped. */
  #dropping = false;
  /** Everything up to the first newline is dropped (reading started mid-line). */
  #skippingFirst: boolean;

  constructor(options: LogLineDecoderOptions = {}) {
    this.#maxLineLength = Math.max(1, Math.floor(options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH));
    this.#onCut = options.onCut;
    this.#skippingFirst = options.startsMidLine ?? false;
  }

  /** The encoding in use, once known. */
  get encoding(): LogEncoding | undefined {
    return this.#encoding;
  }

  /**
   * Tells the decoder the file's first bytes when the data it will be fed does not start at byte 0 (the reader
   * starts at the end of an existing file). `head` is all the file has at its start, up to SNIFF_BYTES.
   */
  sniff(head: Uint8Array): void {
    if (this.#encoding !== undefined) return;
    const sniffed = sniffEncoding(head, true);
    // Fed data starts past the BOM, so nothing is skipped.
    if (sniffed !== undefined) this.#choose(sniffed.encoding, 0);
  }

  /** The lines completed by `chunk`, in order, without their line endings. */
  write(chunk: Uint8Array): string[] {
    if (this.#decoder === undefined) {
      this.#head = this.#head.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.#head, chunk]);
      const sniffed = sniffEncoding(this.#head, false);
      if (sniffed === undefined) return []; // a byte or two: held
      this.#choose(sniffed.encoding, sniffed.bomBytes);
      const held = this.#head;
      this.#head = Buffer.alloc(0);
      return this.#text(this.#decodeSkippingBom(held));
    }
    return this.#text(this.#decodeSkippingBom(chunk));
  }

  /**
   * The file is finished (renamed away, replaced, or a newer file took over): the lines still held, including an
   * unterminated last one. The decoder is spent afterwards.
   */
  end(): string[] {
    let text = '';
    if (this.#decoder === undefined && this.#head.length > 0) {
      const sniffed = sniffEncoding(this.#head, true) ?? { encoding: 'utf8' as const, bomBytes: 0 };
      this.#choose(sniffed.encoding, sniffed.bomBytes);
      text = this.#decodeSkippingBom(this.#head);
      this.#head = Buffer.alloc(0);
    }
    if (this.#decoder !== undefined) text += this.#decoder.end();
    const lines = this.#text(text);
    if (this.#pending.length > 0 && !this.#skippingFirst) lines.push(this.#finish(this.#pending));
    this.#pending = '';
    this.#dropping = false;
    return lines;
  }

  #choose(encoding: LogEncoding, bomBytes: number): void {
    this.#encoding = encoding;
    this.#decoder = new StringDecoder(encoding);
    this.#bomToSkip = bomBytes;
  }

  #decodeSkippingBom(chunk: Uint8Array): string {
    let bytes = chunk;
    if (this.#bomToSkip > 0) {
      const skip = Math.min(this.#bomToSkip, bytes.length);
      bytes = bytes.subarray(skip);
      this.#bomToSkip -= skip;
    }
    // #decoder is set whenever this is called.
    return bytes.length === 0 ? '' : (this.#decoder?.write(bytes) ?? '');
  }

  #text(text: string): string[] {
    const lines: string[] = [];
    let from = 0;
    for (;;) {
      const newline = text.indexOf('\n', from);
      if (newline === -1) break;
      if (this.#skippingFirst) {
        this.#skippingFirst = false;
      } else if (this.#pending.length === 0) {
        // The common case, a whole line in one read: one slice, without its CR (the hot path of a busy log).
        const end = newline > from && text.charCodeAt(newline - 1) === 0x0d ? newline - 1 : newline;
        const line = text.slice(from, end);
        lines.push(line.length > this.#maxLineLength ? this.#cut(line) : line);
      } else {
        if (!this.#dropping) this.#pending += text.slice(from, newline);
        lines.push(this.#finish(this.#pending));
      }
      this.#pending = '';
      this.#dropping = false;
      from = newline + 1;
    }
    if (from < text.length && !this.#skippingFirst && !this.#dropping) {
      this.#pending += text.slice(from);
      // One more than the bound may be a CR whose LF has not come yet; past that the line is too long for sure.
      if (this.#pending.length > this.#maxLineLength + 1) {
        this.#pending = this.#cut(this.#pending);
        this.#dropping = true;
      }
    }
    return lines;
  }

  /** A complete line: its CR dropped, cut to the bound. */
  #finish(raw: string): string {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (this.#dropping) return line; // already cut, and told
    return line.length > this.#maxLineLength ? this.#cut(line) : line;
  }

  #cut(line: string): string {
    let end = this.#maxLineLength;
    // Never split a surrogate pair: a lone half would be garbage in every consumer.
    const last = line.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end -= 1;
    this.#onCut?.(line.length);
    return line.slice(0, end);
  }
}
