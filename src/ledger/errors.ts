// The ledger's errors: why a report was not stored, or a money request not recorded. Each class has a stable `code`
// callers branch on; they extend the bridge's port errors (ReportNotStoredError, MoneyNotRecordedError), which is all
// the core needs to know of them. Messages never carry a report's comment, a player's words or a secret.

import { MoneyNotRecordedError } from '../bridge/moneyLedger.js';
import { ReportNotStoredError } from '../bridge/reportStore.js';

export type LedgerErrorCode =
  /** The store was closed (the sidecar is shutting down); nothing was stored. */
  | 'closed'
  /** The record cannot be stored as given (it would not read back: a caller bug); nothing was stored. */
  | 'invalid'
  /** The file could not be written or fsynced; nothing may be acknowledged or sent. */
  | 'storage';

/** Why `ReportOutbox.enqueue` refused a report: it was not stored and must not be acknowledged. */
export abstract class ReportOutboxError extends ReportNotStoredError {
  abstract override readonly code: LedgerErrorCode;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class ReportOutboxClosedError extends ReportOutboxError {
  readonly code = 'closed';
}

export class UnstorableReportError extends ReportOutboxError {
  readonly code = 'invalid';
}

export class ReportJournalWriteError extends ReportOutboxError {
  readonly code = 'storage';
}

/** Why `MoneyRecords.begin` refused a request: nothing was recorded, so nothing may be sent or spent. */
export abstract class MoneyRecordsError extends MoneyNotRecordedError {
  abstract override readonly code: LedgerErrorCode;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class MoneyRecordsClosedError extends MoneyRecordsError {
  readonly code = 'closed';
}

export class UnrecordableMoneyRequestError extends MoneyRecordsError {
  readonly code = 'invalid';
}

export class MoneyRecordWriteError extends MoneyRecordsError {
  readonly code = 'storage';
}
