// `run`'s last resort, in-process on a stand-in for `process`: an uncaught exception or an unhandled rejection is
// one fatal line through the redacting logger, with the error and its context, then exit 1 so the supervisor
// restarts the sidecar. Removing the handlers removes both.
import { EventEmitter } from 'node:events';
import { beforeEach, describe, expect, it } from 'vitest';
import { EXIT_CRASHED, installCrashHandlers } from '../../src/cli/crashHandlers.js';
import { createLogger } from '../../src/log/logger.js';

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly event?: string;
  readonly running?: boolean;
  readonly err?: { readonly message: string; readonly stack?: string };
}

const FATAL = 60;
const SECRET = 'the-client-secret-of-this-test';

let lines: Line[];
let exits: number[];
let source: EventEmitter;

function install(): () => void {
  const logger = createLogger({ level: 'info', secrets: [SECRET], destination: { write: (line: string) => lines.push(JSON.parse(line) as Line) } });
  return installCrashHandlers({ logger: () => logger, source, exit: (code) => exits.push(code), context: () => ({ running: true }) });
}

beforeEach(() => {
  lines = [];
  exits = [];
  source = new EventEmitter();
});

describe('installCrashHandlers', () => {
  it('logs an uncaught exception as fatal with its stack and context, secrets scrubbed, then exits 1', () => {
    install();
    source.emit('uncaughtException', new Error(`boom while using ${SECRET}`));
    expect(exits).toEqual([1]);
    expect(EXIT_CRASHED).toBe(1);
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({ level: FATAL, event: 'uncaughtException', running: true });
    expect(line!.msg).toMatch(/^an uncaught exception: boom while using \*\*\*; exiting so the supervisor restarts the sidecar$/);
    expect(line!.err?.stack).toMatch(/crash-handlers\.test/);
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });

  it('logs an unhandled rejection, even of a non-Error, then exits 1', () => {
    install();
    source.emit('unhandledRejection', 'a plain string');
    expect(exits).toEqual([1]);
    expect(lines[0]).toMatchObject({ level: FATAL, event: 'unhandledRejection', msg: expect.stringMatching(/^an unhandled promise rejection: a plain string;/) as unknown });
  });

  it('exits even when the logger itself fails', () => {
    installCrashHandlers({
      logger: () => {
        throw new Error('no logger');
      },
      source,
      exit: (code) => exits.push(code),
    });
    expect(() => source.emit('uncaughtException', new Error('boom'))).toThrow('no logger');
    expect(exits).toEqual([1]);
  });

  it('removes both handlers', () => {
    const uninstall = install();
    expect(source.listenerCount('uncaughtException')).toBe(1);
    expect(source.listenerCount('unhandledRejection')).toBe(1);
    uninstall();
    expect(source.listenerCount('uncaughtException')).toBe(0);
    expect(source.listenerCount('unhandledRejection')).toBe(0);
  });
});
