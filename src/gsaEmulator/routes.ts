/**
 * Request handling for the emulator: classifies each request, logs it, reads its body, applies the
 * next matching fault, and hands it to the mod, Mod API v2 feature, webhook, System API v2 or control API.
 * Shop orders and token spends are recorded on arrival, before any fault, so every one that came shows.
 * Must never let a request crash the process, and never record or fault control calls.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AcceptedCredentials, AcceptedSystemKey } from './auth.js';
import { CONTROL_PREFIX, handleControl } from './controlApi.js';
import { CAPTIVE_PORTAL_PAGE, type FaultSpec } from './faults.js';
import { firstHeader, MAX_BODY_BYTES, messageReply, readBody, sendHtml, sendReply, TOO_LARGE_REPLY, type Reply } from './httpIo.js';
import { handleModApi, namedPlayer, namedPlayerIn, type AlertKey, type ParsedBody } from './modApi.js';
import { classifyFeature, featureFields, handleFeature, type FeatureRoute } from './modFeatures.js';
import { openMoneyArrivals } from './shopApi.js';
import type { MoneyArrivals } from './featureCall.js';
import { WEBHOOK_ACTIONS, type CallHandle, type EmulatorState, type RecordedCall, type WebhookAction } from './state.js';
import { handleSystemApi, SYSTEM_PREFIX } from './systemApi.js';
import { handleWebhook } from './webhookApi.js';

export interface RequestHandlerOptions {
  readonly state: EmulatorState;
  readonly credentials: AcceptedCredentials;
  readonly systemKey: AcceptedSystemKey;
  readonly alertKey: AlertKey;
  readonly now: () => number;
  /** Unix ms, for when System API mutes end (see EmulatorOptions.wallClock). */
  readonly wallClock: () => number;
  /** Runs `fn` after `ms`; owned by the server so closing it can cancel pending latency. */
  readonly defer: (ms: number, fn: () => void) => void;
}

type Route =
  | { readonly kind: 'mod'; readonly flavor: 'v1' | 'v2'; readonly op: 'mute' | 'review'; readonly server: string }
  | { readonly kind: 'webhook'; readonly serverSegment: string; readonly action: WebhookAction }
  | { readonly kind: 'system'; readonly route: string; readonly server: string | null }
  | FeatureRoute
  | { readonly kind: 'control'; readonly route: string }
  | { readonly kind: 'other' };

/** Laravel's default texts, so a client's error display looks as it will against the service. */
const DEFAULT_STATUS_MESSAGES: Readonly<Record<number, string>> = {
  429: 'Too Many Attempts.',
  500: 'Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function createRequestHandler(options: RequestHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(options, req, res).catch(() => {
      // A bug in a handler must cost one request, not the process.
      if (!sendReply(res, messageReply(500, 'Server Error'))) req.socket.destroy();
    });
  };
}

async function handle(options: RequestHandlerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const at = options.now();
  const method = req.method ?? 'GET';
  const target = req.url ?? '/';
  const queryStart = target.indexOf('?');
  const path = queryStart === -1 ? target : target.slice(0, queryStart);
  const query = new URLSearchParams(queryStart === -1 ? '' : target.slice(queryStart + 1));
  const route = classify(path, method);

  if (route.kind === 'control') {
    const read = await readBody(req, MAX_BODY_BYTES);
    if (read.kind === 'aborted') return;
    sendReply(res, read.kind === 'too-large' ? TOO_LARGE_REPLY : handleControl(options, { method, route: route.route, body: read.body }));
    return;
  }

  const described = describe(route);
  const call = options.state.recordCall({
    at,
    method,
    path,
    ...described,
    ...(route.kind === 'system' ? { gsaId: firstHeader(req.headers, 'gsa-id') !== undefined } : {}),
  });
  const read = await readBody(req, MAX_BODY_BYTES);
  if (read.kind === 'aborted') return;
  const fields: ParsedBody | undefined =
    route.kind === 'feature' && read.kind === 'ok' ? featureFields(method, firstHeader(req.headers, 'content-type'), query, read.body) : undefined;
  const money: MoneyArrivals =
    route.kind === 'feature'
      ? openMoneyArrivals(options.state.shop, { op: route.op, server: route.server, packId: route.packId, fields: fields?.ok === true ? fields.fields : undefined, at }, call)
      : {};
  if (read.kind === 'too-large') {
    answer(options.state, res, call, TOO_LARGE_REPLY);
    return;
  }
  // Which id a client asked by, for tests and /_emulator/calls (before a fault, so a failed call still says it).
  const named =
    route.kind === 'mod'
      ? namedPlayer(firstHeader(req.headers, 'content-type'), read.body)
      : fields?.ok === true
        ? namedPlayerIn(fields.fields)
        : undefined;
  if (named !== undefined) call.player = named;

  const fault = options.state.faults.take(described.endpoint);
  if (fault?.kind === 'status') {
    answer(options.state, res, call, statusFaultReply(fault));
    return;
  }
  if (fault?.kind === 'html') {
    const status = fault.status ?? 200;
    if (sendHtml(res, status, fault.body ?? CAPTIVE_PORTAL_PAGE)) options.state.answered(call, status);
    return;
  }
  if ((fault?.kind === 'drop' || fault?.kind === 'reset') && fault.afterProcessing !== true) {
    cut(req, fault.kind);
    return;
  }

  // Processing happens before a latency wait or a drop, so those faults leave their side effects behind.
  const reply =
    route.kind === 'feature'
      ? handleFeature(options, { route, method, headers: req.headers, fields: fields ?? { ok: false, reply: TOO_LARGE_REPLY }, at, money })
      : processRequest(options, route, method, req, query, read.body, at);

  if (fault?.kind === 'drop' || fault?.kind === 'reset') {
    cut(req, fault.kind);
    return;
  }
  if (fault?.kind === 'latency') {
    options.defer(fault.ms, () => {
      answer(options.state, res, call, reply);
    });
    return;
  }
  answer(options.state, res, call, reply);
}

function processRequest(
  options: RequestHandlerOptions,
  route: Exclude<Route, { kind: 'control' | 'feature' }>,
  method: string,
  req: IncomingMessage,
  query: URLSearchParams,
  body: Buffer,
  at: number,
): Reply {
  if (route.kind === 'other') return messageReply(404, 'Not found.');
  if (route.kind === 'system') {
    return handleSystemApi(options, {
      method,
      route: route.route,
      query,
      authorization: firstHeader(req.headers, 'authorization'),
      contentType: firstHeader(req.headers, 'content-type'),
      body,
      origin: `http://${firstHeader(req.headers, 'host') ?? '127.0.0.1'}`,
      at,
    });
  }
  if (method !== 'POST') {
    // Laravel's wording for a known route hit with the wrong method.
    return messageReply(405, `The ${method} method is not supported for this route. Supported methods: POST.`, { allow: 'POST' });
  }
  if (route.kind === 'mod') {
    return handleModApi(options, { flavor: route.flavor, op: route.op, server: route.server, headers: req.headers, body, at });
  }
  return handleWebhook(options, { serverSegment: route.serverSegment, action: route.action, query, body, at });
}

/** Ends the connection without an answer: a plain close (FIN) for `drop`, an abort (RST) for `reset`. */
function cut(req: IncomingMessage, kind: 'drop' | 'reset'): void {
  if (kind === 'reset') req.socket.resetAndDestroy();
  else req.socket.destroy();
}

function answer(state: EmulatorState, res: ServerResponse, call: CallHandle, reply: Reply): void {
  if (sendReply(res, reply)) state.answered(call, reply.status);
}

function statusFaultReply(fault: Extract<FaultSpec, { kind: 'status' }>): Reply {
  const message = fault.message ?? DEFAULT_STATUS_MESSAGES[fault.status] ?? `HTTP ${fault.status}`;
  return messageReply(fault.status, message, fault.retryAfter === undefined ? undefined : { 'retry-after': fault.retryAfter });
}

function classify(path: string, method: string): Route {
  if (path.startsWith(CONTROL_PREFIX)) return { kind: 'control', route: path.slice(CONTROL_PREFIX.length) };
  if (path.startsWith(SYSTEM_PREFIX)) {
    const route = path.slice(SYSTEM_PREFIX.length);
    const [collection, target] = route.split('/');
    return { kind: 'system', route, server: collection === 'gameserver' && target !== undefined && target !== '' ? target : null };
  }
  const segments = path.split('/');
  if (segments[0] === '' && segments[1] === 'mod-api' && segments[2] === 'v2' && segments.length >= 5) {
    const server = decodeSegment(segments[4] ?? '');
    const feature = server === undefined ? undefined : classifyFeature(segments[3] ?? '', server, segments.slice(5), method);
    if (feature !== undefined) return feature;
  }
  if (segments.length !== 6 || segments[0] !== '') return { kind: 'other' };
  const [, root, version, collection, rawTarget, leaf] = segments;
  const target = decodeSegment(rawTarget ?? '');
  if (target === undefined || target === '' || leaf === undefined) return { kind: 'other' };

  const modFlavor =
    root === 'api' && version === 'v1' ? 'v1' : root === 'mod-api' && version === 'v2' ? 'v2' : undefined;
  if (modFlavor !== undefined && collection === 'gameserver' && (leaf === 'mute' || leaf === 'review')) {
    return { kind: 'mod', flavor: modFlavor, op: leaf, server: target };
  }
  if (root === 'api' && version === 'v1' && collection === 'server') {
    const action = WEBHOOK_ACTIONS.find((a) => a === leaf);
    if (action !== undefined) return { kind: 'webhook', serverSegment: target, action };
  }
  return { kind: 'other' };
}

function describe(route: Exclude<Route, { kind: 'control' }>): Pick<RecordedCall, 'endpoint' | 'flavor' | 'server'> {
  switch (route.kind) {
    case 'mod':
      return { endpoint: route.op, flavor: route.flavor, server: route.server };
    case 'feature':
      return { endpoint: route.endpoint, flavor: 'v2', server: route.server };
    case 'webhook':
      return { endpoint: 'webhook', flavor: 'webhook', server: route.serverSegment };
    case 'system':
      return { endpoint: 'system', flavor: 'system', server: route.server };
    case 'other':
      return { endpoint: 'other', flavor: null, server: null };
  }
}

/** Malformed percent-escapes make the route unknown rather than throwing. */
function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
