// The bridge's port for keeping a player's report until GSA has it: what the bridge needs from the durable report
// outbox (src/ledger) and nothing more, so the core names no storage module. A report, like a review, is stored before
// it is acknowledged and is never sent twice when a first send may have landed (it is listed instead).
// It must never describe how a report is stored or delivered: that is the store's job.

import type { ReportRequest } from './port.js';
import { ReviewNotStoredError } from './reviewStore.js';

/** A report the bridge admitted (its comment cleaned), to be stored byte-exact and sent as it is; routed back by `origin`. */
export interface ReportToStore extends ReportRequest {
  /** GSA container name. */
  readonly server: string;
}

export interface ReportStore {
  /** Reports stored and not yet settled with GSA. */
  readonly pending: number;
  /**
   * Stores the report durably before it resolves with the store's id for it. Rejects with a ReportNotStoredError when
   * it was not stored (the player may send it again); any other rejection is a bug and is not caught.
   */
  enqueue(report: ReportToStore): Promise<{ readonly id: string }>;
}

/** Why a store refused a report; nothing was stored and nothing may be acknowledged. */
export abstract class ReportNotStoredError extends ReviewNotStoredError {}
