// The checks of `gsa-bridge config check --connect`, one line each: that the service accepts the credentials (and the
// System API key, with one GET game/available of its own budget, when one is set), that it
// knows each configured server, and what each adapter type probes for itself (a WebSocket adapter: that its port is
// free; RCON: one login and one read-only command), plus the operations endpoint's port. The service is asked one mute
// lookup per server, for a player id no real account has: read-only, and N calls of the 100/min budget for N servers.
// With api.rateLimit.shared, the Redis the sidecars share is asked one PING (no key is read or written), and the
// lookups take their places in the key's shared window like the sidecars' calls (waiting at most a while for one).
// A 429 is the key's budget spent, perhaps by the sidecars running on it, not the network.
// It never changes anything on the service, never retries, and never prints a secret.

import type { Logger } from 'pino';
import { adapterIdOf, adapterTypeOf, type AdapterOptions } from '../../adapters/index.js';
import { describeEndpoint } from '../net/endpoint.js';
import { serviceClientOptions, sharedApiKeyOptions, systemClientOptions, type BridgeConfig, type ServerConfig } from '../app/config.js';
import { fallbackShare, GsaClient, GsaError, QueueFullError, RetryLaterError, SharedApiKey, SystemApiClient, type CheckMutedOptions } from '../gsa/index.js';
import { connectSharedRedis, redisErrorText, redisLabel, redisUrlSecrets } from '../gsa/redis/sharedRedis.js';
import { probePort } from '../net/portProbe.js';

export type CheckOutcome = 'ok' | 'fail' | 'skip';

export interface CheckLine {
  readonly outcome: CheckOutcome;
  /** What was checked: "credentials", "server ovddykvbs", "listener ovddykvbs/ws-main 127.0.0.1:8787". */
  readonly subject: string;
  /** What was found, and what to do about a failure. */
  readonly detail: string;
}

/** The lowest individual SteamID64 (account number 0): well-formed, and no player has it. */
export const PROBE_STEAM_ID = '76561197960265728';

/** Binds host:port and lets go at once: free (or 0, any free port), or why not. */
export async function probeListener(subject: string, host: string, port: number, listener: 'adapter' | 'endpoint' = 'adapter'): Promise<CheckLine> {
  const found = await probePort(host, port, listener);
  return { outcome: found.free ? 'ok' : 'fail', subject, detail: found.detail };
}

/** What the adapter's type checks for itself (the registry's probe): a listener's port, an RCON login. */
async function probeAdapter(server: ServerConfig, adapter: AdapterOptions): Promise<CheckLine> {
  const type = adapterTypeOf(adapter);
  const id = adapterIdOf(server.name, adapter);
  const endpoint = type.endpointOf(adapter);
  const subject = `${endpoint.kind === 'listener' ? 'listener' : adapter.type} ${server.name}/${id} ${describeEndpoint(endpoint)}`;
  if (type.probe === undefined) return { outcome: 'skip', subject, detail: `${adapter.type} adapters have no connection check in this version` };
  const result = await type.probe(adapter, { serverName: server.name, id });
  return { outcome: result.ok ? 'ok' : 'fail', subject, detail: result.message };
}

function answerOf(error: GsaError): string {
  const status = error.status === undefined ? '' : `${error.status}`;
  const words = error.serviceMessage !== undefined && error.serviceMessage !== '' ? error.serviceMessage : error.message;
  return status === '' ? words : `${status}: ${words}`;
}

/** Whether the service let the call past its credential check. */
export function passedCredentials(error: GsaError | undefined): boolean {
  return error === undefined || error.code === 'not_found' || error.code === 'forbidden' || error.code === 'invalid';
}

/**
 * The one harmless call both checks make (this one and `run`'s at start): a mute lookup for a player no account has,
 * never retried, so it costs exactly one request of the budget. Resolves with the service's refusal, if any.
 */
export async function lookupProbePlayer(client: GsaClient, server: string, options: CheckMutedOptions = {}): Promise<GsaError | undefined> {
  try {
    await client.checkMuted(server, { steamId: PROBE_STEAM_ID }, { ...options, retries: 0 });
    return undefined;
  } catch (error) {
    if (!(error instanceof GsaError)) throw error;
    return error;
  }
}

/** How long the check waits for a place in the shared window before it gives up, nothing sent. */
export const SHARED_PLACE_WAIT_MS = 10_000;

/**
 * A 429 (the key's budget spent, with GSA's Retry-After when it gave one), or the check's call not sent because the
 * shared window had no place for it in time: either way the running sidecars may be using the key's budget.
 */
function budgetSpentDetail(config: BridgeConfig, error: GsaError, waitedMs: number): string {
  const { requests, intervalMs, shared } = config.api.rateLimit;
  const window = `${requests} calls per ${intervalMs / 1000} s`;
  const who = shared === undefined ? 'perhaps by sidecars running on this key' : `perhaps by the ${shared.nodes} sidecars sharing it`;
  if (error instanceof QueueFullError) {
    return `not sent: the key's shared budget (${window}) had no place for the check within ${waitedMs / 1000} s, so it is spent, ${who}; try again later`;
  }
  const asked = error instanceof RetryLaterError ? (error.requestedRetryAfterMs ?? error.retryAfterMs) : undefined;
  const retryAfter = asked === undefined ? '' : `, Retry-After ${Math.ceil(asked / 1000)} s`;
  return `the API key's budget is spent (429${retryAfter}): GSA allows ${window} per key (api.rateLimit), and they are being used, ${who}; try again ${asked === undefined ? 'later' : `in ${Math.ceil(asked / 1000)} s`}. The credentials were not checked`;
}

function serverLine(config: BridgeConfig, server: ServerConfig, index: number, error: GsaError | undefined, waitedMs: number): CheckLine {
  const subject = `server ${server.name}`;
  if (error === undefined) return { outcome: 'ok', subject, detail: 'known to the service' };
  switch (error.code) {
    case 'rate_limited':
      return { outcome: 'fail', subject, detail: budgetSpentDetail(config, error, waitedMs) };
    case 'not_found':
      return {
        outcome: 'fail',
        subject,
        detail: `the service does not know it (${answerOf(error)}); servers[${index}].name must be the container name from the dashboard (like ovddykvbs), not the display name or the id`,
      };
    case 'unauthorized':
      return { outcome: 'fail', subject, detail: `refused (${answerOf(error)}): this server is not bound to these API keys` };
    default:
      return { outcome: 'fail', subject, detail: `unexpected answer (${error.code}, ${answerOf(error)})` };
  }
}

/** Where the credentials came from, when the caller does not know (the file and the variables both named). */
const CREDENTIAL_KEYS = 'api.clientId and api.clientSecret (or GSA_CLIENT_ID / GSA_CLIENT_SECRET)';

function credentialsFailure(config: BridgeConfig, first: ServerConfig, error: GsaError, credentialSources: string, waitedMs: number): CheckLine {
  const subject = 'credentials';
  if (error.code === 'unauthorized') {
    return {
      outcome: 'fail',
      subject,
      detail: `refused (${answerOf(error)}): check ${credentialSources} against the dashboard's /configure/api, and that server ${first.name} is bound to these keys`,
    };
  }
  if (error.code === 'rate_limited') return { outcome: 'fail', subject, detail: budgetSpentDetail(config, error, waitedMs) };
  return {
    outcome: 'fail',
    subject,
    detail: `no usable answer from ${config.api.baseUrl} (${error.code}: ${answerOf(error)}); check api.baseUrl and api.flavor, and the network`,
  };
}

export interface ConnectionReport {
  readonly lines: readonly CheckLine[];
  /** Requests sent to the service (each one of the api.rateLimit budget): one per server checked. */
  readonly serviceCalls: number;
}

export interface ConnectionCheckOptions {
  /**
   * Where the API credentials came from (describeCredentialSources), for the line a refusal prints: a secret set in
   * GSA_CLIENT_SECRET is fixed there, not in the file. @default both keys and both variables named
   */
  readonly credentialSources?: string | undefined;
  /** With api.rateLimit.shared: how long a call waits for a place in the shared window before it is given up, nothing sent. @default SHARED_PLACE_WAIT_MS */
  readonly sharedPlaceWaitMs?: number | undefined;
}

/** Credentials and server names: one mute lookup per server, in order; none after the credentials are refused. */
export async function serviceChecks(config: BridgeConfig, logger: Logger, options: ConnectionCheckOptions = {}): Promise<ConnectionReport> {
  const [first] = config.servers;
  if (first === undefined) {
    return { lines: [{ outcome: 'skip', subject: 'credentials', detail: 'not checked: the harmless call needs a server name, and none is configured' }], serviceCalls: 0 };
  }
  // With `shared`, the check's calls count in the key's window in Redis like the sidecars' own (Redis down: the
  // fallback share), so a check beside running sidecars never makes GSA's 101st call of a minute.
  const sharedSettings = sharedApiKeyOptions(config);
  const sharedKey = sharedSettings === undefined ? undefined : new SharedApiKey({ ...sharedSettings, answerTimeoutMs: 1000, connectTimeoutMs: 3000, logger });
  // No retries: a check reports what the service says now, and spends no more of the budget than one call a server.
  const client = new GsaClient({ ...serviceClientOptions(config), retry: { ...config.api.retry, retries: 0 }, logger, budget: sharedKey?.budget });
  // A shared window the sidecars fill could keep the check waiting a whole window: closing the client refuses the
  // waiting call (QueueFullError, nothing sent), which the line reports as the budget spent.
  const waitedMs = options.sharedPlaceWaitMs ?? SHARED_PLACE_WAIT_MS;
  let closed: Promise<void> | undefined;
  const closeClient = (): Promise<void> => (closed ??= client.close());
  const giveUp = sharedKey === undefined ? undefined : setTimeout(() => void closeClient(), waitedMs);
  const lines: CheckLine[] = [];
  let serviceCalls = 0;
  try {
    for (const [index, server] of config.servers.entries()) {
      serviceCalls++;
      const failure = await lookupProbePlayer(client, server.name);
      if (index === 0) {
        if (failure !== undefined && !passedCredentials(failure)) {
          lines.push(credentialsFailure(config, first, failure, options.credentialSources ?? CREDENTIAL_KEYS, waitedMs));
          lines.push(...config.servers.map((other) => ({ outcome: 'skip' as const, subject: `server ${other.name}`, detail: 'not checked: the credentials check failed' })));
          return { lines, serviceCalls };
        }
        lines.push({ outcome: 'ok', subject: 'credentials', detail: `accepted by ${config.api.baseUrl} (${config.api.flavor})` });
      }
      lines.push(serverLine(config, server, index, failure, waitedMs));
    }
    return { lines, serviceCalls };
  } finally {
    clearTimeout(giveUp);
    await closeClient();
    await sharedKey?.close();
  }
}

/**
 * api.system.key: one read-only call of the System API key's own budget (GET game/available), so a host learns a
 * wrong key now rather than from the first Minecraft player or filter mute. None without a key.
 */
export async function systemApiChecks(config: BridgeConfig, logger: Logger): Promise<CheckLine[]> {
  const options = systemClientOptions(config);
  if (options === undefined) return [];
  const subject = 'System API key';
  const client = new SystemApiClient({ ...options, retry: { ...config.api.retry, retries: 0 }, logger });
  const budget = `1 read-only call of its ${options.rateLimit?.requests ?? 100} per ${(options.rateLimit?.intervalMs ?? 60_000) / 1000} s`;
  try {
    const games = await client.checkKey({ retries: 0 });
    return [{ outcome: 'ok', subject, detail: `accepted by ${config.api.baseUrl} (GET /system-api/v2/game/available listed ${games} ${games === 1 ? 'game' : 'games'}; ${budget})` }];
  } catch (error) {
    if (!(error instanceof GsaError)) throw error;
    const detail =
      error.code === 'unauthorized'
        ? `refused (${answerOf(error)}): check api.system.key or GSA_SYSTEM_API_KEY against the dashboard's API page`
        : `no usable answer from ${config.api.baseUrl} (${error.code}: ${answerOf(error)}); check api.baseUrl and the network`;
    return [{ outcome: 'fail', subject, detail }];
  } finally {
    await client.close();
  }
}

/** Every listener the sidecar would open, and whatever each adapter type probes. Nothing on the service. */
export async function localChecks(config: BridgeConfig): Promise<CheckLine[]> {
  const lines: CheckLine[] = [];
  for (const server of config.servers) {
    for (const adapter of server.adapters) lines.push(await probeAdapter(server, adapter));
  }
  // Named by its key: "http" alone reads like a protocol, and the host has to know what to change.
  lines.push(await probeListener(`listener http.port ${config.http.host}:${config.http.port}`, config.http.host, config.http.port, 'endpoint'));
  return lines;
}

/** How long the shared Redis has to answer the check's PING (connecting included). */
const SHARED_REDIS_CHECK_MS = 3000;

/**
 * api.rateLimit.shared: one PING to the Redis the sidecars share. A failure is a FAIL: the sidecar would still run,
 * on its fallback share, but a host who set up sharing wants to know it does not work. None without `shared`.
 */
export async function sharedBudgetChecks(config: BridgeConfig): Promise<CheckLine[]> {
  const { shared, requests } = config.api.rateLimit;
  if (shared === undefined) return [];
  const subject = `shared budget ${redisLabel(shared.redis)}`;
  const share = `floor(${requests}/${shared.nodes}) = ${fallbackShare(requests, shared.nodes)}`;
  // The driver's last connection error (already without the password) says more than "no answer".
  let lastError: string | undefined;
  const keepReason = (bindings: Record<string, unknown>): void => {
    if (typeof bindings.reason === 'string') lastError = bindings.reason;
  };
  const client = connectSharedRedis(shared.redis, { debug: keepReason }, { connectTimeoutMs: SHARED_REDIS_CHECK_MS });
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => { reject(new Error(`no answer within ${SHARED_REDIS_CHECK_MS} ms`)); }, SHARED_REDIS_CHECK_MS);
    });
    const answered = (async () => {
      // The client connects in the background and refuses commands until then (no offline queue).
      while (!client.isReady) await new Promise((resolve) => setTimeout(resolve, 20));
      return client.ping();
    })();
    answered.catch(() => undefined);
    await Promise.race([answered, deadline]);
    return [{ outcome: 'ok', subject, detail: `answered; ${shared.nodes} sidecars share ${requests} calls per ${config.api.rateLimit.intervalMs} ms (each keeps ${share} while Redis is down)` }];
  } catch (error) {
    const reason = (lastError ?? redisErrorText(error, redisUrlSecrets(shared.redis))).replace(/\.$/, '');
    return [{ outcome: 'fail', subject, detail: `${reason}: check api.rateLimit.shared.redis (host, port, password in the URL); until Redis answers, each sidecar keeps ${share} calls per window on its own` }];
  } finally {
    clearTimeout(timer);
    if (client.isOpen) client.destroy();
  }
}

/** Every check, service first. Exit 1 when any line failed; skipped lines are not failures. */
export async function connectionChecks(config: BridgeConfig, logger: Logger, options: ConnectionCheckOptions = {}): Promise<ConnectionReport> {
  const service = await serviceChecks(config, logger, options);
  return {
    lines: [...service.lines, ...(await systemApiChecks(config, logger)), ...(await sharedBudgetChecks(config)), ...(await localChecks(config))],
    serviceCalls: service.serviceCalls,
  };
}

const TAGS: Readonly<Record<CheckOutcome, string>> = { ok: 'ok  ', fail: 'FAIL', skip: 'skip' };

export function formatCheckLine(line: CheckLine): string {
  return `${TAGS[line.outcome]}  ${line.subject}: ${line.detail}`;
}
