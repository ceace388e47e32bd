// log.file: every line of a real logger goes to a real file as well as to stderr, scrubbed alike; the file is rotated
// by size into `<file>.1` … `<file>.<maxFiles>` and no more are kept; a write that fails is reported once and does
// not throw into the logger; a file `run` cannot write is a config error naming log.file (exit 2).
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { RotatingLogFile } from '../../src/log/rotatingLogFile.js';
import { runCliInProcess } from '../fixtures/inProcessCli.js';
import { spawnSidecar, waitForOutput } from '../fixtures/sidecarProcess.js';
import { tempDir } from '../fixtures/tempDir.js';

const SECRET = 'client-secret-log-file-5ee';
/**
 * As nobody, who may still read and enter every directory (CAP_DAC_READ_SEARCH, kept across the exec) but writes
 * only where nobody may: the test's temp directories stay root's and 0700, and still the log's directory is refused.
 */
const AS_NOBODY_READING = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--inh-caps=+dac_read_search', '--ambient-caps=+dac_read_search'] as const;

describe('RotatingLogFile under a real logger', () => {
  it('rotates at maxBytes, keeps maxFiles rotated files, and holds no secret in any of them', async () => {
    const dir = await tempDir('log-file');
    const path = join(dir, 'gsa-bridge.log');
    const file = RotatingLogFile.open({ path, maxBytes: 4096, maxFiles: 3 });
    let stderr = '';
    const logger = createLogger({ level: 'info', secrets: [SECRET], destination: { write: (line: string) => (stderr += line) }, file });
    for (let index = 0; index < 200; index++) logger.info({ index, clientSecret: SECRET }, `line ${index} with the secret ${SECRET} in its text`);
    file.close();

    expect((await readdir(dir)).sort()).toEqual(['gsa-bridge.log', 'gsa-bridge.log.1', 'gsa-bridge.log.2', 'gsa-bridge.log.3']);
    const contents = await Promise.all(['', '.1', '.2', '.3'].map((suffix) => readFile(`${path}${suffix}`, 'utf8')));
    for (const [index, text] of contents.entries()) {
      expect(text).not.toContain(SECRET);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
      // Whole JSON lines only: a rotation never cuts one.
      for (const line of text.trimEnd().split('\n')) expect(() => JSON.parse(line) as unknown).not.toThrow();
      // Rotated files are full enough that the next line did not fit.
      if (index > 0) expect(Buffer.byteLength(text)).toBeGreaterThan(4096 - 300);
    }
    // Newest in the file, then .1, .2, .3: the last line is the 199th, and the files follow each other.
    const indexes = contents.map((text) => text.trimEnd().split('\n').map((line) => (JSON.parse(line) as { index: number }).index));
    expect(indexes[0]?.at(-1)).toBe(199);
    expect(indexes[1]?.at(-1)).toBe((indexes[0]?.[0] ?? 0) - 1);
    expect(indexes[3]?.at(-1)).toBe((indexes[2]?.[0] ?? 0) - 1);
    // stderr got every line, the file (with its rotations) the newest ones, the same scrubbed JSON.
    expect(stderr.trimEnd().split('\n')).toHaveLength(200);
    expect(stderr).not.toContain(SECRET);
    expect(stderr.endsWith(contents[0] ?? 'missing')).toBe(true);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('appends to the file a restart finds, and rotates it when it is already full', async () => {
    const dir = await tempDir('log-file');
    const path = join(dir, 'gsa-bridge.log');
    await writeFile(path, `${'x'.repeat(5000)}\n`);
    const file = RotatingLogFile.open({ path, maxBytes: 4096, maxFiles: 2 });
    file.write('{"msg":"after the restart"}\n');
    file.close();
    file.write('{"msg":"after close: dropped"}\n');
    expect(await readFile(path, 'utf8')).toBe('{"msg":"after the restart"}\n');
    expect(await readFile(`${path}.1`, 'utf8')).toHaveLength(5001);
  });

  it('reports a failing rotation once, keeps writing into the current file, and never throws into the logger', async () => {
    const dir = await tempDir('log-file');
    const path = join(dir, 'gsa-bridge.log');
    const errors: Error[] = [];
    const file = RotatingLogFile.open({ path, maxBytes: 100, maxFiles: 2, onError: (error) => errors.push(error) });
    // `.1` is a non-empty directory: renaming the file onto it fails (EISDIR or ENOTEMPTY), every time.
    await mkdir(join(dir, 'gsa-bridge.log.1', 'blocker'), { recursive: true });
    await mkdir(join(dir, 'gsa-bridge.log.2', 'blocker'), { recursive: true });
    const logger = createLogger({ level: 'info', destination: { write: () => undefined }, file });
    for (let index = 0; index < 20; index++) logger.info({ index }, 'a line of about sixty bytes');
    file.close();
    expect(errors).toHaveLength(1);
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(20);
  });
});

describe('log.file in run', () => {
  async function configWith(dir: string, log: Record<string, unknown>): Promise<string> {
    const configPath = join(dir, 'config.json');
    await writeFile(
      configPath,
      JSON.stringify({ api: { clientId: 'demo', clientSecret: SECRET }, servers: [{ name: 'ovddykvbs', adapters: [] }], reviews: { dataDir: 'data' }, http: { port: 0 }, log }),
    );
    return configPath;
  }

  it('refuses a file in a directory that does not exist, or under a file, naming log.file (exit 2), before taking the data directory', async () => {
    const dir = await tempDir('log-file');
    await writeFile(join(dir, 'plain'), '');
    for (const [file, reason] of [
      ['missing/gsa-bridge.log', 'its directory does not exist'],
      ['plain/gsa-bridge.log', 'ENOTDIR'],
    ] as const) {
      const run = await runCliInProcess(['run', '--config', await configWith(dir, { file })]);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(`log.file: cannot write ${join(dir, file)}: ${reason}\n`);
    }
    expect(await readdir(dir)).not.toContain('data');
  });

  it('refuses a directory the sidecar\'s user cannot write, naming log.file (exit 2)', async () => {
    const dir = await tempDir('log-file');
    // The sidecar runs as nobody: it may read its config, not write the log's directory (root's, 0755).
    await mkdir(join(dir, 'logs'), { mode: 0o755 });
    const configPath = await configWith(dir, { file: 'logs/gsa-bridge.log' });
    const root = process.getuid?.() === 0;
    if (!root) await chmod(join(dir, 'logs'), 0o555);
    const sidecar = spawnSidecar(configPath, {}, root ? AS_NOBODY_READING : []);
    expect(await sidecar.exited()).toBe(2);
    expect(sidecar.output()).toContain(`log.file: cannot write ${join(dir, 'logs', 'gsa-bridge.log')}: permission denied`);
    expect(await readdir(join(dir, 'logs'))).toEqual([]);
  });

  it('writes the running sidecar\'s lines to the file, relative to the config\'s directory, scrubbed', async () => {
    const dir = await tempDir('log-file');
    const configPath = await configWith(dir, { level: 'debug', file: 'gsa-bridge.log', maxBytes: 65_536, maxFiles: 2 });
    const sidecar = spawnSidecar(configPath);
    try {
      await waitForOutput(sidecar, /gsa-bridge running/);
    } finally {
      sidecar.child.kill('SIGTERM');
    }
    expect(await sidecar.exited()).toBe(0);
    const text = await readFile(join(dir, 'gsa-bridge.log'), 'utf8');
    expect(text).toContain(`"msg":"logging to ${join(dir, 'gsa-bridge.log')} too (log.file), rotated at 65536 bytes, 2 files kept"`);
    expect(text).toContain('gsa-bridge running');
    expect(text).toContain('"msg":"stopped"');
    expect(text).not.toContain(SECRET);
    // stderr still has every line.
    expect(sidecar.output()).toContain('"msg":"stopped"');
  });
});
