// The `notify` section: webhook URLs (https, or http to loopback only), formats, afterMs bounds, and a URL treated
// as the secret it is: `config check` shows only its origin, the log scrubber knows it and its token, and a refused
// URL is never echoed in the problem.
import { describe, expect, it } from 'vitest';
import { collectSecrets, ConfigError, maskSecrets, parseConfig } from '../../src/app/config.js';
import { createLogger } from '../../src/log/logger.js';

const TOKEN = 'Zq3v9Lr0aXyT-webhook-token-that-is-long-enough-to-be-a-real-one_0123';
const DISCORD = `https://discord.com/api/webhooks/112233445566778899/${TOKEN}`;

function withNotify(notify: unknown): Record<string, unknown> {
  return { api: { clientId: 'a', clientSecret: 'b' }, servers: [{ name: 'alpha', adapters: [] }], notify };
}

function problemsOf(raw: unknown): { path: string; message: string }[] {
  try {
    parseConfig(raw);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map(({ path, message }) => ({ path, message }));
    throw error;
  }
  return [];
}

describe('config: notify', () => {
  it('is absent unless written, and fills its defaults when it is', () => {
    expect(parseConfig(withNotify(undefined)).notify).toBeUndefined();
    expect(parseConfig(withNotify({})).notify).toEqual({ webhooks: [], afterMs: 300_000, moderation: false });
    expect(parseConfig(withNotify({ webhooks: [{ url: DISCORD }, { url: 'http://127.0.0.1:8080/hook', format: 'json' }] })).notify?.webhooks).toEqual([
      { url: DISCORD, format: 'discord' },
      { url: 'http://127.0.0.1:8080/hook', format: 'json' },
    ]);
    expect(parseConfig(withNotify({ webhooks: [{ url: 'http://[::1]:9/h' }, { url: 'http://localhost/h?thread_id=1' }] })).notify?.webhooks).toHaveLength(2);
  });

  it('refuses plain http beyond loopback, credentials or a fragment in the URL, an unknown format, afterMs out of bounds; never echoing the URL', () => {
    const secretHttp = `http://hooks.example.org/api/webhooks/1/${TOKEN}`;
    const problems = problemsOf(
      withNotify({
        webhooks: [{ url: secretHttp }, { url: `https://user:pw@discord.com/api/webhooks/1/${TOKEN}` }, { url: `${DISCORD}#x` }, { url: DISCORD, format: 'slack' }, { url: 'not a url' }],
        afterMs: 9_999,
      }),
    );
    expect(problems.map((problem) => problem.path)).toEqual([
      'notify.webhooks[0].url',
      'notify.webhooks[1].url',
      'notify.webhooks[2].url',
      'notify.webhooks[3].format',
      'notify.webhooks[4].url',
      'notify.afterMs',
    ]);
    expect(problems[0]?.message).toMatch(/^must be an https URL.*http only to a loopback address/);
    expect(problems[1]?.message).toMatch(/no user or password/);
    expect(problems[5]?.message).toBe('must be 10000–86400000 (milliseconds: 10 s to 1 day)');
    expect(JSON.stringify(problems)).not.toContain(TOKEN);
    expect(problemsOf(withNotify({ afterMs: 86_400_001 })).map((problem) => problem.path)).toEqual(['notify.afterMs']);
    expect(problemsOf(withNotify({ moderation: 'yes' })).map((problem) => problem.path)).toEqual(['notify.moderation']);
  });

  it('masks each URL down to its origin in config check, and hands the URL, its path and its token to the scrubber', () => {
    const config = parseConfig(withNotify({ webhooks: [{ url: DISCORD }, { url: 'http://127.0.0.1:8080/short', format: 'json' }] }));
    const masked = maskSecrets(config);
    expect(masked.notify?.webhooks).toEqual([
      { url: 'https://discord.com/***', format: 'discord' },
      { url: 'http://127.0.0.1:8080/***', format: 'json' },
    ]);
    expect(JSON.stringify(masked)).not.toContain(TOKEN);
    // The original is untouched.
    expect(config.notify?.webhooks[0]?.url).toBe(DISCORD);

    const secrets = collectSecrets(config);
    expect(secrets).toEqual(expect.arrayContaining([DISCORD, `/api/webhooks/112233445566778899/${TOKEN}`, TOKEN, 'http://127.0.0.1:8080/short']));
    // A short path is no token: scrubbing "/short" from every line would mangle unrelated text.
    expect(secrets).not.toContain('/short');

    // The process logger scrubs each of them, whole or in part.
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', secrets, destination: { write: (line: string) => lines.push(line) } });
    logger.warn({ err: { message: `connect failed for ${DISCORD}` } }, `POST /api/webhooks/112233445566778899/${TOKEN} failed; token ${TOKEN}`);
    expect(lines.join('')).not.toContain(TOKEN);
    expect(lines.join('')).toContain('***');
  });
});
