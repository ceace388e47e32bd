// Reads the replies of the shared budget's scripts (redisBudgetScripts.ts) into typed values, and names the doubts a
// script reports (a value in Redis it did not believe). Pure: it never talks to Redis and never logs. Anything that
// is not the reply a script of this version gives (another program on the port, a proxy, a Redis module) is
// undefined here, which the budget treats as Redis failing: it decides on its local fallback.

import { CALL_KINDS, type CallKind } from '../budgetShares.js';

/** The bits of a script's `doubts`: what it found in Redis and did not believe (each logged once, then ignored). */
export const DOUBT = {
  holdBeyondCap: 1,
  holdNotANumber: 2,
  claimNotBelievable: 4,
  startsInTheFuture: 8,
  placeNotANumber: 16,
  keyOfWrongType: 32,
  stateUnreadable: 64,
  nodeEntryNotBelievable: 128,
} as const;

export type Doubt = keyof typeof DOUBT;

/** What each doubt means for a host reading the log: what was found, and what the sidecar does instead. */
export const DOUBT_TEXT: Readonly<Record<Doubt, string>> = {
  holdBeyondCap: "a Retry-After hold in Redis ends later than this sidecar's own cap (api.retry.maxRetryAfterMs) allows: it is not believed here",
  holdNotANumber: 'the Retry-After hold in Redis is not a time: it is not believed',
  claimNotBelievable: "a sidecar's claim on a class of calls in Redis lives longer than any sidecar's can, or is unreadable: it was removed",
  startsInTheFuture: "starts in the shared window are dated ahead of Redis's clock (a clock stepped back, or written by another program): they are counted from now",
  placeNotANumber: "the shared cycle's place in Redis is not a number: the cycle starts again from its first place",
  keyOfWrongType: "a key of the shared budget held another type of value (written by another program): it was removed",
  stateUnreadable: "the shared budget's state in Redis was unreadable or dated ahead of Redis's clock: it is rebuilt from each sidecar's own starts",
  nodeEntryNotBelievable: "an entry naming a sidecar's settings in Redis is unreadable or dated ahead of Redis's clock: it was removed",
};

/** The doubts set in `bits`, in the order of DOUBT. */
export function doubtsOf(bits: number): Doubt[] {
  return (Object.keys(DOUBT) as Doubt[]).filter((doubt) => (bits & DOUBT[doubt]) !== 0);
}

/** DECIDE_SCRIPT's answer. */
export type DecideReply =
  | { readonly status: 'granted'; readonly kind: CallKind; readonly doubts: number }
  | { readonly status: 'wait'; readonly waitMs: number; readonly doubts: number; readonly holdMs: number }
  | { readonly status: 'rejoin'; readonly doubts: number };

/** JOIN_SCRIPT's answer. */
export type JoinReply =
  | { readonly status: 'joined'; readonly epoch: string; readonly graceLeftMs: number; readonly doubts: number; readonly reseeded: boolean }
  | { readonly status: 'seedsNeeded'; readonly epoch: string; readonly doubts: number }
  | { readonly status: 'mismatch'; readonly theirs: string; readonly doubts: number };

const MAX_MS = 2 ** 53 - 1;

/** A whole number from a reply: RESP integers come as numbers, and a proxy may turn them into strings. */
function whole(value: unknown, max = MAX_MS): number | undefined {
  const number = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) && number >= 0 && number <= max ? number : undefined;
}

function parts(reply: unknown): readonly unknown[] | undefined {
  return Array.isArray(reply) && reply.length === 4 ? (reply as unknown[]) : undefined;
}

const ALL_DOUBTS = Object.values(DOUBT).reduce((all, bit) => all | bit, 0);

/** DECIDE_SCRIPT's reply, or undefined when it is not one. */
export function readDecideReply(reply: unknown): DecideReply | undefined {
  const [status, value, doubtBits, hold] = parts(reply) ?? [];
  const doubts = whole(doubtBits, ALL_DOUBTS);
  if (doubts === undefined) return undefined;
  switch (whole(status)) {
    case 1: {
      const kind = CALL_KINDS[(whole(value) ?? 0) - 1];
      return kind === undefined ? undefined : { status: 'granted', kind, doubts };
    }
    case 0: {
      const waitMs = whole(value);
      const holdMs = whole(hold);
      return waitMs === undefined || holdMs === undefined ? undefined : { status: 'wait', waitMs, doubts, holdMs };
    }
    case 2:
      return { status: 'rejoin', doubts };
    default:
      return undefined;
  }
}

/** JOIN_SCRIPT's reply, or undefined when it is not one. */
export function readJoinReply(reply: unknown): JoinReply | undefined {
  const [status, value, doubtBits, text] = parts(reply) ?? [];
  const doubts = whole(doubtBits, ALL_DOUBTS);
  if (doubts === undefined || typeof text !== 'string') return undefined;
  switch (whole(status)) {
    case 0:
    case 1: {
      const graceLeftMs = whole(value);
      if (graceLeftMs === undefined || !/^[0-9a-f]{16}$/.test(text)) return undefined;
      return { status: 'joined', epoch: text, graceLeftMs, doubts, reseeded: whole(status) === 1 };
    }
    case 2:
      return /^[0-9a-f]{16}$/.test(text) ? { status: 'seedsNeeded', epoch: text, doubts } : undefined;
    case 3:
      return /^\d{1,16}\/\d{1,16}\/\d{1,16}$/.test(text) ? { status: 'mismatch', theirs: text, doubts } : undefined;
    default:
      return undefined;
  }
}

/** The settings sidecars sharing one window must agree on, as Redis keeps them: `<requests>/<intervalMs>/<nodes>`. */
export function windowSettings(requests: number, intervalMs: number, nodes: number): string {
  return `${requests}/${Math.round(intervalMs)}/${nodes}`;
}

/** `100/60000/3` as a host reads it: "100 calls per 60000 ms among 3 sidecars". */
export function describeWindowSettings(settings: string): string {
  const [requests, intervalMs, nodes] = settings.split('/');
  return `${requests ?? '?'} calls per ${intervalMs ?? '?'} ms among ${nodes ?? '?'} sidecars`;
}
