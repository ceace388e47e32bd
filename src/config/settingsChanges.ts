// Which settings differ between two valid configs, by JSON path, for the line a reload logs: a SIGHUP that changed
// only mute.defaultAlert or a server's allowActions restarts nothing, and must still say what it applied. Generic:
// every key is compared, so a key added to the schema later is covered without touching this file.
// Adapters are left out (the reload reports them by id: started, stopped, restarted). Servers are matched by name,
// as the reload matches them. Never returns a value, only paths: some values are secrets.

import { formatPath } from './format.js';
import type { AnyBridgeConfig } from './schema.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Leaves that differ under `path`; arrays are compared whole (a list of actions or channels is one setting). */
function collect(before: unknown, after: unknown, path: readonly (string | number)[], changed: string[]): void {
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(after), ...Object.keys(before)])];
    for (const key of keys) collect(before[key], after[key], [...path, key], changed);
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) changed.push(formatPath(path));
}

/**
 * The settings `after` changes, as paths into `after` (`mute.defaultAlert`, `servers[0].allowActions`, `log.level`);
 * a server added is `servers[1] (beta, new)`, one removed `servers (alpha removed)`.
 */
export function changedSettings(before: AnyBridgeConfig, after: AnyBridgeConfig): string[] {
  const changed: string[] = [];
  const { servers: beforeServers, ...beforeRest } = before;
  const { servers: afterServers, ...afterRest } = after;
  collect(beforeRest, afterRest, [], changed);
  const previous = new Map(beforeServers.map((server) => [server.name, server]));
  afterServers.forEach((server, index) => {
    const old = previous.get(server.name);
    if (old === undefined) {
      changed.push(`servers[${index}] (${server.name}, new)`);
      return;
    }
    // Both sides without their adapters: those are the reload's own report.
    collect({ ...old, adapters: undefined }, { ...server, adapters: undefined }, ['servers', index], changed);
  });
  const names = new Set(afterServers.map((server) => server.name));
  for (const server of beforeServers) if (!names.has(server.name)) changed.push(`servers (${server.name} removed)`);
  return changed;
}
