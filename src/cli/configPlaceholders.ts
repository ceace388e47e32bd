// Finds values a host copied from config.example.json and never replaced (the example's token, password, server
// name and id, and any credential it may carry), so `config check` can warn about them. A warning, never a failure:
// the example's server name may be a real one. It never prints a value that is a secret, only where it is.

import type { BridgeConfig } from '../app/config.js';

/**
 * Every value config.example.json (and the docs that copy it) uses as a stand-in. A unit test reads the example and
 * fails when it holds a stand-in not listed here.
 */
export const EXAMPLE_PLACEHOLDERS = {
  clientIds: ['your-client-id', 'change-me', 'CLIENT_ID'],
  clientSecrets: ['your-client-secret', 'change-me', 'CLIENT_SECRET'],
  serverNames: ['ovddykvbs'],
  serverIds: [4711],
  tokens: ['change-me-to-a-long-random-string', 'change-me'],
  passwords: ['change-me'],
} as const satisfies Readonly<Record<string, readonly (string | number)[]>>;

function listed(list: readonly (string | number)[], value: string | number | undefined): boolean {
  return value !== undefined && value !== '' && list.includes(value);
}

/** One line per placeholder left in the effective config, naming its path (and the value, unless it is a secret). */
export function placeholderWarnings(config: BridgeConfig): string[] {
  const warnings: string[] = [];
  const from = 'is still the placeholder from config.example.json';
  if (listed(EXAMPLE_PLACEHOLDERS.clientIds, config.api.clientId)) warnings.push(`api.clientId ${from} ("${config.api.clientId}"): use the client id from the dashboard (/configure/api)`);
  if (listed(EXAMPLE_PLACEHOLDERS.clientSecrets, config.api.clientSecret)) warnings.push(`api.clientSecret ${from}: use the client secret from the dashboard (/configure/api)`);
  config.servers.forEach((server, index) => {
    const at = `servers[${index}]`;
    if (listed(EXAMPLE_PLACEHOLDERS.serverNames, server.name)) warnings.push(`${at}.name ${from} ("${server.name}"): use your server's container name from the dashboard`);
    if (listed(EXAMPLE_PLACEHOLDERS.serverIds, server.id)) warnings.push(`${at}.id ${from} (${String(server.id)}): use your server's GAMESERVER_ID from the dashboard`);
    server.adapters.forEach((adapter, adapterIndex) => {
      const adapterAt = `${at}.adapters[${adapterIndex}]`;
      if (adapter.type === 'websocket' && listed(EXAMPLE_PLACEHOLDERS.tokens, adapter.token)) {
        warnings.push(`${adapterAt}.token ${from}: anyone who reads the example can connect as your mod; use a long random string (openssl rand -hex 24)`);
      }
      if (adapter.type === 'rcon' && listed(EXAMPLE_PLACEHOLDERS.passwords, adapter.password)) {
        warnings.push(`${adapterAt}.password ${from}: use the game server's RCON password`);
      }
    });
  });
  return warnings;
}
