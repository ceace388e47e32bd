// Rust WebRCON envelopes on the wire, both ways, as the Rust server sends them (checked against the decompiled
// server: Facepunch.RCon.Response {Message, Identifier, Type, Stacktrace}; JSON written by Newtonsoft with
// indentation). A chat message's inner JSON is the rust profile's to read (profiles/rustLines.ts). Pure, no I/O.
// Must never throw on what a server sends: every malformed input becomes a result the caller logs and drops.

/** What the client sends: `{"Identifier":n,"Message":"cmd","Name":"WebRcon"}`. */
export function encodeWebRconCommand(identifier: number, command: string, name = 'WebRcon'): string {
  return JSON.stringify({ Identifier: identifier, Message: command, Name: name });
}

/** Rust's RCon.LogType names; other strings are passed through as they come. */
export type WebRconMessageType = 'Generic' | 'Error' | 'Warning' | 'Chat' | 'Report' | 'ClientPerf' | 'Subscription' | (string & {});

/** One message from the server, outer envelope only. */
export interface WebRconInbound {
  /** The command's Identifier for a reply; 0 for console output outside a command; -1 for broadcasts (chat …). */
  readonly identifier: number;
  readonly message: string;
  readonly type: WebRconMessageType;
  readonly stacktrace: string | undefined;
}

export type ParseResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses the outer envelope. A missing Identifier counts as 0 (console output), a missing Type as Generic. */
export function parseWebRconMessage(text: string): ParseResult<WebRconInbound> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (!isRecord(parsed)) return { ok: false, reason: 'not a JSON object' };
  const identifier = parsed['Identifier'] ?? 0;
  if (typeof identifier !== 'number' || !Number.isInteger(identifier)) return { ok: false, reason: 'Identifier is not an integer' };
  const message = parsed['Message'] ?? '';
  if (typeof message !== 'string') return { ok: false, reason: 'Message is not a string' };
  const type = parsed['Type'] ?? 'Generic';
  if (typeof type !== 'string') return { ok: false, reason: 'Type is not a string' };
  const stacktrace = parsed['Stacktrace'];
  return { ok: true, value: { identifier, message, type, stacktrace: typeof stacktrace === 'string' ? stacktrace : undefined } };
}
