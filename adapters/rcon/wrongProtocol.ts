// Telling "this port speaks another protocol" from a broken session, for every console transport (Source RCON,
// 7 Days to Die's telnet, Rust's WebRCON): a judge of a connection's first bytes per transport, a few words on what
// was seen ("text that looks like HTTP ("HTTP/1.1 400 Bad Request")"), the error naming the setting to check, and the
// rule that says it at warn once per adapter until a login works. Without it a wrong port shows as a framing error
// ("a packet size of 1634036816 bytes") at every reconnect, with no advice.
// It must never: show more than a few printable characters of what came, or any part of the password (a server may
// echo what it was sent), hold more than FIRST_BYTES_KEPT bytes of a foreign answer, or judge before the bytes that
// decide it are in (a TCP read may hold one byte).

import { RconWrongProtocolError, type RconError } from './errors.js';
import { DEFAULT_MAX_PACKET_SIZE, MIN_PACKET_SIZE, SourceRconPacketType } from './sourceRconCodec.js';
import { decodeLine } from './telnetLines.js';
import { passwordScrubber } from './webrcon/passwordUrl.js';

/** How much of a connection's first answer is kept to judge and describe it. */
export const FIRST_BYTES_KEPT = 64;
/** A binary answer is described once this much is in: a Source RCON packet's header (size, id, type). */
const HEADER_BYTES = 12;
/** At most this many characters of a text answer are shown. */
const SAMPLE_CHARS = 24;

export type ConsoleProtocol = 'source-rcon' | 'telnet' | 'webrcon';

/** Where a transport connected and how the adapter's keys are named, for the message. */
export interface WrongProtocolContext {
  readonly protocol: ConsoleProtocol;
  readonly label: string;
  readonly host: string;
  readonly port: number;
  /** `"password"` or `servers[0].adapters[1].password`: the port's key is named the same way. */
  readonly passwordKey: string;
  /** Only to keep it out of a sample; never shown. */
  readonly password: string;
}

const EXPECTED: Readonly<Record<ConsoleProtocol, { readonly name: string; readonly port: string }>> = {
  'source-rcon': { name: 'Source RCON', port: "the RCON port (RCONPort, RconPort or rcon.port in the game's settings), not the game or query port" },
  telnet: { name: "a 7 Days to Die telnet console", port: 'the telnet port (TelnetPort in serverconfig.xml, 8081 by default), not the game or web dashboard port' },
  webrcon: { name: "Rust's WebRCON", port: 'the WebRCON port (rcon.port, with rcon.web 1), not the game or query port' },
};

/** Text whose first line says what answered; the first match names it. */
const TEXT_KINDS: readonly { readonly pattern: RegExp; readonly what: string }[] = [
  { pattern: /^HTTP\/\d/, what: 'text that looks like HTTP' },
  { pattern: /^please enter password/i, what: "a telnet password prompt (7 Days to Die's console)" },
  { pattern: /^\*\*\* Connected with 7DTD/, what: "7 Days to Die's telnet banner" },
  { pattern: /^SSH-\d/, what: 'an SSH greeting' },
];
/** What a telnet console never starts with. */
const NOT_TELNET = [/^HTTP\/\d/, /^SSH-\d/];
/** 7DTD's own first line, lower-cased: the password prompt or, without a password, the banner. */
const SEVEN_DAYS_FIRST_LINES = ['please enter password:', '*** connected with 7dtd server'];

/** The error a transport ends the connection with; its message names what was seen and the key to check. */
export function wrongProtocolError(context: WrongProtocolContext, seen: string): RconWrongProtocolError {
  const expected = EXPECTED[context.protocol];
  const portKey = context.passwordKey.replace(/password("?)$/, 'port$1');
  return new RconWrongProtocolError(
    `the server at ${context.host}:${context.port} answered with ${seen}, not ${expected.name}: is ${portKey} of adapter ${context.label} ${expected.port}?`,
  );
}

/** What the first bytes were, in a few words, with a short sample of text (never of the password). */
export function describeFirstBytes(head: Buffer, password: string): string {
  if (head.length === 0) return 'nothing';
  const text = decodeLine(head.subarray(0, FIRST_BYTES_KEPT));
  if (!isText(text)) {
    switch (sourceRconPacketKind(head)) {
      case 'login':
        return 'a copy of the Source RCON login it was sent (something that echoes what it receives)';
      case 'answer':
        return 'bytes that look like a Source RCON packet';
      default:
        return 'binary data';
    }
  }
  const trimmed = text.trimStart();
  const what = TEXT_KINDS.find((kind) => kind.pattern.test(trimmed))?.what ?? 'text';
  const sample = sampleOf(trimmed, password);
  return sample === undefined ? what : `${what} ("${sample}")`;
}

/** Text a person can read: no control characters but tab, CR and LF, and few undecodable bytes (U+FFFD). */
function isText(text: string): boolean {
  let replaced = 0;
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || code === 0x7f) return false;
    if (code === 0xfffd) replaced += 1;
  }
  return replaced * 4 <= text.length;
}

/** The size and type fields of a Source RCON packet, as far as they are in: a login (type 3, what a client sends) or any other. */
function sourceRconPacketKind(head: Buffer): 'login' | 'answer' | undefined {
  if (head.length < 4) return undefined;
  const size = head.readInt32LE(0);
  if (size < MIN_PACKET_SIZE || size > DEFAULT_MAX_PACKET_SIZE) return undefined;
  if (head.length < HEADER_BYTES) return 'answer';
  const type = head.readInt32LE(8);
  if (type === SourceRconPacketType.AUTH) return 'login';
  return type === SourceRconPacketType.RESPONSE_VALUE || type === SourceRconPacketType.AUTH_RESPONSE ? 'answer' : undefined;
}

/**
 * The first line's printable ASCII, at most SAMPLE_CHARS of it, with the password (raw or percent-encoded: an echoed
 * WebSocket upgrade carries it in its path) replaced by `***`. A first line that did not end within what came may end
 * in the start of a password that was cut there: a tail that could be one is dropped.
 */
function sampleOf(text: string, password: string): string | undefined {
  const lineEnd = text.search(/[\r\n]/);
  let firstLine = passwordScrubber(password)(lineEnd === -1 ? text : text.slice(0, lineEnd));
  if (lineEnd === -1) firstLine = withoutPasswordStart(firstLine, password);
  const printable = firstLine.replace(/[^\x20-\x7e]/g, '').trim();
  if (printable === '') return undefined;
  return printable.length > SAMPLE_CHARS ? `${printable.slice(0, SAMPLE_CHARS)}…` : printable;
}

/** `text` without a tail that is the start of the password (compared as the scrubber does, ignoring case). */
function withoutPasswordStart(text: string, password: string): string {
  const lower = text.toLowerCase();
  const secret = password.toLowerCase();
  for (let length = Math.min(secret.length, text.length); length > 0; length -= 1) {
    if (lower.endsWith(secret.slice(0, length))) return text.slice(0, text.length - length);
  }
  return text;
}

/** Enough is in to say what it is: a binary header, a whole first line of text, or as much as is kept. */
function describable(head: Buffer): boolean {
  const text = decodeLine(head);
  if (!isText(text)) return head.length >= HEADER_BYTES;
  return head.includes(0x0a) || head.length >= FIRST_BYTES_KEPT || /^please enter password:/i.test(text.trimStart());
}

function appendKept(head: Buffer, chunk: Buffer): Buffer {
  return head.length >= FIRST_BYTES_KEPT ? head : Buffer.concat([head, chunk.subarray(0, FIRST_BYTES_KEPT - head.length)]);
}

/**
 * The gate in front of a connection's Source RCON decoder until the first packet header is in. A size of 10 to the
 * cap and the type of a login answer (0 or 2) pass everything held to the decoder; anything else is another protocol,
 * judged once it can be described. Text never passes: its first four bytes read as a size of at least 512 MiB.
 */
export class SourceRconFirstAnswer {
  readonly #context: WrongProtocolContext;
  readonly #maxPacketSize: number;
  #held: Buffer[] = [];
  #head: Buffer = Buffer.alloc(0);
  #passed = false;

  constructor(context: WrongProtocolContext, maxPacketSize: number = DEFAULT_MAX_PACKET_SIZE) {
    this.#context = context;
    this.#maxPacketSize = maxPacketSize;
  }

  /** What the decoder gets: the chunk once passed, all that was held when the header passes, nothing yet, or the verdict. */
  push(chunk: Buffer): Buffer | RconWrongProtocolError | undefined {
    if (this.#passed) return chunk;
    this.#head = appendKept(this.#head, chunk);
    const verdict = this.#verdict();
    if (verdict === 'fits') {
      this.#passed = true;
      const all = Buffer.concat([...this.#held, chunk]);
      this.#held = [];
      this.#head = Buffer.alloc(0);
      return all;
    }
    // Only a header still coming needs the bytes themselves; a foreign answer is kept as its head alone.
    if (verdict === 'undecided') {
      this.#held.push(chunk);
      return undefined;
    }
    this.#held = [];
    return describable(this.#head) ? this.#error() : undefined;
  }

  /** The connection ended, or its login timed out, before a header passed: a verdict on what came, if it can be one. */
  atEnd(): RconWrongProtocolError | undefined {
    if (this.#passed || this.#head.length === 0) return undefined;
    return this.#verdict() === 'foreign' || this.#head.length < 4 ? this.#error() : undefined;
  }

  #verdict(): 'fits' | 'foreign' | 'undecided' {
    const head = this.#head;
    if (head.length < 4) return 'undecided';
    const size = head.readInt32LE(0);
    if (size < MIN_PACKET_SIZE || size > this.#maxPacketSize) return 'foreign';
    if (head.length < HEADER_BYTES) return 'undecided';
    const type = head.readInt32LE(8);
    return type === SourceRconPacketType.RESPONSE_VALUE || type === SourceRconPacketType.AUTH_RESPONSE ? 'fits' : 'foreign';
  }

  #error(): RconWrongProtocolError {
    return wrongProtocolError(this.#context, describeFirstBytes(this.#head, this.#context.password));
  }
}

/**
 * Watches what a telnet port sends before its password prompt (the bytes also go to the line framer, which never
 * logs them). 7DTD starts with the prompt, or its banner when it has no password: binary, HTTP or an SSH greeting
 * there is another protocol at once; other text only once the login times out or the connection ends.
 */
export class TelnetFirstAnswer {
  readonly #context: WrongProtocolContext;
  #head: Buffer = Buffer.alloc(0);
  #sevenDays = false;

  constructor(context: WrongProtocolContext) {
    this.#context = context;
  }

  /** Each chunk read while the prompt is awaited; the verdict once what came cannot be a 7DTD console. */
  observe(chunk: Buffer): RconWrongProtocolError | undefined {
    if (this.#sevenDays || this.#head.length >= FIRST_BYTES_KEPT) return undefined;
    this.#head = appendKept(this.#head, chunk);
    const text = decodeLine(this.#head);
    const start = text.trimStart().toLowerCase();
    if (SEVEN_DAYS_FIRST_LINES.some((line) => start.startsWith(line))) {
      // Its own first line: the login logic takes it from here.
      this.#sevenDays = true;
      return undefined;
    }
    // The start of it, split over reads: wait for the rest.
    if (start !== '' && SEVEN_DAYS_FIRST_LINES.some((line) => line.startsWith(start))) return undefined;
    const foreign = !isText(text) || NOT_TELNET.some((pattern) => pattern.test(text.trimStart()));
    return foreign && describable(this.#head) ? this.#error() : undefined;
  }

  /** The login timed out or the connection ended before the prompt: other text (or any bytes) is another protocol. */
  atEnd(): RconWrongProtocolError | undefined {
    if (this.#sevenDays || decodeLine(this.#head).trim() === '') return undefined;
    const start = decodeLine(this.#head).trimStart().toLowerCase();
    if (SEVEN_DAYS_FIRST_LINES.some((line) => line.startsWith(start))) return undefined;
    return this.#error();
  }

  #error(): RconWrongProtocolError {
    return wrongProtocolError(this.#context, describeFirstBytes(this.#head, this.#context.password));
  }
}

/**
 * An HTTP status that says "a web server, not a WebSocket endpoint". Not: 401 and 403 (a proxy refusing the password),
 * 408, 429 and 5xx (a proxy whose backend is busy or down: the port may well be right).
 */
export function isForeignHttpStatus(status: number | undefined): boolean {
  if (status === undefined) return false;
  return status >= 200 && status < 500 && ![401, 403, 408, 429].includes(status);
}

/**
 * Says a wrong-protocol verdict at warn once, and its repeats at debug, until a login works. One per client (an
 * adapter's life); a reload that changes the adapter builds a new client, and so starts over.
 */
export class WrongProtocolNotice {
  #said = false;

  /** True for a wrong-protocol verdict already said since the last login (log it at debug); marks it said. */
  isRepeat(error: RconError): boolean {
    if (error.code !== 'wrong_protocol') return false;
    const repeat = this.#said;
    this.#said = true;
    return repeat;
  }

  loggedIn(): void {
    this.#said = false;
  }
}
