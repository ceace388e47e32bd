// The reply assembly of one Source RCON client: which command a RESPONSE_VALUE packet belongs to, and where a reply
// ends. A reply may span packets and the protocol does not say which is the last, so each game has its rule
// (ReplyEndRule): `mirror` (the empty RESPONSE_VALUE sent after the command comes back after the whole reply, then a
// 00 01 00 00 trailer), `quiet` (no packet for quietMs, a short packet, a later command's reply, or a close), `single`.
// It must never: add a packet to a command whose id it does not carry, let one answer pass maxReplyBytes (the
// command fails with reply_too_large instead), take a mirror's trailer or a timed-out command's late reply for a
// stranger, or log or end the session (the client decides what a stray or a cut answer costs).
import { RconReplyTooLargeError } from './errors.js';
import { formatBytes } from './sessionLifecycle.js';
import type { SourceRconPacket } from './sourceRconCodec.js';
import type { PendingCommand, SourceRconCommandTable } from './sourceRconCommands.js';
import type { ReplyEndRule } from './sourceRconOptions.js';

/** The body of the packet SRCDS sends after mirroring the empty RESPONSE_VALUE. */
const MIRROR_TRAILER = Buffer.from([0x00, 0x01, 0x00, 0x00]);

/**
 * What became of one RESPONSE_VALUE packet: `taken` (a part of an answer, a mirror or a trailer), `late` (a
 * command's that timed out), `unknown_id`, or the error that cut its command's answer, which would have passed
 * maxReplyBytes (the command has failed with it, the packet was not added; the client ends the session with it).
 * Plain strings otherwise, so routing a packet allocates nothing.
 */
export type ReplyRoute = 'taken' | 'late' | 'unknown_id' | RconReplyTooLargeError;

export class SourceRconReplyAssembly {
  readonly #label: string;
  readonly #commands: SourceRconCommandTable;
  readonly #rule: ReplyEndRule;
  readonly #quietMs: number;
  readonly #maxReplyBytes: number;

  constructor(label: string, commands: SourceRconCommandTable, rule: ReplyEndRule, maxReplyBytes: number) {
    this.#label = label;
    this.#commands = commands;
    this.#rule = rule;
    this.#quietMs = rule.kind === 'quiet' ? (rule.quietMs ?? 75) : 0;
    this.#maxReplyBytes = maxReplyBytes;
  }

  /** The rule sends an empty RESPONSE_VALUE after each command. */
  get mirrors(): boolean {
    return this.#rule.kind === 'mirror';
  }

  /** Routes one RESPONSE_VALUE packet of a logged-in session: to its command's answer, its mirror, or names it a stray. */
  take(packet: SourceRconPacket): ReplyRoute {
    const commands = this.#commands;
    const owner = commands.owner(packet.id);
    if (owner !== undefined) {
      if (owner.bytes + packet.body.length > this.#maxReplyBytes) return this.#cut(owner);
      commands.addPart(owner, packet.body);
      this.#onPart(owner, packet);
      return 'taken';
    }
    const mirrored = commands.mirrored(packet.id);
    if (mirrored !== undefined) {
      // The mirror (or, from a server that skips the empty echo, the trailer) closes the reply before it.
      if (!packet.body.equals(MIRROR_TRAILER)) commands.awaitTrailer(packet.id);
      commands.finish(mirrored);
      return 'taken';
    }
    if (commands.takeTrailer(packet.id)) return 'taken';
    return commands.isLate(packet.id) ? 'late' : 'unknown_id';
  }

  /** The connection closed (not by close()): under a quiet rule that ends at a close, every begun answer is whole. */
  sessionClosed(): void {
    const rule = this.#rule;
    if (rule.kind !== 'quiet' || rule.endsAtClose !== true) return;
    for (const pending of [...this.#commands.inFlight()]) if (pending.parts.length > 0) this.#commands.finish(pending);
  }

  #cut(owner: PendingCommand): RconReplyTooLargeError {
    const error = new RconReplyTooLargeError(
      `the RCON server of ${this.#label} sent more than ${formatBytes(this.#maxReplyBytes)} (maxReplyBytes) for one command's answer: the answer was cut and the connection is dropped; it is made again with the normal backoff`,
    );
    this.#commands.fail(owner, error);
    return error;
  }

  #onPart(owner: PendingCommand, packet: SourceRconPacket): void {
    const rule = this.#rule;
    if (rule.kind === 'single') {
      this.#commands.finish(owner);
      return;
    }
    if (rule.kind === 'mirror') return;
    // Replies come back in order: a packet for this command ends every earlier one that has begun.
    for (const earlier of this.#commands.inFlight()) {
      if (earlier === owner) break;
      if (earlier.parts.length > 0) this.#commands.finish(earlier);
    }
    if (rule.endsBelowBodyBytes !== undefined && packet.body.length < rule.endsBelowBodyBytes) {
      this.#commands.finish(owner);
      return;
    }
    clearTimeout(owner.quietTimer);
    owner.quietTimer = setTimeout(() => {
      owner.quietTimer = undefined;
      this.#commands.finish(owner);
    }, this.#quietMs);
  }
}
