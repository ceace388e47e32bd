// The project's one "wait, but not longer than" helper: races a promise against a timer and cleans the timer
// up whichever wins. Chat verdicts, shutdown budgets and in-flight waits all use it.
// It never cancels the work it waited for: the promise keeps running after the deadline (a late mute lookup
// still warms the cache; a late send still journals its fate).

/**
 * Resolves with `work`'s value, or with `onTimeout()` when `work` has not settled within `ms`. A rejection of
 * `work` before the deadline is passed on. The timer is unref'd when `unref` is true, so a pending deadline
 * alone does not keep the process alive.
 */
export function withDeadline<T, F>(work: Promise<T>, ms: number, onTimeout: () => F, unref = false): Promise<T | F> {
  return new Promise<T | F>((resolve, reject) => {
    const timer = setTimeout(() => {
      resolve(onTimeout());
    }, ms);
    if (unref) timer.unref();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** True when every promise settled (fulfilled or rejected) within `ms`; false when the deadline came first. */
export function allSettledWithin(promises: readonly Promise<unknown>[], ms: number): Promise<boolean> {
  return withDeadline(
    Promise.allSettled(promises).then(() => true),
    ms,
    () => false,
  );
}
