// What the single-node soak (bench/soak.ts) and the multi-node one (multiNode.ts) share: the seeded generator, the
// players' id ranges, the server actions in turn, the fault rotation, the secret spellings searched for in logs,
// the host's listing of a data directory, and the ports of the listeners the soak names in a sidecar's config.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { FaultSpec, GsaEmulator } from '../../src/gsaEmulator/index.js';
import type { ModFleet } from './modFleet.js';
import type { HoldFault } from './invariants.js';
import type { ListedReview } from './neighbourRows.js';
import { SOAK_API_TIMEOUT_MS, type SoakOptions, type SoakRetry } from './options.js';

const BIN = fileURLToPath(new URL('../../../bin/gsa-bridge.js', import.meta.url));
const now = (): number => performance.now();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The server actions the mods send, in turn. Not one action over and over: GSA wants two calls of the same webhook
 * on one server 3 s apart, and under a saturated window whose slots come back in bursts (each freed a window after
 * the start it replaces) the sidecar can start one call of a key per burst, so one action every 5 s would queue
 * without end. With five in turn each key comes every 25 s, more than a window.
 */
/** Where the system's ephemeral ports start when /proc does not say (Linux's default). */
const EPHEMERAL_START_DEFAULT = 32_768;
const LISTENER_PORT_FLOOR = 10_000;

/**
 * A port free on 127.0.0.1 for a listener the soak names in a sidecar's config (its mod listener), chosen below the
 * system's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range). A port found with `listen(0)` comes from that
 * range, and once it is released, the sidecar's own `listen(0)` (its ops endpoint) may get the same port just before
 * its mod listener binds it. A 3-node run failed to start that way: "port in use". Nothing is handed out below
 * the range unless asked for by number.
 */
export async function listenerPort(random: () => number = Math.random): Promise<number> {
  const range = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => '');
  const ephemeralStart = Number(range.trim().split(/\s+/)[0]);
  const below = Number.isInteger(ephemeralStart) && ephemeralStart > LISTENER_PORT_FLOOR + 1000 ? ephemeralStart : EPHEMERAL_START_DEFAULT;
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = LISTENER_PORT_FLOOR + Math.floor(random() * (below - LISTENER_PORT_FLOOR));
    const server = createServer();
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => {
        resolve(false);
      });
      server.listen(port, '127.0.0.1', () => {
        resolve(true);
      });
    });
    if (listening) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
  throw new Error(`no free port between ${LISTENER_PORT_FLOOR} and ${below}`);
}

/** The API key's client id of every soak: the emulator's and every sidecar's. */
export const CLIENT_ID = 'soak-client';

/** What differs between the soaks' sidecar configs; the rest (the emulator's key, timeouts) is the same for all. */
export interface SoakConfig {
  readonly baseUrl: string;
  readonly clientSecret: string;
  /** api.rateLimit: the soak's window, and `shared` for the multi-node soak. */
  readonly rateLimit: Readonly<Record<string, unknown>>;
  readonly retry: SoakRetry;
  readonly servers: readonly Readonly<Record<string, unknown>>[];
  readonly decisionTimeoutMs: number;
  /** Not created here: the sidecar creates it 0700, as it would for a host. */
  readonly dataDir: string;
  readonly logLevel: 'debug' | 'info';
  /** api.system: GSA's System API key and its own window; none: the sidecar uses the mod API and webhooks only. */
  readonly system?: { readonly key: string; readonly rateLimit: { readonly requests: number; readonly intervalMs: number } } | undefined;
  /** moderation.filter, as the config file spells it. */
  readonly filter?: Readonly<Record<string, unknown>> | undefined;
}

/** Writes a sidecar's config file, 0600 as a host would keep a file with a secret in it. */
export async function writeSoakConfig(path: string, config: SoakConfig): Promise<void> {
  const file = {
    api: {
      baseUrl: config.baseUrl,
      flavor: 'v1',
      clientId: CLIENT_ID,
      clientSecret: config.clientSecret,
      timeoutMs: SOAK_API_TIMEOUT_MS,
      rateLimit: config.rateLimit,
      retry: config.retry,
      ...(config.system === undefined ? {} : { system: config.system }),
    },
    servers: config.servers,
    ...(config.filter === undefined ? {} : { moderation: { filter: config.filter } }),
    mute: { decisionTimeoutMs: config.decisionTimeoutMs },
    reviews: { dataDir: config.dataDir },
    http: { port: 0 },
    log: { level: config.logLevel },
  };
  await writeFile(path, JSON.stringify(file, null, 2), { mode: 0o600 });
}

export const ACTIONS = ['restart', 'stop', 'start', 'update', 'cancel-scheduled'] as const;

/** 2^40 ms, as the seconds a Retry-After header carries: past Node's 2^31 ms timer limit. */
export const RETRY_AFTER_2_POW_40_MS = String(Math.ceil(2 ** 40 / 1000));

export { seededRandom } from '../seededRandom.js';

export const chatPlayer = (index: number): string => `765611980${String(index).padStart(8, '0')}`;
/** Reviewers come from their own range, one per review, so the per-player cooldown never refuses them. */
export const reviewer = (index: number): string => `765611990${String(index).padStart(8, '0')}`;

/** What `gsa-bridge reviews list --json` shows once the sidecar has stopped: the host's view of the data directory. */
export async function listReviews(configPath: string): Promise<ListedReview[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'reviews', 'list', '--json', '--config', configPath], { maxBuffer: 64 * 1024 * 1024 });
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ListedReview);
}

/** Every spelling a secret could take in a log line: raw, JSON-escaped, URL- and form-encoded. */
export function secretForms(secret: string): string[] {
  const forms = [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)];
  return [...new Set(forms)];
}

export interface FaultStep {
  readonly name: string;
  /** The emulator fault it arms, if it arms one. */
  readonly fault?: FaultSpec;
  run(emulator: GsaEmulator, fleet: ModFleet): Promise<void>;
}

/**
 * A fault for the next `count` matching requests, cleared once they have all had it or after `maxHoldMs`: under
 * a strict window requests come in bursts, so a fault held for a fixed time would often meet none. A fault with a
 * Retry-After is noted in `holdFaults` with the time it was armed, so the judgement can find the holds it caused.
 */
export function faultStep(name: string, fault: FaultSpec, maxHoldMs: number, holdFaults: HoldFault[]): FaultStep {
  return {
    name,
    fault,
    run: async (emulator) => {
      const armedAt = now();
      emulator.injectFault(fault);
      const until = now() + maxHoldMs;
      while (emulator.snapshot().faults.length > 0 && now() < until) await sleep(50);
      emulator.clearFaults();
      if (fault.kind === 'status' && fault.retryAfter !== undefined) {
        holdFaults.push({
          armedAt,
          clearedAt: now(),
          status: fault.status,
          ...(fault.endpoint === undefined ? {} : { endpoint: fault.endpoint }),
          retryAfterMs: Number(fault.retryAfter) * 1000,
        });
      }
    },
  };
}

export function faultRotation(clientSecret: string, options: SoakOptions, holdFaults: HoldFault[]): FaultStep[] {
  // At most a window's length: by then the sidecar has sent again, if it sends at all.
  const hold = options.windowMs;
  const faultFor = (name: string, fault: FaultSpec, maxHoldMs: number): FaultStep => faultStep(name, fault, maxHoldMs, holdFaults);
  return [
    faultFor('503 burst (20 answers)', { kind: 'status', status: 503, count: 20 }, hold),
    faultFor('429 Retry-After: 86400', { kind: 'status', status: 429, retryAfter: '86400' }, hold),
    faultFor('connection resets (5)', { kind: 'reset', count: 5 }, hold),
    faultFor('slow answers (1.5 s, 10)', { kind: 'latency', ms: 1500, count: 10 }, hold),
    faultFor('HTML 200 for reviews (captive portal, 3)', { kind: 'html', endpoint: 'review', count: 3 }, hold),
    {
      name: 'a mod reconnects',
      run: (_emulator, fleet) => {
        fleet.reconnectOne();
        return Promise.resolve();
      },
    },
    faultFor(`429 Retry-After: ${RETRY_AFTER_2_POW_40_MS} (2^40 ms)`, { kind: 'status', status: 429, retryAfter: RETRY_AFTER_2_POW_40_MS }, hold),
    faultFor('503 Retry-After: 3600 for reviews', { kind: 'status', status: 503, retryAfter: '3600', endpoint: 'review' }, hold),
    faultFor('reviews answered after the timeout (2)', { kind: 'latency', ms: SOAK_API_TIMEOUT_MS + 1000, endpoint: 'review', count: 2 }, hold),
    faultFor('a proxy echoes the secret (500, 3)', { kind: 'status', status: 500, message: `upstream said: client_secret=${clientSecret}`, count: 3 }, hold),
    faultFor('HTML 200 for anything (3)', { kind: 'html', count: 3 }, hold),
    faultFor('reviews dropped after processing (2)', { kind: 'drop', afterProcessing: true, endpoint: 'review', count: 2 }, hold),
  ];
}
