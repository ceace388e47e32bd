/**
 * GSA's System API v2 as the emulator serves it (reference/gsa-system-api-v2.md), everything under
 * `/system-api/v2/`: `Authorization: Bearer <key>` against the one key the emulator accepts (401
 * `{"message":"Unauthenticated."}` otherwise, Laravel's answer), then the key's own API budget when one is enforced
 * (counted apart from the mod API's client id, under SYSTEM_BUDGET_KEY), then the route:
 *   POST players/find · GET player/{uuid} · POST player/{uuid}/mute|unmute      (systemPlayers.ts)
 *   POST gameserver/{id}/start|update|shutdown|restart|cancel|backup|broadcast|command   (systemServers.ts)
 *   GET gameservers · GET gameserver/{id} (id, names, activity.status = online flag)     (systemServers.ts)
 *   GET game/available (a one-game list); any other path: 404 `{"error":"Not found"}`.
 * Must never echo the key (not even into the budget report), and never change state on a refused call.
 */
import { UNAUTHENTICATED_REPLY } from './auth.js';
import { jsonReply, messageReply, type Reply } from './httpIo.js';
import type { SystemContext, SystemRequest } from './systemRequest.js';
import { findPlayers, mutePlayer, showPlayer, unmutePlayer } from './systemPlayers.js';
import { NOT_FOUND_REPLY } from './systemReplies.js';
import { gameServerAction, listGameServers, showGameServer } from './systemServers.js';
import { SYSTEM_GAMESERVER_ACTIONS } from './systemState.js';

export const SYSTEM_PREFIX = '/system-api/v2/';

/** The name the system key's calls are counted under in the budget report: a label, never the key. */
export const SYSTEM_BUDGET_KEY = '(system api key)';

/** `GET game/available`: a bare array of `Game` (§2.17); one entry is enough for a client checking its key. */
const AVAILABLE_GAMES = [
  {
    app_id: 376030,
    name: 'ARK: Survival Evolved',
    icon: '',
    banner: '',
    steam: { client_id: 346110, server_id: 376030 },
    support: { delivery: true, level: true, gender: true },
    features: [],
  },
];

export function handleSystemApi(ctx: SystemContext, req: SystemRequest): Reply {
  if (!ctx.systemKey.matches(req.authorization)) return UNAUTHENTICATED_REPLY;
  return ctx.state.budget.throttle(SYSTEM_BUDGET_KEY, req.at, () => route(ctx, req));
}

function route(ctx: SystemContext, req: SystemRequest): Reply {
  const segments = req.route.replace(/\/+$/, '').split('/').map(decodeSegment);
  const [collection, target, leaf, ...rest] = segments;
  if (segments.some((segment) => segment === undefined || segment === '') || rest.length > 0) return NOT_FOUND_REPLY;

  if (collection === 'players' && target === 'find' && leaf === undefined) return onlyFor(req, 'POST', () => findPlayers(ctx, req));
  if (collection === 'game' && target === 'available' && leaf === undefined) return onlyFor(req, 'GET', () => jsonReply(200, AVAILABLE_GAMES));
  if (collection === 'player' && target !== undefined) {
    if (leaf === undefined) return onlyFor(req, 'GET', () => showPlayer(ctx, target));
    if (leaf === 'mute') return onlyFor(req, 'POST', () => mutePlayer(ctx, req, target));
    if (leaf === 'unmute') return onlyFor(req, 'POST', () => unmutePlayer(ctx, req, target));
  }
  if (collection === 'gameservers' && target === undefined) return onlyFor(req, 'GET', () => listGameServers(ctx));
  if (collection === 'gameserver' && target !== undefined && leaf === undefined) return onlyFor(req, 'GET', () => showGameServer(ctx, target));
  if (collection === 'gameserver' && target !== undefined) {
    const action = SYSTEM_GAMESERVER_ACTIONS.find((known) => known === leaf);
    if (action !== undefined) return onlyFor(req, 'POST', () => gameServerAction(ctx, req, target, action));
  }
  return NOT_FOUND_REPLY;
}

/** Laravel's 405 for a known route hit with another method. */
function onlyFor(req: SystemRequest, method: 'GET' | 'POST', handle: () => Reply): Reply {
  if (req.method === method || (method === 'GET' && req.method === 'HEAD')) return handle();
  return messageReply(405, `The ${req.method} method is not supported for this route. Supported methods: ${method === 'GET' ? 'GET, HEAD' : method}.`, {
    allow: method === 'GET' ? 'GET, HEAD' : method,
  });
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
