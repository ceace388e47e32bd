// The stray-packet log of one Source RCON client: a packet before the login answer, a late reply of a command that
// timed out, a reply for an id no command carries. Each kind is logged once, then summed up once per interval
// (RepeatSummary), so a broken or hostile server that floods strays costs a bounded number of log lines.
// It must never: write one log line per stray packet, log a packet's body (before the login it may be anything), or
// decide what becomes of the packet (the client hands it on or drops it).
import { RepeatSummary, type RepeatSummaryReport } from '../../src/log/repeatSummary.js';
import type { Clock } from '../../src/time/clock.js';
import type { SourceRconPacket } from './sourceRconCodec.js';
import { formatMs } from './sessionLifecycle.js';
import type { RconLogger } from './sourceRconOptions.js';

/** What can repeat without bound from a broken or hostile server, each logged once then summed up. */
type StrayPacketKind = 'unknown_id' | 'late_reply' | 'before_login';

export class SourceRconStrayLog {
  readonly #label: string;
  readonly #logger: RconLogger;
  readonly #strays: RepeatSummary<StrayPacketKind>;

  constructor(label: string, logger: RconLogger, intervalMs: number | undefined, clock: Clock) {
    this.#label = label;
    this.#logger = logger;
    this.#strays = new RepeatSummary<StrayPacketKind>({
      intervalMs,
      clock,
      onSummary: (report) => {
        this.#summarize(report);
      },
    });
  }

  /** SRCDS sends an empty RESPONSE_VALUE before the AUTH_RESPONSE: not an answer yet. */
  beforeLogin(packet: SourceRconPacket): void {
    if (this.#strays.first('before_login')) {
      this.#logger.debug({ id: packet.id, type: packet.type, bytes: packet.body.length }, `RCON ${this.#label}: packet before the login answer ignored`);
    }
  }

  lateReply(packet: SourceRconPacket): void {
    if (this.#strays.first('late_reply')) {
      this.#logger.debug({ id: packet.id, bytes: packet.body.length }, `RCON ${this.#label}: late reply for a command that timed out, dropped`);
    }
  }

  unknownId(packet: SourceRconPacket): void {
    if (this.#strays.first('unknown_id')) {
      this.#logger.warn(
        { id: packet.id, bytes: packet.body.length, code: 'protocol' },
        `RCON ${this.#label}: reply for an unknown id ${packet.id}, dropped (repeats are summed up every ${formatMs(this.#strays.intervalMs)})`,
      );
    }
  }

  /** Tells what was counted and not yet told; from then on every stray is logged in full. */
  close(): void {
    this.#strays.close();
  }

  #summarize(report: RepeatSummaryReport<StrayPacketKind>): void {
    const fields = { kind: report.kind, repeats: report.repeats, sinceMs: report.sinceMs };
    const since = formatMs(report.sinceMs);
    switch (report.kind) {
      case 'unknown_id':
        this.#logger.warn({ ...fields, code: 'protocol' }, `RCON ${this.#label}: ${report.repeats} more replies for unknown ids dropped in the last ${since}`);
        return;
      case 'late_reply':
        this.#logger.debug(fields, `RCON ${this.#label}: ${report.repeats} more late replies dropped in the last ${since}`);
        return;
      case 'before_login':
        this.#logger.debug(fields, `RCON ${this.#label}: ${report.repeats} more packets before the login answer ignored in the last ${since}`);
        return;
    }
  }
}
