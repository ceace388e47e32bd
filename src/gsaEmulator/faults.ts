/**
 * Fault injection for the GSA emulator: the fault shapes tests ask for, their validation, and the
 * queue that decides which fault (if any) the next request gets.
 * Must never touch sockets or emulator state: routes.ts applies the fault this module picks.
 */
import { z } from 'zod';
import { describeIssues, EmulatorInputError } from './errors.js';

/**
 * The service endpoints a fault can be aimed at (and the call log and counters name): the mod API's mute check and
 * review, the webhooks, the System API, and the Mod API v2 features, named as the client's endpoints are: `access`
 * (integration-mod), `report-settings` (GET report), `report` (POST report), `shop` (index and pack), `shop-order`,
 * `tokens` (consume-token) and `ui` (settings, button-modal).
 */
export const FAULT_ENDPOINTS = ['mute', 'review', 'webhook', 'system', 'access', 'report-settings', 'report', 'shop', 'shop-order', 'tokens', 'ui'] as const;
export type Endpoint = (typeof FAULT_ENDPOINTS)[number];

/** What a recorded request was; 'other' is any non-control route that is not a service endpoint. */
export type CallEndpoint = Endpoint | 'other';

/**
 * A fault for the next matching requests. `count` defaults to 1; `Infinity` (or -1 over HTTP) keeps the
 * fault until cleared. Without `endpoint` a fault matches every non-control request, unknown routes
 * included, because real outages (maintenance, a failing proxy) do not care about the route.
 */
export type FaultSpec =
  /** Answer normally, but only after `ms`. The request is processed before the wait, so a client that
   * gives up still leaves its side effect (a stored review) behind — the ambiguous-timeout case. */
  | { kind: 'latency'; ms: number; count?: number; endpoint?: Endpoint }
  /** Answer `status` without processing, body `{"message": message ?? <default for the status>}`,
   * plus a `Retry-After` header when `retryAfter` is given (seconds or an HTTP date, sent verbatim). */
  | { kind: 'status'; status: number; retryAfter?: string; message?: string; count?: number; endpoint?: Endpoint }
  /** Destroy the socket with no answer. With `afterProcessing: true` the request is processed first,
   * which is the ambiguous case a client must not blindly re-send. Default false. */
  | { kind: 'drop'; count?: number; endpoint?: Endpoint; afterProcessing?: boolean }
  /** Like `drop`, but aborts the TCP connection with a RST, so the client sees ECONNRESET rather than a
   * closed socket: what a crashing proxy or a middlebox's idle timeout does. */
  | { kind: 'reset'; count?: number; endpoint?: Endpoint; afterProcessing?: boolean }
  /** Answer `status` (default 200) with an HTML page, without processing: a captive portal, a proxy's
   * error page or a wrong `api.baseUrl`. A 2xx that is not the service's own JSON must not count as done. */
  | { kind: 'html'; status?: number; body?: string; count?: number; endpoint?: Endpoint };

/** A queued fault with the number of requests it still applies to (-1 = until cleared). */
export type PendingFault = FaultSpec & { readonly remaining: number };

/** Longest injectable latency; setTimeout silently fires at once beyond 2^31-1 ms, so a cap keeps `ms` honest. */
export const MAX_FAULT_LATENCY_MS = 10 * 60 * 1000;

/** Longest body an `html` fault may carry; a portal page is small, and the fault list is echoed in `state`. */
export const MAX_FAULT_BODY_CHARS = 16 * 1024;

/** What an `html` fault answers when it names no body: a typical captive-portal sign-in page. */
export const CAPTIVE_PORTAL_PAGE =
  '<!DOCTYPE html><html><head><title>Sign in to the network</title></head>' +
  '<body><h1>Welcome</h1><p>Please accept the terms of use to continue.</p></body></html>';

const endpointSchema = z.enum(FAULT_ENDPOINTS);
// -1 is the JSON spelling of Infinity, which JSON cannot carry.
const countSchema = z.union([z.literal(-1), z.int().min(1)], { error: 'must be a positive integer, or -1 for "until cleared"' });
// Node throws on control characters in header values; rejecting them here keeps that throw out of request handling.
const headerValueSchema = z.string().regex(/^[\x20-\x7e]+$/, 'must be non-empty printable ASCII (a header value)');

const faultSpecSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('latency'),
    ms: z.number().min(0).max(MAX_FAULT_LATENCY_MS),
    count: countSchema.optional(),
    endpoint: endpointSchema.optional(),
  }),
  z.strictObject({
    kind: z.literal('status'),
    status: z.int().min(200).max(599),
    retryAfter: headerValueSchema.optional(),
    message: z.string().optional(),
    count: countSchema.optional(),
    endpoint: endpointSchema.optional(),
  }),
  z.strictObject({
    kind: z.enum(['drop', 'reset']),
    count: countSchema.optional(),
    endpoint: endpointSchema.optional(),
    afterProcessing: z.boolean().optional(),
  }),
  z.strictObject({
    kind: z.literal('html'),
    status: z.int().min(200).max(599).optional(),
    body: z.string().max(MAX_FAULT_BODY_CHARS).optional(),
    count: countSchema.optional(),
    endpoint: endpointSchema.optional(),
  }),
]);

/**
 * Validates a fault from JSON or from code. `count` may be -1 or Infinity for "until cleared".
 * @throws EmulatorInputError naming the offending field.
 */
export function parseFaultSpec(input: unknown): FaultSpec {
  const normalized = isRecord(input) && input.count === Infinity ? { ...input, count: -1 } : input;
  const result = faultSpecSchema.safeParse(normalized);
  if (!result.success) throw new EmulatorInputError(describeIssues(result.error));
  const parsed = result.data;
  const common = {
    ...(parsed.count === undefined ? {} : { count: parsed.count === -1 ? Infinity : parsed.count }),
    ...(parsed.endpoint === undefined ? {} : { endpoint: parsed.endpoint }),
  };
  switch (parsed.kind) {
    case 'latency':
      return { kind: 'latency', ms: parsed.ms, ...common };
    case 'status':
      return {
        kind: 'status',
        status: parsed.status,
        ...(parsed.retryAfter === undefined ? {} : { retryAfter: parsed.retryAfter }),
        ...(parsed.message === undefined ? {} : { message: parsed.message }),
        ...common,
      };
    case 'drop':
    case 'reset':
      return {
        kind: parsed.kind,
        ...(parsed.afterProcessing === undefined ? {} : { afterProcessing: parsed.afterProcessing }),
        ...common,
      };
    case 'html':
      return {
        kind: 'html',
        ...(parsed.status === undefined ? {} : { status: parsed.status }),
        ...(parsed.body === undefined ? {} : { body: parsed.body }),
        ...common,
      };
  }
}

const windowSpecSchema = z.strictObject({ requests: z.int().min(1), intervalMs: z.number().positive() });

/**
 * Validates the window a watch checks (ArrivalWatch): it lives here with the other control-input shapes, and answers
 * arrivals.ts's WindowSpec by shape (that module imports this one's CallEndpoint).
 * @throws EmulatorInputError naming the offending field.
 */
export function parseWindowSpec(input: unknown): z.output<typeof windowSpecSchema> {
  const result = windowSpecSchema.safeParse(input);
  if (!result.success) throw new EmulatorInputError(describeIssues(result.error));
  return result.data;
}

interface QueuedFault {
  readonly spec: FaultSpec;
  remaining: number;
}

/** Faults in injection order; each request takes the first one that matches it. */
export class FaultQueue {
  #queue: QueuedFault[] = [];

  add(spec: FaultSpec): void {
    this.#queue.push({ spec, remaining: spec.count ?? 1 });
  }

  clear(): void {
    this.#queue = [];
  }

  /** Consumes one use of the first fault matching `endpoint`; at most one fault applies per request. */
  take(endpoint: CallEndpoint): FaultSpec | undefined {
    const entry = this.#queue.find((f) => f.spec.endpoint === undefined || f.spec.endpoint === endpoint);
    if (entry === undefined) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.#queue.splice(this.#queue.indexOf(entry), 1);
    return entry.spec;
  }

  /** The pending faults, JSON-safe: an unbounded fault reports `remaining: -1`. */
  list(): PendingFault[] {
    return this.#queue.map(({ spec, remaining }) => ({
      ...spec,
      ...(spec.count === undefined ? {} : { count: toJsonCount(spec.count) }),
      remaining: toJsonCount(remaining),
    }));
  }
}

function toJsonCount(count: number): number {
  return count === Infinity ? -1 : count;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
