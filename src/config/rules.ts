// Rules that span several keys (unique names, port clashes, a strong token for non-loopback listeners, min ≤ max).
// Runs inside the schema even when other keys are broken, so it must never read a value whose own path (or an
// ancestor's) already has a problem: that value is raw input of unknown shape. Never echoes values in messages.
import type { z } from 'zod';
import { formatPath } from './format.js';
import { isLoopbackHost, isWildcardHost } from '../net/loopback.js';
import type { AdapterCatalog, BridgeConfigOf, ConfiguredAdapter } from './schema.js';
import type { AdapterEndpoint, EndpointKeys } from '../net/endpoint.js';

type Path = readonly (string | number)[];

/** A listener reachable from other machines can be guessed at over the network: 16 characters is the floor. */
export const MIN_REMOTE_TOKEN_LENGTH = 16;
const MAKE_TOKEN_HINT = `Make one with: openssl rand -hex 24   (or: node -e "console.log(require('crypto').randomBytes(24).toString('hex'))")`;
/** config.example.json's placeholders begin like this; a copied example must not open a listener to the network. */
const PLACEHOLDER_PREFIX = 'change-me';

/** Why a token is too weak for a non-loopback listener, without echoing it; undefined when it will do. */
function tokenWeakness(token: string): string | undefined {
  if (token.trim().toLowerCase().startsWith(PLACEHOLDER_PREFIX)) return 'is the placeholder from config.example.json';
  if (token.length < MIN_REMOTE_TOKEN_LENGTH) return `is too short (${token.length} characters)`;
  return undefined;
}

/** A port in use: listeners bind on this machine; targets are game servers the sidecar connects to. */
type Endpoint = Extract<AdapterEndpoint, { kind: 'listener' | 'target' }> & { readonly path: Path };

/** The cross-field rules of a config whose adapters `catalog` describes (their endpoints and ids). */
export function crossFieldRules<Options extends ConfiguredAdapter>(catalog: AdapterCatalog<Options>) {
  return (config: BridgeConfigOf<Options>, ctx: z.core.$RefinementCtx<BridgeConfigOf<Options>>): void => {
    checkCrossFieldRules(catalog, config, ctx);
  };
}

function checkCrossFieldRules<Options extends ConfiguredAdapter>(catalog: AdapterCatalog<Options>, config: BridgeConfigOf<Options>, ctx: z.core.$RefinementCtx<BridgeConfigOf<Options>>): void {
  const usable = (...paths: Path[]): boolean => paths.every((path) => !ctx.issues.some((issue) => blocks(issue, path)));
  const report = (path: Path, message: string): void => {
    ctx.addIssue({ code: 'custom', path: [...path], message, input: undefined });
  };

  if (usable(['api', 'rateLimit', 'requests'], ['api', 'rateLimit', 'shared', 'nodes']) && (config.api.rateLimit.shared?.nodes ?? 0) > config.api.rateLimit.requests) {
    report(['api', 'rateLimit', 'shared', 'nodes'], 'must not be greater than api.rateLimit.requests: while Redis is down each sidecar keeps floor(requests / nodes) calls a window, which must be at least 1');
  }
  if (usable(['api', 'retry', 'minDelayMs'], ['api', 'retry', 'maxDelayMs']) && config.api.retry.minDelayMs > config.api.retry.maxDelayMs) {
    report(['api', 'retry', 'minDelayMs'], 'must not be greater than api.retry.maxDelayMs');
  }
  if (usable(['reviews', 'minStars'], ['reviews', 'maxStars']) && config.reviews.minStars > config.reviews.maxStars) {
    report(['reviews', 'minStars'], 'must not be greater than reviews.maxStars');
  }

  // A mute step acts through GSA's System API: a filter that could take it with no key would fail at the worst moment.
  if (usable(['moderation', 'filter'], ['api', 'system']) && config.moderation.filter !== undefined && config.moderation.filter.words.length > 0) {
    const hasKey = (config.api.system?.key ?? '') !== '';
    config.moderation.filter.ladder.forEach((step, index) => {
      if (step.action === 'mute' && !hasKey) {
        report(['moderation', 'filter', 'ladder', index], "a mute step needs GSA's System API key: set api.system.key (or GSA_SYSTEM_API_KEY), or make the step a warn");
      }
    });
  }

  // Adapter id → where it was first seen and whether it was written or derived (the fix differs).
  const adapterIds = new Map<string, { readonly path: Path; readonly derived: boolean }>();
  // An adapter's id names it in the journal, logs and metrics: two adapters with one id would mix their reviews up.
  const checkAdapterId = (serverName: string, adapter: Options, endpoint: AdapterEndpoint, path: Path): void => {
    const id = catalog.idOf(serverName, adapter);
    const derived = adapter.id === undefined;
    const first = adapterIds.get(id);
    if (first === undefined) {
      adapterIds.set(id, { path, derived });
      return;
    }
    if (!derived) report([...path, 'id'], `duplicate: ${formatPath(first.path)} has the same id "${id}"`);
    else report(path, `its id "${id}" (derived from ${derivedFrom(endpoint)}) is already taken by ${formatPath(first.path)}; give one of them an "id"`);
  };

  const endpoints: Endpoint[] = [];
  if (usable(['servers'])) {
    const names = new Map<string, number>();
    const ids = new Map<number, number>();
    config.servers.forEach((server, index) => {
      const serverPath = ['servers', index] as const;
      if (usable([...serverPath, 'name'])) {
        const first = names.get(server.name);
        if (first === undefined) names.set(server.name, index);
        else report([...serverPath, 'name'], `duplicate: servers[${first}] has the same name`);
      }
      if (usable([...serverPath, 'id']) && server.id !== undefined) {
        const first = ids.get(server.id);
        if (first === undefined) ids.set(server.id, index);
        else report([...serverPath, 'id'], `duplicate: servers[${first}] has the same id`);
      }
      if (!usable([...serverPath, 'adapters'])) return;
      server.adapters.forEach((adapter, adapterIndex) => {
        const path = [...serverPath, 'adapters', adapterIndex] as const;
        // A broken `type` means the value never matched an adapter shape, so none of its fields can be trusted.
        if (!usable([...path, 'type'])) return;
        // Where the adapter's type says it listens, connects or reads (the registry), not a list of types here. A field
        // whose option key has a problem is raw input: the rules that read it are skipped.
        const endpoint = catalog.endpointOf(adapter);
        const keys = catalog.endpointKeysOf(adapter);
        const known = (...fields: (keyof EndpointKeys)[]): boolean => usable(...fields.flatMap((field) => (keys[field] === undefined ? [] : [[...path, keys[field]]])));
        // A derived id reads the port (or the file name); an explicit one is checked under the same condition.
        if (usable([...serverPath, 'name'], [...path, 'id']) && known('port', 'path')) checkAdapterId(server.name, adapter, endpoint, path);
        if (endpoint.kind === 'listener' && known('host') && usable([...path, 'token']) && !isLoopbackHost(endpoint.host)) {
          const token = 'token' in adapter && typeof adapter.token === 'string' ? adapter.token : undefined;
          if (token === undefined || token.trim() === '') {
            report([...path, 'token'], 'required: binding beyond loopback (127.0.0.0/8, ::1, localhost) needs a token');
          } else {
            const weakness = tokenWeakness(token);
            if (weakness !== undefined) report([...path, 'token'], `${weakness}; binding beyond loopback needs a random token of at least ${MIN_REMOTE_TOKEN_LENGTH} characters. ${MAKE_TOKEN_HINT}`);
          }
        }
        // A game whose players only GSA's System API can check gates nobody without its key: refused, not warned about.
        // Asked only of an adapter that parsed whole (its profile says what it needs).
        const whole = !ctx.issues.some((issue) => issue.code !== 'unrecognized_keys' && path.every((segment, index) => issue.path?.[index] === segment));
        const needsSystemApi = whole && usable(['api', 'system']) ? catalog.needsSystemApiOf?.(adapter) : undefined;
        if (needsSystemApi !== undefined && (config.api.system?.key ?? '') === '') {
          report(path, `cannot gate chat without GSA's System API: ${needsSystemApi}. Set api.system.key (or GSA_SYSTEM_API_KEY)`);
        }
        // Port 0 asks the system for a free port: it cannot clash.
        if ((endpoint.kind === 'listener' || endpoint.kind === 'target') && known('host', 'port') && endpoint.port !== 0) endpoints.push({ ...endpoint, path });
      });
    });
  }
  // Port 0 takes a free port at start, so it clashes with nothing.
  if (usable(['http', 'host'], ['http', 'port']) && config.http.port !== 0) {
    endpoints.push({ path: ['http'], kind: 'listener', host: config.http.host, port: config.http.port });
  }
  reportEndpointClashes(endpoints, report);
}

/** What a derived id is made of, for the message that asks for an explicit one. */
function derivedFrom(endpoint: AdapterEndpoint): string {
  if (endpoint.kind === 'file') return 'server, type and file name';
  if (endpoint.kind === 'none') return 'server and type';
  return 'server, type and port';
}

function reportEndpointClashes(endpoints: readonly Endpoint[], report: (path: Path, message: string) => void): void {
  endpoints.forEach((endpoint, index) => {
    for (const earlier of endpoints.slice(0, index)) {
      if (earlier.port !== endpoint.port) continue;
      if (earlier.host.toLowerCase() === endpoint.host.toLowerCase()) {
        report([...endpoint.path, 'port'], `same host and port as ${formatPath(earlier.path)}`);
        return;
      }
      // Binding 0.0.0.0 or :: takes the port on every address, so it clashes with any other listener on that port.
      if (endpoint.kind === 'listener' && earlier.kind === 'listener' && (isWildcardHost(earlier.host) || isWildcardHost(endpoint.host))) {
        report([...endpoint.path, 'port'], `same port as ${formatPath(earlier.path)}, and one of them binds every address`);
        return;
      }
    }
  });
}

// An issue at `path` or above it means the value there is raw input. Unknown keys are the exception: the object
// around them still parsed.
function blocks(issue: z.core.$ZodRawIssue, path: Path): boolean {
  if (issue.code === 'unrecognized_keys') return false;
  const issuePath = issue.path ?? [];
  return issuePath.length <= path.length && issuePath.every((segment, index) => segment === path[index]);
}
