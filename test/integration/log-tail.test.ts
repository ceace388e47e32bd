// LogTail on real files in temp dirs, changed under it the way games roll their logs: appended, renamed away and
// created anew, truncated, replaced, a newer file per start behind a glob; BOM UTF-8, UTF-16LE, split characters,
// partial and over-long lines (cut once past the bound, before their newline); a renamed-away file read until its
// successor appears; absent at start; close(); polling alone. Waits for a line use patient bounds; a claim
// that something was NOT read ("old lines are not replayed") rests on a causal signal: a marker written after it, and
// the first line seen being the marker.
// Must never leave a file behind (temp dirs come from test/fixtures/tempDir.ts) or wait on a bare sleep for a proof.
import { appendFile, mkdir, rename, truncate, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LogTail, type LogTailLogger, type LogTailOptions } from '../../adapters/rcon/sources/logTail.js';
import { patientMs, QUIET_WAIT_MS } from '../fixtures/patience.js';
import { tempDir } from '../fixtures/tempDir.js';

interface LogEntry {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly obj: object;
  readonly msg: string | undefined;
}

interface Reader {
  readonly tail: LogTail;
  readonly lines: string[];
  readonly logs: LogEntry[];
}

const tails: LogTail[] = [];

afterEach(async () => {
  await Promise.all(tails.splice(0).map((tail) => tail.close()));
});

function capturingLogger(logs: LogEntry[]): LogTailLogger {
  const at =
    (level: LogEntry['level']) =>
    (obj: object, msg?: string): void => {
      logs.push({ level, obj, msg });
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

async function reader(path: string, options: Partial<LogTailOptions> = {}): Promise<Reader> {
  const lines: string[] = [];
  const logs: LogEntry[] = [];
  const tail = new LogTail({ path, onLine: (line) => lines.push(line), logger: capturingLogger(logs), pollIntervalMs: 50, ...options });
  tails.push(tail);
  await tail.start();
  return { tail, lines, logs };
}

async function until(condition: () => boolean, what: () => string): Promise<void> {
  const timeoutMs = patientMs(QUIET_WAIT_MS);
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`${what()}: not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Waits until `lines` holds at least `expected.length` lines, then asserts they are exactly `expected`. */
async function expectLines(lines: readonly string[], expected: readonly string[]): Promise<void> {
  await until(
    () => lines.length >= expected.length,
    () => `lines ${JSON.stringify(expected)} (have ${JSON.stringify(lines)})`,
  );
  expect(lines).toEqual(expected);
}

/** A reader following ConanSandbox.log in a new temp dir, once it has read the line `a` written after its start. */
async function followingConanLog(): Promise<Reader & { readonly dir: string; readonly path: string }> {
  const dir = await tempDir('logtail');
  const path = join(dir, 'ConanSandbox.log');
  await writeFile(path, 'before\n');
  const following = await reader(path);
  await appendFile(path, 'a\n');
  await expectLines(following.lines, ['a']);
  return { ...following, dir, path };
}

/** Lets the reader notice a first piece before the second is written, so a split really is read as two. */
async function pollTurns(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 150));
}

describe('LogTail', () => {
  it('starts at the end: lines already in the file, and the tail of a half-written one, are never delivered', async () => {
    const dir = await tempDir('logtail');
    const path = join(dir, 'ConanSandbox.log');
    await writeFile(path, 'old line 1\nold line 2\nhalf-writ');
    const { tail, lines } = await reader(path);
    expect(tail.following).toBe(path);
    await appendFile(path, 'ten line\nmarker\n');
    // The marker is written after everything old: were anything replayed, it would come first.
    await expectLines(lines, ['marker']);
  });

  it('reads a file absent at start from its first byte once it appears', async () => {
    const dir = await tempDir('logtail');
    const path = join(dir, 'latest.log');
    const { tail, lines } = await reader(path);
    expect(tail.following).toBeUndefined();
    await writeFile(path, 'first\nsecond\n');
    await expectLines(lines, ['first', 'second']);
    expect(tail.following).toBe(path);
  });

  it('follows a rename: finishes the old file from its fd, then reads the new one from its start', async () => {
    const { dir, path, tail, lines } = await followingConanLog();
    await appendFile(path, 'b\n');
    const backup = join(dir, 'ConanSandbox-backup-2026.11.27-19.00.00.log');
    await rename(path, backup);
    // Written to the old file after its rename and before the new one exists: only its fd can still find it.
    await appendFile(backup, 'c\nunterminated');
    await writeFile(path, 'd\n');
    await expectLines(lines, ['a', 'b', 'c', 'unterminated', 'd']);
    expect(tail.following).toBe(path);
  });

  it('keeps reading a renamed-away file while no successor exists, then moves on once one appears', async () => {
    const { dir, path, tail, lines } = await followingConanLog();
    const backup = join(dir, 'ConanSandbox-backup-2026.11.27-19.00.00.log');
    await rename(path, backup);
    // The reader has looked since the rename and found no file at the path (a causal signal, not a sleep).
    await until(
      () => tail.following === undefined,
      () => 'the rename noticed',
    );
    // The game still writes to the old file (its own fd) until the new one is made: those lines are not lost.
    await appendFile(backup, 'after the rename\n');
    await expectLines(lines, ['a', 'after the rename']);
    await writeFile(path, 'new file\n');
    await expectLines(lines, ['a', 'after the rename', 'new file']);
    expect(tail.following).toBe(path);
  });

  it('follows a truncation: size below the position reads the file again from 0', async () => {
    const dir = await tempDir('logtail');
    const path = join(dir, 'game.log');
    await writeFile(path, `${'x'.repeat(200)}\n`);
    const { lines } = await reader(path);
    await appendFile(path, 'one\n');
    await expectLines(lines, ['one']);
    await truncate(path, 0);
    await appendFile(path, 'two\n');
    await expectLines(lines, ['one', 'two']);
  });

  it('follows a replace: another inode at the path is read from its start, even when it is larger', async () => {
    const dir = await tempDir('logtail');
    const path = join(dir, 'game.log');
    await writeFile(path, 'old\n');
    const { lines } = await reader(path);
    await appendFile(path, 'one\n');
    await expectLines(lines, ['one']);
    const next = join(dir, 'game.log.new');
    // Larger than the old position, so a reader going by size alone would read it from the old offset.
    await writeFile(next, `replaced ${'y'.repeat(50)}\nsecond\n`);
    await rename(next, path);
    await expectLines(lines, ['one', `replaced ${'y'.repeat(50)}`, 'second']);
  });

  it('with a glob, follows the newest match, and moves to a newer one after finishing the old', async () => {
    const dir = await tempDir('logtail');
    const older = join(dir, 'ServerGame.1.2026.11.26.log');
    const newest = join(dir, 'ServerGame.2.2026.11.27.log');
    await writeFile(older, 'older\r\n');
    await writeFile(newest, 'newest old line\r\n');
    await utimes(older, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    await writeFile(join(dir, 'Other.log'), 'not ours\n');
    const { tail, lines } = await reader(join(dir, 'ServerGame.*.log'));
    expect(tail.following).toBe(newest);
    await appendFile(newest, 'marker\r\n');
    await expectLines(lines, ['marker']);
    await appendFile(newest, 'last of 2\r\n');
    await writeFile(join(dir, 'ServerGame.3.2026.11.28.log'), 'first of 3\r\n');
    await expectLines(lines, ['marker', 'last of 2', 'first of 3']);
    expect(tail.following).toBe(join(dir, 'ServerGame.3.2026.11.28.log'));
  });

  it('decodes UTF-8 with a BOM (no BOM in the line) and CRLF endings', async () => {
    const dir = await tempDir('logtail');
    const path = join(dir, 'ConanSandbox.log');
    const { lines } = await reader(path);
    await writeFile(path, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('ChatWindow: Grüße 🎉\r\nzwei\r\n')]));
    await expectLines(lines, ['ChatWindow: Grüße 🎉', 'zwei']);
  });

  it('decodes UTF-16LE with a BOM, and without one when reading starts at the end', async () => {
    const dir = await tempDir('logtail');
    const withBom = join(dir, 'bom.log');
    const bomReader = await reader(withBom);
    await writeFile(withBom, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Sprecher: äöü 🎉\r\n', 'utf16le')]));
    await expectLines(bomReader.lines, ['Sprecher: äöü 🎉']);

    const bomless = join(dir, 'bomless.log');
    await writeFile(bomless, Buffer.from('an old line\r\n', 'utf16le'));
    const bomlessReader = await reader(bomless);
    await appendFile(bomless, Buffer.from('neu: ß\r\n', 'utf16le'));
    await expectLines(bomlessReader.lines, ['neu: ß']);
  });

  it('never garbles a multi-byte character split across two appends, and joins a partial line', async () => {
    const dir = await tempDir('logtail');
    const path = join(dir, 'game.log');
    await writeFile(path, '');
    const { lines } = await reader(path);
    const euro = Buffer.from('€', 'utf8');
    await appendFile(path, Buffer.concat([Buffer.from('price 5'), euro.subarray(0, 2)]));
    await pollTurns();
    await appendFile(path, Buffer.concat([euro.subarray(2), Buffer.from(' and mo')]));
    await pollTurns();
    await appendFile(path, 're\n');
    await expectLines(lines, ['price 5€ and more']);
  });

  it('cuts an over-long line to maxLineLength, drops the rest up to its newline, and says so once', async () => {
    const dir = await tempDir('logtail');
    const path = join(dir, 'game.log');
    await writeFile(path, '');
    const { lines, logs } = await reader(path, { maxLineLength: 10 });
    await appendFile(path, 'x'.repeat(40));
    await pollTurns();
    await appendFile(path, `${'z'.repeat(40)}\nok\n${'w'.repeat(11)}\n`);
    await expectLines(lines, ['x'.repeat(10), 'ok', 'w'.repeat(10)]);
    expect(logs.filter((entry) => entry.msg?.includes('was cut') === true)).toHaveLength(1);
  });

  it('cuts an unfinished line as soon as it passes maxLineLength, before its newline comes', async () => {
    const dir = await tempDir('logtail');
    const path = join(dir, 'game.log');
    await writeFile(path, '');
    const { lines, logs } = await reader(path, { maxLineLength: 10 });
    // No newline yet: a reader holding more than the bound would say nothing until the line ends.
    await appendFile(path, 'x'.repeat(30));
    await until(
      () => logs.some((entry) => entry.msg?.includes('was cut') === true),
      () => 'the cut told',
    );
    expect(logs.find((entry) => entry.msg?.includes('was cut') === true)?.obj).toMatchObject({ length: 30, maxLineLength: 10 });
    await appendFile(path, `${'y'.repeat(30)}\nok\n`);
    await expectLines(lines, ['x'.repeat(10), 'ok']);
  });

  it('keeps reading when onLine throws, and logs it', async () => {
    const dir = await tempDir('logtail');
    const path = join(dir, 'game.log');
    await writeFile(path, '');
    const seen: string[] = [];
    const { logs } = await reader(path, {
      onLine: (line) => {
        seen.push(line);
        if (line === 'boom') throw new Error('handler bug');
      },
    });
    await appendFile(path, 'boom\nafter\n');
    await expectLines(seen, ['boom', 'after']);
    expect(logs.some((entry) => entry.level === 'error' && entry.msg?.includes('threw') === true)).toBe(true);
  });

  it('never rejects for a missing directory; logs it with a hint, and reads the file once it exists', async () => {
    const base = await tempDir('logtail');
    const dir = join(base, 'Logs');
    const path = join(dir, 'ServerGame.*.log');
    const { tail, lines, logs } = await reader(path);
    expect(tail.following).toBeUndefined();
    expect(logs.some((entry) => entry.level === 'warn' && JSON.stringify(entry.obj).includes('ENOENT') && JSON.stringify(entry.obj).includes('hint'))).toBe(true);
    await mkdir(dir);
    await writeFile(join(dir, 'ServerGame.1.log'), 'hello\n');
    await expectLines(lines, ['hello']);
  });

  it('after close(), onLine is never called again', async () => {
    const dir = await tempDir('logtail');
    const path = join(dir, 'game.log');
    await writeFile(path, '');
    const closing = await reader(path);
    await appendFile(path, 'a\n');
    await expectLines(closing.lines, ['a']);
    await closing.tail.close();
    await closing.tail.close(); // idempotent
    expect(closing.tail.following).toBeUndefined();
    // A witness reading the same file sees what the closed reader would have; two rounds, so a second poll passed.
    const witness = await reader(path, { watch: false });
    await appendFile(path, 'b\n');
    await expectLines(witness.lines, ['b']);
    await appendFile(path, 'c\n');
    await expectLines(witness.lines, ['b', 'c']);
    expect(closing.lines).toEqual(['a']);
  });

  it('with watch off, polling alone picks up appends, a rename and a deletion then a new file', async () => {
    const dir = await tempDir('logtail');
    const path = join(dir, 'latest.log');
    await writeFile(path, 'old\n');
    const { lines } = await reader(path, { watch: false });
    await appendFile(path, 'one\n');
    await expectLines(lines, ['one']);
    await appendFile(path, 'two\n');
    await rename(path, join(dir, '2026-11-27-1.log'));
    await writeFile(path, 'three\n');
    await expectLines(lines, ['one', 'two', 'three']);
    await unlink(path);
    await writeFile(path, 'four\n');
    await expectLines(lines, ['one', 'two', 'three', 'four']);
  });
  it('reads nothing while the line reader has no room, then goes on in order from where it stopped', async () => {
    const dir = await tempDir('logtail');
    const path = join(dir, 'ConanSandbox.log');
    await writeFile(path, '');
    let held: Promise<void> | undefined;
    let release = (): void => undefined;
    let asksWhileHeld = 0;
    const { lines } = await reader(path, {
      room: () => {
        if (held !== undefined) asksWhileHeld += 1;
        return held;
      },
    });
    await appendFile(path, 'one\n');
    await expectLines(lines, ['one']);
    held = new Promise((resolve) => {
      release = resolve;
    });
    await appendFile(path, 'two\nthree\n');
    // The tail asked, was told to wait, and stays there: polls and watch events queue behind it, nothing is read.
    await until(
      () => asksWhileHeld > 0,
      () => 'the tail asking for room',
    );
    await pollTurns();
    expect(lines).toEqual(['one']);
    expect(asksWhileHeld).toBe(1);
    held = undefined;
    release();
    await expectLines(lines, ['one', 'two', 'three']);
  });
});
