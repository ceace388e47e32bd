// Runs one Lua script on the shared Redis the way every shared part needs it: by its digest (EVALSHA), with EVAL
// when Redis lost its script cache (a fresh or restarted Redis), and with an answer deadline that a busy loop cannot
// mistake for Redis being away. The shared API budget (redisBudget.ts) and the webhook spacing
// (redisWebhookSpacing.ts) both run their scripts through here.
// It never retries, never falls back and never decides what a reply means: its callers do.

import { createHash } from 'node:crypto';

export interface RedisScript {
  readonly source: string;
  readonly sha1: string;
}

/** A script and its digest, computed once. */
export function redisScript(source: string): RedisScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

/**
 * The one thing taken from a Redis connection: send a command, get its reply. node-redis's client has it as is; the
 * connection's owner connects, reconnects, listens for its errors and closes it.
 */
export interface RedisCommander {
  sendCommand(args: readonly string[]): Promise<unknown>;
}

/** Redis gave no answer within the deadline (it may still run the script: see RunScriptOptions.late). */
export class NoAnswerError extends Error {
  override readonly name = 'NoAnswerError';
}

export interface RunScriptOptions {
  /** The longest wait for the answer. */
  readonly timeoutMs: number;
  /** Ends the wait at once with `signal.reason` (the script may still run: see `late`). */
  readonly signal?: AbortSignal | undefined;
  /** Told the reply of a script whose answer came after the wait was given up (a lease to give back, say). */
  readonly late?: ((reply: unknown) => void) | undefined;
}

async function evaluate(redis: RedisCommander, script: RedisScript, keys: readonly string[], args: readonly string[]): Promise<unknown> {
  const tail = [String(keys.length), ...keys, ...args];
  try {
    return await redis.sendCommand(['EVALSHA', script.sha1, ...tail]);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    // EVAL caches the script again, so the next EVALSHA finds it.
    return await redis.sendCommand(['EVAL', script.source, ...tail]);
  }
}

/**
 * The script's reply; rejects with Redis's error, with a NoAnswerError after `timeoutMs`, or with `signal.reason`.
 * A timer that is due gives up only after the loop's next I/O phase: when this process was busy (a burst of chat, a
 * long GC), the answer may have been waiting on the socket all along, and timers run before sockets are read.
 */
export function runRedisScript(redis: RedisCommander, script: RedisScript, keys: readonly string[], args: readonly string[], options: RunScriptOptions): Promise<unknown> {
  const { signal, late } = options;
  if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
  const sent = evaluate(redis, script, keys, args);
  return new Promise<unknown>((resolve, reject) => {
    let done = false;
    let immediate: NodeJS.Immediate | undefined;
    const finish = (): boolean => {
      if (done) return false;
      done = true;
      clearTimeout(timer);
      clearImmediate(immediate);
      signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const giveUp = (error: Error): void => {
      if (!finish()) return;
      reject(error);
      if (late !== undefined) sent.then(late, () => undefined);
    };
    const onAbort = (): void => {
      giveUp(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      immediate = setImmediate(() => {
        giveUp(new NoAnswerError(`no answer within ${options.timeoutMs} ms`));
      });
    }, options.timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    sent.then(
      (reply) => {
        if (finish()) resolve(reply);
      },
      (error: unknown) => {
        if (finish()) reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
