// The two log formats: JSON lines where every line carries server and adapter once (null for the process as a whole),
// and pretty lines with time, level word, [server/adapter] and message, made by pino-pretty synchronously (a line is
// written before the call returns, so nothing is lost at exit).
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { oneShotLevel } from '../../src/cli/commandLogger.js';

function capture(format: 'json' | 'pretty'): { lines: () => string[]; logger: ReturnType<typeof createLogger> } {
  let written = '';
  const logger = createLogger({ level: 'info', format, destination: { write: (line: string) => (written += line) } });
  return { lines: () => written.split('\n').filter((line) => line !== ''), logger };
}

describe('JSON lines', () => {
  it('carry server and adapter exactly once: null for the process, the bindings of a child', () => {
    const { lines, logger } = capture('json');
    logger.info('process line');
    logger.child({ server: 'ovd', adapter: 'ws-main' }).info({ remote: '127.0.0.1' }, 'mod connected');
    logger.child({ server: 'ovd' }).warn('server line');
    logger.child({ server: 'ovd' }).child({ adapter: 'ark-main' }).info('nested');
    logger.info({ server: 'named-in-the-call' }, 'a field of the call wins');
    const records = lines().map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((record) => [record.server, record.adapter, record.msg])).toEqual([
      [null, null, 'process line'],
      ['ovd', 'ws-main', 'mod connected'],
      ['ovd', null, 'server line'],
      ['ovd', 'ark-main', 'nested'],
      ['named-in-the-call', null, 'a field of the call wins'],
    ]);
    for (const line of lines()) {
      expect(line.match(/"server":/g)).toHaveLength(1);
      expect(line.match(/"adapter":/g)).toHaveLength(1);
    }
  });

  it('one line fields never leak into the next line', () => {
    const { lines, logger } = capture('json');
    logger.info({ first: 1 }, 'one');
    logger.info('two');
    expect(JSON.parse(lines()[1] ?? '')).not.toHaveProperty('first');
  });
});

describe('pretty lines', () => {
  it('time, level word, [server/adapter] or [gsa-bridge], message, other fields on the same line; no colours unless asked', () => {
    const { lines, logger } = capture('pretty');
    logger.info('process line');
    logger.child({ server: 'ovd', adapter: 'ws-main' }).warn({ remote: '127.0.0.1' }, 'mod connected');
    logger.child({ server: 'ovd' }).error('server line');
    const time = String.raw`\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [+-]\d{4}\]`;
    expect(lines()).toEqual([
      expect.stringMatching(new RegExp(`^${time} INFO: \\[gsa-bridge\\] process line$`)),
      expect.stringMatching(new RegExp(`^${time} WARN: \\[ovd/ws-main\\] mod connected \\{"remote":"127\\.0\\.0\\.1"\\}$`)),
      expect.stringMatching(new RegExp(`^${time} ERROR: \\[ovd\\] server line$`)),
    ]);
    expect(lines().join('\n')).not.toContain('\x1b[');
  });

  it('is written before the call returns', () => {
    const { lines, logger } = capture('pretty');
    logger.fatal('last words');
    expect(lines()).toHaveLength(1);
  });
});

describe('one-shot commands', () => {
  it('log at warn unless GSA_BRIDGE_LOG_LEVEL asks, or the file asks for less', () => {
    expect(oneShotLevel('info', {})).toBe('warn');
    expect(oneShotLevel('debug', {})).toBe('warn');
    expect(oneShotLevel('error', {})).toBe('error');
    expect(oneShotLevel('debug', { GSA_BRIDGE_LOG_LEVEL: 'debug' })).toBe('debug');
    // The demo has no config file to overlay the variable on: it still counts.
    expect(oneShotLevel('warn', { GSA_BRIDGE_LOG_LEVEL: 'info' })).toBe('info');
  });
});
