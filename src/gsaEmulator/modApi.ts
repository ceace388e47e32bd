/**
 * The mod ("in-game") API, v1 (credentials in the body) and v2 (credentials in x-client-id /
 * x-client-secret headers): mute lookups and reviews, with the service's checks in its order —
 * 401 credentials, the key's API budget (when enforced: 429), 404 server, 422 validation, 403 review eligibility.
 * A player is muted on a server when muted there (the controls) or dashboard-wide through the System API; every
 * id of an answered mute check or a stored review becomes a System API player (findable by players/find).
 * Must never echo the client secret, and must never change state unless every check passed.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { EOS_ID_PATTERN, STEAM_ID_PATTERN } from '../ids/playerIds.js';
import { UNAUTHENTICATED_REPLY, type AcceptedCredentials } from './auth.js';
import { firstHeader, jsonReply, messageReply, type Reply } from './httpIo.js';
import type { EmulatorState, NamedPlayer } from './state.js';
import { asInteger, attributeName, characterCount, normaliseInput, ValidationErrors, type InputFields } from './validation.js';

/**
 * Which key carries the mute alert text. The docs say `muted-alert-tex`, the official mod reads
 * `muted-alert-text`; 'both' writes the two so clients can be tested against each.
 */
export type AlertKey = 'muted-alert-tex' | 'muted-alert-text' | 'both';

export interface ModApiContext {
  readonly state: EmulatorState;
  readonly credentials: AcceptedCredentials;
  readonly alertKey: AlertKey;
  /** Unix ms: whether a System API mute is still in force. */
  readonly wallClock: () => number;
}

export interface ModRequest {
  readonly flavor: 'v1' | 'v2';
  readonly op: 'mute' | 'review';
  /** Container name from the path, already percent-decoded. */
  readonly server: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** Arrival time; stored reviews carry it. */
  readonly at: number;
}

const SERVER_NOT_FOUND_REPLY = messageReply(404, 'Game server not found.');

export const STARS_MIN = 1;
export const STARS_MAX = 5;
export const COMMENT_MAX_CHARS = 500;

/** The one player a mod API request named, after validation. */
export interface Player {
  readonly kind: 'steam' | 'eos';
  readonly id: string;
}

export function handleModApi(ctx: ModApiContext, req: ModRequest): Reply {
  const parsed = parseBody(firstHeader(req.headers, 'content-type'), req.body);
  if (!parsed.ok) return parsed.reply;
  const { fields } = parsed;

  const [clientId, clientSecret] =
    req.flavor === 'v1'
      ? [stringField(fields, 'client_id'), stringField(fields, 'client_secret')]
      : [firstHeader(req.headers, 'x-client-id'), firstHeader(req.headers, 'x-client-secret')];
  if (clientId === undefined || !ctx.credentials.matches(clientId, clientSecret)) return UNAUTHENTICATED_REPLY;
  // Throttled after authentication and before anything else, as Laravel's middleware runs before the controller.
  return ctx.state.budget.throttle(clientId, req.at, () => authenticatedReply(ctx, req, fields));
}

function authenticatedReply(ctx: ModApiContext, req: ModRequest, fields: InputFields): Reply {
  if (ctx.state.serverByName(req.server) === undefined) return SERVER_NOT_FOUND_REPLY;

  const errors = new ValidationErrors();
  const player = validatePlayer(fields, errors);
  if (req.op === 'mute') {
    if (player === undefined) return errors.toReply();
    ctx.state.system.sawPlayerId(player.id, player.kind);
    return muteReply(ctx, req.server, player);
  }

  const stars = validateStars(fields, errors);
  const comment = validateComment(fields, errors);
  if (player === undefined || stars === undefined || comment === undefined) return errors.toReply();
  const refusal = ctx.state.ineligibility(req.server, player.id);
  if (refusal !== undefined) return messageReply(403, refusal);
  ctx.state.addReview({
    server: req.server,
    ...(player.kind === 'steam' ? { steamId: player.id } : { eosId: player.id }),
    stars,
    comment,
    at: req.at,
  });
  ctx.state.system.sawPlayerId(player.id, player.kind);
  return jsonReply(200, { data: 'Done!' });
}

function muteReply(ctx: ModApiContext, server: string, player: Player): Reply {
  // A dashboard-wide mute carries no alert text: clients show their own default.
  const alert = ctx.state.muteAlert(server, player.id) ?? (ctx.state.system.isMuted(player.kind, player.id, ctx.wallClock()) ? '' : undefined);
  const text = alert ?? '';
  const alertFields =
    ctx.alertKey === 'both' ? { 'muted-alert-tex': text, 'muted-alert-text': text } : { [ctx.alertKey]: text };
  return jsonReply(200, {
    identifier: 'gsamod-muted',
    steam_id: player.kind === 'steam' ? player.id : '',
    eos_id: player.kind === 'eos' ? player.id : '',
    muted: alert !== undefined,
    ...alertFields,
  });
}


/** What a mod API body names as the player; undefined when it names no id or cannot be read. */
export function namedPlayer(contentType: string | undefined, body: Buffer): NamedPlayer | undefined {
  const parsed = parseBody(contentType, body);
  return parsed.ok ? namedPlayerIn(parsed.fields) : undefined;
}

/** What a request's fields name as the player; undefined when they name no id. */
export function namedPlayerIn(fields: InputFields): NamedPlayer | undefined {
  const steam = fields.get('steam_id');
  const eos = fields.get('eos_id');
  const named: NamedPlayer = {
    ...(typeof steam === 'string' ? { steam_id: steam } : {}),
    ...(typeof eos === 'string' ? { eos_id: eos } : {}),
  };
  return Object.keys(named).length === 0 ? undefined : named;
}

export type ParsedBody = { readonly ok: true; readonly fields: InputFields } | { readonly ok: false; readonly reply: Reply };

/**
 * Form bodies are what the service documents; JSON is accepted because Laravel reads either. Other
 * media types get a 415 that says what to send, where the real service would silently see no fields.
 */
export function parseBody(contentType: string | undefined, body: Buffer): ParsedBody {
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const text = body.toString('utf8');
  if (mediaType === '' || mediaType === 'application/x-www-form-urlencoded') {
    return { ok: true, fields: normaliseInput(new URLSearchParams(text)) };
  }
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    if (text.trim() === '') return { ok: true, fields: normaliseInput([]) };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, reply: messageReply(400, 'The request body is not valid JSON.') };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { ok: false, reply: messageReply(400, 'The request body must be a JSON object.') };
    }
    return { ok: true, fields: normaliseInput(Object.entries(value)) };
  }
  return {
    ok: false,
    reply: messageReply(415, `Unsupported Content-Type '${mediaType}': send application/x-www-form-urlencoded or application/json.`),
  };
}

/** Exactly one of steam_id / eos_id, in its format; rules and wording as Laravel's required_without, prohibits and regex. */
export function validatePlayer(fields: InputFields, errors: ValidationErrors): Player | undefined {
  const steam = fields.get('steam_id');
  const eos = fields.get('eos_id');
  if (steam === undefined && eos === undefined) {
    errors.add('steam_id', 'The steam id field is required when eos id is not present.');
    errors.add('eos_id', 'The eos id field is required when steam id is not present.');
    return undefined;
  }
  if (steam !== undefined && eos !== undefined) {
    errors.add('steam_id', 'The steam id field prohibits eos id from being present.');
    return undefined;
  }
  return steam !== undefined
    ? validateId('steam_id', steam, STEAM_ID_PATTERN, 'steam', errors)
    : validateId('eos_id', eos, EOS_ID_PATTERN, 'eos', errors);
}

function validateId(field: string, value: unknown, format: RegExp, kind: Player['kind'], errors: ValidationErrors): Player | undefined {
  const name = attributeName(field);
  if (typeof value !== 'string') {
    errors.add(field, `The ${name} field must be a string.`);
    return undefined;
  }
  if (!format.test(value)) {
    errors.add(field, `The ${name} field format is invalid.`);
    return undefined;
  }
  return { kind, id: value };
}

function validateStars(fields: InputFields, errors: ValidationErrors): number | undefined {
  const raw = fields.get('stars');
  if (raw === undefined) {
    errors.add('stars', 'The stars field is required.');
    return undefined;
  }
  const stars = asInteger(raw);
  if (stars === undefined) {
    errors.add('stars', 'The stars field must be an integer.');
    return undefined;
  }
  if (stars < STARS_MIN || stars > STARS_MAX) {
    errors.add('stars', `The stars field must be between ${STARS_MIN} and ${STARS_MAX}.`);
    return undefined;
  }
  return stars;
}

/** Optional; '' when absent so stored reviews always have a string. */
function validateComment(fields: InputFields, errors: ValidationErrors): string | undefined {
  const raw = fields.get('comment');
  if (raw === undefined) return '';
  if (typeof raw !== 'string') {
    errors.add('comment', 'The comment field must be a string.');
    return undefined;
  }
  if (characterCount(raw) > COMMENT_MAX_CHARS) {
    errors.add('comment', `The comment field must not be greater than ${COMMENT_MAX_CHARS} characters.`);
    return undefined;
  }
  return raw;
}

function stringField(fields: InputFields, key: string): string | undefined {
  const value = fields.get(key);
  return typeof value === 'string' ? value : undefined;
}
