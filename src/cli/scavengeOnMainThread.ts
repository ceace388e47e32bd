// `run` keeps V8's young-generation collections (scavenges) on the main thread alone. A parallel scavenge hands
// shares of its work to V8's helper threads and then waits until every helper that took one is done; on a host whose
// cores are busy (a game server beside the sidecar), a helper can wait tens or hundreds of ms for a core, and the
// event loop, chat verdicts included, waits with it. Under chat load scavenges come every second or so. In the soak
// on a busy 2-core machine, single parallel scavenges held the main thread blocked for 144-391 ms while it did 3-14 ms
// of work in them (docs/performance.md); alone, a scavenge costs it a few ms more and never waits for another thread.
// It changes this one V8 flag, which V8 reads at every scavenge (so it may change while the process runs, unlike
// flags read when the heap is set up), and must never change anything else: old-generation marking stays concurrent.

import { setFlagsFromString } from 'node:v8';

/** The V8 flag `run` sets at start. */
export const SCAVENGE_ON_MAIN_THREAD_FLAG = '--no-parallel-scavenge';

/** From the next scavenge on, this process collects its young generation without helper threads. */
export function scavengeOnMainThread(): void {
  setFlagsFromString(SCAVENGE_ON_MAIN_THREAD_FLAG);
}
