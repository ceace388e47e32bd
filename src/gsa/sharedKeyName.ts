// The name under which sidecars on one API key keep their shared counters in Redis: the configured prefix, then a
// hash of the client id in braces (a Redis Cluster hash tag, so every key of one API key lands on one node and one
// script may touch them all). The client id itself never reaches Redis, and the secret is never part of it.
import { createHash } from 'node:crypto';

/** `<prefix>:{<16 hex digits of sha256(clientId)>}`; callers add `:<what>` (e.g. `:window`). */
export function sharedKeyName(prefix: string, clientId: string): string {
  const digest = createHash('sha256').update(`gsa-bridge api key\0${clientId}`).digest('hex').slice(0, 16);
  return `${prefix}:{${digest}}`;
}
