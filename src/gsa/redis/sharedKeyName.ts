// The name under which sidecars on one API key keep their shared counters in Redis: the configured prefix, then a
// hash of the client id in braces (a Redis Cluster hash tag, so every key of one API key lands on one node and one
// script may touch them all). The same hash names the key in /metrics (gsa_bridge_api_key_info), so a dashboard can
// group sidecars by the key whose budget they spend. The client id itself never reaches Redis or a label, and the
// secret is never part of it.
import { createHash } from 'node:crypto';

/** 16 hex digits of sha256 of the client id (or of systemKeyName for a System API key): not the id, not a secret. */
export function apiKeyDigest(clientId: string): string {
  return createHash('sha256').update(`gsa-bridge api key\0${clientId}`).digest('hex').slice(0, 16);
}

/** `<prefix>:{<apiKeyDigest(clientId)>}`; callers add `:<what>` (e.g. `:window`). */
export function sharedKeyName(prefix: string, clientId: string): string {
  return `${prefix}:{${apiKeyDigest(clientId)}}`;
}
