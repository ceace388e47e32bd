// Zod builders for the kinds of values options are made of (ports, milliseconds, hosts), shared by the config
// file's schema and by each adapter's own option schema, so a port reads "must be 1–65535" wherever it appears.
// Must never read files or the environment, and never put an input value into a message (it may be a secret).
import { z } from 'zod';

// setTimeout silently turns anything above 2^31-1 ms into 1 ms, so a "very long" interval would become a busy loop.
export const MAX_TIMER_MS = 2_147_483_647;

// Letters, digits, dots, dashes, underscores, colons and zone ids cover host names, IPv4 and bracket-less IPv6.
const HOST = /^[A-Za-z0-9.:%_-]+$/;

/** An adapter's `id`: a short word, so it reads well in logs, metric labels and readiness reasons. */
export const ADAPTER_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

// One refinement per number so a bad value yields one message, and refinements (unlike z.int()) do not abort the
// parse: the cross-field rules still run and the host sees every problem at once.
export function integer(min: number, max: number, message: string) {
  return z.number().refine((n) => Number.isSafeInteger(n) && n >= min && n <= max, message);
}

export const port = () => integer(1, 65_535, 'must be 1–65535');
/** A port to listen on: 0 asks the system for any free port (the bound one is logged). */
export const listenPort = () => integer(0, 65_535, 'must be 0–65535 (0: any free port)');
export const milliseconds = () => integer(1, MAX_TIMER_MS, `must be a positive integer (milliseconds, at most ${MAX_TIMER_MS})`);
export const count = () => integer(1, Number.MAX_SAFE_INTEGER, 'must be a positive integer');
export const countOrZero = () => integer(0, Number.MAX_SAFE_INTEGER, 'must be 0 or a positive integer');
export const host = () => z.string().regex(HOST, 'must be a host name or IP address (no scheme, port or brackets)');
export const nonEmpty = () => z.string().min(1, 'must not be empty');
export const adapterId = () =>
  z.string().regex(ADAPTER_ID, 'must be 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit');
