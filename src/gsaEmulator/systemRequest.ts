/**
 * What a System API route of the emulator is handed: the request as read, and the state and key it answers with.
 * Types only, so the router (systemApi.ts) and its routes (systemPlayers.ts, systemServers.ts) import them from here
 * and not from each other.
 */
import type { AcceptedSystemKey } from './auth.js';
import type { EmulatorState } from './state.js';

export interface SystemContext {
  readonly state: EmulatorState;
  readonly systemKey: AcceptedSystemKey;
  /** Unix ms: when mutes end and what `until` says. Cooldowns use each request's arrival (`at`) instead. */
  readonly wallClock: () => number;
}

export interface SystemRequest {
  readonly method: string;
  /** The path after `/system-api/v2/`, e.g. 'players/find'. */
  readonly route: string;
  readonly query: URLSearchParams;
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  readonly body: Buffer;
  /** Scheme and host the client used, for pagination links, e.g. 'http://127.0.0.1:8790'. */
  readonly origin: string;
  /** Arrival on the emulator's `now` clock: cooldowns and the budget count from it. */
  readonly at: number;
}
