// A host's own mute or unmute (`gsa-bridge mute`, `gsa-bridge unmute`) reaching the sidecar that runs on the same
// data directory, so the player's next line is decided by it at once instead of after the mute cache's TTL: the
// "player-mute" control op the sidecar serves (runCommand), and the command's side that asks it once GSA accepted.
// A mute GSA reports later still arrives the usual way (the cache asks again when the entry goes stale).
// It never asks GSA, never fails the command (GSA took the mute: that is the command's outcome), and never takes
// the data directory's lock.

import { askHolder, DataDirLockError, describeHolder, lockHolder, type ControlHandler } from '../datadir/dataDirLock.js';
import { checkPlayerId } from '../ids/playerIds.js';
import type { PlayerIdentity } from '../bridge/port.js';
import { GsaError, type SystemPlayerRef } from '../gsa/index.js';
import { printableText } from '../text/printableText.js';
import type { CliContext } from './context.js';

/**
 * The control op, on the wire: `{"op":"player-mute","muted":true,"steam_id":"7656…","name":"Rex"}` (at least one of
 * `steam_id`, `eos_id`, `mojang_id`; `name` optional) → `{"ok":true,"servers":2}`, the bridges now holding it.
 */
export const PLAYER_MUTE_OP = 'player-mute';

/** What the op changes in each bridge of the running sidecar (ServerBridge's). */
export interface MuteMemory {
  rememberMuteStatus(player: PlayerIdentity, muted: boolean): void;
}

/** The ids a request names, each checked as its kind; undefined when one is malformed or none is given. */
function requestedPlayer(request: Readonly<Record<string, unknown>>): PlayerIdentity | undefined {
  const fields = [
    ['steam_id', 'steam'],
    ['eos_id', 'eos'],
    ['mojang_id', 'mojang'],
  ] as const;
  const ids: Record<string, string> = {};
  for (const [field, kind] of fields) {
    const value = request[field];
    if (value === undefined) continue;
    const id = typeof value === 'string' ? checkPlayerId(value, [kind]) : undefined;
    if (id === undefined) return undefined;
    ids[id.kind === 'steam' ? 'steamId' : id.kind === 'eos' ? 'eosId' : 'mojangId'] = id.id;
  }
  if (Object.keys(ids).length === 0) return undefined;
  const name = typeof request.name === 'string' ? printableText(request.name, 100) : undefined;
  return name === undefined || name === '' ? ids : { ...ids, name };
}

/** Serves `player-mute` inside the running sidecar: every bridge remembers the host's mute (or unmute) at once. */
export function playerMuteControlHandler(bridges: () => Iterable<MuteMemory>): ControlHandler {
  return (request) => {
    const player = requestedPlayer(request);
    if (typeof request.muted !== 'boolean' || player === undefined) {
      return Promise.resolve({ ok: false, error: 'a player-mute request needs "muted" (true or false) and a well-formed steam_id, eos_id or mojang_id' });
    }
    let servers = 0;
    for (const bridge of bridges()) {
      bridge.rememberMuteStatus(player, request.muted);
      servers += 1;
    }
    return Promise.resolve({ ok: true, servers });
  };
}

/**
 * The player as the sidecar's cache keys them: the game ids of their linked accounts GSA listed, and the id the
 * command was given when it has a game id's shape (a Steam64, an EOS id or a dashed Mojang UUID; players/find takes
 * any of them). Undefined when neither names a game id.
 */
export function commandPlayerIds(serviceId: string | undefined, player: SystemPlayerRef): PlayerIdentity | undefined {
  const given = serviceId === undefined ? undefined : checkPlayerId(serviceId, ['steam', 'eos', 'mojang']);
  const ids: { steamId?: string | undefined; eosId?: string | undefined; mojangId?: string | undefined } = { ...player.gameIds };
  if (given !== undefined) ids[given.kind === 'steam' ? 'steamId' : given.kind === 'eos' ? 'eosId' : 'mojangId'] = given.id;
  if (ids.steamId === undefined && ids.eosId === undefined && ids.mojangId === undefined) return undefined;
  return player.name === undefined ? ids : { ...ids, name: player.name };
}

/** The wire form of a player: the ids GSA's own fields name, and the name. */
function wireFields(player: PlayerIdentity): Record<string, string> {
  const fields: Record<string, string> = {};
  if (player.steamId !== undefined) fields.steam_id = player.steamId;
  if (player.eosId !== undefined) fields.eos_id = player.eosId;
  if (player.mojangId !== undefined) fields.mojang_id = player.mojangId;
  if (player.name !== undefined) fields.name = player.name;
  return fields;
}

/**
 * After GSA accepted the command's mute (or unmute): tells the sidecar running on `dataDir`, if any, and prints one
 * note on stderr saying whether the change applies at once. `player` is asked only when a sidecar runs (it may cost
 * a call to GSA): the player's game ids, or undefined when GSA lists none; a GsaError says why they are unknown.
 */
export async function tellRunningSidecar(context: CliContext, dataDir: string, player: () => Promise<PlayerIdentity | undefined>, muted: boolean): Promise<void> {
  // The TTL of what a sidecar may still hold for the player: "not muted" before a mute, "muted" before an unmute.
  const later = `sees the change when its mute cache next asks GSA (within mute.${muted ? 'unmutedTtlMs' : 'mutedTtlMs'})`;
  let holder;
  try {
    holder = await lockHolder(dataDir);
  } catch (error) {
    if (!(error instanceof DataDirLockError)) throw error;
    context.stderr.write(`note: could not tell whether a sidecar runs on ${dataDir} (${error.message}); a running sidecar ${later}\n`);
    return;
  }
  if (holder === undefined) {
    context.stderr.write(`note: no sidecar runs on the data directory ${dataDir} (reviews.dataDir of the config file), so none was told; a sidecar running elsewhere ${later}\n`);
    return;
  }
  const who = describeHolder(holder);
  let ids: PlayerIdentity | undefined;
  try {
    ids = await player();
  } catch (error) {
    if (!(error instanceof GsaError)) throw error;
    context.stderr.write(`warning: the running sidecar (${who}) was not told: GSA did not give the player's game ids (${error.message}); it ${later}\n`);
    return;
  }
  if (ids === undefined) {
    context.stderr.write(`note: the running sidecar (${who}) was not told: it knows players by their game ids, and GSA lists no Steam, EOS or Mojang account for this player; it ${later}\n`);
    return;
  }
  try {
    const reply = await askHolder(dataDir, { op: PLAYER_MUTE_OP, muted, ...wireFields(ids) });
    if (!reply.ok) {
      context.stderr.write(`warning: the running sidecar (${who}) did not take the change: ${reply.error}; it ${later}\n`);
      return;
    }
  } catch (error) {
    if (!(error instanceof DataDirLockError)) throw error;
    context.stderr.write(`warning: the running sidecar (${who}) could not be told: ${error.message}; it ${later}\n`);
    return;
  }
  context.stderr.write(`the running sidecar (${who}) ${muted ? 'blocks' : 'allows'} the player's chat from their next line\n`);
}
