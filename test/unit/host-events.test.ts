// The host's info lines from the core's events: a blocked chat line names the player and the server and never the
// text; a muted player who keeps talking is one line, then one summary per window; a delivered review is one line.
import { beforeEach, describe, expect, it } from 'vitest';
import { BridgeEvents, type VerdictEvent } from '../../src/bridge/events.js';
import { createLogger } from '../../src/log/logger.js';
import { HostEventLog } from '../../src/ops/hostEvents.js';

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly server?: string;
  readonly player?: string;
  readonly blocked?: number;
  readonly review?: string;
}

const INFO = 30;
const MALLORY = '76561198000000666';

let lines: Line[];
let now: number;
let events: BridgeEvents;
let log: HostEventLog;

function blocked(overrides: Partial<VerdictEvent> = {}): VerdictEvent {
  return { server: 'ovddykvbs', player: { steamId: MALLORY }, verdict: 'block', reason: 'muted', source: 'cache', durationMs: 0, ...overrides };
}

beforeEach(() => {
  lines = [];
  now = 0;
  events = new BridgeEvents();
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(JSON.parse(line) as Line) } });
  log = new HostEventLog({ events, logger, clock: { now: () => now }, blockedWindowMs: 60_000, maxTrackedPlayers: 2 });
});

describe('HostEventLog', () => {
  it('logs a blocked chat line at info with the player and the server', () => {
    events.emit('verdict', blocked());
    expect(lines).toEqual([expect.objectContaining({ level: INFO, server: 'ovddykvbs', player: MALLORY, msg: `chat blocked: player ${MALLORY} on ovddykvbs (muted)` })]);
  });

  it('for chat the game already showed (RCON), says what was done instead of "blocked"', () => {
    events.emit('verdict', blocked({ adapter: 'rust-main', alreadyShown: true, tellsSpeaker: false }));
    events.emit('verdict', blocked({ server: 'other', adapter: 'ark-main', alreadyShown: true, reason: 'unknown', source: 'policy' }));
    expect(lines.map((line) => line.msg)).toEqual([
      `muted player spoke: player ${MALLORY} on ovddykvbs (muted; RCON cannot un-send chat, so the line was seen, and adapter rust-main cannot message players)`,
      `chat not checked in time: player ${MALLORY} on other (GSA did not answer in time; mute.onUnknown is "block", but RCON cannot un-send chat, so the line was seen)`,
    ]);
  });

  it('names the id GSA was asked by, which may not be the first id the player has', () => {
    const eos = '0002bfc5aaaa0000bbbb0000cccc0281';
    events.emit('verdict', blocked({ player: { steamId: MALLORY, eosId: eos }, asked: { kind: 'eos', id: eos } }));
    events.emit('verdict', blocked({ server: 'rust', adapter: 'rust-main', alreadyShown: true, tellsSpeaker: true, asked: { kind: 'steam', id: MALLORY } }));
    expect(lines).toEqual([
      expect.objectContaining({ player: MALLORY, asked: { eos_id: eos }, msg: `chat blocked: player ${MALLORY} on ovddykvbs (muted, GSA asked by eos_id ${eos})` }),
      expect.objectContaining({
        msg: `muted player spoke: player ${MALLORY} on rust (muted, GSA asked by steam_id ${MALLORY}; RCON cannot un-send chat, so the line was seen: told the muted player)`,
      }),
    ]);
  });

  it('logs nothing for an allowed line', () => {
    events.emit('verdict', blocked({ verdict: 'allow', reason: 'ok' }));
    expect(lines).toEqual([]);
  });

  it('summarises a muted spammer: the first line, then one line per window with the count', () => {
    for (let line = 0; line < 500; line++) {
      events.emit('verdict', blocked());
      now += 100;
    }
    // 50 s of spam: only the first line.
    expect(lines).toHaveLength(1);
    for (let line = 0; line < 200; line++) {
      events.emit('verdict', blocked());
      now += 100;
    }
    // 70 s in: one summary for the 600 lines blocked since the first.
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ player: MALLORY, blocked: 600 });
    expect(lines[1]!.msg).toMatch(/600 lines in the last 1 min/);
  });

  it('keeps players apart, per server, and forgets the oldest beyond its bound', () => {
    events.emit('verdict', blocked());
    events.emit('verdict', blocked({ server: 'second' }));
    events.emit('verdict', blocked({ player: { eosId: '0002aaaabbbbccccddddeeeeffff0000' }, reason: 'unknown' }));
    expect(lines.map((line) => `${line.server} ${line.player}`)).toEqual([`ovddykvbs ${MALLORY}`, `second ${MALLORY}`, 'ovddykvbs 0002aaaabbbbccccddddeeeeffff0000']);
    expect(lines[2]!.msg).toMatch(/mute\.onUnknown is "block"/);
    // The newest is still in its window; the first was forgotten (bound 2), so it is logged again.
    events.emit('verdict', blocked({ player: { eosId: '0002aaaabbbbccccddddeeeeffff0000' }, reason: 'unknown' }));
    expect(lines).toHaveLength(3);
    events.emit('verdict', blocked());
    expect(lines).toHaveLength(4);
  });

  it('keeps Minecraft players (a Mojang id alone) apart and names them by it', () => {
    const steve = '069a79f4-44e9-4726-a5be-fca90e38aaf5';
    const alex = '853c80ef-3c37-49fd-aa49-938b674adae6';
    events.emit('verdict', blocked({ player: { mojangId: steve, name: 'Steve' } }));
    events.emit('verdict', blocked({ player: { mojangId: alex, name: 'Alex' } }));
    expect(lines.map((line) => line.player)).toEqual([steve, alex]);
  });

  it('logs a delivered review with its server and id; other results are the outbox\'s own warnings', () => {
    events.emit('review', { server: 'ovddykvbs', review: 'r-1', result: 'queued' });
    events.emit('review', { server: 'ovddykvbs', review: 'r-1', result: 'delivered' });
    events.emit('review', { server: 'ovddykvbs', review: 'r-2', result: 'refused', code: 'forbidden' });
    expect(lines).toEqual([expect.objectContaining({ level: INFO, server: 'ovddykvbs', review: 'r-1', msg: 'review r-1 for ovddykvbs delivered to GSA' })]);
  });

  it('stops logging once closed', () => {
    log.close();
    events.emit('verdict', blocked());
    expect(lines).toEqual([]);
  });
});
