// The chat filter's ladder: a listed word blocks the line with reason "filtered" and counts a strike; the n-th
// strike takes the n-th step (the last repeats); warn tells the player (or is not_supported), mute asks the
// PlayerMuting port and applies the mute only when GSA accepted; dry run blocks nothing and calls nothing; every step
// is in the moderation log and published for the metrics. Real StrikeBook and ModerationLog on a temp directory;
// the port and the site are test doubles of interfaces (no project module is mocked).
import { describe, expect, it, vi } from 'vitest';
import { BridgeEvents, type ModerationEvent } from '../../src/bridge/events.js';
import type { PlayerIdentity } from '../../src/bridge/port.js';
import type { PeriodCode } from '../../src/gsa/system/periods.js';
import type { FilterSite } from '../../src/bridge/lineFilter.js';
import { BLOCKED_ALERT, ChatFilter, FILTER_LOG_SUMMARY_MS, type FilterStep, type MuteOutcome, type PlayerMuting } from '../../src/moderation/chatFilter.js';
import { ModerationLog, readModerationRecords } from '../../src/moderation/moderationLog.js';
import { StrikeBook, type ModerationLogger } from '../../src/moderation/strikeBook.js';
import { ladderSteps, openChatFilter } from '../../src/moderation/openChatFilter.js';
import { WORK_LIMIT } from '../../src/moderation/wordFilter.js';
import { tempDir } from '../fixtures/tempDir.js';

const PLAYER: PlayerIdentity = { steamId: '76561198000000001', name: 'Rex' };
const LADDER: readonly FilterStep[] = [{ action: 'warn', message: 'Mind your words.' }, { action: 'mute', period: '15m' }, { action: 'mute', period: '1d', note: 'second time' }];
const logger: ModerationLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

class RecordingMuting implements PlayerMuting {
  readonly calls: { player: PlayerIdentity; period: PeriodCode; note: string }[] = [];
  constructor(readonly answer: MuteOutcome | Error = { ok: true, message: 'Player will be muted shortly.' }) {}
  mute(player: PlayerIdentity, period: PeriodCode, note: string): Promise<MuteOutcome> {
    this.calls.push({ player, period, note });
    return this.answer instanceof Error ? Promise.reject(this.answer) : Promise.resolve(this.answer);
  }
}

class RecordingSite implements FilterSite {
  readonly serverName = 'ovddykvbs';
  readonly told: string[] = [];
  constructor(readonly canTell: boolean) {}
  tellPlayer(_player: PlayerIdentity, text: string): Promise<boolean> {
    if (this.canTell) this.told.push(text);
    return Promise.resolve(this.canTell);
  }
}

async function filterWith(options: { dryRun?: boolean; muting?: PlayerMuting; ladder?: readonly FilterStep[] } = {}) {
  const dataDir = await tempDir('chat-filter');
  const now = { value: 1_700_000_000_000 };
  const clock = { now: () => now.value };
  const events = new BridgeEvents();
  const published: ModerationEvent[] = [];
  events.on('moderation', (event) => published.push(event));
  const applied: PlayerIdentity[] = [];
  const filter = new ChatFilter({
    words: ['bad', 'scam'],
    ladder: options.ladder ?? LADDER,
    dryRun: options.dryRun ?? false,
    strikes: await StrikeBook.open({ dataDir, memoryMs: 3_600_000, clock, logger }),
    log: await ModerationLog.open(dataDir, logger),
    logger,
    muting: options.muting,
    muteApplier: { applyMute: (player) => applied.push(player) },
    events,
    clock,
  });
  return { filter, dataDir, published, applied, now };
}

describe('ChatFilter', () => {
  it('lets a clean line through without a strike or a record', async () => {
    const { filter, dataDir, published } = await filterWith({ muting: new RecordingMuting() });
    expect(filter.check(PLAYER, 'hello there, scamper', new RecordingSite(true))).toBeUndefined();
    await filter.settled();
    expect((await readModerationRecords(dataDir)).records).toEqual([]);
    expect(published).toEqual([]);
  });

  it('walks the ladder: warn, then each mute, and the last step repeats', async () => {
    const muting = new RecordingMuting();
    const { filter, dataDir, published, applied } = await filterWith({ muting });
    const site = new RecordingSite(true);

    expect(filter.check(PLAYER, 'you are b@d', site)).toEqual({ allow: false, reason: 'filtered', alert: 'Mind your words.' });
    await filter.settled();
    expect(site.told).toEqual(['Mind your words.']);
    expect(muting.calls).toEqual([]);

    expect(filter.check(PLAYER, 'what a s c a m', site)).toEqual({ allow: false, reason: 'filtered', alert: BLOCKED_ALERT });
    await filter.settled();
    expect(muting.calls).toEqual([{ player: PLAYER, period: '15m', note: 'gsa-bridge chat filter' }]);
    expect(applied).toEqual([PLAYER]);

    filter.check(PLAYER, 'BAAAD', site);
    filter.check(PLAYER, 'bad', site);
    await filter.settled();
    expect(muting.calls.map((call) => [call.period, call.note])).toEqual([['15m', 'gsa-bridge chat filter'], ['1d', 'second time'], ['1d', 'second time']]);

    const { records } = await readModerationRecords(dataDir);
    const byStrike = (a: readonly unknown[], b: readonly unknown[]): number => Number(a[3]) - Number(b[3]) || String(a[0]).localeCompare(String(b[0]));
    expect(records.map((record) => [record.action, record.result, record.rule, record.strike, record.period]).sort(byStrike)).toEqual([
      ['block', 'ok', 0, 1, null],
      ['warn', 'ok', 0, 1, null],
      ['block', 'ok', 1, 2, null],
      ['mute', 'ok', 1, 2, '15m'],
      ['block', 'ok', 0, 3, null],
      ['block', 'ok', 0, 4, null],
      ['mute', 'ok', 0, 3, '1d'],
      ['mute', 'ok', 0, 4, '1d'],
    ].sort(byStrike));
    expect(records.every((record) => record.server === 'ovddykvbs' && record.player === PLAYER.steamId && record.player_name === 'Rex')).toBe(true);
    expect(records.find((record) => record.action === 'mute')?.answer).toBe('Player will be muted shortly.');
    expect(JSON.stringify(records)).not.toContain('b@d');
    expect(published.filter((event) => event.action === 'mute')).toHaveLength(3);
  });

  it('records a refusal and a failure, and applies no mute for them', async () => {
    const refusing = await filterWith({ muting: new RecordingMuting({ ok: false, code: 'cooldown', message: 'You cannot do this yet' }), ladder: [{ action: 'mute', period: '1h' }] });
    refusing.filter.check(PLAYER, 'bad', new RecordingSite(true));
    await refusing.filter.settled();
    const failing = await filterWith({ muting: new RecordingMuting(new Error('connect ECONNREFUSED')), ladder: [{ action: 'mute', period: '1h' }] });
    failing.filter.check(PLAYER, 'bad', new RecordingSite(true));
    await failing.filter.settled();
    const timingOut = await filterWith({ muting: new RecordingMuting({ ok: false, code: 'timeout', message: 'no answer in 5 s' }), ladder: [{ action: 'mute', period: '1h' }] });
    timingOut.filter.check(PLAYER, 'bad', new RecordingSite(true));
    await timingOut.filter.settled();

    expect(refusing.applied).toEqual([]);
    expect(failing.applied).toEqual([]);
    expect(refusing.published).toContainEqual({ server: 'ovddykvbs', action: 'mute', result: 'refused', player: PLAYER.steamId, playerName: 'Rex' });
    expect(failing.published).toContainEqual({ server: 'ovddykvbs', action: 'mute', result: 'failed', player: PLAYER.steamId, playerName: 'Rex' });
    expect(timingOut.published).toContainEqual({ server: 'ovddykvbs', action: 'mute', result: 'failed', player: PLAYER.steamId, playerName: 'Rex' });
    const refused = (await readModerationRecords(refusing.dataDir)).records.find((record) => record.action === 'mute');
    expect(refused?.answer).toBe('cooldown: You cannot do this yet');
  });

  it('records not_supported for a warning nobody can deliver and a mute without a System API', async () => {
    const { filter, published } = await filterWith({ ladder: [{ action: 'warn' }, { action: 'mute', period: '15m' }] });
    filter.check(PLAYER, 'bad', new RecordingSite(false));
    filter.check(PLAYER, 'bad', new RecordingSite(false));
    await filter.settled();
    expect(published.filter((event) => event.action !== 'block').map((event) => `${event.action}:${event.result}`).sort()).toEqual(['mute:not_supported', 'warn:not_supported']);
  });

  it('does not tell a warning twice when the adapter shows the verdict itself', async () => {
    const { filter, published } = await filterWith();
    const site = new RecordingSite(true);
    filter.check(PLAYER, 'bad', site, 'mod-1', true);
    await filter.settled();
    expect(site.told).toEqual([]);
    expect(published).toContainEqual({ server: 'ovddykvbs', action: 'warn', result: 'ok', player: PLAYER.steamId, playerName: 'Rex' });
  });

  it('dry run: blocks nothing, calls nothing, records and counts what it would have done', async () => {
    const muting = new RecordingMuting();
    const { filter, dataDir, published, applied } = await filterWith({ dryRun: true, muting });
    const site = new RecordingSite(true);
    expect(filter.check(PLAYER, 'bad', site)).toBeUndefined();
    expect(filter.check(PLAYER, 'bad', site)).toBeUndefined();
    await filter.settled();
    expect(site.told).toEqual([]);
    expect(muting.calls).toEqual([]);
    expect(applied).toEqual([]);
    expect(published.map((event) => `${event.action}:${event.result}`).sort()).toEqual(['block:dry_run', 'block:dry_run', 'mute:dry_run', 'warn:dry_run']);
    expect((await readModerationRecords(dataDir)).records.map((record) => record.result)).toEqual(['dry_run', 'dry_run', 'dry_run', 'dry_run']);
  });

  it('a strike older than strikeMemoryMs no longer counts: the ladder starts again', async () => {
    const muting = new RecordingMuting();
    const { filter, now } = await filterWith({ muting });
    const site = new RecordingSite(true);
    filter.check(PLAYER, 'bad', site);
    now.value += 3_600_000;
    expect(filter.check(PLAYER, 'bad', site)).toEqual({ allow: false, reason: 'filtered', alert: 'Mind your words.' });
    await filter.settled();
    expect(muting.calls).toEqual([]);
  });

  it('a reload changes the words and the dry run in place', async () => {
    const { filter } = await filterWith();
    filter.reconfigure({ words: ['worse'], ladder: LADDER, dryRun: true });
    expect(filter.check(PLAYER, 'bad', new RecordingSite(true))).toBeUndefined();
    expect(filter.dryRun).toBe(true);
    await filter.settled();
  });

  it('lets a line through and warns once per list, without its text, when the line costs the matcher its bound', async () => {
    const warnings: { fields: unknown; message: string }[] = [];
    const warning: ModerationLogger = { ...logger, warn: (fields: unknown, message: string) => warnings.push({ fields, message }) };
    const dataDir = await tempDir('chat-filter');
    // 1,024 words of ten letters, each `i` or `l`: a line of `1!` may be any of them at every step.
    const ambiguous = Array.from({ length: 1024 }, (_, n) => Array.from({ length: 10 }, (_, b) => (((n >> b) & 1) === 1 ? 'i' : 'l')).join(''));
    const filter = new ChatFilter({
      words: ambiguous,
      ladder: LADDER,
      dryRun: false,
      strikes: await StrikeBook.open({ dataDir, memoryMs: 3_600_000, logger }),
      log: await ModerationLog.open(dataDir, logger),
      logger: warning,
    });
    const line = '1!'.repeat(8_192);
    expect(filter.check(PLAYER, line, new RecordingSite(true))).toBeUndefined();
    expect(filter.check(PLAYER, line, new RecordingSite(true))).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(/moderation\.filter\.words: a chat line cost the matcher its bound/);
    expect(JSON.stringify(warnings)).not.toContain('1!1!');
    expect(warnings[0]?.fields).toEqual({ length: line.length, steps: WORK_LIMIT });
    await filter.settled();
  });

  it('opens from config-shaped settings, strikes read back from the data directory, and refuses a period GSA does not know', async () => {
    const dataDir = await tempDir('chat-filter');
    const now = { value: 1_700_000_000_000 };
    const clock = { now: () => now.value };
    const settings = { dataDir, words: ['bad'], ladder: [{ action: 'warn' as const }, { action: 'mute' as const, period: '1h' }], strikeMemoryMs: 60_000, dryRun: false, logger, clock };
    const first = await openChatFilter({ ...settings, muting: new RecordingMuting() });
    first.check(PLAYER, 'bad', new RecordingSite(true));
    await first.settled();
    const muting = new RecordingMuting();
    const second = await openChatFilter({ ...settings, muting });
    expect(second.check(PLAYER, 'bad', new RecordingSite(true))).toEqual({ allow: false, reason: 'filtered', alert: BLOCKED_ALERT });
    await second.settled();
    expect(muting.calls.map((call) => call.period)).toEqual(['1h']);
    // A reload that shortens the memory forgets the older strikes: this is a first strike again (a warning).
    now.value += 30_000;
    second.reconfigure({ words: ['bad'], ladder: ladderSteps(settings.ladder), dryRun: false, strikeMemoryMs: 10_000 });
    expect(second.check(PLAYER, 'bad', new RecordingSite(true))).toEqual({ allow: false, reason: 'filtered', alert: BLOCKED_ALERT });
    await second.settled();
    expect(muting.calls).toHaveLength(1);
    expect(() => ladderSteps([{ action: 'mute', period: '7d' }])).toThrow(/ladder\[0\]\.period "7d"/);
  });

  it('logs one player\'s repeated lines once in full, then sums them every 10 s; another player is news of its own', async () => {
    vi.useFakeTimers({ now: 1_700_000_000_000 });
    try {
      const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
      const recording: ModerationLogger = {
        info: (fields, message) => lines.push({ level: 'info', fields: fields as Record<string, unknown>, message }),
        warn: (fields, message) => lines.push({ level: 'warn', fields: fields as Record<string, unknown>, message }),
        error: () => undefined,
      };
      const dataDir = await tempDir('chat-filter');
      const filter = new ChatFilter({
        words: ['bad'],
        ladder: [{ action: 'warn' }],
        dryRun: false,
        strikes: await StrikeBook.open({ dataDir, memoryMs: 3_600_000, logger }),
        log: await ModerationLog.open(dataDir, logger),
        logger: recording,
      });
      const site = new RecordingSite(false);
      for (let line = 0; line < 50; line++) filter.check(PLAYER, 'bad', site);
      filter.check({ steamId: '76561198000000002', name: 'Other' }, 'bad', site);
      await filter.settled();
      const blocked = lines.filter((line) => line.message === 'chat filter blocked a line');
      expect(blocked.map((line) => line.fields.player)).toEqual([PLAYER.steamId, '76561198000000002']);
      expect(lines.filter((line) => line.message === 'chat filter: the warn step was not done (not_supported)').map((line) => line.fields.player)).toEqual([PLAYER.steamId, '76561198000000002']);
      expect(lines).toHaveLength(4);

      vi.advanceTimersByTime(FILTER_LOG_SUMMARY_MS);
      const summaries = lines.slice(4);
      expect(summaries.map((line) => [line.level, line.fields.player, line.fields.repeats, line.fields.strike ?? line.fields.result])).toEqual([
        ['info', PLAYER.steamId, 49, 50],
        ['warn', PLAYER.steamId, 49, 'not_supported'],
      ]);
      expect(summaries[0]?.message).toMatch(/^chat filter blocked a line: 49 more for this player in the last 10 s/);
      // Every line is still recorded (the log keeps its most recent records).
      expect((await readModerationRecords(dataDir)).records.filter((record) => record.player === PLAYER.steamId)).toHaveLength(100);

      // Counted and not yet told at shutdown: told then.
      filter.check(PLAYER, 'bad', site);
      filter.check(PLAYER, 'bad', site);
      await filter.settled();
      filter.flushLogSummaries();
      expect(lines.slice(6).map((line) => [line.fields.player, line.fields.repeats])).toEqual([
        [PLAYER.steamId, 2],
        [PLAYER.steamId, 2],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
