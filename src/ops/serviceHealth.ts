// Watches the outcome of every request to GSA (the client's onRequest events) and says loudly, and only as
// often as useful, what is wrong: a 401 or 404 is the host's setup and gets an error line naming the config key
// to fix (again at most once per cause per minute); an outage is one warning, a summary a minute while it lasts,
// and one line when it ends. It keeps the current problems for /readyz.
// It never sends a request, never changes an outcome, and never logs a secret (event messages come scrubbed).

import type { Logger } from 'pino';
import type { RequestEvent } from '../gsa/client/requestEvent.js';
import { systemClock, type Clock } from '../time/clock.js';

/** A configured game server, so that a problem can name the exact key to fix. */
export interface WatchedServer {
  readonly name: string;
  readonly id?: number | undefined;
  /** Where it sits in the config file, e.g. 'servers[0]'. */
  readonly configPath: string;
}

export interface ServiceHealthOptions {
  readonly logger: Logger;
  readonly servers: readonly WatchedServer[];
  /** Default the system clock; tests pass fake time. */
  readonly clock?: Clock | undefined;
  /** A lasting problem is logged again at most this often, per cause. Default 60 000 ms. */
  readonly repeatMs?: number | undefined;
  /** While GSA stays unreachable, a summary is logged this often. Default 60 000 ms. */
  readonly summaryMs?: number | undefined;
  /**
   * Failed requests in a row (no answer at all in between) before GSA counts as unreachable. Default 3: a lone
   * timeout among answers is a blip (logged at debug by the client), not an outage worth a warning and a recovery line.
   */
  readonly outageAfterFailures?: number | undefined;
  /**
   * Where the API credentials came from, for the line a 401 logs: the composition root knows the file and the
   * environment. @default "api.clientId and api.clientSecret (or GSA_CLIENT_ID / GSA_CLIENT_SECRET)"
   * @example "api.clientId in /etc/gsa-bridge/config.json and GSA_CLIENT_SECRET (set in the environment, it overrides api.clientSecret)"
   */
  readonly credentialSources?: string | undefined;
  /**
   * Whether the client has paused lookups and reviews after a 401, and when it probes next (GsaClient.credentialsPause),
   * so /readyz says why nothing is being asked. Read at each look; default none.
   */
  readonly credentialsPause?: (() => { readonly nextProbeInMs: number } | undefined) | undefined;
}

export type ServiceProblemKind = 'credentials' | 'unknown_server' | 'bad_response' | 'unreachable';

/** The key of the System API key's refusal (src/app/systemKeyHealth.ts); the mod API key's is 'credentials'. */
export const SYSTEM_CREDENTIALS_PROBLEM = 'system-credentials';

export interface ServiceProblem {
  /** One per cause, e.g. 'credentials', 'system-credentials', 'server:ovddykvbs', 'webhook-credentials:4711'. */
  readonly key: string;
  readonly kind: ServiceProblemKind;
  /** What is wrong and what to change, for the log and /readyz. */
  readonly message: string;
  /** Clock time of the first failure of this cause. */
  readonly since: number;
  /** Failed requests with this cause so far. */
  readonly failures: number;
}

interface TrackedProblem {
  readonly key: string;
  readonly kind: ServiceProblemKind;
  message: string;
  readonly since: number;
  failures: number;
  lastLoggedAt: number;
}

interface Outage {
  readonly since: number;
  failures: number;
  lastMessage: string;
  readonly summary: NodeJS.Timeout;
}

const DEFAULT_REPEAT_MS = 60_000;
const DEFAULT_SUMMARY_MS = 60_000;
const DEFAULT_OUTAGE_AFTER_FAILURES = 3;
const DEFAULT_CREDENTIAL_SOURCES = 'api.clientId and api.clientSecret (or GSA_CLIENT_ID / GSA_CLIENT_SECRET)';

/** No answer, or an answer that says the service itself is failing: GSA is unreachable for our purposes. */
const OUTAGE_CODES: ReadonlySet<string> = new Set(['network', 'timeout', 'unavailable', 'server_error']);

/** "2 min 5 s", "40 s": for people reading a log. */
export function describeDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  if (minutes < 60) return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes % 60} min`;
}

export class ServiceHealth {
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #repeatMs: number;
  readonly #summaryMs: number;
  readonly #outageAfterFailures: number;
  readonly #credentialSources: string;
  readonly #credentialsPause: (() => { readonly nextProbeInMs: number } | undefined) | undefined;
  /**
   * True once GSA answered a mute lookup or review with a 2xx (until a 401 on one, or new API settings): a webhook's
   * 401 then most likely means the server id is not bound to the key, and the line names the id first.
   */
  #modApiCredentialsPassed = false;
  #serversByName: ReadonlyMap<string, WatchedServer>;
  #serversById: ReadonlyMap<string, WatchedServer>;
  readonly #problems = new Map<string, TrackedProblem>();
  #outage: Outage | undefined;
  /** Failures in a row with no answer in between, and when the first of them came. */
  #streak = 0;
  #streakSince = 0;
  #closed = false;

  constructor(options: ServiceHealthOptions) {
    this.#logger = options.logger;
    this.#clock = options.clock ?? systemClock;
    this.#repeatMs = options.repeatMs ?? DEFAULT_REPEAT_MS;
    this.#summaryMs = options.summaryMs ?? DEFAULT_SUMMARY_MS;
    this.#outageAfterFailures = Math.max(1, options.outageAfterFailures ?? DEFAULT_OUTAGE_AFTER_FAILURES);
    this.#credentialSources = options.credentialSources ?? DEFAULT_CREDENTIAL_SOURCES;
    this.#credentialsPause = options.credentialsPause;
    this.#serversByName = new Map();
    this.#serversById = new Map();
    this.setServers(options.servers);
  }
  /** The configured servers after a reload, so problems keep naming the right keys. */
  setServers(servers: readonly WatchedServer[]): void {
    this.#serversByName = new Map(servers.map((server) => [server.name, server]));
    this.#serversById = new Map(servers.flatMap((server) => (server.id === undefined ? [] : [[String(server.id), server] as const])));
  }


  /**
   * A reload gave the sidecar new API settings (a new client): what the old ones caused (refused keys, an unknown
   * server, an outage of the old address) is no longer known to be true, so /readyz stops reporting it. Anything
   * still wrong comes back with the next request.
   */
  forgetProblems(): void {
    const forgotten = [...this.#problems.keys(), ...(this.#outage === undefined ? [] : ['unreachable'])];
    if (forgotten.length > 0) this.#logger.info({ problems: forgotten }, 'API settings changed: earlier problems with GSA are cleared until a request shows them again');
    this.#problems.clear();
    this.#modApiCredentialsPassed = false;
    if (this.#outage !== undefined) clearInterval(this.#outage.summary);
    this.#outage = undefined;
    this.#streak = 0;
  }

  /** The client's onRequest observer. Never throws. */
  readonly observe = (event: RequestEvent): void => {
    try {
      this.#observe(event);
    } catch (error) {
      this.#logger.error({ err: error }, 'service health tracking failed');
    }
  };

  /** What is wrong right now, oldest first: for /readyz. Empty when every recent answer was fine. */
  get problems(): readonly ServiceProblem[] {
    const problems: ServiceProblem[] = [...this.#problems.values()].map(({ key, kind, message, since, failures }) => ({
      key,
      kind,
      message: key === 'credentials' ? this.#withPause(message) : message,
      since,
      failures,
    }));
    const outage = this.#outage;
    if (outage !== undefined) {
      problems.push({ key: 'unreachable', kind: 'unreachable', message: `GSA is unreachable: ${outage.lastMessage}`, since: outage.since, failures: outage.failures });
    }
    return problems.sort((a, b) => a.since - b.since);
  }

  /** The credentials problem's text, plus what the client's pause means right now. */
  #withPause(message: string): string {
    const pause = this.#credentialsPause?.();
    if (pause === undefined) return message;
    const next = pause.nextProbeInMs > 0 ? `next probe in ${Math.ceil(pause.nextProbeInMs / 1000)} s` : 'a probe is due or on its way';
    return `${message} Lookups and reviews are paused, spending no budget: ${next} (at once after a reload).`;
  }

  /** False while GSA gives no answer (network errors, timeouts, 5xx). */
  get reachable(): boolean {
    return this.#outage === undefined;
  }

  /**
   * Clock time of the first failure of the outage in force (so the outage is counted from when it began, not from
   * when it was declared); undefined while GSA answers. For gsa_bridge_gsa_unreachable_seconds.
   */
  get unreachableSince(): number | undefined {
    return this.#outage?.since;
  }

  /**
   * True while GSA refuses the mod API credentials: a 401 to a mute lookup or a review, until a 2xx of the mod API.
   * A player's own refusal (a 403, such as a review `not_eligible`) and a server action's 401 (a server not bound
   * to the key) never set it. For gsa_bridge_credentials_refused{api="mod"}.
   */
  get credentialsRefused(): boolean {
    return this.#problems.has('credentials');
  }

  /** Stops the outage summary timer; later events are ignored. */
  close(): void {
    this.#closed = true;
    if (this.#outage !== undefined) clearInterval(this.#outage.summary);
  }

  #observe(event: RequestEvent): void {
    if (this.#closed) return;
    const { code } = event;
    if (code !== undefined && OUTAGE_CODES.has(code)) {
      this.#failedToReach(event.message ?? code);
      return;
    }
    // Anything else is an answer from the service (or something answering in its place): not an outage.
    this.#reached();
    if (code === undefined) {
      if (event.endpoint !== 'webhook') this.#modApiCredentialsPassed = true;
      this.#succeeded(event);
      return;
    }
    if (code === 'unauthorized' && event.endpoint !== 'webhook') this.#modApiCredentialsPassed = false;
    const cause = this.#causeOf(event);
    if (cause !== undefined) this.#problem(cause.key, cause.kind, cause.message);
  }

  /** The host-side cause of a failure, with the key to fix; undefined for a player's own problem (403, 422, …). */
  #causeOf(event: RequestEvent): { key: string; kind: ServiceProblemKind; message: string } | undefined {
    const modApi = event.endpoint !== 'webhook';
    switch (event.code) {
      case 'unauthorized': {
        if (modApi) {
          return {
            key: 'credentials',
            kind: 'credentials',
            message: `GSA refused the API credentials (401): check ${this.#credentialSources}. Until then every chat is decided by mute.onUnknown and reviews wait.`,
          };
        }
        const server = this.#serversById.get(event.target);
        const where = server === undefined ? `server id ${event.target}` : `${server.configPath}.id ${event.target}`;
        const idKey = server === undefined ? 'servers[].id' : `${server.configPath}.id`;
        // GSA answers 401 both for a wrong secret and for a server not bound to the key: name both, the likelier first.
        const unbound = `this server is not bound to these API keys in the GSA dashboard (check ${idKey})`;
        const wrongKeys = `the API credentials are wrong (check ${this.#credentialSources})`;
        return {
          key: `webhook-credentials:${event.target}`,
          kind: 'credentials',
          message: this.#modApiCredentialsPassed
            ? `GSA refused a server action for ${where} (401) although it accepts these API credentials for mute lookups: most likely ${unbound}; else ${wrongKeys}`
            : `GSA refused a server action for ${where} (401): either ${unbound}, or ${wrongKeys}`,
        };
      }
      case 'not_found': {
        if (modApi) {
          const server = this.#serversByName.get(event.target);
          const key = server === undefined ? 'servers[].name' : `${server.configPath}.name`;
          return {
            key: `server:${event.target}`,
            kind: 'unknown_server',
            message: `GSA does not know the server "${event.target}" (404): check ${key} "${event.target}"; it must be the GSA container name (it looks like ovddykvbs), not the display name`,
          };
        }
        const server = this.#serversById.get(event.target);
        const key = server === undefined ? 'servers[].id' : `${server.configPath}.id`;
        return { key: `server-id:${event.target}`, kind: 'unknown_server', message: `GSA does not know the server id ${event.target} (404): check ${key}` };
      }
      case 'bad_response':
        return {
          key: `bad_response:${event.endpoint}`,
          kind: 'bad_response',
          message: `an answer to a ${event.endpoint} request could not be trusted (${event.message ?? 'bad_response'}); check api.baseUrl and any proxy in between`,
        };
      default:
        return undefined;
    }
  }

  #problem(key: string, kind: ServiceProblemKind, message: string): void {
    const now = this.#clock.now();
    const known = this.#problems.get(key);
    if (known === undefined) {
      this.#problems.set(key, { key, kind, message, since: now, failures: 1, lastLoggedAt: now });
      this.#log(kind, { problem: key }, message);
      return;
    }
    known.failures += 1;
    known.message = message;
    if (now - known.lastLoggedAt < this.#repeatMs) return;
    known.lastLoggedAt = now;
    this.#log(kind, { problem: key, failures: known.failures }, `${message} (still failing: ${known.failures} requests in ${describeDuration(now - known.since)})`);
  }

  #log(kind: ServiceProblemKind, fields: Record<string, unknown>, message: string): void {
    // A wrong key or server name is the host's to fix and switches gating off: error. An odd answer may be a blip.
    if (kind === 'bad_response') this.#logger.warn(fields, message);
    else this.#logger.error(fields, message);
  }

  /** A 2xx ends the problems it proves fixed. */
  #succeeded(event: RequestEvent): void {
    if (this.#problems.size === 0) return;
    const fixed =
      event.endpoint === 'webhook'
        ? ['credentials', `webhook-credentials:${event.target}`, `server-id:${event.target}`, 'bad_response:webhook']
        : ['credentials', `server:${event.target}`, `bad_response:${event.endpoint}`];
    const now = this.#clock.now();
    for (const key of fixed) {
      const problem = this.#problems.get(key);
      if (problem === undefined) continue;
      this.#problems.delete(key);
      this.#logger.info({ problem: key }, `resolved after ${describeDuration(now - problem.since)}: ${problem.message}`);
    }
  }

  #failedToReach(message: string): void {
    const outage = this.#outage;
    if (outage !== undefined) {
      outage.failures += 1;
      outage.lastMessage = message;
      return;
    }
    if (this.#streak === 0) this.#streakSince = this.#clock.now();
    this.#streak += 1;
    if (this.#streak < this.#outageAfterFailures) return;
    const summary = setInterval(() => {
      this.#summarize();
    }, this.#summaryMs);
    // An outage is no reason to keep the process alive.
    summary.unref();
    this.#outage = { since: this.#streakSince, failures: this.#streak, lastMessage: message, summary };
    this.#streak = 0;
    this.#logger.warn({ problem: 'unreachable' }, `GSA is unreachable: ${message}. Chat is decided by mute.onUnknown and reviews wait on disk; a summary follows every ${describeDuration(this.#summaryMs)} until it answers again`);
  }

  #summarize(): void {
    const outage = this.#outage;
    if (outage === undefined) return;
    const lasted = describeDuration(this.#clock.now() - outage.since);
    this.#logger.warn(
      { problem: 'unreachable', failures: outage.failures, forMs: this.#clock.now() - outage.since },
      `GSA still unreachable after ${lasted}: ${outage.failures} requests failed so far (last: ${outage.lastMessage})`,
    );
  }

  #reached(): void {
    this.#streak = 0;
    const outage = this.#outage;
    if (outage === undefined) return;
    clearInterval(outage.summary);
    this.#outage = undefined;
    this.#logger.info(
      { problem: 'unreachable', failures: outage.failures, forMs: this.#clock.now() - outage.since },
      `GSA reachable again after ${describeDuration(this.#clock.now() - outage.since)}; ${outage.failures} requests failed meanwhile`,
    );
  }
}
