// One ledger file in the data directory (reports.jsonl, orders.jsonl) as its one writer sees it: opened and repaired
// (ledgerRepair.ts), then appended to in groups, each group written and fsynced (appendDurably) before any of its
// callers hears it is stored, and rewritten whole by a compaction its owner asks for, in turn with the appends.
// It knows no record's meaning: its owner says what a line is and what a compaction keeps.
// Must never resolve an append before its fsync, never append onto a partial line (a failed write is cut back), and
// never rewrite the file in a way a crash could leave half-done. One process per data directory: the caller holds
// the directory's lock (src/datadir/dataDirLock.ts); this module does not check.
//
// An append that fails is cut back to the last whole line and fsynced, and the next append may succeed (a full disk
// that frees up). A cut that fails, or a directory fsync that fails after a compaction's rename, leaves the file in a
// state only a restart (which re-reads and repairs it) can trust: it then takes no more appends.

import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { appendDurably, describeError, isErrnoCode, makeDataDir, removeIfPresent, replaceByRename, syncDirectory } from '../reviews/durableFiles.js';
import { readIfPresent, splitLedger, type DamagedLine, type LedgerLine, type LineParse } from './ledgerLines.js';
import { cutTo, repairLedger } from './ledgerRepair.js';

export interface LedgerFileOptions<R> {
  /** Created (recursively, 0700) when missing. */
  readonly dataDir: string;
  readonly fileName: string;
  /** Where damaged lines are moved at open, beside the file. */
  readonly quarantineName: string;
  readonly parse: (bytes: Uint8Array) => LineParse<R>;
  readonly logger: Logger;
  /** What the file is, for errors and logs ("report journal"). */
  readonly what: string;
}

export interface OpenedLedgerFile<R> {
  readonly file: LedgerFile;
  /** Every whole line that reads as a record, in file order. */
  readonly lines: readonly LedgerLine<R>[];
  /** The damaged lines found at this open (moved to the quarantine, or kept when the move failed). */
  readonly damaged: readonly DamagedLine[];
}

interface AppendJob {
  readonly kind: 'append';
  readonly data: string;
  /** Updates the owner's view once the line is durable, before the next job runs. */
  readonly commit: (() => void) | undefined;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

interface RewriteJob {
  readonly kind: 'rewrite';
  /** The file's new content (whole lines), built when its turn comes, from what is durable by then. */
  readonly build: () => string;
  /** Told at once when the new file is in place, before the next job runs: the owner drops what it left out. */
  readonly onRewritten: () => void;
  readonly resolve: (rewritten: boolean) => void;
}

export class LedgerFile {
  readonly #path: string;
  readonly #dir: string;
  readonly #what: string;
  readonly #logger: Logger;
  /** Damaged lines the open could not move: every rewrite keeps them, byte for byte. */
  readonly #unmoved: Buffer;
  /** Bytes known to be whole, fsynced lines: where a failed append is cut back to. */
  #size: number;
  #jobs: (AppendJob | RewriteJob)[] = [];
  #draining: Promise<void> | undefined;
  #broken: Error | undefined;
  #closed = false;

  private constructor(file: string, what: string, logger: Logger, size: number, unmoved: Buffer) {
    this.#path = file;
    this.#dir = path.dirname(file);
    this.#what = what;
    this.#logger = logger;
    this.#size = size;
    this.#unmoved = unmoved;
  }

  /** Reads and repairs the file (creating the directory if needed); appends may follow at once. */
  static async open<R>(options: LedgerFileOptions<R>): Promise<OpenedLedgerFile<R>> {
    const dir = path.resolve(options.dataDir);
    const file = path.join(dir, options.fileName);
    await makeDataDir(dir);
    if (await removeIfPresent(`${file}.tmp`)) {
      options.logger.info({ file: `${file}.tmp` }, `removed ${file}.tmp left by a rewrite that did not finish; ${file} is complete`);
    }
    const data = await readIfPresent(file);
    const split = splitLedger(data, options.parse);
    const repaired = await repairLedger(file, path.join(dir, options.quarantineName), data, split, options.logger);
    return { file: new LedgerFile(file, options.what, options.logger, repaired.size, repaired.unmoved), lines: split.lines, damaged: split.damaged };
  }

  get path(): string {
    return this.#path;
  }

  /** Appends whole lines; resolves once they are fsynced, `commit` having run just before. */
  append(data: string, commit?: () => void): Promise<void> {
    if (this.#closed) return Promise.reject(new Error(`the ${this.#what} ${this.#path} is closed`));
    if (this.#broken !== undefined) return Promise.reject(this.#broken);
    return new Promise<void>((resolve, reject) => {
      this.#jobs.push({ kind: 'append', data, commit, resolve, reject });
      this.#kick();
    });
  }

  /**
   * Replaces the file by what `build` returns when its turn comes (after the appends asked for before it), plus any
   * damaged lines the open could not move. Resolves with whether it was rewritten; never rejects (a failure is logged).
   */
  rewrite(build: () => string, onRewritten: () => void): Promise<boolean> {
    if (this.#closed || this.#broken !== undefined) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      this.#jobs.push({ kind: 'rewrite', build, onRewritten, resolve });
      this.#kick();
    });
  }

  /** Waits for what was asked before, then takes no more appends. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#draining;
  }

  #kick(): void {
    this.#draining ??= this.#drain();
  }

  async #drain(): Promise<void> {
    try {
      for (;;) {
        const first = this.#jobs[0];
        if (first === undefined) return;
        if (first.kind === 'rewrite') {
          this.#jobs.shift();
          const rewritten = await this.#rewrite(first.build);
          if (rewritten) this.#tell(first.onRewritten);
          first.resolve(rewritten);
          continue;
        }
        // Every append waiting now shares one write and one fsync (group commit).
        const end = this.#jobs.findIndex((job) => job.kind === 'rewrite');
        const group = this.#jobs.splice(0, end === -1 ? this.#jobs.length : end) as AppendJob[];
        await this.#commit(group);
      }
    } finally {
      // Cleared with no await since the queue was seen empty: an append made after this starts a new drain.
      this.#draining = undefined;
    }
  }

  async #commit(group: readonly AppendJob[]): Promise<void> {
    if (this.#broken !== undefined) {
      for (const job of group) job.reject(this.#broken);
      return;
    }
    const bytes = Buffer.from(group.map((job) => job.data).join(''), 'utf8');
    try {
      await appendDurably(this.#path, bytes);
    } catch (error) {
      await this.#cutBack();
      const failure = new Error(`could not write to the ${this.#what} ${this.#path}: ${describeError(error)}`, { cause: error });
      for (const job of group) job.reject(failure);
      return;
    }
    this.#size += bytes.length;
    for (const job of group) {
      if (job.commit !== undefined) this.#tell(job.commit);
      job.resolve();
    }
  }

  /** Runs an owner's update of its view; a bug there must not stop the queue. */
  #tell(update: () => void): void {
    try {
      update();
    } catch (error) {
      this.#logger.error({ err: error, file: this.#path }, `the ${this.#what}'s view of what it stored failed to update`);
    }
  }

  /** After a failed append, removes any part of it that reached the file, so later appends start on a line boundary. */
  async #cutBack(): Promise<void> {
    try {
      // Nothing reached the file (the open failed: out of descriptors, say): nothing to cut, and no reason to stop.
      if ((await stat(this.#path)).size === this.#size) return;
    } catch (error) {
      if (isErrnoCode(error, 'ENOENT') && this.#size === 0) return;
    }
    try {
      await cutTo(this.#path, this.#size);
    } catch (error) {
      this.#breakWith(`the ${this.#what} ${this.#path} may end in a partial line and could not be cut back (${describeError(error)}); it takes no more records until the sidecar restarts`, error);
    }
  }

  async #rewrite(build: () => string): Promise<boolean> {
    if (this.#broken !== undefined) return false;
    let data: Buffer;
    try {
      data = Buffer.concat([this.#unmoved, Buffer.from(build(), 'utf8')]);
    } catch (error) {
      this.#logger.error({ err: error, file: this.#path }, `could not build the compacted ${this.#what}; it keeps growing until a later try succeeds`);
      return false;
    }
    try {
      await replaceByRename(this.#path, `${this.#path}.tmp`, data);
    } catch (error) {
      this.#logger.error({ err: error, file: this.#path }, `could not compact the ${this.#what} ${this.#path} (${describeError(error)}); it keeps growing until a later try succeeds`);
      return false;
    }
    const before = this.#size;
    this.#size = data.length;
    try {
      // Until the directory is fsynced the rename may be undone by power loss, taking later appends with it.
      await syncDirectory(this.#dir);
    } catch (error) {
      this.#breakWith(`could not fsync ${this.#dir} after compacting the ${this.#what}: ${describeError(error)}; it takes no more records until the sidecar restarts`, error);
      return false;
    }
    this.#logger.info({ file: this.#path, bytesBefore: before, bytesAfter: data.length }, `compacted the ${this.#what} (${before} → ${data.length} bytes)`);
    return true;
  }

  #breakWith(message: string, cause: unknown): void {
    this.#broken ??= new Error(message, { cause });
    this.#logger.error({ err: cause, file: this.#path }, message);
  }
}
