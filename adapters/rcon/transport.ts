// How a profile's game speaks RCON: which transport, and the tuning its server tolerates. A description only, so
// the game's profile (profiles/) names one without importing any client: rconConnection.ts opens the matching one.

import type { ReplyEndRule } from './sourceRconOptions.js';

/** The transport a game speaks, with its tuning. */
export type RconTransport =
  | {
      readonly kind: 'source';
      /** How the end of a multi-packet reply is found (mirror trick where the game mirrors, else quiet time). */
      readonly replyEnd: ReplyEndRule;
      /** Commands in flight at once. */
      readonly maxInFlight: number;
      /** Politeness: at most this many commands per window (Squad and Conan punish floods). */
      readonly rateCap: { readonly commands: number; readonly perMs: number };
      /** A cheap command sent when the session has been idle this long; 0: none (the polls keep it alive). */
      readonly keepaliveIntervalMs: number;
      readonly keepaliveCommand?: string | undefined;
    }
  | {
      readonly kind: 'webrcon';
      /** Rust answers no WebSocket ping: a cheap command keeps the session alive. */
      readonly keepaliveMs: number;
      readonly keepaliveCommand: string;
    }
  /** Source RCON, one short session per command (Conan Exiles closes the connection after every answer). */
  | PerCommandTransport
  | {
      readonly kind: 'telnet';
      /** Commands whose answer ends at a known last line (7DTD `lp`: /^Total of \d+ in the game/); others end after quietMs. */
      readonly answerEnds?: readonly { readonly command: RegExp; readonly endsAt: RegExp }[] | undefined;
      /** A command without a known last line ends once the console was quiet this long. @default 200 */
      readonly quietMs?: number | undefined;
    };

/** Source RCON, one short session per command (perCommandSession.ts). */
export interface PerCommandTransport {
  readonly kind: 'source-per-command';
  readonly replyEnd: ReplyEndRule;
  /** At most this many commands (each a session) per window. */
  readonly rateCap: { readonly commands: number; readonly perMs: number };
  /** What is sent to learn whether the console answers, while it does not (a read-only command). */
  readonly probeCommand: string;
}
