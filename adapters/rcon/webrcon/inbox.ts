// The WebRCON message side of one Rust client: command Identifiers (Rust int32s, never 0 or -1, which are the
// server's own), the commands waiting for their reply, and what an inbound frame is (a reply matched by Identifier,
// a pushed chat line parsed from its inner JSON, or console output). Stray and malformed frames are logged once,
// then summed up (RepeatSummary). The session (socket, keepalive, reconnects) is webRconClient.ts's.
// It must never: hand a reply to any command but the one whose Identifier it carries, throw on a frame, or let a
// waiting command outlive its timeout.
import { RepeatSummary, type RepeatSummaryReport } from '../../../src/log/repeatSummary.js';
import { RconDisconnectedError, RconProtocolError, RconTimeoutError } from '../errors.js';
import { parseRustChat } from '../profiles/rustLines.js';
import type { RustChatMessage, WebRconLogger } from './clientOptions.js';
import { parseWebRconMessage, type WebRconInbound } from './wire.js';

interface PendingCommand {
  readonly resolve: (text: string) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
  readonly silentOk: boolean;
}

/** What a broken or hostile server can repeat without bound; each is logged once, then summed up. */
type StrayMessageKind = 'binary' | 'not_webrcon' | 'unreadable_chat' | 'unknown_identifier' | 'stale_reply';

// Far beyond any session's life, but never overflow an int32.
const MAX_IDENTIFIER = 2_147_483_647;

export interface WebRconInboxEvents {
  readonly onChat?: ((chat: RustChatMessage) => void) | undefined;
  readonly onConsole?: ((message: WebRconInbound) => void) | undefined;
  /** A command was answered: the session answers (its first answer makes it ready). */
  readonly onAnswer: () => void;
  /** Runs an owner callback so that its throw is logged, never let loose. */
  readonly call: (name: string, run: () => void) => void;
}

export class WebRconInbox {
  readonly #label: string;
  readonly #logger: WebRconLogger;
  readonly #events: WebRconInboxEvents;
  readonly #strays: RepeatSummary<StrayMessageKind>;
  readonly #pending = new Map<number, PendingCommand>();
  #nextIdentifier = 1;

  constructor(label: string, logger: WebRconLogger, repeatSummaryIntervalMs: number | undefined, events: WebRconInboxEvents) {
    this.#label = label;
    this.#logger = logger;
    this.#events = events;
    this.#strays = new RepeatSummary<StrayMessageKind>({
      intervalMs: repeatSummaryIntervalMs,
      onSummary: (report) => {
        this.#summarizeStrays(report);
      },
    });
  }

  /** Commands sent and still waiting for their answer. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /**
   * Waits for the reply to `identifier`: its message, or at `timeoutMs` '' (silentOk: Rust answers a working mute
   * with nothing) or a timeout error. Register it before sending, so no reply can come first.
   */
  expect(identifier: number, timeoutMs: number, silentOk: boolean): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.#pending.delete(identifier)) return;
        if (silentOk) resolve('');
        else reject(new RconTimeoutError(`rust webrcon of adapter ${this.#label}: no answer to a command within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(identifier, { resolve, reject, timer, silentOk });
    });
  }

  /** The command could not be sent: it fails now, not at its timeout. */
  sendFailed(identifier: number, detail: string): void {
    const pending = this.#pending.get(identifier);
    if (pending === undefined) return;
    this.#pending.delete(identifier);
    clearTimeout(pending.timer);
    pending.reject(new RconDisconnectedError(`rust webrcon of adapter ${this.#label}: the command could not be sent: ${detail}`, false));
  }

  /** A binary frame: WebRCON is text only. */
  binary(): void {
    if (this.#strays.first('binary')) {
      this.#logger.warn({ code: 'protocol' }, `rust webrcon of adapter ${this.#label} sent a binary frame; dropped${this.#repeatNote()}`);
    }
  }

  close(): void {
    this.#strays.close();
  }

  /** One text frame from the server: a reply to a command, pushed chat, or console output. */
  receive(text: string): void {
    const parsed = parseWebRconMessage(text);
    if (!parsed.ok) {
      if (this.#strays.first('not_webrcon')) {
        this.#logger.warn({ code: 'protocol', bytes: text.length }, `rust webrcon of adapter ${this.#label} sent a message that is not WebRCON (${parsed.reason}); dropped${this.#repeatNote()}`);
      }
      return;
    }
    const message = parsed.value;
    if (message.identifier > 0) {
      this.#onReply(message);
      return;
    }
    if (message.type === 'Chat') {
      const chat = parseRustChat(message.message);
      if (!chat.ok) {
        if (this.#strays.first('unreadable_chat')) {
          const error = new RconProtocolError(`rust webrcon of adapter ${this.#label} sent a chat message that cannot be read (${chat.reason}); dropped${this.#repeatNote()}`);
          this.#logger.warn({ code: error.code, bytes: message.message.length }, error.message);
        }
        return;
      }
      this.#events.call('onChat', () => this.#events.onChat?.(chat.chat));
      return;
    }
    this.#events.call('onConsole', () => this.#events.onConsole?.(message));
  }

  #onReply(message: WebRconInbound): void {
    const pending = this.#pending.get(message.identifier);
    if (pending === undefined) {
      // A late answer (its command timed out), a second line of a command's output, or someone else's identifier:
      // never anyone else's reply.
      const ours = message.identifier < this.#nextIdentifier;
      if (this.#strays.first(ours ? 'stale_reply' : 'unknown_identifier')) {
        this.#logger[ours ? 'debug' : 'warn'](
          { code: 'protocol', identifier: message.identifier },
          `rust webrcon of adapter ${this.#label}: a reply for ${ours ? 'a command no longer waiting' : 'an identifier this client never sent'} (${message.identifier}); dropped${this.#repeatNote()}`,
        );
      }
      return;
    }
    this.#pending.delete(message.identifier);
    clearTimeout(pending.timer);
    // Rust runs commands in order: an earlier command that allows silence and is still waiting printed nothing.
    for (const [identifier, earlier] of this.#pending) {
      if (identifier < message.identifier && earlier.silentOk) {
        this.#pending.delete(identifier);
        clearTimeout(earlier.timer);
        earlier.resolve('');
      }
    }
    this.#events.onAnswer();
    pending.resolve(message.message);
  }

  #repeatNote(): string {
    return ` (repeats are summed up every ${formatDelay(this.#strays.intervalMs)})`;
  }

  #summarizeStrays(report: RepeatSummaryReport<StrayMessageKind>): void {
    const what: Record<StrayMessageKind, string> = {
      binary: 'binary frames',
      not_webrcon: 'messages that are not WebRCON',
      unreadable_chat: 'chat messages that cannot be read',
      unknown_identifier: 'replies for identifiers this client never sent',
      stale_reply: 'replies for commands no longer waiting',
    };
    this.#logger[report.kind === 'stale_reply' ? 'debug' : 'warn'](
      { code: 'protocol', kind: report.kind, repeats: report.repeats, sinceMs: report.sinceMs },
      `rust webrcon of adapter ${this.#label}: ${report.repeats} more ${what[report.kind]} dropped in the last ${formatDelay(report.sinceMs)}`,
    );
  }

  takeIdentifier(): number {
    const identifier = this.#nextIdentifier;
    this.#nextIdentifier = identifier >= MAX_IDENTIFIER ? 1 : identifier + 1;
    return identifier;
  }

  /** Every waiting command fails (the session ended or the client closed). */
  failAll(makeError: () => Error): void {
    for (const [identifier, pending] of this.#pending) {
      this.#pending.delete(identifier);
      clearTimeout(pending.timer);
      pending.reject(makeError());
    }
  }
}

function formatDelay(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 1_000)} s`;
  return `${Math.round(ms / 60_000)} min`;
}
