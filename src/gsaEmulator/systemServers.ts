/**
 * The System API v2's game-server actions (reference/gsa-system-api-v2.md §2.14–§2.16): POST
 * gameserver/{id}/{start|update|shutdown|restart|cancel|backup|broadcast|command}, form bodies, one 60 s cooldown
 * per game server shared by all eight (the docs leave open whether it is per action; shared is the strict reading).
 * Each accepted call is recorded (state `system.actions`) so tests can assert what arrived; nothing is scheduled.
 * Checks run in this order [inference]: 404 server, 400 body, 400 offline (start excepted), 429 cooldown; only an
 * accepted call starts the cooldown. Must never change state on a refused call.
 */
import { jsonReply, type Reply } from './httpIo.js';
import type { SystemContext, SystemRequest } from './systemRequest.js';
import { dataReply, errorReply, readFields, textField } from './systemReplies.js';
import type { SystemActionRecord, SystemGameServerAction } from './systemState.js';
import { asInteger, type InputFields } from './validation.js';

/** Documented in every game-server action's 429: "60 second(s) between calls for the same game server". */
export const GAMESERVER_COOLDOWN_MS = 60_000;
/** `countdown`: "min 0, max 90", default '0'. */
export const MAX_COUNTDOWN = 90;
export const BROADCAST_TYPES = ['broadcast', 'success', 'warning', 'error'] as const;

const SERVER_NOT_FOUND = errorReply(404, 'Game server not found');
const SERVER_OFFLINE = errorReply(400, 'Game server needs to be online to do this.');
const SERVER_COOLDOWN = errorReply(429, 'You cannot do this yet. Please wait 60 second(s) between calls for the same game server.');

const SUCCESS: Readonly<Record<SystemGameServerAction, string>> = {
  start: 'Start request sent to game server',
  update: 'Update request sent to game server',
  shutdown: 'Shutdown request sent to game server',
  restart: 'Restart request sent to game server',
  cancel: 'Cancel request sent to game server',
  backup: 'Backup request sent to game server',
  broadcast: 'Broadcast sent to game server',
  command: 'Command sent to game server',
};

type Details = Omit<SystemActionRecord, 'serverId' | 'action' | 'at'>;
type Parsed = { readonly ok: true; readonly details: Details } | { readonly ok: false; readonly reply: Reply };

/** GET gameserver/{id}: the `GameServer` object itself, no `data` wrapper (§2.16), as far as the emulator models it. */
export function showGameServer(ctx: SystemContext, idSegment: string): Reply {
  const serverId = /^\d{1,15}$/.test(idSegment) ? Number(idSegment) : undefined;
  const server = serverId === undefined ? undefined : ctx.state.serverById(serverId);
  if (serverId === undefined || server === undefined) return SERVER_NOT_FOUND;
  return jsonReply(200, gameServerJson(ctx, serverId, server.name));
}

/** GET gameservers: the servers with an id, `{data, meta}` (the docs show no `links` here); one page of up to 100. */
export function listGameServers(ctx: SystemContext): Reply {
  const data = ctx.state.servers.flatMap((server) => (server.id === undefined ? [] : [gameServerJson(ctx, server.id, server.name)]));
  return jsonReply(200, {
    data,
    meta: { current_page: 1, from: data.length === 0 ? null : 1, last_page: 1, per_page: 100, to: data.length === 0 ? null : data.length, total: data.length },
  });
}

function gameServerJson(ctx: SystemContext, id: number, name: string): unknown {
  return {
    id,
    name,
    display_name: name,
    short_name: name,
    activity: { status: ctx.state.system.isOnline(id), online_characters_count: 0 },
  };
}

export function gameServerAction(ctx: SystemContext, req: SystemRequest, idSegment: string, action: SystemGameServerAction): Reply {
  const serverId = /^\d{1,15}$/.test(idSegment) ? Number(idSegment) : undefined;
  if (serverId === undefined || ctx.state.serverById(serverId) === undefined) return SERVER_NOT_FOUND;
  const read = readFields(req.contentType, req.body);
  if (!read.ok) return read.reply;
  const parsed = parseDetails(action, read.fields);
  if (!parsed.ok) return parsed.reply;
  const system = ctx.state.system;
  if (action !== 'start' && !system.isOnline(serverId)) return SERVER_OFFLINE;
  if (system.serverWait(serverId, req.at, GAMESERVER_COOLDOWN_MS) > 0) return SERVER_COOLDOWN;
  system.serverCalled(serverId, req.at, GAMESERVER_COOLDOWN_MS);
  system.recordAction({ serverId, action, ...parsed.details, at: req.at });
  return dataReply(SUCCESS[action]);
}

/** The body each action documents; other fields are ignored, as Laravel ignores what it does not read. */
function parseDetails(action: SystemGameServerAction, fields: InputFields): Parsed {
  switch (action) {
    case 'update':
    case 'shutdown':
    case 'restart': {
      const raw = fields.get('countdown');
      const countdown = raw === undefined ? 0 : asInteger(raw);
      if (countdown === undefined || countdown < 0 || countdown > MAX_COUNTDOWN) {
        return refuse(`The countdown must be a whole number from 0 to ${MAX_COUNTDOWN}.`);
      }
      const message = textField(fields, 'message');
      return { ok: true, details: { countdown, ...(message === undefined ? {} : { message }) } };
    }
    case 'backup': {
      const name = textField(fields, 'name');
      return name === undefined ? refuse('The name field is required.') : { ok: true, details: { name } };
    }
    case 'broadcast': {
      const message = textField(fields, 'message');
      if (message === undefined) return refuse('The message field is required.');
      const type = BROADCAST_TYPES.find((known) => known === (fields.get('type') ?? 'warning'));
      if (type === undefined) return refuse(`The type must be one of: ${BROADCAST_TYPES.join(', ')}.`);
      return { ok: true, details: { message, type } };
    }
    case 'command': {
      const command = textField(fields, 'command');
      return command === undefined ? refuse('The command field is required.') : { ok: true, details: { command } };
    }
    case 'start':
    case 'cancel':
      return { ok: true, details: {} };
  }
}

function refuse(error: string): Parsed {
  return { ok: false, reply: errorReply(400, error) };
}
