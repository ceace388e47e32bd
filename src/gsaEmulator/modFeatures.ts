/**
 * GSA's Mod API v2 features in the emulator (reference/gsa-api.md, "Mod API v2, the rest of it"), under /mod-api/v2
 * only (v1 has none of them): which path and method is which feature, the checks every one of them makes in the
 * service's order (405 method, 415/400 body, 401 credentials in x-client-id / x-client-secret, the key's API budget
 * when enforced, 404 server, 422 validation), and the access check, the report form and reports, and the UI
 * settings. The shop and token spends are shopApi.ts's.
 * Must never echo the client secret, and never change state unless every check passed.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { UNAUTHENTICATED_REPLY, type AcceptedCredentials } from './auth.js';
import type { Endpoint } from './faults.js';
import { echoedIds, REPORT_COMMENT_MAX_CHARS, REPORT_COORDS_PATTERN, requiredInteger, withPlayer, type FeatureCall, type MoneyArrivals } from './featureCall.js';
import { firstHeader, jsonReply, messageReply, type Reply } from './httpIo.js';
import { parseBody, validatePlayer, type ParsedBody, type Player } from './modApi.js';
import { handleShop } from './shopApi.js';
import type { EmulatorState } from './state.js';
import { asInteger, attributeName, characterCount, normaliseInput, ValidationErrors, type InputFields } from './validation.js';

/** One operation of the features, as its path and method name it. */
export type FeatureOp = 'access' | 'report-settings' | 'report' | 'shop-index' | 'shop-pack' | 'shop-order' | 'tokens' | 'settings' | 'button-modal';

type Methods = Readonly<Partial<Record<'GET' | 'POST', FeatureOp>>>;

/** A request on a feature's path. */
export interface FeatureRoute {
  readonly kind: 'feature';
  /** The container name, percent-decoded. */
  readonly server: string;
  /** The operation the method picks; undefined for a method the path does not take (405). */
  readonly op: FeatureOp | undefined;
  /** What the call log, the counters and faults call it. */
  readonly endpoint: Endpoint;
  /** The methods the path takes, for a 405's Allow. */
  readonly allow: string;
  /** The pack id as the path wrote it (shop pack and order). */
  readonly packId?: string | undefined;
}

const OP_ENDPOINTS: Readonly<Record<FeatureOp, Endpoint>> = {
  access: 'access',
  'report-settings': 'report-settings',
  report: 'report',
  'shop-index': 'shop',
  'shop-pack': 'shop',
  'shop-order': 'shop-order',
  tokens: 'tokens',
  settings: 'ui',
  'button-modal': 'ui',
};

const GAMESERVER_LEAVES: Readonly<Record<string, Methods>> = {
  'integration-mod': { POST: 'access' },
  report: { GET: 'report-settings', POST: 'report' },
  'consume-token': { POST: 'tokens' },
  settings: { GET: 'settings' },
  'button-modal': { GET: 'button-modal' },
};

/**
 * The feature a /mod-api/v2 path names, or undefined when it names none. `rest`: the segments after
 * `/mod-api/v2/{collection}/{name}`.
 */
export function classifyFeature(collection: string, server: string, rest: readonly string[], method: string): FeatureRoute | undefined {
  let methods: Methods | undefined;
  let packId: string | undefined;
  if (collection === 'gameserver' && rest.length === 1) {
    const leaf = rest[0] ?? '';
    methods = Object.hasOwn(GAMESERVER_LEAVES, leaf) ? GAMESERVER_LEAVES[leaf] : undefined;
  } else if (collection === 'game-shop') {
    if (rest.length === 0) methods = { GET: 'shop-index' };
    else if (rest[0] === 'pack' && rest.length === 2) methods = { GET: 'shop-pack' };
    else if (rest[0] === 'pack' && rest.length === 3 && rest[2] === 'order') methods = { POST: 'shop-order' };
    packId = rest[0] === 'pack' ? rest[1] : undefined;
  }
  if (methods === undefined || server === '' || packId === '') return undefined;
  const op = method === 'GET' || method === 'POST' ? methods[method] : undefined;
  const first = Object.values(methods)[0] ?? 'access';
  return { kind: 'feature', server, op, endpoint: OP_ENDPOINTS[op ?? first], allow: Object.keys(methods).join(', '), packId };
}

export interface FeatureContext {
  readonly state: EmulatorState;
  readonly credentials: AcceptedCredentials;
}

export interface FeatureRequest {
  readonly route: FeatureRoute;
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  /** The request's fields (featureFields). */
  readonly fields: ParsedBody;
  /** Arrival time: stored reports carry it. */
  readonly at: number;
  /** The order or token spend this request is, recorded on arrival (routes.ts). */
  readonly money: MoneyArrivals;
}

/**
 * A request's input as Laravel's `input()` reads it: the query, and for a POST its form or JSON body over it (the
 * body wins). GETs carry the player in the query, an order too (GSA's yaml); the rest send it in the form.
 */
export function featureFields(method: string, contentType: string | undefined, query: URLSearchParams, body: Buffer): ParsedBody {
  const fromQuery = normaliseInput(query);
  if (method !== 'POST') return { ok: true, fields: fromQuery };
  const parsed = parseBody(contentType, body);
  if (!parsed.ok) return parsed;
  return { ok: true, fields: new Map([...fromQuery, ...parsed.fields]) };
}

const SERVER_NOT_FOUND_REPLY = messageReply(404, 'Game server not found.');

export function handleFeature(ctx: FeatureContext, req: FeatureRequest): Reply {
  const { route } = req;
  const op = route.op;
  if (op === undefined) {
    return messageReply(405, `The ${req.method} method is not supported for this route. Supported methods: ${route.allow}.`, { allow: route.allow });
  }
  if (!req.fields.ok) return req.fields.reply;
  const { fields } = req.fields;
  const clientId = firstHeader(req.headers, 'x-client-id');
  if (clientId === undefined || !ctx.credentials.matches(clientId, firstHeader(req.headers, 'x-client-secret'))) return UNAUTHENTICATED_REPLY;
  return ctx.state.budget.throttle(clientId, req.at, () => {
    if (ctx.state.serverByName(route.server) === undefined) return SERVER_NOT_FOUND_REPLY;
    return operate(op, { state: ctx.state, server: route.server, fields, at: req.at, packId: route.packId, money: req.money });
  });
}

function operate(op: FeatureOp, call: FeatureCall): Reply {
  switch (op) {
    case 'access':
      return withPlayer(call, (player) => accessReply(call, player));
    case 'report-settings':
      return withPlayer(call, () => jsonReply(200, { data: { identifier: 'gsamod-ui-report-player', ...call.state.features.reportSettings(call.server) } }));
    case 'report':
      return reportReply(call);
    case 'settings':
      return jsonReply(200, { identifier: 'gsamod-settings', ...call.state.features.modSettings(call.server) });
    case 'button-modal':
      return jsonReply(200, { identifier: 'gsamod-ui-button-modal', ...call.state.features.buttonModal(call.server) });
    case 'shop-index':
    case 'shop-pack':
    case 'shop-order':
    case 'tokens':
      return handleShop(op, call);
  }
}

function accessReply(call: FeatureCall, player: Player): Reply {
  const access = call.state.features.access(player.id);
  return jsonReply(200, {
    identifier: 'gsamod-general',
    ...echoedIds(player),
    allowed: access.allowed,
    username_accepted: access.usernameAccepted,
    message: access.message,
    teleport_xyz: false,
    // PHP's json_encode writes an empty array as []: GSA's answer for a player without roles.
    custom_roles: Object.keys(access.roles).length === 0 ? [] : access.roles,
  });
}

/**
 * Laravel's rules for a report: comment required, a string of at most REPORT_COMMENT_MAX_CHARS; character_id a
 * required integer; coords required, `X_n Y_n Z_n`; type required, one of the form's types; reported_player
 * optional, one of the form's players (never the placeholder). A player GSA does not allow (access) is answered
 * `allowed: false` with their access message, and nothing is stored.
 */
function reportReply(call: FeatureCall): Reply {
  const { fields, state, server } = call;
  const errors = new ValidationErrors();
  const player = validatePlayer(fields, errors);
  const settings = state.features.reportSettings(server);
  const comment = requiredText(fields, 'comment', errors);
  if (comment !== undefined && characterCount(comment) > REPORT_COMMENT_MAX_CHARS) {
    errors.add('comment', `The comment field must not be greater than ${REPORT_COMMENT_MAX_CHARS} characters.`);
  }
  const characterId = requiredInteger(fields, 'character_id', errors);
  const coords = requiredText(fields, 'coords', errors);
  if (coords !== undefined && !REPORT_COORDS_PATTERN.test(coords)) errors.add('coords', 'The coords field format is invalid.');
  const type = requiredText(fields, 'type', errors, true);
  if (type !== undefined && !settings.types.some((known) => String(known.id) === type)) errors.add('type', 'The selected type is invalid.');
  const reportedRaw = fields.get('reported_player');
  let reportedPlayer: number | undefined;
  if (reportedRaw !== undefined) {
    reportedPlayer = asInteger(reportedRaw);
    if (reportedPlayer === undefined) errors.add('reported_player', 'The reported player field must be an integer.');
    else if (reportedPlayer === 0 || !settings.players.some((known) => known.user_id === reportedPlayer)) {
      errors.add('reported_player', 'The selected reported player is invalid.');
    }
  }
  if (!errors.empty || player === undefined || comment === undefined || characterId === undefined || coords === undefined || type === undefined) {
    return errors.toReply();
  }
  state.system.sawPlayerId(player.id, player.kind);
  const access = state.features.access(player.id);
  if (!access.allowed) {
    return jsonReply(200, { identifier: 'gsamod-general', ...echoedIds(player), allowed: false, message: access.message ?? 'You are not allowed to report players here.' });
  }
  state.features.addReport({
    server,
    ...(player.kind === 'steam' ? { steamId: player.id } : { eosId: player.id }),
    comment,
    characterId,
    coords,
    type,
    ...(reportedPlayer === undefined ? {} : { reportedPlayer }),
    at: call.at,
  });
  return jsonReply(200, { identifier: 'gsamod-general', ...echoedIds(player), allowed: true, message: 'Thank you for your report!' });
}

/** A required string field; `orNumber` also takes a JSON number (a type id), as its digits. */
function requiredText(fields: InputFields, field: string, errors: ValidationErrors, orNumber = false): string | undefined {
  const value = fields.get(field);
  const name = attributeName(field);
  if (value === undefined) {
    errors.add(field, `The ${name} field is required.`);
    return undefined;
  }
  if (orNumber && typeof value === 'number') return String(value);
  if (typeof value !== 'string') {
    errors.add(field, `The ${name} field must be a string.`);
    return undefined;
  }
  return value;
}
