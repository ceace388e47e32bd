// The review outbox's durable storage in its data directory: the journal `reviews.jsonl`, which records every
// accepted review and later its fate, and the letter files where reviews wait for a person: `dead-letter.jsonl`
// (refused by GSA) and `unconfirmed.jsonl` (GSA's answer was ambiguous; it may or may not have stored them).
// It must never acknowledge a record before it is fsynced, never append onto a torn line, never rewrite the
// journal in a way a crash could leave half-done, and never drop a pending review or a damaged line (a line that no
// longer reads as a record may be an acknowledged review: journalRepair.ts moves it to the quarantine file at start,
// and a compaction keeps any it could not move). It sends nothing.
// The record formats are in journalRecords.ts, reading a journal back in journalScan.ts, the letters a person
// reads in letters.ts.
//
// Durability: records are appended in groups (group commit). Whatever arrives while a write+fdatasync is in
// progress is written together and shares the next fdatasync, so 300 simultaneous reviews cost a handful of
// fsyncs, not 300. A `queued` record is acknowledged only after its group is fsynced. Fate records share the
// same groups but nobody waits for them before telling the player: losing one in a crash only means a re-send.
//
// Crash semantics (delivery is at-least-once): a review with no fate record on disk is pending and is sent again
// after a restart. That is the only way a duplicate can reach GSA: it stored the review, then the process died
// (SIGKILL, power loss) before `delivered` was fsynced, or close() gave up on a send still running after 5 s. The
// window is from GSA storing the review to the `delivered` fsync: one answer's way back plus one group commit.
// A `sending` record without a later `not_sent`, `held` or fate says the review was in flight when the process
// stopped: the reader reports it (`inFlight`), so the outbox counts its re-send as a possible duplicate. An
// ambiguous answer while running is journaled `unconfirmed` and never sent again unless a person re-queues it.
// No review leaves the journal before its letter is fsynced: a fate record is appended only after its letter.
// One process per data directory: the caller holds the directory's lock (src/datadir/dataDirLock.ts) before opening it;
// this module does not check.
//
// Compaction: once enough fate records accumulated (and on open when most lines are finished), the pending
// `queued` lines (with the `accepted` lines of the cooldown and the `delivered` lines of the last DELIVERED_HISTORY
// deliveries) are written to `reviews.jsonl.tmp`, fsynced, renamed over the journal, and the directory is fsynced
// before anything is appended again: a crash at any step leaves either the old or the new file whole.
//
// Delivered history: the last DELIVERED_HISTORY delivered reviews stay in the journal through compactions, one
// `delivered` line each (id, server, player ids and name, stars, times, receipt; no comment: about 220 bytes with a
// Steam id and a short name, at most about 700 with both ids, a 64-character name and a 200-character receipt), so
// `reviews list --state delivered` can answer "did my players' reviews arrive?" after restarts. The bound keeps the
// file from growing forever: at most the history plus the lines of one compaction interval.
//
// An fsync that fails makes the journal refuse further writes: after a failed fsync the kernel may have
// dropped the dirty pages and a later fsync can succeed without them, so only a restart (which re-reads the
// file) is trustworthy. Files are created 0600 and the directory 0700: reviews hold player ids.

import { open, readFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../time/clock.js';
import {
  FILE_MODE,
  appendDurably,
  describeError,
  isErrnoCode,
  makeDataDir,
  removeIfPresent,
  replaceByRename,
  syncDirectory,
  writeFully,
} from './durableFiles.js';
import {
  DEAD_LETTER_FILE,
  JOURNAL_FILE,
  UNCONFIRMED_FILE,
  acceptedLine,
  encodeFate,
  encodeQueued,
  encodeRecord,
  remember,
  toAccepted,
  toQueuedRecord,
  type AcceptedRecord,
  type AcceptedReview,
  type FailureReason,
  type HeldReview,
  type LetterKind,
  type OutboxReview,
  type QueuedRecord,
  type RequeueResult,
  type RequeueSelection,
  type ReviewFate,
  type ReviewLetter,
} from './journalRecords.js';
import { liveLineCount, liveLines, logScanProblems, scanJournal, type LiveReview, type ScanResult } from './journalScan.js';
import { moveDamagedRecords, type RepairedJournal } from './journalRepair.js';
import { currentLetters, readLetterFiles } from './letters.js';

export interface JournalOptions {
  /** Created (recursively, 0700) when missing. */
  readonly dataDir: string;
  readonly logger: Logger;
  /** Rewrite the journal once this many fate records were appended since the last rewrite. */
  readonly compactAfterFinished: number;
  /** Finished reviews younger than this keep an `accepted` record through compactions (the cooldown). Default 0. */
  readonly retainAcceptedMs?: number | undefined;
  /** Times of records and compaction; default the system clock (they are persisted, so wall-clock time). */
  readonly clock?: Clock | undefined;
}

export interface OpenedJournal {
  readonly journal: ReviewJournal;
  /** Reviews accepted earlier that have no fate yet, oldest first. */
  readonly pending: OutboxReview[];
  /** Ids among `pending` that were in flight when the journal was last written (a `sending` with no outcome). */
  readonly inFlight: ReadonlySet<string>;
  /** Reviews whose fate is journaled but whose letter still has to be written, oldest first. */
  readonly held: readonly HeldReview[];
  /** Every review the journal still knows was accepted (pending, finished, or kept for its cooldown), oldest first. */
  readonly accepted: readonly AcceptedReview[];
  /** Whole lines found damaged (no longer a record) at this open: moved to the quarantine file, or kept. */
  readonly damaged: number;
}

interface PendingWrite {
  readonly line: string;
  /** Updates the in-memory view once the line is durable. */
  readonly commit: () => void;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class ReviewJournal {
  readonly #dir: string;
  readonly #path: string;
  readonly #tmpPath: string;
  readonly #letterPaths: Readonly<Record<LetterKind, string>>;
  readonly #logger: Logger;
  readonly #compactAfter: number;
  readonly #retainAcceptedMs: number;
  readonly #clock: Clock;
  #handle: FileHandle | undefined;
  /** Bytes known to be whole records: where a failed write is cut back to. */
  #size: number;
  /** id → every review without a durable fate: what a compaction keeps. */
  readonly #live: Map<string, LiveReview>;
  /** id → acceptance of finished reviews, oldest first: kept through compactions while `retainAcceptedMs` lasts. */
  readonly #finished: Map<string, QueuedRecord | AcceptedRecord>;
  /** id → the `delivered` line of the last DELIVERED_HISTORY delivered reviews, in delivery order: kept by compactions. */
  readonly #delivered: Map<string, string>;
  #finishedSinceCompaction: number;
  /** Damaged lines the open could not move to the quarantine file: every compaction keeps them, byte for byte. */
  readonly #unmoved: Buffer;
  #waiting: PendingWrite[] = [];
  #writing = false;
  #drained: Promise<void> = Promise.resolve();
  #broken: Error | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  /** Letter writes in order, one file append at a time: what close() waits for. */
  #letters: Promise<void> = Promise.resolve();

  private constructor(options: JournalOptions, handle: FileHandle, scan: ScanResult, repaired: RepairedJournal) {
    this.#dir = path.resolve(options.dataDir);
    this.#path = path.join(this.#dir, JOURNAL_FILE);
    this.#tmpPath = `${this.#path}.tmp`;
    this.#letterPaths = { dead: path.join(this.#dir, DEAD_LETTER_FILE), unconfirmed: path.join(this.#dir, UNCONFIRMED_FILE) };
    this.#logger = options.logger;
    this.#compactAfter = options.compactAfterFinished;
    this.#retainAcceptedMs = options.retainAcceptedMs ?? 0;
    this.#clock = options.clock ?? systemClock;
    this.#handle = handle;
    this.#size = repaired.size;
    this.#unmoved = repaired.unmoved;
    this.#live = scan.live;
    this.#finished = scan.finished;
    this.#delivered = new Map([...scan.delivered].map(([id, entry]) => [id, entry.line]));
    this.#finishedSinceCompaction = scan.finishedReviews;
  }

  /** Reads and repairs the journal (see the header), compacts it when mostly finished, and opens it for appends. */
  static async open(options: JournalOptions): Promise<OpenedJournal> {
    const dir = path.resolve(options.dataDir);
    const file = path.join(dir, JOURNAL_FILE);
    const { logger } = options;
    await makeDataDir(dir);
    if (await removeIfPresent(`${file}.tmp`)) {
      logger.info({ file: `${file}.tmp` }, `removed ${file}.tmp left by a compaction that did not finish; ${file} is complete`);
    }

    let data: Buffer;
    let existed = true;
    try {
      data = await readFile(file);
    } catch (error) {
      if (!isErrnoCode(error, 'ENOENT')) throw error;
      data = Buffer.alloc(0);
      existed = false;
    }
    const scan = scanJournal(data);
    logScanProblems(logger, file, data.length, scan);
    const repaired = await moveDamagedRecords(file, data, scan, logger);

    const handle = await open(file, 'a', FILE_MODE);
    try {
      if (repaired.size < repaired.length) {
        await handle.truncate(repaired.size);
        await handle.datasync();
      }
      if (!existed) await syncDirectory(dir);
    } catch (error) {
      await handle.close();
      throw error;
    }
    const journal = new ReviewJournal(options, handle, scan, repaired);
    logger.info(
      { file, pending: scan.pending.length, finished: scan.finishedReviews },
      `review journal ${file}: ${scan.pending.length} pending reviews, ${scan.finishedReviews} finished`,
    );
    const accepted = [...scan.live.values()].map(({ record }) => toAccepted(record)).concat([...scan.finished.values()].map(toAccepted));
    accepted.sort((a, b) => a.at - b.at);
    const liveLineTotal = [...scan.live.values()].reduce((sum, entry) => sum + liveLineCount(entry), 0);
    const deadLines = scan.validLines - liveLineTotal - journal.#retainedAccepted().length - journal.#delivered.size;
    if (deadLines > 0 && deadLines >= scan.live.size) await journal.#compact();
    return { journal, pending: scan.pending, inFlight: scan.inFlight, held: scan.held, accepted, damaged: scan.damaged.length };
  }

  letterPath(kind: LetterKind): string {
    return this.#letterPaths[kind];
  }

  /** Resolves once the review's `queued` record is written and fsynced. */
  async appendQueued(review: OutboxReview): Promise<void> {
    const line = encodeQueued(review);
    const record = toQueuedRecord(review);
    await this.#append(line, () => {
      this.#finished.delete(review.id);
      this.#live.set(review.id, { line, record, sending: undefined, held: undefined });
    });
  }

  /**
   * Resolves once the `sending` record is fsynced: written before each attempt, so that after a crash the reader
   * knows the review may have reached GSA (see `inFlight`).
   */
  appendSending(id: string): Promise<void> {
    const line = encodeRecord({ v: 1, op: 'sending', id, at: this.#clock.now() });
    return this.#append(line, () => {
      const entry = this.#live.get(id);
      if (entry !== undefined) entry.sending = line;
    });
  }

  /** The last attempt surely did not store the review (it waits for the next one); nobody needs to wait for it. */
  appendNotSent(id: string): Promise<void> {
    return this.#append(encodeRecord({ v: 1, op: 'not_sent', id, at: this.#clock.now() }), () => {
      const entry = this.#live.get(id);
      if (entry !== undefined) entry.sending = undefined;
    });
  }

  /**
   * The review's fate is known but its letter could not be written: resolves once the `held` record is fsynced. The
   * review stays in the journal (listed under `kind`) until its letter is written and its fate appended.
   */
  appendHeld(id: string, kind: LetterKind, reason: FailureReason): Promise<void> {
    const at = this.#clock.now();
    const line = encodeRecord({ v: 1, op: 'held', id, at, kind, error: { ...reason } });
    return this.#append(line, () => {
      const entry = this.#live.get(id);
      if (entry === undefined) return;
      entry.sending = undefined;
      entry.held = { kind, reason, at, line };
    });
  }

  /**
   * Resolves once the fate record is fsynced; callers need not wait for it (see the header). A `delivered` record names
   * its review (from its `queued` record) and joins the delivered history.
   */
  appendFate(id: string, fate: ReviewFate): Promise<void> {
    const line = encodeFate(id, fate, this.#clock.now(), this.#live.get(id)?.record);
    return this.#append(line, () => {
      const ended = this.#live.get(id);
      if (ended === undefined) return;
      this.#live.delete(id);
      this.#finishedSinceCompaction += 1;
      if (this.#retainAcceptedMs > 0) this.#finished.set(id, ended.record);
      if (fate.op === 'delivered') remember(this.#delivered, id, line);
    });
  }

  /** Appends the whole review and why it was refused to dead-letter.jsonl, fsynced, for a person to read. */
  appendDeadLetter(review: OutboxReview, reason: FailureReason): Promise<void> {
    return this.#appendLetter('dead', review, reason);
  }

  /** Appends the whole review GSA may or may not have stored to unconfirmed.jsonl, fsynced, for a person to check. */
  appendUnconfirmed(review: OutboxReview, reason: FailureReason): Promise<void> {
    return this.#appendLetter('unconfirmed', review, reason);
  }

  /**
   * A person's re-queue (`gsa-bridge reviews retry`): for each chosen letter, a `queued` record with the review's
   * own id (fsynced), then a `retried` marker in its letter file. Resolves with the reviews to deliver again.
   * A crash between the two leaves the review pending and its letter listed: a second retry then finds it pending.
   */
  async requeue(selection: RequeueSelection): Promise<RequeueResult> {
    const letters = currentLetters(await readLetterFiles(this.#dir), new Set(this.#live.keys()));
    const chosen: ReviewLetter[] = [];
    const alreadyPending: string[] = [];
    const unknown: string[] = [];
    if ('all' in selection) {
      chosen.push(...letters.filter((letter) => letter.kind === selection.all));
    } else {
      const byId = new Map(letters.map((letter) => [letter.review.id, letter]));
      for (const id of new Set(selection.ids)) {
        const letter = byId.get(id);
        if (letter !== undefined) chosen.push(letter);
        else if (this.#live.has(id)) alreadyPending.push(id);
        else unknown.push(id);
      }
    }
    // All `queued` records share the group commit (a handful of fsyncs for thousands), then one marker write per file.
    await Promise.all(chosen.map((letter) => this.appendQueued(letter.review)));
    const at = this.#clock.now();
    for (const kind of ['dead', 'unconfirmed'] as const) {
      const markers = chosen
        .filter((letter) => letter.kind === kind)
        .map((letter) => `${JSON.stringify({ v: 1, op: 'retried', id: letter.review.id, at })}\n`);
      if (markers.length > 0) await this.#queueLetterWrite(kind, markers.join(''));
    }
    return { requeued: chosen.map((letter) => letter.review), alreadyPending, unknown };
  }

  #appendLetter(kind: LetterKind, review: OutboxReview, reason: FailureReason): Promise<void> {
    const { id, at: queuedAt, server, player, stars, comment, origin } = toQueuedRecord(review);
    const entry = { v: 1, op: kind, id, at: this.#clock.now(), queued_at: queuedAt, server, player, stars, comment, origin, error: reason };
    return this.#queueLetterWrite(kind, `${JSON.stringify(entry)}\n`);
  }

  #queueLetterWrite(kind: LetterKind, line: string): Promise<void> {
    if (this.#closed) return Promise.reject(new Error(`review journal ${this.#path} is closed`));
    const written = this.#letters.then(() => appendDurably(this.#letterPaths[kind], line));
    this.#letters = written.catch(() => undefined);
    return written;
  }

  /** `accepted` lines of finished reviews still inside the retention window, oldest first. */
  #retainedAccepted(): string[] {
    if (this.#retainAcceptedMs <= 0) return [];
    const since = this.#clock.now() - this.#retainAcceptedMs;
    const lines: string[] = [];
    for (const [id, record] of this.#finished) {
      if (record.at <= since) this.#finished.delete(id);
      else lines.push(record.op === 'accepted' ? `${JSON.stringify(record)}\n` : acceptedLine(record));
    }
    return lines;
  }

  /** Writes and fsyncs what is waiting, then closes the file. Appends after this reject. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      await this.#drained;
      await this.#letters;
      const handle = this.#handle;
      this.#handle = undefined;
      await handle?.close();
    })();
    return this.#closing;
  }

  #append(line: string, commit: () => void): Promise<void> {
    if (this.#closed) return Promise.reject(new Error(`review journal ${this.#path} is closed`));
    if (this.#broken !== undefined) return Promise.reject(this.#broken);
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ line, commit, resolve, reject });
      if (!this.#writing) {
        this.#writing = true;
        this.#drained = this.#drain();
      }
    });
  }

  /**
   * The group-commit loop: everything that arrived while the previous group was being written forms the next
   * group. `#writing` is cleared synchronously when the queue is seen empty, so no append can be stranded.
   */
  async #drain(): Promise<void> {
    try {
      for (;;) {
        const group = this.#waiting;
        if (group.length === 0) return;
        this.#waiting = [];
        // The group first, then a compaction that is due: a `delivered` record waits for no rewrite, which keeps the
        // window for a duplicate after a crash (GSA stored it, `delivered` not yet on disk) as short as one fsync.
        await this.#commit(group);
        if (this.#finishedSinceCompaction >= this.#compactAfter && this.#broken === undefined) await this.#compact();
      }
    } catch (error) {
      // Nobody awaits this loop but close(): a rejection here would be unhandled and leave appends hanging.
      this.#broken ??= new Error(`the review journal ${this.#path} failed unexpectedly: ${describeError(error)}`, { cause: error });
      this.#logger.error({ err: error, file: this.#path }, this.#broken.message);
      for (const write of this.#waiting.splice(0)) write.reject(this.#broken);
    } finally {
      this.#writing = false;
    }
  }

  async #commit(group: readonly PendingWrite[]): Promise<void> {
    const handle = this.#handle;
    const failWith = (error: unknown): void => {
      for (const write of group) write.reject(error);
    };
    if (this.#broken !== undefined || handle === undefined) {
      failWith(this.#broken ?? new Error(`review journal ${this.#path} is closed`));
      return;
    }
    const data = Buffer.from(group.map((write) => write.line).join(''), 'utf8');
    try {
      await writeFully(handle, data);
    } catch (error) {
      await this.#cutBackPartialWrite(handle);
      failWith(new Error(`could not write to the review journal ${this.#path}: ${describeError(error)}`, { cause: error }));
      return;
    }
    try {
      await handle.datasync();
    } catch (error) {
      this.#broken = new Error(
        `fsync of the review journal ${this.#path} failed (${describeError(error)}); it takes no more reviews until the sidecar restarts`,
        { cause: error },
      );
      this.#logger.error({ err: error, file: this.#path }, this.#broken.message);
      failWith(this.#broken);
      return;
    }
    this.#size += data.length;
    for (const write of group) {
      write.commit();
      write.resolve();
    }
    if (this.#logger.isLevelEnabled('debug')) {
      this.#logger.debug({ records: group.length, bytes: data.length }, `journal: committed ${group.length} records with one fsync`);
    }
  }

  /** After a failed write, removes any partial line so later appends start on a line boundary. */
  async #cutBackPartialWrite(handle: FileHandle): Promise<void> {
    try {
      await handle.truncate(this.#size);
    } catch (error) {
      this.#broken = new Error(
        `the review journal ${this.#path} may end in a partial line and could not be cut back (${describeError(error)}); it takes no more reviews until the sidecar restarts`,
        { cause: error },
      );
      this.#logger.error({ err: error, file: this.#path }, this.#broken.message);
    }
  }

  /** Rewrites the journal with only the pending `queued` lines; runs only between groups, so nothing else writes. */
  async #compact(): Promise<void> {
    // Counted as done even on failure, so a disk that refuses the rewrite is retried only after as many fates again.
    this.#finishedSinceCompaction = 0;
    // Cooldown records first: they are older than or as old as the pending reviews, and order does not matter to the scan.
    const kept = [...this.#retainedAccepted(), ...this.#delivered.values(), ...[...this.#live.values()].map(liveLines)].join('');
    const data = Buffer.concat([this.#unmoved, Buffer.from(kept, 'utf8')]);
    const before = this.#size;
    // Closed before the rename because Windows cannot rename over an open file; reopened whichever file is current.
    try {
      await this.#handle?.close();
    } catch (error) {
      // Everything written through it is already fsynced; a failed close loses nothing.
      this.#logger.debug({ err: error, file: this.#path }, 'closing the review journal before compaction failed');
    }
    this.#handle = undefined;
    let renamed = false;
    try {
      await replaceByRename(this.#path, this.#tmpPath, data);
      renamed = true;
      // Until the directory is fsynced the rename may be undone by power loss, taking later appends with it.
      await syncDirectory(this.#dir);
    } catch (error) {
      if (renamed) {
        this.#broken = new Error(`could not fsync ${this.#dir} after compacting the review journal: ${describeError(error)}`, { cause: error });
        this.#logger.error({ err: error, file: this.#path }, this.#broken.message);
        return;
      }
      this.#logger.error({ err: error, file: this.#path }, `could not compact the review journal ${this.#path}; it keeps growing until a later try succeeds`);
    }
    try {
      this.#handle = await open(this.#path, 'a', FILE_MODE);
    } catch (error) {
      this.#broken = new Error(`could not reopen the review journal ${this.#path}: ${describeError(error)}`, { cause: error });
      this.#logger.error({ err: error, file: this.#path }, this.#broken.message);
      return;
    }
    if (renamed) {
      this.#size = data.length;
      this.#logger.info(
        { file: this.#path, pending: this.#live.size, delivered: this.#delivered.size, bytesBefore: before, bytesAfter: data.length },
        `compacted the review journal: kept ${this.#live.size} pending reviews and the last ${this.#delivered.size} delivered (${before} → ${data.length} bytes)`,
      );
    }
  }
}
