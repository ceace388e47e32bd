// The pieces that let `reviews retry`, `mutes` and `reload` share run's control channel and its signal loop: the
// router sends each op to its own handler and answers any other as before; a reload request posted into the signal
// queue is handed out like a signal, in order, and repeats waiting in the queue are one; once the sidecar stops, a
// reload asked for is refused and one still waiting is answered so, never taken.
import { afterEach, describe, expect, it } from 'vitest';
import { routeControl } from '../../src/datadir/controlRouter.js';
import { reloadControlHandler } from '../../src/cli/reloadCommand.js';
import { ReloadRequests } from '../../src/cli/reloadRequests.js';
import { SignalQueue } from '../../src/cli/signalQueue.js';

describe('routeControl', () => {
  const router = routeControl({
    retry: (request) => Promise.resolve({ ok: true, handled: 'retry', all: request.all }),
    mutes: () => Promise.resolve({ ok: true, handled: 'mutes' }),
  });

  it('sends each op to its handler, the request as it came', async () => {
    expect(await router({ op: 'retry', all: 'dead', token: 't' })).toEqual({ ok: true, handled: 'retry', all: 'dead' });
    expect(await router({ op: 'mutes' })).toEqual({ ok: true, handled: 'mutes' });
  });

  it('answers an unknown op as the single handler did, quoted and cut short', async () => {
    expect(await router({ op: 'wipe' })).toEqual({ ok: false, error: 'unknown request "wipe"' });
    expect(await router({ op: `x\n${'y'.repeat(200)}` })).toEqual({ ok: false, error: `unknown request ${JSON.stringify(`x\n${'y'.repeat(62)}`)}` });
    // An inherited name is not an op.
    expect(await router({ op: 'constructor' })).toEqual({ ok: false, error: 'unknown request "constructor"' });
  });
});

describe('reloadControlHandler', () => {
  it('answers with what the reload did, or why it was not done', async () => {
    expect(await reloadControlHandler(() => Promise.resolve({ result: 'success', summary: 'config reloaded (…)' }))({ op: 'reload' })).toEqual({ ok: true, result: 'success', summary: 'config reloaded (…)' });
    expect(await reloadControlHandler(() => Promise.resolve({ result: 'invalid', problems: ['log.file: must not be empty'] }))({ op: 'reload' })).toEqual({
      ok: true,
      result: 'invalid',
      problems: ['log.file: must not be empty'],
    });
    expect(await reloadControlHandler(() => Promise.resolve({ refused: 'the sidecar is stopping' }))({ op: 'reload' })).toEqual({ ok: false, error: 'the sidecar is stopping' });
  });
});

describe('ReloadRequests', () => {
  function requests(): { reloads: ReloadRequests; posted: () => number; warnings: string[] } {
    let posts = 0;
    const warnings: string[] = [];
    const reloads = new ReloadRequests(
      () => {
        posts += 1;
      },
      { warn: (_object, message) => warnings.push(message) },
    );
    return { reloads, posted: () => posts, warnings };
  }

  it('posts each request into the run loop and answers the askers waiting with the outcome of the reload that takes them', async () => {
    const { reloads, posted } = requests();
    const first = reloads.ask();
    const second = reloads.ask();
    expect(posted()).toBe(2);
    const answer = reloads.take();
    // One who asks while that reload runs waits for the next.
    const later = reloads.ask();
    answer({ result: 'success', summary: 'config reloaded (…)' });
    expect(await first).toEqual({ result: 'success', summary: 'config reloaded (…)' });
    expect(await second).toEqual({ result: 'success', summary: 'config reloaded (…)' });
    reloads.take()({ result: 'invalid', problems: ['log.file: must not be empty'] });
    expect(await later).toEqual({ result: 'invalid', problems: ['log.file: must not be empty'] });
  });

  it('once stopping, refuses a new request at once and posts nothing, and answers one still waiting that the sidecar is stopping', async () => {
    const { reloads, posted, warnings } = requests();
    const waiting = reloads.ask();
    reloads.stop();
    expect(await waiting).toEqual({ refused: 'the sidecar is stopping' });
    const refused = reloads.ask();
    expect(posted()).toBe(1);
    expect(await refused).toEqual({ refused: 'the sidecar is stopping' });
    // A reload the loop still takes (a request queued behind the stop) answers nobody: they were told already.
    reloads.take()({ result: 'success', summary: 'config reloaded (…)' });
    expect(warnings).toEqual([
      'reload (gsa-bridge reload) refused: the sidecar is stopping; the config is not reloaded',
      'reload (gsa-bridge reload) refused: the sidecar is stopping; the config is not reloaded',
    ]);
  });
});

describe('SignalQueue.post', () => {
  let queue: SignalQueue<'reload-request'> | undefined;
  afterEach(() => {
    queue?.close();
  });

  it('hands a posted request to a waiting next() at once', async () => {
    queue = new SignalQueue<'reload-request'>(['SIGHUP'], { coalesce: ['SIGHUP', 'reload-request'] });
    const next = queue.next();
    queue.post('reload-request');
    expect(await next).toBe('reload-request');
  });

  it('queues posted requests in order with signals, repeats waiting in the queue as one', async () => {
    queue = new SignalQueue<'reload-request'>(['SIGHUP'], { coalesce: ['SIGHUP', 'reload-request'] });
    queue.post('reload-request');
    process.emit('SIGHUP', 'SIGHUP');
    queue.post('reload-request');
    process.emit('SIGHUP', 'SIGHUP');
    expect(queue.pending).toEqual(['reload-request', 'SIGHUP']);
    expect(await queue.next()).toBe('reload-request');
    // Taken: the next one posted waits again.
    queue.post('reload-request');
    expect(queue.pending).toEqual(['SIGHUP', 'reload-request']);
  });
});
