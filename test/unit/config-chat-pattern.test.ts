// The rcon adapter's `chatPattern` key through the real config parser: kept as given for the games whose chat is read
// as lines, refused with its JSON path for the others and for a pattern that cannot be used, in the words of
// reading/chatPattern.ts.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/app/config.js';
import { problemsOf } from '../fixtures/configProblems.js';

const PLUGIN_LINE = String.raw`^\[(?<group>[^\]]+)\] (?<name>[A-Za-z0-9_]{3,16}): (?<message>.*)$`;
const LINE_PROFILES = 'ark, atlas, conan, 7dtd, minecraft';

function withRcon(adapter: Record<string, unknown>): Record<string, unknown> {
  return {
    // Minecraft gates nobody without GSA's System API, so its config needs the key.
    api: { clientId: 'client-1', clientSecret: 'file-secret', system: { key: 'system-key' } },
    servers: [{ name: 'ovddykvbs', adapters: [{ type: 'rcon', password: 'rcon-pass', ...adapter }] }],
  };
}

describe('servers[].adapters[].chatPattern', () => {
  it.each([
    { profile: 'ark', port: 27020, logFile: '/srv/ark/ShooterGame/Saved/Logs/ServerGame.*.log' },
    { profile: 'atlas', port: 27020, logFile: '/srv/atlas/ShooterGame/Saved/Logs/ServerGame.*.log' },
    { profile: 'conan', port: 25575, logFile: '/srv/conan/ConanSandbox/Saved/Logs/ConanSandbox.log' },
    { profile: 'minecraft', logFile: '/srv/mc/logs/latest.log' },
    { profile: '7dtd' },
  ])('is kept as given for $profile, whose chat is read as lines', (adapter) => {
    const config = parseConfig(withRcon({ ...adapter, chatPattern: PLUGIN_LINE }), {});
    expect(config.servers[0]?.adapters[0]).toMatchObject({ profile: adapter.profile, chatPattern: PLUGIN_LINE });
  });

  it('is unset by default', () => {
    expect(parseConfig(withRcon({ profile: '7dtd' }), {}).servers[0]?.adapters[0]).not.toHaveProperty('chatPattern');
  });

  it.each([
    ['squad', 21114],
    ['rust', 28016],
  ])('is refused for %s, whose chat arrives split into name and text, naming the key and the profiles that take it', (profile, port) => {
    expect(problemsOf(withRcon({ profile, port, chatPattern: PLUGIN_LINE }))).toEqual([
      {
        path: 'servers[0].adapters[0].chatPattern',
        message: `is not read by profile ${profile} (it is a chat plugin's line format in a game's log, read by profiles ${LINE_PROFILES})`,
      },
    ]);
  });

  it("is refused for ARK without logFile: GetChat's answers are not the game log's lines", () => {
    expect(problemsOf(withRcon({ profile: 'ark', port: 27020, chatPattern: PLUGIN_LINE }))).toEqual([
      { path: 'servers[0].adapters[0].chatPattern', message: 'is tried on the lines of the game log only: set logFile too (ShooterGame/Saved/Logs/ServerGame.*.log)' },
    ]);
  });

  it.each([
    ['no message group', String.raw`^(?<name>\w+): .*$`, 'has no named group `message`: put (?<message>…) around the chat text'],
    ['an unclosed group', String.raw`^(?<name>\w+): (?<message>.*$`, 'does not compile: missing closing )'],
    ['an empty string', '', 'must not be empty'],
    ['a long one', 'x'.repeat(1001), 'is 1001 characters long; at most 1000'],
  ])('refuses %s with its path and what is wrong', (_label, chatPattern, message) => {
    expect(problemsOf(withRcon({ profile: '7dtd', chatPattern }))).toEqual([{ path: 'servers[0].adapters[0].chatPattern', message }]);
  });

  it('refuses a value that is not a string', () => {
    expect(problemsOf(withRcon({ profile: '7dtd', chatPattern: ['(?<name>\\w+)'] }))).toEqual([
      { path: 'servers[0].adapters[0].chatPattern', message: expect.stringMatching(/string/) as unknown },
    ]);
  });
});
