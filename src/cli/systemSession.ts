// Opens GSA's System API for a one-shot command (mute, unmute, broadcast, and server actions when a System API key
// is set): the client from the config's api.system, with the key's shared budget and cooldowns on Redis when
// api.rateLimit.shared is set, closed whatever happens. It also says, before any call, whether a target's cooldown
// would end after the command's deadline. It never prints or logs the key.

import type { Logger } from 'pino';
import { sharedSystemApiKeyOptions, systemClientOptions, type BridgeConfig } from '../app/config.js';
import { SharedSystemApiKey, SystemApiClient } from '../gsa/index.js';
import { cooldownMessage, type SystemSubject } from '../gsa/dialects/systemApiV2.js';
import { redisLabel } from '../gsa/redis/sharedRedis.js';
import type { CliContext } from './context.js';
import { NoSystemKeyError } from './errors.js';
import { withServiceSession, type ServiceSession, type ServiceSessionOptions } from './serviceSession.js';

/** How long a one-shot command waits for the shared Redis's answer, and for its connection (as serviceSession). */
const ONE_SHOT_REDIS_ANSWER_MS = 1000;
const ONE_SHOT_REDIS_CONNECT_MS = 3000;

export interface SystemSession extends ServiceSession {
  readonly system: SystemApiClient;
}

/** True when the config has a System API key (file or GSA_SYSTEM_API_KEY). */
export function hasSystemKey(config: BridgeConfig): boolean {
  return systemClientOptions(config) !== undefined;
}

/** Runs `run` with a System API client for `config`; throws NoSystemKeyError (exit 2) when there is no key. */
export async function withSystemClient(
  context: CliContext,
  command: string,
  config: BridgeConfig,
  logger: Logger,
  run: (system: SystemApiClient) => Promise<number>,
): Promise<number> {
  const options = systemClientOptions(config);
  if (options === undefined) throw new NoSystemKeyError(command);
  const sharedSettings = sharedSystemApiKeyOptions(config);
  const shared =
    sharedSettings === undefined
      ? undefined
      : new SharedSystemApiKey({
          ...sharedSettings,
          answerTimeoutMs: ONE_SHOT_REDIS_ANSWER_MS,
          connectTimeoutMs: ONE_SHOT_REDIS_CONNECT_MS,
          logger,
          onCooldownsLocal: (reason) => {
            context.stderr.write(
              `warning: Redis at ${redisLabel(sharedSettings.url)} cannot be reached (${reason}); GSA's cooldowns are kept within this process only, not with other sidecars or commands\n`,
            );
          },
        });
  const system = new SystemApiClient({ ...options, logger, budget: shared?.budget, cooldowns: shared?.cooldowns });
  try {
    return await run(system);
  } finally {
    await system.close();
    await shared?.close();
  }
}

/** A one-shot System API command: config (no mod API credentials needed), logger, deadline, client; errors as serviceSession maps them. */
export function withSystemSession(context: CliContext, command: string, options: ServiceSessionOptions, run: (session: SystemSession) => Promise<number>): Promise<number> {
  return withServiceSession(context, { ...options, requireCredentials: false }, (session) =>
    withSystemClient(context, command, session.config, session.logger, (system) => run({ ...session, system })),
  );
}

/**
 * The line for a call whose target's cooldown ends after the command's deadline, or undefined when its turn comes in
 * time: "… game server 4711 can be called again at 2026-11-27T23:12:04Z; nothing was sent (--timeout 15 s)".
 */
export function cooldownPastDeadline(subject: SystemSubject, cooldownMs: number, freeAt: number | undefined, deadlineAt: number, timeoutSeconds: number): string | undefined {
  if (freeAt === undefined || freeAt <= deadlineAt) return undefined;
  return `${cooldownMessage(subject, cooldownMs, freeAt)}, after the --timeout of ${timeoutSeconds} s: nothing was sent`;
}
