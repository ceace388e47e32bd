// The soak process's own event-loop stalls, kept as a timeline so a verdict read late because *this* process was
// busy (it also runs the emulator and four mods at 200 chats/s) is not charged to the sidecar. A stall is seen
// by a short interval timer that runs late: it ended when the late tick ran and lasted as long as the tick was late.
// It never blocks and never changes what it measures beyond one timer every few ms.

/** One stall of this process: it ended at `endedAt` (the soak's clock) and lasted `ms`. */
export interface LoopStall {
  readonly endedAt: number;
  readonly ms: number;
}

const TICK_MS = 5;
/** A tick this much late or more is a stall worth keeping. */
const MIN_STALL_MS = 2;
/** After a stall the process first works off what piled up; a verdict read this soon after it was read late by it. */
const BACKLOG_MS = 20;

export class LoopStallRecorder {
  readonly stalls: LoopStall[] = [];
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #last = 0;

  constructor(now: () => number) {
    this.#now = now;
  }

  start(): void {
    this.#last = this.#now();
    this.#timer = setInterval(() => {
      const at = this.#now();
      const late = at - this.#last - TICK_MS;
      if (late >= MIN_STALL_MS) this.stalls.push({ endedAt: at, ms: late });
      this.#last = at;
    }, TICK_MS);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

/** The stall of this process charged to one read: `ms` of it, from `from` (at most until the read). */
export interface ChargedStall {
  readonly from: number;
  readonly ms: number;
}

/**
 * How long this process was stalled before it read something at `readAt`: the longest stall that began before the
 * read and ended at most BACKLOG_MS before it, counted up to the read and from `since` (when this process sent what
 * was answered; a stall over before then delayed nothing of it). A stall can end after the read: libuv runs a turn's
 * I/O callbacks before its timers, so when the process resumes with a socket and the timer both due, the answer is
 * read first and the timer records the stall a moment later. That read was delayed by the part of the stall before
 * it. `stalls` must be in time order.
 */
export function chargedStall(stalls: readonly LoopStall[], readAt: number, since = -Infinity): ChargedStall {
  let low = 0;
  let high = stalls.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((stalls[mid]?.endedAt ?? Infinity) < Math.max(since, readAt - BACKLOG_MS)) low = mid + 1;
    else high = mid;
  }
  let charged: ChargedStall = { from: readAt, ms: 0 };
  for (let i = low; i < stalls.length; i += 1) {
    const stall = stalls[i];
    if (stall === undefined || stall.endedAt - stall.ms >= readAt) break;
    const from = Math.max(since, stall.endedAt - stall.ms);
    const ms = Math.min(stall.ms, readAt - from);
    if (ms > charged.ms) charged = { from, ms };
  }
  return charged;
}

/** chargedStall's length alone. */
export function stallBefore(stalls: readonly LoopStall[], readAt: number, since = -Infinity): number {
  return chargedStall(stalls, readAt, since).ms;
}
