/**
 * The System API v2's player routes (reference/gsa-system-api-v2.md §2.1, §2.4, §2.7, §2.8): players/find, GET
 * player/{uuid}, and the dashboard-wide mute and unmute with their 120 s per-player cooldown (one clock for both:
 * the docs state 120 s for each and say nothing of sharing; sharing is the strict reading). A mute takes effect at
 * once here (the service says "shortly"): the mod API answers muted for every Steam/EOS id of the player, on every
 * server, until it ends.
 * Checks run in this order [inference: the docs give the answers, not their order]: 404 player, 400 body, 429
 * cooldown; only an accepted call starts the cooldown. Must never change state on a refused call.
 */
import { dateEnd, periodEnd, type MuteEnd } from './systemPeriods.js';
import { dataReply, errorReply, paginated, readFields, textField } from './systemReplies.js';
import { serviceUserUuid, type SystemMuteRecord, type SystemPlayer } from './systemState.js';
import type { Reply } from './httpIo.js';
import type { SystemContext, SystemRequest } from './systemRequest.js';

/** Documented: "This action has a cooldown of 120 seconds, per player" (mute, unmute, ban, unban). */
export const PLAYER_COOLDOWN_MS = 120_000;

const PLAYER_NOT_FOUND = errorReply(404, 'Player not found');
const INVALID_PERIOD = errorReply(400, 'Invalid period or date.');
// The documented text, with 120 whatever the wait left: the service's text names the cooldown, not the rest of it.
const PLAYER_COOLDOWN = errorReply(429, 'You cannot do this yet. Please wait 120 second(s) between calls for the same player.');

/** POST players/find `{service_id}`: 400 without it, 404 on no match, else the paginated players. */
export function findPlayers(ctx: SystemContext, req: SystemRequest): Reply {
  const read = readFields(req.contentType, req.body);
  if (!read.ok) return read.reply;
  const serviceId = textField(read.fields, 'service_id');
  if (serviceId === undefined) return errorReply(400, 'At least one search parameter is required');
  const players = ctx.state.system.findByServiceId(serviceId);
  if (players.length === 0) return errorReply(404, 'No players found matching the criteria');
  const wallNow = ctx.wallClock();
  const json = players.map((player) => playerJson(player, ctx.state.system.muteOf(player.uuid, wallNow)));
  return paginated(json, req.query, `${req.origin}/system-api/v2/players/find`);
}

/** GET player/{uuid}: `{data: Player}`. */
export function showPlayer(ctx: SystemContext, uuid: string): Reply {
  const player = ctx.state.system.player(uuid);
  if (player === undefined) return PLAYER_NOT_FOUND;
  return dataReply(playerJson(player, ctx.state.system.muteOf(player.uuid, ctx.wallClock())));
}

/** POST player/{uuid}/mute `{type: permanent|period|date, period?, date?, note?}`. */
export function mutePlayer(ctx: SystemContext, req: SystemRequest, uuid: string): Reply {
  const player = ctx.state.system.player(uuid);
  if (player === undefined) return PLAYER_NOT_FOUND;
  const read = readFields(req.contentType, req.body);
  if (!read.ok) return read.reply;
  const end = muteEnd(read.fields.get('type'), textField(read.fields, 'period'), textField(read.fields, 'date'), ctx.wallClock());
  if (!end.ok) return INVALID_PERIOD;
  if (ctx.state.system.playerWait(player.uuid, req.at, PLAYER_COOLDOWN_MS) > 0) return PLAYER_COOLDOWN;
  ctx.state.system.playerCalled(player.uuid, req.at, PLAYER_COOLDOWN_MS);
  ctx.state.system.mute(player.uuid, end.until, textField(read.fields, 'note') ?? '');
  return dataReply('Player will be muted shortly.');
}

/** POST player/{uuid}/unmute `{note?}`: lifts the mute (a player not muted gets the same answer). */
export function unmutePlayer(ctx: SystemContext, req: SystemRequest, uuid: string): Reply {
  const player = ctx.state.system.player(uuid);
  if (player === undefined) return PLAYER_NOT_FOUND;
  const read = readFields(req.contentType, req.body);
  if (!read.ok) return read.reply;
  if (ctx.state.system.playerWait(player.uuid, req.at, PLAYER_COOLDOWN_MS) > 0) return PLAYER_COOLDOWN;
  ctx.state.system.playerCalled(player.uuid, req.at, PLAYER_COOLDOWN_MS);
  ctx.state.system.unmute(player.uuid);
  return dataReply('Player will be unmuted shortly.');
}

function muteEnd(type: unknown, period: string | undefined, date: string | undefined, wallNow: number): MuteEnd {
  switch (type) {
    case 'permanent':
      return { ok: true, until: null };
    case 'period':
      return period === undefined ? { ok: false } : periodEnd(period, wallNow);
    case 'date':
      return date === undefined ? { ok: false } : dateEnd(date, wallNow);
    default:
      return { ok: false };
  }
}

/** The documented `Player` schema, as far as the emulator models it (no stats, no characters). */
function playerJson(player: SystemPlayer, mute: SystemMuteRecord | undefined): unknown {
  return {
    uuid: player.uuid,
    name: player.name,
    service_users: player.ids.map((identity) => ({
      uuid: serviceUserUuid(identity),
      service_id: identity.id,
      username: player.name,
      type: identity.type,
    })),
    moderation: {
      muted: { is_muted: mute !== undefined, until: mute?.until === null || mute === undefined ? null : new Date(mute.until).toISOString() },
      banned: { is_banned: false, until: null },
    },
  };
}
