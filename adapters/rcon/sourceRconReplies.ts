// How a Source RCON reply is put together and where it ends. A reply may span packets, and the protocol does not say
// which is the last, so each game has its rule: `mirror` (an empty RESPONSE_VALUE sent after the command comes back
// after the whole reply, SRCDS's trick, then a 00 01 00 00 trailer), `quiet` (the reply ends once no packet came for
// quietMs, or at a short packet, or when a later command's reply begins), `single` (one packet is the reply).
// It must never: add a packet to a command whose id it does not carry, let one answer pass maxReplyBytes, take a
// mirror's trailer or a timed-out command's late reply for a stranger, or log (the client decides what a stray costs).
import type { SourceRconCommandTable, PendingCommand } from './sourceRconCommands.js';
import type { SourceRconPacket } from './sourceRconCodec.js';
import type { ReplyEndRule } from './sourceRconOptions.js';

/** The body of the packet SRCDS sends after mirroring the empty RESPONSE_VALUE. */
const MIRROR_TRAILER = Buffer.from([0x00, 0x01, 0x00, 0x00]);

/** What became of one RESPONSE_VALUE packet. */
export type ReplyRoute =
  | { readonly kind: 'taken' }
  /** The owner's answer would pass maxReplyBytes: the packet was not added. */
  | { readonly kind: 'too_large'; readonly owner: PendingCommand }
  /** For a command that timed out. */
  | { readonly kind: 'late' }
  | { readonly kind: 'unknown_id' };

const TAKEN: ReplyRoute = { kind: 'taken' };

export class SourceRconReplyAssembly {
  readonly #table: SourceRconCommandTable;
  readonly #rule: ReplyEndRule;
  readonly #quietMs: number;
  readonly #maxReplyBytes: number;

  constructor(table: SourceRconCommandTable, rule: ReplyEndRule, maxReplyBytes: number) {
    this.#table = table;
    this.#rule = rule;
    this.#quietMs = rule.kind === 'quiet' ? (rule.quietMs ?? 75) : 0;
    this.#maxReplyBytes = maxReplyBytes;
  }

  /** The rule sends a mirror packet after each command. */
  get mirrors(): boolean {
    return this.#rule.kind === 'mirror';
  }

  get maxReplyBytes(): number {
    return this.#maxReplyBytes;
  }

  /** Routes one RESPONSE_VALUE packet of a logged-in session to its command, its mirror, or names it a stray. */
  take(packet: SourceRconPacket): ReplyRoute {
    const table = this.#table;
    const owner = table.owner(packet.id);
    if (owner !== undefined) {
      if (owner.bytes + packet.body.length > this.#maxReplyBytes) return { kind: 'too_large', owner };
      table.addPart(owner, packet.body);
      this.#onPart(owner, packet);
      return TAKEN;
    }
    const mirrored = table.mirrored(packet.id);
    if (mirrored !== undefined) {
      // The mirror (or, from a server that skips the empty echo, the trailer) closes the reply before it.
      if (!packet.body.equals(MIRROR_TRAILER)) table.awaitTrailer(packet.id);
      table.finish(mirrored);
      return TAKEN;
    }
    if (table.takeTrailer(packet.id)) return TAKEN;
    return table.isLate(packet.id) ? { kind: 'late' } : { kind: 'unknown_id' };
  }

  /** The connection closed (not by close()): under a quiet rule that ends at close, begun answers are whole. */
  sessionClosed(): void {
    if (this.#rule.kind !== 'quiet' || this.#rule.endsAtClose !== true) return;
    for (const pending of [...this.#table.inFlight()]) if (pending.parts.length > 0) this.#table.finish(pending);
  }

  #onPart(owner: PendingCommand, packet: SourceRconPacket): void {
    const rule = this.#rule;
    if (rule.kind === 'single') {
      this.#table.finish(owner);
      return;
    }
    if (rule.kind === 'mirror') return;
    // Replies come back in order: a packet for this command ends every earlier one that has begun.
    for (const earlier of this.#table.inFlight()) {
      if (earlier === owner) break;
      if (earlier.parts.length > 0) this.#table.finish(earlier);
    }
    if (rule.endsBelowBodyBytes !== undefined && packet.body.length < rule.endsBelowBodyBytes) {
      this.#table.finish(owner);
      return;
    }
    clearTimeout(owner.quietTimer);
    owner.quietTimer = setTimeout(() => {
      owner.quietTimer = undefined;
      this.#table.finish(owner);
    }, this.#quietMs);
  }
}
