// The bridge's port for recording what moves money before it moves: a shop order or a token spend is written durably
// (what, who, when) before it is sent, and its fate after, so a host can settle a dispute (`gsa-bridge orders list`)
// and a restart can never send it again. The ledger (src/ledger) satisfies it; the bridge sends.
// It must never send anything, and never answer `begin` before the record is on disk.

import type { MoneyOrigin, MoneyOutcome, PlayerIdentity } from './port.js';

/** What is about to be asked of GSA. */
export type MoneyRequest =
  | { readonly kind: 'order'; readonly server: string; readonly player: PlayerIdentity; readonly item: number; readonly origin: MoneyOrigin }
  | { readonly kind: 'tokens'; readonly server: string; readonly player: PlayerIdentity; readonly amount: number; readonly origin: MoneyOrigin };

export interface MoneyLedger {
  /**
   * Records the request durably; resolves with its id once fsynced, so it may be sent. Rejects with a
   * MoneyNotRecordedError when it could not be recorded (then it must not be sent).
   */
  begin(request: MoneyRequest): Promise<{ readonly id: string }>;
  /** Records the request's fate (never rejects: a failure is logged, and the record then reads as unconfirmed). */
  settle(id: string, outcome: MoneyOutcome): Promise<void>;
}

/** The ledger could not record a money request: nothing was sent and nothing spent. */
export abstract class MoneyNotRecordedError extends Error {
  abstract readonly code: string;
}
