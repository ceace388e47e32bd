// The shape of the configuration file (docs/configuration.md, spec/interfaces.md) and the config types the rest of
// the sidecar reads. Key names are a public contract: hosts script against them, so never rename one here.
// Must never read files or the environment, never put an input value into a message (it may be a secret), and
// never import adapters/: each adapter type owns its schema, and the app layer hands them in (configSchema(catalog)
// in configSchema.ts, with the rules across fields of rules.ts; src/app/config.ts builds it once from the registry).
import { z } from 'zod';
import { SERVER_ACTIONS, type ApiFlavor } from '../gsa/types.js';
import { CHAT_CHANNELS, DEFAULT_GATED_CHANNELS } from '../bridge/chatChannels.js';
import { DEFAULT_LOOKUP_IDS, LOOKUP_ID_RULES } from '../bridge/lookupIds.js';
import { DEFAULT_ALLOWED_REQUESTS, MOD_REQUEST_GROUPS } from '../bridge/port.js';
import type { AdapterEndpoint, EndpointKeys } from '../net/endpoint.js';
import { periodProblem } from '../gsa/system/periods.js';
import { isLoopbackHost } from '../net/loopback.js';
import { count, countOrZero, host, integer, MAX_TIMER_MS, listenPort, milliseconds, nonEmpty } from '../validation/optionFields.js';

// Server actions a mod may be allowed to trigger are the webhook actions; one list, owned by the client.
export { SERVER_ACTIONS, type ServerAction, type ApiFlavor } from '../gsa/types.js';

export const API_FLAVORS = ['v1', 'v2'] as const satisfies readonly ApiFlavor[];

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const MUTE_POLICIES = ['allow', 'block'] as const;
export type MutePolicy = (typeof MUTE_POLICIES)[number];

const URL_SEGMENT = /^[A-Za-z0-9._~-]+$/;

function httpUrlProblem(value: string): string | null {
  if (!URL.canParse(value)) return 'must be an http(s) URL';
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL';
  // Credentials in the URL would escape masking and end up in logs.
  if (url.username !== '' || url.password !== '') return 'must not contain credentials (use api.clientId and api.clientSecret)';
  if (url.search !== '' || url.hash !== '') return 'must not contain a query or fragment';
  return null;
}

const httpUrl = () =>
  z.string().superRefine((value, ctx) => {
    const problem = httpUrlProblem(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

/** The version paths the client adds after api.baseUrl, by flavor; GSA's docs show them in every URL. */
const VERSION_PATH = /\/(api\/v1|mod-api\/v2)\/*$/i;

/**
 * A base URL pasted from GSA's docs ends in the version path, which the client adds again: the service then accepts
 * the credentials and answers 404 for every server, and the host is sent to fix servers[].name. Refused here instead.
 */
function versionPathProblem(value: string): string | null {
  if (!URL.canParse(value)) return null;
  const match = VERSION_PATH.exec(new URL(value).pathname);
  if (match?.[1] === undefined) return null;
  const flavor = match[1].toLowerCase() === 'api/v1' ? 'v1' : 'v2';
  // The matched path is echoed as written: it is a fixed shape, never a secret.
  return `must be the service's root, without the version path: drop ${match[0]} (the sidecar adds the version path for api.flavor ${flavor}), like https://api.gameserverapp.com`;
}

const serviceRootUrl = () =>
  httpUrl().superRefine((value, ctx) => {
    if (httpUrlProblem(value) !== null) return;
    const problem = versionPathProblem(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

/** Why a value is not a usable Redis URL, without echoing it (it may hold a password); null when it is one. */
function redisUrlProblem(value: string): string | null {
  const hint = 'must be a Redis URL like redis://127.0.0.1:6379/0 (rediss:// for TLS; a password as redis://:PASSWORD@host:6379/0)';
  if (!URL.canParse(value)) return hint;
  const url = new URL(value);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return hint;
  if (url.hostname === '') return `${hint}: the host is missing`;
  if (!/^(\/\d{0,5})?$/.test(url.pathname)) return `${hint}: the path may only be the database number`;
  if (url.search !== '' || url.hash !== '') return `${hint}: no query or fragment`;
  return null;
}

/** Sidecars on one API key that count their calls in one window in Redis (interfaces.md "Many sidecars, one API key"). */
export const sharedBudgetSchema = z.strictObject({
  // Holds only counters and holds; a password in the URL is a secret (masked by config check, never logged).
  redis: z.string().superRefine((value, ctx) => {
    const problem = redisUrlProblem(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  }),
  // The start of every Redis key the sidecar uses (then a hash of api.clientId): sidecars on one key must agree.
  prefix: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,64}$/, 'must be 1 to 64 letters, digits, ".", "_", ":" or "-"')
    .default('gsa-bridge'),
  // How many sidecars share the key: while Redis cannot be reached each one keeps floor(requests / nodes).
  nodes: count(),
});

export const rateLimitSchema = z.strictObject({
  requests: count().default(100),
  intervalMs: milliseconds().default(60_000),
  // Calls of one kind (mute lookups, reviews, server actions) allowed to wait for the window: a full mute queue drops its
  // oldest lookup, a full review or action queue refuses the new call with rate_limited (an extension of the contract).
  maxQueued: count().default(1000),
  // First mute lookups one chat source (a server's adapter) may have waiting, inside maxQueued: past it the source's own
  // oldest gives way, so one flooding adapter cannot fill the mute queue (docs/api-budget.md). Capped at maxQueued.
  maxQueuedPerSource: count().default(250),
  shared: sharedBudgetSchema.optional(),
});

export const retrySchema = z.strictObject({
  retries: countOrZero().default(5),
  minDelayMs: milliseconds().default(500),
  maxDelayMs: milliseconds().default(30_000),
  // The longest a service's Retry-After is honoured (limiter hold, retry wait, the outbox's next try).
  maxRetryAfterMs: milliseconds().default(60_000),
});

/** GSA's System API v2 (interfaces.md "GSA's System API v2"): its own key, its own budget. */
export const systemApiSchema = z.strictObject({
  // A secret like clientSecret ('' means not set: then the System API is not used). GSA_SYSTEM_API_KEY overrides it.
  key: z.string().default(''),
  // GSA's id for publicly distributed tools, sent as the GSA-ID header when set (GSA's docs give no format).
  gsaId: z.string().regex(/^[\x21-\x7e]{0,200}$/, 'must be printable characters without spaces').default(''),
  rateLimit: z
    .strictObject({
      requests: count().default(100),
      intervalMs: milliseconds().default(60_000),
    })
    .prefault({}),
});

export const apiSchema = z.strictObject({
  baseUrl: serviceRootUrl().default('https://api.gameserverapp.com'),
  flavor: z.enum(API_FLAVORS).default('v1'),
  // Credentials have no real default: '' means "not set" and the loader decides whether that is acceptable.
  clientId: z.string().default(''),
  clientSecret: z.string().default(''),
  timeoutMs: milliseconds().default(5_000),
  rateLimit: rateLimitSchema.prefault({}),
  retry: retrySchema.prefault({}),
  // The service docs list /update for wipe by mistake; /wipe is what the service answers.
  wipePath: z.string().regex(URL_SEGMENT, 'must be one URL path segment, like "wipe"').default('wipe'),
  system: systemApiSchema.optional(),
});

/** What every entry of `servers[].adapters[]` is, whatever its type: the rest is its type's own schema. */
export interface ConfiguredAdapter {
  readonly type: string;
  readonly id?: string | undefined;
}

/**
 * What the config needs of the adapter types, from the app layer's registry: their options' schema (the union on
 * `type`) for validation, and for the cross-field rules each adapter's endpoint and stable id.
 */
export interface AdapterCatalog<Options extends ConfiguredAdapter> {
  /** One entry of `servers[].adapters[]`, defaults applied: the discriminated union of every type's schema. */
  readonly schema: z.ZodType<Options>;
  /** Where the adapter listens, connects or reads (port clashes, a token beyond loopback, derived ids). */
  endpointOf(options: Options): AdapterEndpoint;
  /** The option key each endpoint field is read from, for an entry whose `type` parsed. */
  endpointKeysOf(options: Options): EndpointKeys;
  /** The configured id, else the one derived from the server name and the endpoint. */
  idOf(serverName: string, options: Options): string;
  /**
   * Why an adapter with these options can gate its players only through GSA's System API (Minecraft's Mojang ids);
   * undefined when it can without. Such an adapter without api.system.key is refused: it could gate nobody.
   */
  needsSystemApiOf?(options: Options): string | undefined;
}

const serverFields = {
  // The GSA container name; it is the {name} in /gameserver/{name}/…, hence URL-safe.
  name: z
    .string()
    .regex(URL_SEGMENT, 'must be non-empty and use only letters, digits, ".", "_", "~" and "-" (it is part of the service URL)'),
  // GAMESERVER_ID, used by the webhook endpoints.
  id: count().optional(),
  // The webhook actions, and broadcast (GSA's System API only: without api.system a mod's broadcast is refused).
  allowActions: z.array(z.enum([...SERVER_ACTIONS, 'broadcast'])).default(() => []),
  /**
   * Which id GSA is asked by about a player who has a Steam64 and an EOS id (7 Days to Die, Squad, a mod that sends
   * both): `steam-first` the Steam64 (GSA's community logins and the Steam games key players by Steam), `eos-first`
   * the EOS id, `both` each, muted when either is, at two calls of the API budget per such player's lookup or
   * refresh. A player with one id is asked by it. Reviews are sent by the first id the rule asks by.
   * @default 'steam-first'
   */
  lookupIds: z.enum(LOOKUP_ID_RULES, { error: `must be one of ${LOOKUP_ID_RULES.map((rule) => `"${rule}"`).join(', ')}` }).default(DEFAULT_LOOKUP_IDS),
};

export const ACCESS_UNKNOWN_POLICIES = ['admit', 'kick'] as const;

const accessFields = {
  // Check every join an adapter sees with GSA's access check (whitelist, bans) and remove a player GSA does not allow.
  enforce: z.boolean(),
  // When GSA's answer cannot be used; a transport error alone (no answer at all) always admits.
  onUnknown: z.enum(ACCESS_UNKNOWN_POLICIES, { error: 'must be "admit" or "kick"' }),
  // GSA's answer for a player is reused this long (a rejoin loop costs nothing); 0 asks at every join.
  cacheMs: integer(0, MAX_TIMER_MS, `must be 0 or a positive integer (milliseconds, at most ${MAX_TIMER_MS})`),
};

/** `access` at the top level: every key defaulted (enforcement off). */
export const accessSchema = z.strictObject({
  enforce: accessFields.enforce.default(false),
  onUnknown: accessFields.onUnknown.default('admit'),
  cacheMs: accessFields.cacheMs.default(300_000),
});

/** `servers[].access`: any key given overrides the top level's for that server. */
export const serverAccessSchema = z.strictObject({
  enforce: accessFields.enforce.optional(),
  onUnknown: accessFields.onUnknown.optional(),
  cacheMs: accessFields.cacheMs.optional(),
});

/** The shop in game chat (RCON games that can whisper), and the pacing of mods' money requests. */
export const shopSchema = z.strictObject({
  chatCommand: z.string().regex(/^\S+$/, 'must be one word without spaces, like "!shop"').default('!shop'),
  buyCommand: z.string().regex(/^\S+$/, 'must be one word without spaces, like "!buy"').default('!buy'),
  // Items one `!shop` whispers (each a line the game shows).
  maxListed: integer(1, 20, 'must be an integer from 1 to 20').default(5),
  // One shop order or token spend per player per this period, so a mod's loop cannot order twice.
  orderCooldownMs: integer(0, MAX_TIMER_MS, `must be 0 or a positive integer (milliseconds, at most ${MAX_TIMER_MS})`).default(10_000),
});

export function serverSchemaOf<Options>(adapter: z.ZodType<Options>) {
  return z.strictObject({
    ...serverFields,
    // Which of GSA's Mod API v2 requests this server's mods may make; shop orders and token spends move money: opt-in.
    allowRequests: z
      .array(z.enum(MOD_REQUEST_GROUPS, { error: `must be one of ${MOD_REQUEST_GROUPS.map((group) => `"${group}"`).join(', ')}` }), {
        error: `must be an array like ["access", "reports", "ui"] (the names: ${MOD_REQUEST_GROUPS.join(', ')})`,
      })
      .default(() => [...DEFAULT_ALLOWED_REQUESTS]),
    access: serverAccessSchema.optional(),
    adapters: z.array(adapter),
  });
}

export const muteSchema = z.strictObject({
  mutedTtlMs: milliseconds().default(60_000),
  unmutedTtlMs: milliseconds().default(300_000),
  decisionTimeoutMs: milliseconds().default(300),
  onUnknown: z.enum(MUTE_POLICIES).default('allow'),
  defaultAlert: nonEmpty().default('You are muted on this server.'),
  // GSA's mute covers "global and local chat": lines on other channels are allowed unchecked (reason "not_gated").
  // Only names of the vocabulary: a typo here would let muted players through without a word, so it is an error.
  gatedChannels: z
    .array(z.enum(CHAT_CHANNELS, { error: `must be a chat channel name: one of ${CHAT_CHANNELS.join(', ')}` }), {
      error: `must be an array of chat channel names, like ["global", "local"] (the names: ${CHAT_CHANNELS.join(', ')})`,
    })
    .default(() => [...DEFAULT_GATED_CHANNELS]),
});

export const reviewsSchema = z.strictObject({
  dataDir: nonEmpty().default('./data'),
  minStars: count().default(1),
  maxStars: count().default(5),
  maxCommentLength: count().default(500),
  // 0 turns the per-player cooldown off.
  cooldownMs: integer(0, MAX_TIMER_MS, `must be 0 or a positive integer (milliseconds, at most ${MAX_TIMER_MS})`).default(600_000),
  chatCommand: z.string().regex(/^\S+$/, 'must be one word without spaces, like "!review"').default('!review'),
});

/** When /readyz turns 503 (src/ops/readiness.ts explains the defaults). */
export const readinessSchema = z.strictObject({
  // How long GSA may give no answer before the sidecar is not ready; the cache and the outbox ride out less.
  unreachableForMs: milliseconds().default(60_000),
  // More reviews waiting than this: they are not getting out.
  outboxPendingMax: count().default(1_000),
});

export const httpSchema = z.strictObject({
  host: host().default('127.0.0.1'),
  // 0: any free port; the bound address is logged.
  port: listenPort().default(9464),
  readiness: readinessSchema.prefault({}),
});

/** One step of the chat filter's ladder: the n-th strike takes the n-th step (the last repeats). */
export const ladderStepSchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('warn'), message: nonEmpty().optional() }),
  z.strictObject({
    action: z.literal('mute'),
    period: z.string().superRefine((value, ctx) => {
      const problem = periodProblem(value);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }),
    note: z.string().max(500).optional(),
  }),
], { error: 'must be {"action":"warn"} or {"action":"mute","period":"15m"}' });

export const chatFilterSchema = z.strictObject({
  // Whole words (or phrases), matched after folding case, accents, invisible characters, look-alikes, stretched letters
  // and spacing tricks (src/moderation/wordFilter.ts).
  words: z.array(z.string().trim().min(1, 'must not be empty').max(100)).max(10_000).default(() => []),
  ladder: z.array(ladderStepSchema).min(1, 'must have at least one step').default(() => [{ action: 'warn' as const }, { action: 'mute' as const, period: '15m' }, { action: 'mute' as const, period: '1d' }]),
  strikeMemoryMs: milliseconds().default(86_400_000),
  dryRun: z.boolean().default(false),
});

export const moderationSchema = z.strictObject({
  filter: chatFilterSchema.optional(),
});

export const NOTIFY_FORMATS = ['discord', 'json'] as const;
export type NotifyFormat = (typeof NOTIFY_FORMATS)[number];

/** Why a value is not a usable webhook URL, without echoing it (its path is the webhook's secret); null when it is one. */
function webhookUrlProblem(value: string): string | null {
  const hint = 'must be an https URL, like https://discord.com/api/webhooks/ID/TOKEN (http only to a loopback address)';
  if (!URL.canParse(value)) return hint;
  const url = new URL(value);
  // A webhook URL carries its own credential: over plain http anyone on the path could read it and post as us.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(host))) return hint;
  if (url.username !== '' || url.password !== '') return `${hint}: no user or password before the host`;
  if (url.hash !== '') return `${hint}: no fragment`;
  return null;
}

/** Webhooks told of state changes a host must hear about (interfaces.md "Notifications", docs/operations.md). */
export const notifySchema = z.strictObject({
  // Each URL is a secret: masked by config check, scrubbed from every log line (collectSecrets).
  webhooks: z
    .array(
      z.strictObject({
        url: z.string().superRefine((value, ctx) => {
          const problem = webhookUrlProblem(value);
          if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
        }),
        // discord: Discord's webhook JSON (an embed); json: {event, severity, server, adapter, message, at}.
        format: z.enum(NOTIFY_FORMATS).default('discord'),
      }),
    )
    .max(10, 'must list at most 10 webhooks')
    .default(() => []),
  // How long GSA unreachable, an adapter down or a Retry-After hold lasts before it is told; also the least time
  // between two summaries of a state that lasts.
  afterMs: integer(10_000, 86_400_000, 'must be 10000–86400000 (milliseconds: 10 s to 1 day)').default(300_000),
  // Each step of the chat filter (a warning, a mute) is told too.
  moderation: z.boolean().default(false),
});

/** log.maxBytes's default: 10 MiB a file. */
export const DEFAULT_LOG_FILE_MAX_BYTES = 10 * 1024 * 1024;
/** log.maxFiles's default: rotated files kept besides the current one. */
export const DEFAULT_LOG_FILE_MAX_FILES = 5;

export const logSchema = z.strictObject({
  level: z.enum(LOG_LEVELS).default('info'),
  // `run` also writes every line here (JSON, secrets scrubbed), for hosts without journald; relative to the config
  // file's directory. Rotated by size: `<file>.1` … `<file>.<maxFiles>`.
  file: nonEmpty().optional(),
  // Only read with `file`, so left out of the parsed config when not given (defaults: DEFAULT_LOG_FILE_*). At least
  // 64 KiB: with a few lines a file it would rotate on almost every line.
  maxBytes: integer(65_536, 2 ** 40, 'must be an integer from 65536 (64 KiB) up (bytes)').optional(),
  maxFiles: integer(1, 100, 'must be an integer from 1 to 100 (rotated files kept)').optional(),
});

export function fileShapeOf<Options>(adapter: z.ZodType<Options>) {
  return z.strictObject({
    api: apiSchema.prefault({}),
    servers: z.array(serverSchemaOf(adapter)),
    mute: muteSchema.prefault({}),
    reviews: reviewsSchema.prefault({}),
    moderation: moderationSchema.prefault({}),
    access: accessSchema.prefault({}),
    shop: shopSchema.prefault({}),
    http: httpSchema.prefault({}),
    log: logSchema.prefault({}),
    notify: notifySchema.optional(),
  });
}

/** The effective configuration with adapters of `Options`: the file with every default applied (and, via the loader, the environment on top). */
export type BridgeConfigOf<Options> = z.output<ReturnType<typeof fileShapeOf<Options>>>;
/** A configuration whose adapters are only known by type and id: what the parts that never look inside an adapter take. */
export type AnyBridgeConfig = BridgeConfigOf<ConfiguredAdapter>;
/** What a config file may contain: everything but `servers` is optional. */
export type BridgeConfigInput = z.input<ReturnType<typeof fileShapeOf<ConfiguredAdapter>>>;
export type ServerConfigOf<Options> = BridgeConfigOf<Options>['servers'][number];
export type ApiConfig = AnyBridgeConfig['api'];
export type MuteConfig = AnyBridgeConfig['mute'];
export type ReviewsConfig = AnyBridgeConfig['reviews'];
export type HttpConfig = AnyBridgeConfig['http'];
export type LogConfig = AnyBridgeConfig['log'];
export type SystemApiConfig = NonNullable<ApiConfig['system']>;
export type ModerationConfig = AnyBridgeConfig['moderation'];
export type ChatFilterConfig = NonNullable<ModerationConfig['filter']>;
export type LadderStep = ChatFilterConfig['ladder'][number];
export type NotifyConfig = NonNullable<AnyBridgeConfig['notify']>;
export type AccessConfig = AnyBridgeConfig['access'];
export type ShopConfig = AnyBridgeConfig['shop'];

/** The schema of a whole config file whose adapters the catalog describes. */
export type ConfigSchema<Options> = z.ZodType<BridgeConfigOf<Options>>;
