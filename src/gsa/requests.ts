// Builds the HTTP request for each GSA call: path, headers and body in the v1 or v2 flavour, and the
// webhook form (secret as raw body, client_id in the query). Pure functions: no I/O, no retries.
// A built request carries the secret; it must never be logged or attached to an error.

import type { Credentials } from './credentials.js';
import type { ApiFlavor, Endpoint, PlayerIds, ServerAction } from './types.js';

export interface ApiRequest {
  readonly endpoint: Endpoint;
  readonly method: 'POST';
  /** Path and query, relative to the base URL's origin. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface RequestContext {
  readonly flavor: ApiFlavor;
  readonly credentials: Credentials;
  /** Path prefix of the base URL, without a trailing slash ('' for https://api.gameserverapp.com). */
  readonly basePath: string;
  /** Path segment used for the wipe webhook; the docs list /update by mistake, the service answers /wipe. */
  readonly wipePath: string;
}

const FORM = 'application/x-www-form-urlencoded';

/**
 * Exactly one id: the API takes "steam_id or eos_id", and a Laravel `prohibits` rule would refuse both. When both
 * are known, eos_id wins: the confirmed reference for these calls is the official ASA mod, which identifies players
 * by EOS id.
 */
function playerFields(player: PlayerIds): Record<string, string> {
  if (player.eosId !== undefined) return { eos_id: player.eosId };
  return player.steamId !== undefined ? { steam_id: player.steamId } : {};
}

function modApiRequest(context: RequestContext, endpoint: 'mute' | 'review', server: string, fields: Record<string, string>): ApiRequest {
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': FORM };
  const form = new URLSearchParams();
  const prefix = context.flavor === 'v1' ? '/api/v1' : '/mod-api/v2';
  context.credentials.useSecret((secret) => {
    if (context.flavor === 'v1') {
      form.set('client_id', context.credentials.clientId);
      form.set('client_secret', secret);
    } else {
      headers['x-client-id'] = context.credentials.clientId;
      headers['x-client-secret'] = secret;
    }
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

export function muteCheckRequest(context: RequestContext, server: string, player: PlayerIds): ApiRequest {
  return modApiRequest(context, 'mute', server, playerFields(player));
}

export function reviewRequest(context: RequestContext, server: string, player: PlayerIds, stars: number, comment: string): ApiRequest {
  return modApiRequest(context, 'review', server, { ...playerFields(player), stars: String(stars), comment });
}

export function serverActionRequest(context: RequestContext, serverId: number, action: ServerAction, countdownMinutes?: number): ApiRequest {
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
