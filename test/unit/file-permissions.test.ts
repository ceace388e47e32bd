// The start-up warning about files other users can read: the config file holding a secret, and an existing
// review data directory. Real files in a temp dir, chmod'ed; POSIX only.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filePermissionWarnings } from '../../src/cli/filePermissions.js';

const SECRET = 'permission-test-secret';
let dir: string;
let configPath: string;
let dataDir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gsa-bridge-perms-'));
  configPath = join(dir, 'config.json');
  dataDir = join(dir, 'data');
  await writeFile(configPath, JSON.stringify({ api: { clientSecret: SECRET } }));
  await mkdir(dataDir);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(process.platform === 'win32')('filePermissionWarnings', () => {
  it('warns about a config file with a secret and a data directory that others can read, saying what to run', async () => {
    await chmod(configPath, 0o644);
    await chmod(dataDir, 0o755);
    expect(await filePermissionWarnings({ configPath, secrets: [SECRET], dataDir })).toEqual([
      `the config file ${configPath} holds secrets and is readable by group or others (mode 0644): run chmod 600 ${configPath}`,
      `the review data directory ${dataDir} is readable by group or others (mode 0755); reviews hold player ids and comments: run chmod 700 ${dataDir}`,
    ]);
  });

  it('is quiet for 0600 and 0700', async () => {
    await chmod(configPath, 0o600);
    await chmod(dataDir, 0o700);
    expect(await filePermissionWarnings({ configPath, secrets: [SECRET], dataDir })).toEqual([]);
  });

  it('is quiet about a readable config file without a secret in it (secrets come from the environment)', async () => {
    await chmod(configPath, 0o644);
    await chmod(dataDir, 0o700);
    expect(await filePermissionWarnings({ configPath, secrets: ['from-the-environment'], dataDir })).toEqual([]);
  });

  it('says nothing about a data directory that does not exist yet, or on Windows', async () => {
    await chmod(configPath, 0o644);
    expect(await filePermissionWarnings({ configPath: null, secrets: [SECRET], dataDir: join(dir, 'missing') })).toEqual([]);
    expect(await filePermissionWarnings({ configPath, secrets: [SECRET], dataDir, platform: 'win32' })).toEqual([]);
  });
});
