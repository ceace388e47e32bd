// `gsa-bridge moderation list`: reads the moderation log the chat filter and the mute/unmute commands append to,
// one step a line or JSON, the last KEPT_RECORDS only, corrupt lines skipped, no data directory yet is no steps.
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { appendModerationRecord, KEPT_RECORDS, moderationFile, ModerationLog, type ModerationRecord } from '../../src/moderation/moderationLog.js';
import { silentLogger } from '../../src/log/logger.js';
import { runCliInProcess } from '../fixtures/inProcessCli.js';
import { tempDir } from '../fixtures/tempDir.js';

async function setUp(): Promise<{ configPath: string; dataDir: string }> {
  const dir = await tempDir('moderation-list');
  const configPath = path.join(dir, 'config.json');
  await writeFile(configPath, JSON.stringify({ api: { baseUrl: 'http://127.0.0.1:9' }, servers: [{ name: 'ovddykvbs', adapters: [] }], reviews: { dataDir: 'data' } }));
  return { configPath, dataDir: path.join(dir, 'data') };
}

const MUTE: ModerationRecord = {
  at: '2026-11-27T22:00:00.000Z',
  server: 'ovddykvbs',
  player: '76561198000000001',
  player_name: 'Rex "the" Bold',
  rule: 3,
  strike: 2,
  action: 'mute',
  period: '15m',
  result: 'refused',
  answer: 'cooldown: You cannot do this yet',
  by: 'filter',
};
const UNMUTE: ModerationRecord = { at: '2026-11-27T22:05:00.000Z', server: null, player: '0a1b2c3d-0000-4000-8000-000000000001', rule: null, action: 'unmute', period: null, result: 'ok', answer: 'Player will be unmuted shortly.', by: 'command' };

describe('moderation list', () => {
  it('lists nothing, exit 0, when nothing was done yet', async () => {
    const { configPath } = await setUp();
    const run = await runCliInProcess(['moderation', 'list', '--config', configPath]);
    expect(run).toMatchObject({ code: 0, stdout: '' });
    expect(run.stderr).toContain('0 steps');
  });

  it('prints one line a step (time, server, player, rule, action, result, answer), and JSON with --json', async () => {
    const { configPath, dataDir } = await setUp();
    await appendModerationRecord(dataDir, MUTE);
    await appendModerationRecord(dataDir, UNMUTE);
    await appendFile(moderationFile(dataDir), 'torn {\n');
    const run = await runCliInProcess(['moderation', 'list', '--config', configPath]);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')).toEqual([
      '2026-11-27T22:00:00.000Z  ovddykvbs  76561198000000001 "Rex \\"the\\" Bold"  word #3  mute 15m  refused  "cooldown: You cannot do this yet"',
      '2026-11-27T22:05:00.000Z  (all servers)  0a1b2c3d-0000-4000-8000-000000000001  -  unmute  ok  "Player will be unmuted shortly."',
      '',
    ]);
    expect(run.stderr).toContain('skipped 1 unreadable line');
    const json = await runCliInProcess(['moderation', 'list', '--json', '--config', configPath]);
    expect(json.stdout.trim().split('\n').map((line) => JSON.parse(line) as unknown)).toEqual([MUTE, UNMUTE]);
  });

  it('keeps the file bounded: the sidecar compacts it to the last records', async () => {
    const { configPath, dataDir } = await setUp();
    const log = await ModerationLog.open(dataDir, silentLogger());
    for (let index = 0; index < 2 * KEPT_RECORDS + 10; index++) log.append({ ...UNMUTE, rule: index, by: 'filter' });
    await log.settled();
    const run = await runCliInProcess(['moderation', 'list', '--json', '--config', configPath]);
    const rules = run.stdout.trim().split('\n').map((line) => (JSON.parse(line) as ModerationRecord).rule);
    expect(rules).toHaveLength(KEPT_RECORDS);
    expect(rules.at(-1)).toBe(2 * KEPT_RECORDS + 9);
  }, 60_000);

  it('has --help', async () => {
    const run = await runCliInProcess(['moderation', 'list', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('moderation list');
  });
});
