// A reload's log.level reaches every logger the running parts already hold: pino children keep their own level,
// so setLoggerLevel walks the children createLogger has seen made.
import { describe, expect, it } from 'vitest';
import { createLogger, setLoggerLevel } from '../../src/log/logger.js';

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
