// Finds the secrets in a configuration: masked copies for `config check` output, and the raw values for the log scrubber.
// Must never mutate the configuration it is given, and never turn an unset secret ('') into '***': hosts need to see it is unset.
import type { AnyBridgeConfig } from './schema.js';

export const SECRET_MASK = '***';

// Profiles may add their own keys to an rcon adapter; ones named like a credential are treated as one.
const SECRET_KEY = /password|secret|token/i;

/** A deep copy with api.clientSecret, api.system.key, the Redis password of api.rateLimit.shared.redis, every adapter token and password (and profile keys named like them), and each notify webhook's path replaced by `***`. */
export function maskSecrets(config: AnyBridgeConfig): AnyBridgeConfig {
  const copy = structuredClone(config);
  copy.api.clientSecret = mask(copy.api.clientSecret);
  if (copy.api.system !== undefined) copy.api.system = { ...copy.api.system, key: mask(copy.api.system.key) };
  const shared = copy.api.rateLimit.shared;
  if (shared !== undefined) copy.api.rateLimit.shared = { ...shared, redis: maskUrlPassword(shared.redis) };
  for (const server of copy.servers) {
    for (const adapter of server.adapters) {
      for (const [key, value] of Object.entries(adapter)) {
        if (typeof value === 'string' && SECRET_KEY.test(key)) Object.assign(adapter, { [key]: mask(value) });
      }
    }
  }
  if (copy.notify !== undefined) copy.notify = { ...copy.notify, webhooks: copy.notify.webhooks.map((webhook) => ({ ...webhook, url: maskWebhookUrl(webhook.url) })) };
  return copy;
}

/** Every non-empty secret value, longest first, so a scrubber replacing them in order never leaves part of one behind. */
export function collectSecrets(config: AnyBridgeConfig): string[] {
  const secrets = new Set<string>();
  if (config.api.clientSecret !== '') secrets.add(config.api.clientSecret);
  if (config.api.system !== undefined && config.api.system.key !== '') secrets.add(config.api.system.key);
  for (const form of urlPasswordForms(config.api.rateLimit.shared?.redis)) secrets.add(form);
  for (const server of config.servers) {
    for (const adapter of server.adapters) {
      for (const [key, value] of Object.entries(adapter)) {
        if (typeof value === 'string' && value !== '' && SECRET_KEY.test(key)) secrets.add(value);
      }
    }
  }
  for (const webhook of config.notify?.webhooks ?? []) for (const form of webhookUrlForms(webhook.url)) secrets.add(form);
  return [...secrets].sort((a, b) => b.length - a.length);
}

/** Path segments this long are a webhook's token (Discord's is 68 characters), never a word a log line needs. */
const TOKEN_SEGMENT_MIN = 16;

/**
 * A webhook URL as written and as parsed, its path with any query (the whole secret part: whoever has it can post),
 * and each token-like path segment, so a line that quotes only part of it (an HTTP client's error) is scrubbed too.
 */
function webhookUrlForms(value: string): string[] {
  const forms = new Set([value]);
  if (URL.canParse(value)) {
    const url = new URL(value);
    forms.add(url.href);
    const secretPart = `${url.pathname}${url.search}`;
    if (secretPart.length >= TOKEN_SEGMENT_MIN) forms.add(secretPart);
    for (const segment of url.pathname.split('/')) if (segment.length >= TOKEN_SEGMENT_MIN) forms.add(segment);
  }
  return [...forms];
}

/** The webhook's origin only, so a host sees which service it posts to: https://discord.com/*** */
export function maskWebhookUrl(value: string): string {
  if (!URL.canParse(value)) return SECRET_MASK;
  return `${new URL(value).origin}/${SECRET_MASK}`;
}

/** A URL's password as written and as decoded (a scrubber must catch either); none when it has none. */
function urlPasswordForms(value: string | undefined): string[] {
  if (value === undefined || !URL.canParse(value)) return [];
  const { password } = new URL(value);
  if (password === '') return [];
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // Kept as written.
  }
  return [...new Set([password, decoded])];
}

/** The URL with its password (if any) replaced by `***`. */
export function maskUrlPassword(value: string): string {
  if (!URL.canParse(value)) return value;
  const url = new URL(value);
  if (url.password === '') return value;
  url.password = SECRET_MASK;
  return url.toString();
}

function mask(value: string): string {
  return value === '' ? '' : SECRET_MASK;
}
