// The configuration of GSA's System API (api.system, GSA_SYSTEM_API_KEY) and of the chat filter (moderation.filter):
// defaults, the period codes, the rule that a mute step needs a key, and the key as a secret.
import { describe, expect, it } from 'vitest';
import { collectSecrets, maskSecrets, parseConfig } from '../../src/app/config.js';
import { problemsOf } from '../fixtures/configProblems.js';

function minimal(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { api: { clientId: 'client-1', clientSecret: 'file-secret' }, servers: [{ name: 'ovddykvbs', adapters: [] }], ...overrides };
}


const filter = (ladder: unknown[], words: string[] = ['scam']) => ({ moderation: { filter: { words, ladder } } });

describe('api.system', () => {
  it('is absent by default, and fills its budget when present', () => {
    expect(parseConfig(minimal(), {}).api.system).toBeUndefined();
    const config = parseConfig(minimal({ api: { clientId: 'c', clientSecret: 's', system: { key: 'sys-key-1' } } }), {});
    expect(config.api.system).toEqual({ key: 'sys-key-1', gsaId: '', rateLimit: { requests: 100, intervalMs: 60000 } });
  });

  it('takes the key from GSA_SYSTEM_API_KEY, over the file, and makes the section when the file has none', () => {
    expect(parseConfig(minimal(), { GSA_SYSTEM_API_KEY: 'from-env' }).api.system?.key).toBe('from-env');
    const overridden = parseConfig(minimal({ api: { clientId: 'c', clientSecret: 's', system: { key: 'file', gsaId: 'tool-7' } } }), { GSA_SYSTEM_API_KEY: 'env' });
    expect(overridden.api.system).toMatchObject({ key: 'env', gsaId: 'tool-7' });
  });

  it('is a secret: masked by config check and collected for the log scrubber', () => {
    const config = parseConfig(minimal({ api: { clientId: 'c', clientSecret: 's', system: { key: 'the-system-key' } } }), {});
    expect(maskSecrets(config).api.system?.key).toBe('***');
    expect(collectSecrets(config)).toContain('the-system-key');
    expect(JSON.stringify(maskSecrets(config))).not.toContain('the-system-key');
  });

  it('refuses a GSA-ID with spaces without echoing it', () => {
    const problems = problemsOf(minimal({ api: { clientId: 'c', clientSecret: 's', system: { gsaId: 'has space-secretish' } } }));
    expect(problems).toEqual([{ path: 'api.system.gsaId', message: 'must be printable characters without spaces' }]);
  });
});

describe('moderation.filter', () => {
  it('defaults to warn, mute 15m, mute 1d over a day, not a dry run', () => {
    const config = parseConfig(minimal({ moderation: { filter: { words: [] } } }), {});
    expect(config.moderation.filter).toEqual({
      words: [],
      ladder: [{ action: 'warn' }, { action: 'mute', period: '15m' }, { action: 'mute', period: '1d' }],
      strikeMemoryMs: 86_400_000,
      dryRun: false,
    });
  });

  it("takes GSA's period codes only, and names them for a slip like 7d", () => {
    const problems = problemsOf(minimal({ api: { clientId: 'c', clientSecret: 's', system: { key: 'k' } }, ...filter([{ action: 'mute', period: '7d' }]) }));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.path).toBe('moderation.filter.ladder[0].period');
    expect(problems[0]!.message).toContain('(a week is 1w)');
    expect(problems[0]!.message).toContain('1m–11m (months)');
    for (const period of ['15m', '12h', '6d', '3w', '11m', '1y', '0', 'eod', 'eoy']) {
      expect(() => parseConfig(minimal({ api: { clientId: 'c', clientSecret: 's', system: { key: 'k' } }, ...filter([{ action: 'mute', period }]) }), {})).not.toThrow();
    }
  });

  it('refuses a mute step without a System API key while there are words, naming the step', () => {
    const problems = problemsOf(minimal(filter([{ action: 'warn' }, { action: 'mute', period: '1h' }])));
    expect(problems).toEqual([
      { path: 'moderation.filter.ladder[1]', message: "a mute step needs GSA's System API key: set api.system.key (or GSA_SYSTEM_API_KEY), or make the step a warn" },
    ]);
    expect(() => parseConfig(minimal(filter([{ action: 'mute', period: '1h' }])), { GSA_SYSTEM_API_KEY: 'k' })).not.toThrow();
    expect(() => parseConfig(minimal(filter([{ action: 'mute', period: '1h' }], [])), {})).not.toThrow();
    expect(() => parseConfig(minimal(filter([{ action: 'warn' }])), {})).not.toThrow();
  });

  it('refuses an unknown action and an empty ladder', () => {
    expect(problemsOf(minimal(filter([{ action: 'ban' }])))[0]!.path).toBe('moderation.filter.ladder[0].action');
    const empty = problemsOf(minimal(filter([])));
    expect(empty.map((problem) => problem.path)).toEqual(['moderation.filter.ladder']);
    expect(empty[0]!.message).toContain('at least one step');
  });
});
