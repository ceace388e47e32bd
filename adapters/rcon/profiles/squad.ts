// Squad over Source RCON. Squad mirrors an empty RESPONSE_VALUE, so multi-packet replies (ListPlayers on a full
// server) end by the mirror trick; it pushes chat as packets of type 1. It drops an older session from the same
// address, so one session and a polite pace; ShowCurrentMap is its cheap keepalive.

import type { RconProfile } from './profile.js';

export const squadProfile: RconProfile = {
  name: 'squad',
  probeCommand: 'ListPlayers',
  transport: {
    kind: 'source',
    replyEnd: { kind: 'mirror' },
    maxInFlight: 4,
    rateCap: { commands: 10, perMs: 1_000 },
    keepaliveIntervalMs: 30_000,
    keepaliveCommand: 'ShowCurrentMap',
  },
};
