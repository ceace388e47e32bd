// A reload's log.level reaches every logger the running parts already hold: pino children keep their own level,
// so setLoggerLevel walks the children createLogger has seen made.
import { describe, expect, it } from 'vitest';
import { addLoggerSecrets, createLogger, setLoggerLevel } from '../../src/log/logger.js';

describe('setLoggerLevel', () => {
  it('changes the level of the root and of every child and grandchild made before', () => {
    const lines: string[] = [];
    const root = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(line) } });
    const bridge = root.child({ server: 'alpha' });
    const adapter = bridge.child({ adapter: 'mod' });
    adapter.debug('hidden');
    expect(lines).toHaveLength(0);

    setLoggerLevel(root, 'debug');
    adapter.debug('shown');
    bridge.debug('shown too');
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['shown', 'shown too']);

    setLoggerLevel(root, 'warn');
    adapter.info('hidden again');
    root.child({ later: true }).info('a child made after takes the root level');
    expect(lines).toHaveLength(2);
  });
});

describe('addLoggerSecrets', () => {
  it('scrubs a reload\'s new secrets in every line, from children made before too, and keeps scrubbing the old ones', () => {
    for (const format of ['json', 'pretty'] as const) {
      const lines: string[] = [];
      const root = createLogger({ level: 'info', format, secrets: ['old-token-1111'], destination: { write: (line: string) => lines.push(line) } });
      const adapter = root.child({ server: 'alpha', adapter: 'mod' });
      adapter.info('before: new-secret/2222 is not known yet');
      expect(lines.join('')).toContain('new-secret/2222');

      addLoggerSecrets(root, ['new-secret/2222']);
      adapter.info({ echoed: 'new-secret%2F2222' }, 'after: new-secret/2222 and old-token-1111');
      root.warn('a crash line: new-secret/2222');
      const after = lines.slice(1).join('');
      expect(after).not.toContain('new-secret');
      expect(after).not.toContain('old-token-1111');
      expect(after).toContain('***');
    }
  });
});
