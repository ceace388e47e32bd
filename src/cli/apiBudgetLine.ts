// `run`'s start-up line about the API budget: how many calls per window the key allows, for which client id, and
// whether this sidecar has them to itself or shares them through Redis (which Redis, by how many sidecars, under which
// prefix), plus the System API key's own budget when api.system has a key. A host reading the log learns at once
// what the sidecar will spend and with whom it shares. Pure.
// Must never show a secret: the client secret and the System API key are never named, a Redis password is masked.

import type { BridgeConfig } from '../app/config.js';
import { maskUrlPassword } from '../config/mask.js';

function perWindow(requests: number, intervalMs: number): string {
  return `${requests} calls per ${intervalMs / 1000} s`;
}

export function describeApiBudget(config: BridgeConfig): string {
  const { clientId, rateLimit, system } = config.api;
  const { shared } = rateLimit;
  const where = shared === undefined ? 'local to this sidecar' : `shared through ${maskUrlPassword(shared.redis)} by ${shared.nodes} sidecars, prefix ${shared.prefix}`;
  const modApi = `API budget: ${perWindow(rateLimit.requests, rateLimit.intervalMs)} for client id ${clientId}, ${where}`;
  if (system === undefined || system.key === '') return modApi;
  const systemWhere = shared === undefined ? 'local to this sidecar' : 'shared through the same Redis';
  return `${modApi}; System API key: its own ${perWindow(system.rateLimit.requests, system.rateLimit.intervalMs)}, ${systemWhere}`;
}
