// LogTail: follows a game's log file and hands each complete line written after start() to `onLine`, across the
// ways games roll their logs: renamed away and created anew (Conan's ConanSandbox.log → -backup-<date>.log),
// truncated, replaced by another inode, or a new file per start found by a `*` in the last path segment (ARK's
// ServerGame.*.log: the newest by mtime). A file is known by its inode (dev+ino) and read through its own fd from a
// byte position, so what remains of a renamed file is read from the old fd before the new file is started.
// Changes are noticed by fs.watch on the directory (renames and creates show there, not on the file) and by a
// polling stat, which alone keeps p99 latency within the pollIntervalMs bound when watch events are lost (network
// file systems, containers with bind mounts, a full inotify table).
// Bytes become lines in LogLineDecoder (encoding, split characters, line bound).
//
// Why our own and not @logdna/tail-file (4.0.2, evaluated on bench/log-tail.ts): its speed is not the problem
// (2026-11-27, 2-core machine at load 6-10, six runs: throughput against tail -F 0.54-1.24x for it, 0.48-1.58x for
// ours with watch, 0.48-1.57x polling only, all within run-to-run noise; p99 103-139 ms at a 100 ms poll for it, ours
// 5-49 ms with watch and 100-124 ms polling only, tail -F 5-78 ms), its fit is: it follows one
// fixed name only (no glob-newest), start() rejects for a missing file and it quits for good after 10 missed polls
// (2 s between a rename and a create) or on any EACCES, it polls only (1 s default, no watch), reads new bytes by
// path (createReadStream) so a replace between its stat and its read is read from the old offset, and hands out
// bytes (no BOM, UTF-16 or line handling). Wrapping it would leave all of that to write anyway. chokidar would only
// replace the directory watch (fs.watch is enough: polling backs it up) and brings its own dependencies.
//
// It must never:
// - replay a line that was in the file before start() (it starts at the end; only a file that did not exist at start
//   is read from its first byte), or call onLine after close() began;
// - throw or reject for anything the file system does (missing file or directory, EACCES, EMFILE, a watch that
//   dies): it logs with the path and a hint, summed up by RepeatSummary, and keeps polling;
// - let an onLine that throws stop the reading (it is logged and the next line goes on);
// - hold more than one read buffer, a few bytes of an unfinished character and maxLineLength characters of an
//   unfinished line per file, or more than two file descriptors (the one being finished and the new one);
// - run two checks at once: watch events and poll ticks only mark the file dirty, one loop reads.
//
//   const tail = new LogTail({ path: '/srv/ark/ShooterGame/Saved/Logs/ServerGame.*.log', onLine, logger });
//   await tail.start();     // position taken: lines written from now on are read
//   …
//   await tail.close();
import { watch, type FSWatcher, type Stats } from 'node:fs';
import { open, readdir, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { RepeatSummary } from '../../../src/log/repeatSummary.js';
import { isSameFile, type FileIdentity } from './fileIdentity.js';
import { LogLineDecoder, SNIFF_BYTES, sniffEncoding } from './logLineDecoder.js';

/** Structural: pino's Logger satisfies it. */
export type LogTailLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;

export interface LogTailOptions {
  /**
   * The file; a `*` in its LAST path segment follows the newest matching file (by mtime), e.g.
   * `/x/ServerGame.*.log`. A `*` matches any run of characters except `/`.
   */
  readonly path: string;
  /**
   * Called once per complete line, without its line ending (LF or CRLF), in order. Never awaited; if it throws, the
   * error is logged (rate-limited) and reading goes on.
   */
  readonly onLine: (line: string) => void;
  /**
   * Asked before each read: a promise makes the tail wait for it (the reader of the lines is behind; the rest stays
   * in the file), undefined reads on at once. @default always undefined
   */
  readonly room?: (() => Promise<void> | undefined) | undefined;
  readonly logger: LogTailLogger;
  /**
   * Polling fallback period: a missed fs.watch event costs at most this. Each tick is one stat (a glob: one readdir,
   * plus a stat per match when the names changed). Measured (bench/log-tail.ts): with watch off, p99 from appendFile
   * to onLine stays near this value plus a few ms; 100 ms keeps it well under a 250 ms goal on a busy machine.
   * @default 100
   */
  readonly pollIntervalMs?: number;
  /** fs.watch on the directory besides polling (renames and creates are seen there). @default true */
  readonly watch?: boolean;
  /**
   * Longest line delivered, in characters; longer ones are cut to this and the rest up to the newline dropped
   * (logged once per file, rate-limited). @default 16384
   */
  readonly maxLineLength?: number;
}

export const DEFAULT_LOG_TAIL_POLL_INTERVAL_MS = 100;
export { DEFAULT_MAX_LINE_LENGTH as DEFAULT_LOG_TAIL_MAX_LINE_LENGTH } from './logLineDecoder.js';

/** How much one read takes: big enough for a burst in few syscalls, small enough to hold for the reader's life. */
const READ_BUFFER_BYTES = 64 * 1024;
/** One check reads at most this much before giving the event loop back (a writer faster than us cannot starve it). */
const MAX_BYTES_PER_CHECK = 8 * 1024 * 1024;

/** The kinds of trouble that repeat, each summed up on its own. */
type Trouble = 'stat' | 'readdir' | 'open' | 'read' | 'watch' | 'on_line_threw' | 'line_cut';

/** The file being read: known by its inode, read through its own fd. */
interface OpenFile extends FileIdentity {
  /** Where it was found last: a glob's match renamed to another matching name is still the same file. */
  path: string;
  readonly handle: FileHandle;
  position: number;
  readonly decoder: LogLineDecoder;
  cutTold: boolean;
}

/** What the configured path names right now. */
interface Target {
  readonly path: string;
  readonly stats: Stats;
}

const HINTS: Readonly<Record<string, string>> = {
  ENOENT: 'the file or its directory does not exist (yet): check logFile; it is read once it appears',
  EACCES: "the sidecar's user may not read it: give it read access to the file and its directories",
  EPERM: "the sidecar's user may not read it: give it read access to the file and its directories",
  EMFILE: 'too many open files in this process: raise the open-file limit (LimitNOFILE)',
  ENFILE: 'too many open files on this machine',
  ENOSPC: 'the inotify watch limit is reached (fs.inotify.max_user_watches); polling goes on',
  ENOTDIR: 'a part of the path is not a directory: check logFile',
  ELOOP: 'too many symbolic links in the path: check logFile',
};

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'UNKNOWN';
}

function hintFor(error: unknown): string {
  return HINTS[codeOf(error)] ?? 'unexpected file system error; reading is retried at every poll';
}

/** `ServerGame.*.log` → a whole-name regex; every other character literal. */
function globRegex(segment: string): RegExp {
  const escaped = segment.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`, 'u');
}

export class LogTail {
  readonly #path: string;
  readonly #dir: string;
  readonly #name: string;
  readonly #pattern: RegExp | undefined;
  readonly #onLine: (line: string) => void;
  readonly #room: (() => Promise<void> | undefined) | undefined;
  readonly #logger: LogTailLogger;
  readonly #pollIntervalMs: number;
  readonly #watch: boolean;
  readonly #maxLineLength: number;
  readonly #buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  readonly #repeats: RepeatSummary<Trouble>;

  #started = false;
  #closed = false;
  #current: OpenFile | undefined;
  /** Whether the configured path names the current file (false while only a renamed-away file is being finished). */
  #currentAtPath = false;
  #watcher: FSWatcher | undefined;
  #pollTimer: NodeJS.Timeout | undefined;
  /** The loop's promise while it runs; a mark asks it to go round once more. */
  #running: Promise<void> | undefined;
  #dirty = false;
  /** A glob's matches by name → mtime, re-read only when the names change (a stat per match per tick would not do). */
  #globNames = '';
  #globNewest: string | undefined;
  /** The path's absence was told since it was last there. */
  #missingTold = false;
  /**
   * Where the next file opened is read from. The end until a position was taken once: a file that exists at start
   * but cannot be read yet (EACCES) is not replayed when it can. The start once the path was seen absent or a file
   * was opened: any file found after that was written after we started.
   */
  #openFrom: 'start' | 'end' = 'end';

  constructor(options: LogTailOptions) {
    this.#path = options.path;
    this.#dir = dirname(options.path);
    this.#name = basename(options.path);
    this.#pattern = this.#name.includes('*') ? globRegex(this.#name) : undefined;
    this.#onLine = options.onLine;
    this.#room = options.room;
    this.#logger = options.logger;
    this.#pollIntervalMs = Math.max(10, options.pollIntervalMs ?? DEFAULT_LOG_TAIL_POLL_INTERVAL_MS);
    this.#watch = options.watch ?? true;
    this.#maxLineLength = options.maxLineLength ?? 16_384;
    this.#repeats = new RepeatSummary<Trouble>({
      onSummary: ({ kind, repeats, sinceMs }) => {
        this.#logger.warn({ path: this.#path, kind, repeats, sinceMs }, 'log tail: the same trouble repeated');
      },
    });
  }

  /** The file followed right now (resolved path), or undefined while none exists. */
  get following(): string | undefined {
    return this.#current !== undefined && this.#currentAtPath ? this.#current.path : undefined;
  }

  /**
   * Takes the starting position (the end of the current file, or "absent" when there is none yet) and begins
   * following. Never rejects for a missing or unreadable file: that is logged and polled for.
   */
  async start(): Promise<void> {
    if (this.#started || this.#isClosed()) return;
    this.#started = true;
    const target = await this.#resolve();
    if (this.#isClosed()) return;
    if (target !== undefined) {
      const opened = await this.#open(target, this.#openFrom);
      if (opened !== undefined) {
        this.#current = opened;
        this.#currentAtPath = true;
        this.#logger.info({ path: opened.path, position: opened.position }, 'log tail: following from the end of the file');
      }
    } else {
      this.#openFrom = 'start';
      this.#logger.info({ path: this.#path }, 'log tail: no file yet; it is read from its start once it appears');
    }
    if (this.#isClosed()) {
      // close() ran while the position was being taken, before there was a file for it to close.
      const current = this.#current;
      this.#current = undefined;
      await current?.handle.close().catch(() => undefined);
      return;
    }
    this.#startWatching();
    this.#pollTimer = setInterval(() => {
      if (this.#watch && this.#watcher === undefined) this.#startWatching();
      this.#markDirty();
    }, this.#pollIntervalMs);
  }

  /** Stops watching and polling and closes the fds; idempotent. onLine is never called once this began. */
  async close(): Promise<void> {
    if (this.#isClosed()) return;
    this.#closed = true;
    clearInterval(this.#pollTimer);
    this.#watcher?.close();
    this.#watcher = undefined;
    await this.#running;
    const current = this.#current;
    this.#current = undefined;
    await current?.handle.close().catch(() => undefined);
    this.#repeats.close();
  }

  /** A method, not the field: the checks ask again after each await, and a field read would be narrowed away. */
  #isClosed(): boolean {
    return this.#closed;
  }

  #startWatching(): void {
    if (!this.#watch || this.#isClosed()) return;
    try {
      const watcher = watch(this.#dir, { persistent: false }, (_event, filename) => {
        // Another file in the same directory (the game's other logs) is not ours; a missing name could be anything.
        if (filename === null || this.#concerns(filename)) this.#markDirty();
      });
      watcher.on('error', (error) => {
        this.#trouble('watch', error, this.#dir);
        watcher.close();
        if (this.#watcher === watcher) this.#watcher = undefined;
      });
      this.#watcher = watcher;
    } catch (error) {
      this.#trouble('watch', error, this.#dir);
    }
  }

  #concerns(filename: string): boolean {
    return this.#pattern === undefined ? filename === this.#name : this.#pattern.test(filename);
  }

  #markDirty(): void {
    if (this.#isClosed()) return;
    this.#dirty = true;
    this.#running ??= this.#loop().finally(() => {
      this.#running = undefined;
    });
  }

  async #loop(): Promise<void> {
    while (this.#dirty && !this.#isClosed()) {
      this.#dirty = false;
      try {
        await this.#check();
      } catch (error) {
        // #check catches what the file system does; this is the last net, so the reader never dies of a bug.
        this.#logger.error({ err: error, path: this.#path }, 'log tail: unexpected failure in a check; retried at the next poll');
      }
    }
  }

  /** One look at the path: switch files if it names another, then read what was added. */
  async #check(): Promise<void> {
    const target = await this.#resolve();
    if (this.#isClosed()) return;
    const current = this.#current;
    const same = current !== undefined && target !== undefined && isSameFile(target.stats, current);
    if (current !== undefined && same) {
      this.#currentAtPath = true;
      current.path = target.path;
      if (target.stats.size < current.position) {
        this.#logger.info({ path: current.path, size: target.stats.size, position: current.position }, 'log tail: file truncated; reading it again from its start');
        this.#current = { ...current, position: 0, decoder: this.#decoder(false), cutTold: false };
      }
      await this.#readToEnd();
      return;
    }
    if (current !== undefined) {
      // The path names another file or none: first what was written to ours before it went.
      this.#currentAtPath = false;
      await this.#readToEnd();
      if (this.#isClosed()) return;
      if (target === undefined && !(await this.#unlinked(current))) return; // renamed away, no successor yet: keep it
      this.#deliver(current.decoder.end(), current);
      this.#current = undefined;
      await current.handle.close().catch(() => undefined);
      this.#logger.info({ path: current.path, next: target?.path }, target === undefined ? 'log tail: file gone' : 'log tail: file rolled; reading the new one from its start');
    }
    if (target === undefined) this.#openFrom = 'start';
    if (target === undefined || this.#isClosed()) return;
    const opened = await this.#open(target, this.#openFrom);
    if (opened === undefined) return;
    if (this.#isClosed()) {
      await opened.handle.close().catch(() => undefined);
      return;
    }
    this.#current = opened;
    this.#currentAtPath = true;
    if (current === undefined) this.#logger.info({ path: opened.path }, 'log tail: file appeared; reading it from its start');
    await this.#readToEnd();
  }

  /** The file a renamed-away fd points to was deleted: nothing more will be written to it. */
  async #unlinked(file: OpenFile): Promise<boolean> {
    try {
      return (await file.handle.stat()).nlink === 0;
    } catch {
      return true;
    }
  }

  /** What the configured path names now: the file, or a glob's newest match. Undefined when none (logged). */
  async #resolve(): Promise<Target | undefined> {
    if (this.#pattern === undefined) return this.#statTarget(this.#path);
    let names: string[];
    try {
      names = (await readdir(this.#dir)).filter((name) => this.#pattern?.test(name) === true).sort();
    } catch (error) {
      this.#trouble('readdir', error, this.#dir);
      return undefined;
    }
    const key = names.join('\n');
    // Unchanged names: the newest stays the newest unless an older file is written again, which the games with a
    // file per start do not do. A changed set (a new start's file, one deleted) is looked at in full.
    if (key !== this.#globNames || this.#globNewest === undefined) {
      let newest: Target | undefined;
      for (const name of names) {
        const found = await this.#statTarget(join(this.#dir, name), true);
        if (found === undefined) continue;
        // Ties (the same mtime) go to the later name: ServerGame.<n>.<date> names sort by start.
        if (newest === undefined || found.stats.mtimeMs >= newest.stats.mtimeMs) newest = found;
      }
      this.#globNames = key;
      this.#globNewest = newest?.path;
      return newest;
    }
    const found = await this.#statTarget(this.#globNewest);
    if (found === undefined) this.#globNames = ''; // look at them all next time
    return found;
  }

  async #statTarget(path: string, quietIfMissing = false): Promise<Target | undefined> {
    try {
      const stats = await stat(path);
      if (!stats.isFile()) {
        this.#trouble('stat', Object.assign(new Error('not a regular file'), { code: 'EISDIR' }), path);
        return undefined;
      }
      return { path, stats };
    } catch (error) {
      // A missing file is the normal state before the game's first start and between a rename and a create.
      if (codeOf(error) !== 'ENOENT' || !quietIfMissing) {
        if (codeOf(error) === 'ENOENT') this.#noteMissing(path);
        else this.#trouble('stat', error, path);
      }
      return undefined;
    }
  }

  #noteMissing(path: string): void {
    // Once per absence, at debug: start() already said so at info, and a rename is followed by a create at once.
    if (this.#missingTold) return;
    this.#missingTold = true;
    this.#logger.debug({ path }, 'log tail: file not there (yet)');
  }

  async #open(target: Target, from: 'start' | 'end'): Promise<OpenFile | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(target.path, 'r');
    } catch (error) {
      this.#trouble('open', error, target.path);
      return undefined;
    }
    try {
      // The fd's own stats, not the path's: the path may name another file by now, and the fd is what is read.
      const stats = await handle.stat();
      this.#missingTold = false;
      this.#openFrom = 'start';
      if (from === 'start' || stats.size === 0) {
        return { path: target.path, handle, dev: stats.dev, ino: stats.ino, birthtimeMs: stats.birthtimeMs, position: 0, decoder: this.#decoder(false), cutTold: false };
      }
      // Starting at the end: the encoding comes from the file's head, and a line the game is half-way through
      // writing is not taken for a whole one (its tail would be): unless the last byte before the end is a newline,
      // everything up to the next newline is dropped.
      const head = Buffer.alloc(Math.min(SNIFF_BYTES, stats.size));
      await handle.read(head, 0, head.length, 0);
      const sniffed = sniffEncoding(head, true) ?? { encoding: 'utf8', bomBytes: 0 };
      const unit = sniffed.encoding === 'utf16le' ? 2 : 1;
      let atLineStart = stats.size <= sniffed.bomBytes;
      if (!atLineStart && stats.size >= unit) {
        const before = Buffer.alloc(unit);
        await handle.read(before, 0, unit, stats.size - unit);
        atLineStart = before[0] === 0x0a && (unit === 1 || before[1] === 0);
      }
      const decoder = this.#decoder(!atLineStart);
      decoder.sniff(head);
      return { path: target.path, handle, dev: stats.dev, ino: stats.ino, birthtimeMs: stats.birthtimeMs, position: stats.size, decoder, cutTold: false };
    } catch (error) {
      this.#trouble('open', error, target.path);
      await handle.close().catch(() => undefined);
      return undefined;
    }
  }

  #decoder(startsMidLine: boolean): LogLineDecoder {
    return new LogLineDecoder({
      maxLineLength: this.#maxLineLength,
      startsMidLine,
      onCut: (keptLength) => {
        this.#lineCut(keptLength);
      },
    });
  }

  #lineCut(length: number): void {
    const current = this.#current;
    if (current === undefined || current.cutTold) return;
    current.cutTold = true;
    if (this.#repeats.first('line_cut')) {
      this.#logger.warn({ path: current.path, length, maxLineLength: this.#maxLineLength }, 'log tail: a line longer than maxLineLength was cut (told once per file)');
    }
  }

  /** Reads the current file from its position to its end (or MAX_BYTES_PER_CHECK, then comes back). */
  async #readToEnd(): Promise<void> {
    const file = this.#current;
    if (file === undefined) return;
    let taken = 0;
    while (!this.#isClosed() && this.#current === file) {
      const behind = this.#room?.();
      if (behind !== undefined) {
        await behind;
        if (this.#isClosed() || this.#current !== file) return;
      }
      let bytesRead: number;
      try {
        ({ bytesRead } = await file.handle.read(this.#buffer, 0, READ_BUFFER_BYTES, file.position));
      } catch (error) {
        this.#trouble('read', error, file.path);
        return;
      }
      if (bytesRead === 0 || this.#isClosed()) return;
      file.position += bytesRead;
      this.#deliver(file.decoder.write(this.#buffer.subarray(0, bytesRead)), file);
      taken += bytesRead;
      if (taken >= MAX_BYTES_PER_CHECK) {
        this.#dirty = true; // the loop comes back after other callbacks had their turn
        await new Promise<void>((resolve) => setImmediate(resolve));
        return;
      }
    }
  }

  #deliver(lines: readonly string[], file: OpenFile): void {
    for (const line of lines) {
      if (this.#isClosed()) return;
      try {
        this.#onLine(line);
      } catch (error) {
        if (this.#repeats.first('on_line_threw')) {
          this.#logger.error({ err: error, path: file.path }, 'log tail: the line handler threw; the line is skipped and reading goes on');
        }
      }
    }
  }

  #trouble(kind: Trouble, error: unknown, path: string): void {
    if (this.#isClosed() || !this.#repeats.first(kind)) return;
    this.#logger.warn({ path, code: codeOf(error), err: error, hint: hintFor(error) }, `log tail: cannot ${kind} ${path}: ${hintFor(error)}`);
  }
}
