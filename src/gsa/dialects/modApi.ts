// The mod API's two dialects, one object each: `modApiV1` (the seed's /api/v1 paths, credentials in the form body)
// and `modApiV2` (/mod-api/v2 with x-client-id / x-client-secret headers). Both send the server webhooks the v1 way
// (secret as the raw body, client_id in the query): v2 has no webhook of its own. Answers read alike (responses.ts).
// Pure: builds requests and reads answers, never sends. The requests they build carry the secret: never log them.

import type { Credentials } from '../client/credentials.js';
import { errorFromResponse, parseMuteStatus, parseReviewReceipt } from '../client/responses.js';
import type { RawResponse } from '../client/rawResponse.js';
import type { ApiFlavor, MuteStatus, OnePlayerId, ReviewReceipt, ServerAction } from '../types.js';
import type { ApiRequest, ClassifyFailure, Scrub } from './dialect.js';

export interface ModApiContext {
  readonly credentials: Credentials;
  /** Path prefix of the base URL, without a trailing slash ('' for https://api.gameserverapp.com). */
  readonly basePath: string;
  /** Path segment used for the wipe webhook; the docs list /update by mistake, the service answers /wipe. */
  readonly wipePath: string;
}

export interface ModApiDialect {
  readonly flavor: ApiFlavor;
  muteCheckRequest(context: ModApiContext, server: string, player: OnePlayerId): ApiRequest;
  reviewRequest(context: ModApiContext, server: string, player: OnePlayerId, stars: number, comment: string): ApiRequest;
  serverActionRequest(context: ModApiContext, serverId: number, action: ServerAction, countdownMinutes?: number): ApiRequest;
  parseMuteStatus(response: RawResponse, asked: OnePlayerId): MuteStatus;
  parseReviewReceipt(response: RawResponse, scrub: Scrub): ReviewReceipt;
  readonly classify: ClassifyFailure;
}

const FORM = 'application/x-www-form-urlencoded';

/**
 * The one id the caller chose, and nothing else: the API takes "steam_id or eos_id", and a Laravel `prohibits` rule
 * refuses both. Which id a player is asked by is decided above the client (the bridge, by servers[].lookupIds), so
 * no preference hides here.
 */
function playerFields(player: OnePlayerId): Record<string, string> {
  return player.steamId !== undefined ? { steam_id: player.steamId } : { eos_id: player.eosId };
}

/** Where a dialect puts the key pair: into the form (v1) or into headers (v2). */
type PlaceCredentials = (credentials: Credentials, secret: string, form: URLSearchParams, headers: Record<string, string>) => void;

function modApiRequest(prefix: string, place: PlaceCredentials, context: ModApiContext, endpoint: 'mute' | 'review', server: string, fields: Record<string, string>): ApiRequest {
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': FORM };
  const form = new URLSearchParams();
  context.credentials.useSecret((secret) => {
    place(context.credentials, secret, form, headers);
  });
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  return {
    endpoint,
    method: 'POST',
    path: `${context.basePath}${prefix}/gameserver/${encodeURIComponent(server)}/${endpoint}`,
    headers,
    body: form.toString(),
  };
}

/** The seed's webhook, the same in both dialects: secret as the raw body, client_id (and an update's countdown) in the query. */
function webhookRequest(context: ModApiContext, serverId: number, action: ServerAction, countdownMinutes?: number): ApiRequest {
  // The wipe path comes from config (validated there as a plain path); actions are a fixed list.
  const segment = action === 'wipe' ? context.wipePath.replace(/^\/+|\/+$/g, '') : action;
  const query = new URLSearchParams({ client_id: context.credentials.clientId });
  if (action === 'update' && countdownMinutes !== undefined) query.set('countdown', String(countdownMinutes));
  return {
    endpoint: 'webhook',
    method: 'POST',
    path: `${context.basePath}/api/v1/server/${String(serverId)}/${segment}?${query.toString()}`,
    headers: { accept: 'application/json', 'content-type': 'text/plain' },
    body: context.credentials.useSecret((secret) => secret),
  };
}

function modApiDialect(flavor: ApiFlavor, prefix: string, place: PlaceCredentials): ModApiDialect {
  return {
    flavor,
    muteCheckRequest: (context, server, player) => modApiRequest(prefix, place, context, 'mute', server, playerFields(player)),
    reviewRequest: (context, server, player, stars, comment) =>
      modApiRequest(prefix, place, context, 'review', server, { ...playerFields(player), stars: String(stars), comment }),
    serverActionRequest: webhookRequest,
    parseMuteStatus,
    parseReviewReceipt,
    classify: errorFromResponse,
  };
}

/** /api/v1, client_id and client_secret as the first form fields (the seed's order). */
export const modApiV1: ModApiDialect = modApiDialect('v1', '/api/v1', (credentials, secret, form) => {
  form.set('client_id', credentials.clientId);
  form.set('client_secret', secret);
});

/** /mod-api/v2, the pair in x-client-id / x-client-secret headers; webhooks as v1. */
export const modApiV2: ModApiDialect = modApiDialect('v2', '/mod-api/v2', (credentials, secret, _form, headers) => {
  headers['x-client-id'] = credentials.clientId;
  headers['x-client-secret'] = secret;
});

/** The mod API dialect of a flavor. */
export function modApiDialectOf(flavor: ApiFlavor): ModApiDialect {
  return flavor === 'v2' ? modApiV2 : modApiV1;
}
