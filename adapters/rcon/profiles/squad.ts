// Squad over Source RCON. Squad mirrors an empty RESPONSE_VALUE, so multi-packet replies (ListPlayers on a full
// server) end by the mirror trick; it pushes chat as packets of type 1. It drops an older session from the same
// address, so one session and a polite pace; ShowCurrentMap is its cheap keepalive. A muted speaker gets
// `AdminWarn "<id>" <alert>` (a box on their screen; RCON cannot un-send a line).

import { SQUAD_TEXT_RULES, squadAdminKick, squadAdminWarn } from '../commandText.js';
import type { ChatChannel } from '../../../src/bridge/port.js';
import type { RconProfile } from './profile.js';
import { parseSquadPlayerList, parseSquadPush, type SquadChatChannel } from './squadLines.js';

/** Squad's chat tags in the one vocabulary (interfaces.md, "Chat channels"); GSA's mute covers global chat. */
const CHANNELS: Readonly<Record<SquadChatChannel, ChatChannel>> = {
  ChatAll: 'global',
  ChatTeam: 'team',
  ChatSquad: 'squad',
  ChatAdmin: 'admin',
};

export const squadProfile: RconProfile = {
  name: 'squad',
  options: {},
  probeCommand: 'ListPlayers',
  transport: {
    kind: 'source',
    replyEnd: { kind: 'mirror' },
    maxInFlight: 4,
    rateCap: { commands: 10, perMs: 1_000 },
    keepaliveIntervalMs: 30_000,
    keepaliveCommand: 'ShowCurrentMap',
  },
  players: { command: 'ListPlayers', read: parseSquadPlayerList },
  chat: {
    console: {
      kind: 'pushed',
      read(body, knownName) {
        const parsed = parseSquadPush(body, knownName);
        // A notice the server itself posts in a chat channel (a team kill, say) is the server's line, never gated.
        if (parsed.kind === 'other') return parsed.notice === undefined ? { kind: 'ignored' } : { kind: 'server', text: parsed.notice.text };
        if (parsed.kind === 'unparsed') return { kind: 'unparsed', reason: parsed.reason };
        return { kind: 'player', channel: CHANNELS[parsed.channel], name: parsed.name, steamId: parsed.steamId, eosId: parsed.eosId, text: parsed.text };
      },
    },
  },
  commandIds: ['eos', 'steam'],
  commands: {
    tell: (id, text) => squadAdminWarn(id, text),
    kick: (id, reason) => squadAdminKick(id, reason),
  },
  textRules: SQUAD_TEXT_RULES,
};
