// ARK: Survival Evolved and Ascended over Source RCON. ARK hangs on an empty EXECCOMMAND, so replies end by a
// short quiet time rather than the mirror trick; one command at a time, gently. Chat is polled (GetChat) and the
// player list too (ListPlayers); the polls keep the session alive, so no keepalive of its own (and never GetChat
// as one: it drains the chat buffer other tools read).

import type { RconProfile } from './profile.js';

export const arkProfile: RconProfile = {
  name: 'ark',
  probeCommand: 'ListPlayers',
  transport: {
    kind: 'source',
    replyEnd: { kind: 'quiet', quietMs: 100 },
    maxInFlight: 1,
    rateCap: { commands: 5, perMs: 1_000 },
    keepaliveIntervalMs: 0,
  },
};
