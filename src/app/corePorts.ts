// The ports the core reaches the app through, built in this one place over the service connection and the running
// bridges, so where a verdict or an action gets its answer is read here: a Minecraft player's mute status
// (MojangMuteCheck) and a mod's server actions (SystemApiAccess) go to GSA's System API in force; the chat filter's
// mute step goes to GSA through it too (PlayerMuting) and, once GSA accepted, reaches every running bridge at once
// (MuteApplier). Each port reads the current client and the current bridges at each call (a reload may replace or
// drop them). It must never keep a client, hold state of its own or decide anything: the core decides, ports carry.

import type { MojangMuteCheck } from '../bridge/mojangMuteLookup.js';
import type { SystemApiAccess } from '../bridge/serverActions.js';
import type { ServerBridge } from '../bridge/serverBridge.js';
import type { MuteApplier, PlayerMuting } from '../moderation/chatFilter.js';
import { systemPlayerMuting } from './systemPlayerMuting.js';

export interface CorePorts {
  /** GSA's System API in force: a mod's server actions and broadcasts (ServerBridgeOptions.systemApi). */
  readonly systemApi: SystemApiAccess;
  /** A Minecraft player's mute status, asked of the System API (ServerBridgeOptions.mojangLookup). */
  readonly mojangMuteCheck: MojangMuteCheck;
  /** The chat filter's mute step, taken through the System API (OpenChatFilterOptions.muting). */
  readonly playerMuting: PlayerMuting;
  /** A mute GSA accepted, remembered on every running bridge (OpenChatFilterOptions.muteApplier). */
  readonly muteApplier: MuteApplier;
}

/** `systemApi`: the service connection; `bridges`: the running bridges by server name, as a reload leaves them. */
export function corePorts(systemApi: SystemApiAccess, bridges: ReadonlyMap<string, ServerBridge>): CorePorts {
  return {
    systemApi,
    mojangMuteCheck: systemApiMojangMuteCheck(systemApi),
    playerMuting: systemPlayerMuting(systemApi),
    muteApplier: muteOnEveryBridge(bridges),
  };
}

/** A Mojang id's mute status through the System API in force; undefined while there is no key. */
function systemApiMojangMuteCheck(systemApi: SystemApiAccess): MojangMuteCheck {
  return {
    checkMuted: (mojangId, kind, source) => systemApi.system?.checkMuted(mojangId, { kind, source }),
  };
}

/** Remembers a mute GSA accepted on every bridge running at that moment, so the player's next line is blocked everywhere. */
export function muteOnEveryBridge(bridges: ReadonlyMap<string, ServerBridge>): MuteApplier {
  return {
    applyMute: (player) => {
      for (const bridge of bridges.values()) bridge.rememberMuteStatus(player, true);
    },
  };
}
