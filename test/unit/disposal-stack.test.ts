// The disposal stack an assembly closes through: parts close in reverse order of registration, one at a time; a
// close that throws is logged and the others still close, then close() rejects with the first failure; close() is
// idempotent; a part registered while unwinding closes next, and one registered after closes at once; a start-up
// that throws unwinds what it had started and rethrows its own error.
import { describe, expect, it } from 'vitest';
import { DisposalStack } from '../../src/app/disposalStack.js';

function stackWithLog() {
  const logged: { part: unknown; err: unknown; message: string }[] = [];
  const stack = new DisposalStack({
    logger: {
      error: (object, message) => {
        const { part, err } = object as { part?: unknown; err?: unknown };
        logged.push({ part, err, message });
      },
    },
  });
  return { stack, logged };
}

describe('DisposalStack', () => {
  it('closes parts in reverse order of registration, each awaited before the next', async () => {
    const { stack, logged } = stackWithLog();
    const events: string[] = [];
    stack.defer('first', () => {
      events.push('first');
    });
    stack.defer('second', async () => {
      events.push('second begins');
      await new Promise<void>((resolve) => setImmediate(resolve));
      events.push('second ends');
    });
    stack.defer('third', () => {
      events.push('third');
      return Promise.resolve();
    });
    expect(stack.closing).toBe(false);
    await stack.close();
    expect(events).toEqual(['third', 'second begins', 'second ends', 'first']);
    expect(stack.closing).toBe(true);
    expect(logged).toEqual([]);
  });

  it('logs a close that throws or rejects, closes the rest, then rejects with the first failure', async () => {
    const { stack, logged } = stackWithLog();
    const closed: string[] = [];
    const thrown = new Error('first failure');
    const rejected = new Error('second failure');
    stack.defer('outer', () => {
      closed.push('outer');
    });
    stack.defer('rejects', () => Promise.reject(rejected));
    stack.defer('middle', () => {
      closed.push('middle');
    });
    stack.defer('throws', () => {
      throw thrown;
    });
    stack.defer('inner', () => {
      closed.push('inner');
    });
    await expect(stack.close()).rejects.toBe(thrown);
    expect(closed).toEqual(['inner', 'middle', 'outer']);
    expect(logged).toEqual([
      { part: 'throws', err: thrown, message: 'throws did not close cleanly; closing the rest anyway' },
      { part: 'rejects', err: rejected, message: 'rejects did not close cleanly; closing the rest anyway' },
    ]);
  });

  it('closes once: a second close() returns the first one’s promise, and a part closes only once', async () => {
    const { stack } = stackWithLog();
    let closes = 0;
    stack.defer('part', () => {
      closes++;
    });
    const first = stack.close();
    const second = stack.close();
    expect(second).toBe(first);
    await first;
    await stack.close();
    expect(closes).toBe(1);
  });

  it('reports the same first failure to every close() call', async () => {
    const { stack, logged } = stackWithLog();
    const failure = new Error('no');
    stack.defer('part', () => {
      throw failure;
    });
    await expect(stack.close()).rejects.toBe(failure);
    await expect(stack.close()).rejects.toBe(failure);
    expect(logged).toHaveLength(1);
  });

  it('closes a part registered while it unwinds next, before the older parts', async () => {
    const { stack } = stackWithLog();
    const closed: string[] = [];
    stack.defer('oldest', () => {
      closed.push('oldest');
    });
    stack.defer('registers late', () => {
      closed.push('registers late');
      stack.defer('late', () => {
        closed.push('late');
      });
    });
    await stack.close();
    expect(closed).toEqual(['registers late', 'late', 'oldest']);
  });

  it('closes a part registered after it has unwound at once, and logs its failure', async () => {
    const { stack, logged } = stackWithLog();
    await stack.close();
    const closed: string[] = [];
    stack.defer('too late', () => {
      closed.push('too late');
    });
    expect(closed).toEqual(['too late']);
    const failure = new Error('cannot close');
    stack.defer('too late, failing', () => Promise.reject(failure));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(logged).toEqual([{ part: 'too late, failing', err: failure, message: 'too late, failing did not close cleanly; closing the rest anyway' }]);
    // What close() reported does not change.
    await expect(stack.close()).resolves.toBeUndefined();
  });

  it('unwinds what a failed start-up had started and rethrows the start-up’s error, not a close’s', async () => {
    const { stack, logged } = stackWithLog();
    const closed: string[] = [];
    const startFailure = new Error('the port is taken');
    const closeFailure = new Error('could not close');
    await expect(
      stack.unwindOnFailure(() => {
        stack.defer('service', () => {
          closed.push('service');
        });
        stack.defer('outbox', () => Promise.reject(closeFailure));
        stack.defer('adapters', () => {
          closed.push('adapters');
        });
        return Promise.reject(startFailure);
      }),
    ).rejects.toBe(startFailure);
    expect(closed).toEqual(['adapters', 'service']);
    expect(logged.map((entry) => entry.part)).toEqual(['outbox']);
    expect(stack.closing).toBe(true);
  });

  it('leaves everything running when the start-up succeeds', async () => {
    const { stack } = stackWithLog();
    const closed: string[] = [];
    const value = await stack.unwindOnFailure(() => {
      stack.defer('part', () => {
        closed.push('part');
      });
      return Promise.resolve(42);
    });
    expect(value).toBe(42);
    expect(closed).toEqual([]);
    expect(stack.closing).toBe(false);
    await stack.close();
    expect(closed).toEqual(['part']);
  });
});
