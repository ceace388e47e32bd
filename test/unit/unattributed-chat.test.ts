// The warning about chat that could not be tied to a player: every line is counted, the host is warned at once and
// then at most once per 10 minutes (fake time), with one sample stripped of control characters and the fix for the
// reason at hand.
import { describe, expect, it } from 'vitest';
import type { UnattributedReason } from '../../src/bridge/port.js';
import { rconUnattributedFix } from '../../adapters/rcon/reading/unattributedFix.js';
import { minecraftProfile } from '../../adapters/rcon/profiles/minecraft.js';
import { rustProfile } from '../../adapters/rcon/profiles/rust.js';
import { UnattributedChat } from '../../adapters/base/unattributedChat.js';
import { captureLogger, type LogLine } from '../fixtures/capturedLogLines.js';

function setup(profile = minecraftProfile) {
  const lines: LogLine[] = [];
  const counted: UnattributedReason[] = [];
  let now = 1_000_000;
  const report = new UnattributedChat({
    logger: captureLogger(lines),
    label: 'rcon adapter game',
    fix: rconUnattributedFix(profile),
    count: (reason: UnattributedReason) => counted.push(reason),
    now: () => now,
  });
  return {
    report,
    counted,
    warnings: () => lines.filter((line) => line.level === 'warn').map((line) => line.message),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('UnattributedChat', () => {
  it('counts every line and warns at once, then at most once per 10 minutes with the count since', () => {
    const { report, counted, warnings, advance } = setup();
    report.note('unreadable', '[12:00:00] [Server thread/INFO]: [Member] Steve » hi');
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatch(/1 chat-like line so far could not be tied to a player/);
    expect(warnings()[0]).toMatch(/set "chatPattern"/);
    expect(warnings()[0]).toMatch(/gsa-bridge log check --profile minecraft/);
    advance(60_000);
    report.note('not_listed', 'line two');
    advance(539_999);
    report.note('not_listed', 'line three');
    expect(warnings()).toHaveLength(1);
    expect(counted).toEqual(['unreadable', 'not_listed', 'not_listed']);
    advance(1);
    report.note('ambiguous', 'line four');
    expect(warnings()).toHaveLength(2);
    expect(warnings()[1]).toMatch(/3 chat-like lines in the last 10 min .*\(not_listed 2, ambiguous 1\)/);
    expect(warnings()[1]).toMatch(/Several listed players fit that name/);
  });

  it('shows one sample with control characters and bidi overrides removed, cut short', () => {
    const { report, warnings } = setup();
    report.note('not_listed', `evil\u001b[31m\r\n\u202eFAKE LOG LINE ${'x'.repeat(1_000)}`);
    const [warning = ''] = warnings();
    const unprintable = Array.from({ length: warning.length }, (_, index) => warning.charCodeAt(index)).filter((code) => code < 0x20 || (code >= 0x202a && code <= 0x202e));
    expect(unprintable).toEqual([]);
    expect(warning).toContain('evil[31m FAKE LOG LINE');
    expect(warning).not.toContain('x'.repeat(200));
    expect(warning).toMatch(/not on the player list \(`list uuids`\)/);
  });

  it('names the id that did not match for an unconfirmed id, and no chatPattern where none can apply', () => {
    const { report, warnings } = setup(rustProfile);
    report.note('unreadable', 'a');
    expect(warnings()[0]).not.toMatch(/chatPattern/);
    const other = setup();
    other.report.note('unconfirmed_id', 'b');
    expect(other.warnings()[0]).toMatch(/not the one the player list shows for that name/);
  });
});
