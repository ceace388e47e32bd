// Builds the HTTP request for each mod API call, by the flavor's dialect (dialects/modApi.ts, which owns the paths,
// where the credentials go and the webhook form). Kept as functions over a RequestContext for callers that build a
// request without a client. Pure: no I/O, no retries. A built request carries the secret: never log it.

import { modApiDialectOf, type ModApiContext } from '../dialects/modApi.js';
import type { ApiFlavor, OnePlayerId, ServerAction } from '../types.js';

import type { ApiRequest } from '../dialects/dialect.js';

export type { ApiRequest };

export interface RequestContext extends ModApiContext {
  readonly flavor: ApiFlavor;
}

export function muteCheckRequest(context: RequestContext, server: string, player: OnePlayerId): ApiRequest {
  return modApiDialectOf(context.flavor).muteCheckRequest(context, server, player);
}

export function reviewRequest(context: RequestContext, server: string, player: OnePlayerId, stars: number, comment: string): ApiRequest {
  return modApiDialectOf(context.flavor).reviewRequest(context, server, player, stars, comment);
}

export function serverActionRequest(context: RequestContext, serverId: number, action: ServerAction, countdownMinutes?: number): ApiRequest {
  return modApiDialectOf(context.flavor).serverActionRequest(context, serverId, action, countdownMinutes);
}
