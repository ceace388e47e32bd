// Every error the bridge core throws, one class per failure, each with a stable `code` (a class field, as in
// undici): callers branch on `code`, never on message text, and a code once used is never given another meaning.
// Refusals are the bridge saying no to an adapter's request; each adapter maps them onto its own wire codes
// (adapters/websocket/wireCodes.ts). Messages say what went wrong and what to do, and never name a config key:
// the composition root or the CLI adds that context for hosts.

import type { LockHolder } from '../datadir/lockRecord.js';

/** Every refusal code the bridge uses. Never reuse or rename one: adapters map them to their wire codes. */
export type BridgeRefusalCode = 'bad_input' | 'cooldown' | 'action_not_allowed' | 'no_gameserver_id' | 'unavailable';

/** The bridge refused an adapter's request; nothing was stored or sent. */
export abstract class BridgeRefusal extends Error {
  abstract readonly code: BridgeRefusalCode;
  /** The request field at fault, when one is (`stars`, `comment`, `action`). */
  readonly path: string | undefined;

  constructor(message: string, path?: string) {
    super(message);
    this.name = new.target.name;
    this.path = path;
  }
}

/** Input the bridge will not take (stars out of range, a comment too long). `path` names the field. */
export class BadInputRefusal extends BridgeRefusal {
  readonly code = 'bad_input';
}

/** The player is within the review cooldown. */
export class CooldownRefusal extends BridgeRefusal {
  readonly code = 'cooldown';
}

/** The host did not allow this server action. */
export class ActionNotAllowedRefusal extends BridgeRefusal {
  readonly code = 'action_not_allowed';
}

/** Server actions need the server's GAMESERVER_ID, and none is set (the CLI names the key: servers[].id). */
export class NoGameserverIdRefusal extends BridgeRefusal {
  readonly code = 'no_gameserver_id';
}

/** The sidecar cannot take it right now (shutting down, the journal cannot be written): send it again later. */
export class UnavailableRefusal extends BridgeRefusal {
  readonly code = 'unavailable';
}

/**
 * A player known only by a Mojang id (Minecraft) cannot be looked up: GSA's mod API takes no Mojang id and no System
 * API lookup was given to the bridge. The gate's policy then decides (reason "unknown").
 */
export class MojangLookupMissingError extends Error {
  readonly code = 'mojang_lookup_missing';

  constructor() {
    super("a Minecraft player (Mojang id only) cannot be checked for a mute: GSA's mod API takes no Mojang id; configure api.system (GSA's System API) for Minecraft servers");
    this.name = 'MojangLookupMissingError';
  }
}

export type ReviewOutboxErrorCode =
  /** The outbox was closed (the sidecar is shutting down); nothing was stored. */
  | 'closed'
  /** The review cannot be stored as given (e.g. no steam_id or eos_id); a caller bug, nothing was stored. */
  | 'invalid'
  /** The journal could not be written or fsynced; nothing was acknowledged. */
  | 'storage';

/** Why `enqueue` (or a re-queue) refused a review. In every case the review was not stored and must not be acknowledged. */
export abstract class ReviewOutboxError extends Error {
  abstract readonly code: ReviewOutboxErrorCode;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The outbox was closed (the sidecar is shutting down). */
export class OutboxClosedError extends ReviewOutboxError {
  readonly code = 'closed';
}

/** The review cannot be stored as given: a caller bug. */
export class UnstorableReviewError extends ReviewOutboxError {
  readonly code = 'invalid';
}

/** The journal could not be written or fsynced. */
export class JournalWriteError extends ReviewOutboxError {
  readonly code = 'storage';
}

export type DataDirLockErrorCode =
  /** Another live process holds the directory. */
  | 'locked'
  /** The lock could not be taken or asked for another reason (permissions, a path that is not a directory). */
  | 'unavailable';

export abstract class DataDirLockError extends Error {
  abstract readonly code: DataDirLockErrorCode;
  /** What the holder said about itself; undefined when it did not answer. */
  readonly holder: LockHolder | undefined;

  constructor(message: string, holder?: LockHolder, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.holder = holder;
  }
}

/** Another live process holds the directory. */
export class DataDirLockedError extends DataDirLockError {
  readonly code = 'locked';
}

/** The lock could not be taken or asked for another reason (permissions, a path that is not a directory). */
export class DataDirUnavailableError extends DataDirLockError {
  readonly code = 'unavailable';
}
