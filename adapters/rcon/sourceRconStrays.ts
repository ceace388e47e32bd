// The log lines for stray Source RCON packets (a reply for an unknown id, a late reply, a packet before the login
// answer): each kind is logged once, then its repeats are summed up once an interval (RepeatSummary), so a broken or
// hostile server costs a bounded number of log lines.
// It must never: write one line per stray packet, or log a packet's body (it may be anything, even an echo).
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

  unknownId(packet: SourceRconPacket): void {
    if (!this.#strays.first('unknown_id')) return;
    this.#logger.warn(
      { id: packet.id, bytes: packet.body.length, code: 'protocol' },
      `RCON ${this.#label}: reply for an unknown id ${packet.id}, dropped (repeats are summed up every ${formatMs(this.#strays.intervalMs)})`,
    );
  }

  lateReply(packet: SourceRconPacket): void {
    if (!this.#strays.first('late_reply')) return;
    this.#logger.debug({ id: packet.id, bytes: packet.body.length }, `RCON ${this.#label}: late reply for a command that timed out, dropped`);
  }

  beforeLogin(packet: SourceRconPacket): void {
    if (!this.#strays.first('before_login')) return;
    this.#logger.debug({ id: packet.id, type: packet.type, bytes: packet.body.length }, `RCON ${this.#label}: packet before the login answer ignored`);
  }

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
