// Runs one command that talks to the service: loads the config (file and environment), builds the logger
// and the client, runs the call, and maps the outcome to the contract's exit codes and plain messages.
// It owns the client's lifetime: the pool is closed whatever happens. The command's call has one overall
// deadline (--timeout), retries included; on a terminal each retry is one line on stderr, so a hung service shows
// progress instead of silence. With api.rateLimit.shared, a call that cannot reach Redis says so in one line: its
// webhook is then spaced within this process only. The shared Redis is closed after its last records are sent.

import type { Logger } from 'pino';
import { ConfigError, collectSecrets, formatProblem, loadConfig, serviceClientOptions, sharedApiKeyOptions, type BridgeConfig } from '../app/config.js';
import { GsaClient, GsaError, SharedApiKey, type CallOptions, type RetryNotice } from '../gsa/index.js';
import { redisLabel } from '../gsa/redis/sharedRedis.js';
import { commandLogger } from './commandLogger.js';
import type { CliContext } from './context.js';
import { EXIT_REFUSED, EXIT_USAGE } from './exitCodes.js';

/** How long a one-shot command waits for the shared Redis's answer, and for its connection. */
const ONE_SHOT_REDIS_ANSWER_MS = 1000;
const ONE_SHOT_REDIS_CONNECT_MS = 3000;

export interface ServiceSession {
  readonly client: GsaClient;
  readonly config: BridgeConfig;
  readonly logger: Logger;
  /**
   * The options for the command's call to the service, `what` naming it in lines ("mute check", "restart of server
   * 4711"): the overall deadline starts now (after any question asked at the terminal).
   */
  readonly callOptions: (what: string) => CallOptions;
}

export interface ServiceSessionOptions {
  /** --config, if given. */
  readonly configPath: string | undefined;
  /** --pretty was given. */
  readonly pretty: boolean;
  /** --timeout: the call's overall deadline in seconds, retries included. */
  readonly timeoutSeconds: number;
  /**
   * Whether api.clientId and api.clientSecret must be set. Default true; the System API commands need only its key
   * (false), and `server` needs them only without one (`unlessSystemKey`: every action but wipe then goes through it).
   */
  readonly requireCredentials?: boolean | 'unlessSystemKey' | undefined;
}

/** "no answer (timeout)", "answered 503": why an attempt failed, in a few words. */
function failureReason(notice: RetryNotice): string {
  return notice.error.status === undefined ? `no answer (${notice.error.code})` : `answered ${String(notice.error.status)} (${notice.error.code})`;
}

/** One retry line: "mute check: no answer (timeout); retrying in 1.2 s (attempt 2 of 6)". */
export function retryLine(what: string, notice: RetryNotice): string {
  return `${what}: ${failureReason(notice)}; retrying in ${(notice.delayMs / 1000).toFixed(1)} s (attempt ${String(notice.attempt + 1)} of ${String(notice.maxAttempts)})`;
}

/** The command's call as the session tracks it: its name, its deadline, and how many attempts it made. */
export class DeadlineCall {
  readonly #seconds: number;
  readonly #stderr: CliContext['stderr'];
  readonly #controller = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #what: string | undefined;
  #attempts = 1;

  constructor(seconds: number, stderr: CliContext['stderr']) {
    this.#seconds = seconds;
    this.#stderr = stderr;
  }

  options(what: string): CallOptions {
    this.#what = what;
    this.#timer ??= setTimeout(() => {
      this.#controller.abort();
    }, this.#seconds * 1000);
    return {
      signal: this.#controller.signal,
      onRetry: (notice) => {
        this.#attempts = notice.attempt + 1;
        if (this.#stderr.isTTY === true) this.#stderr.write(`${retryLine(what, notice)}\n`);
      },
    };
  }

  /** The line for a webhook call spaced within this process only, Redis at `label` being unreachable. */
  localSpacingLine(label: string, reason: string): string {
    return `warning: Redis at ${label} cannot be reached (${reason}); the ${this.#what ?? 'call'} is spaced within this process only, not with other sidecars or commands`;
  }

  /** The line for a call the deadline ended, or undefined when it did not. */
  expiredLine(): string | undefined {
    if (!this.#controller.signal.aborted) return undefined;
    const attempts = this.#attempts === 1 ? '1 attempt' : `${String(this.#attempts)} attempts`;
    return `error (timeout): ${this.#what ?? 'the call'}: no answer within ${String(this.#seconds)} s (--timeout SECONDS), ${attempts}; gave up`;
  }

  close(): void {
    clearTimeout(this.#timer);
  }
}

/** Prints every problem of an invalid config on its own line, as `path: message`. */
export function reportConfigError(context: CliContext, error: ConfigError): number {
  for (const problem of error.problems) context.stderr.write(`${formatProblem(problem)}\n`);
  return EXIT_USAGE;
}

export async function withServiceSession(
  context: CliContext,
  options: ServiceSessionOptions,
  run: (session: ServiceSession) => Promise<number>,
): Promise<number> {
  let config: BridgeConfig;
  try {
    // One-shot commands need no file when the environment supplies the URL and credentials; a file the host
    // named (flag or GSA_BRIDGE_CONFIG) must exist, though.
    const named = options.configPath !== undefined || (context.env.GSA_BRIDGE_CONFIG ?? '') !== '';
    ({ config } = await loadConfig({ path: options.configPath, env: context.env, requireFile: named, cwd: context.cwd, requireCredentials: options.requireCredentials }));
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(context, error);
    throw error;
  }
  const logger = commandLogger(context, { level: config.log.level, secrets: collectSecrets(config), pretty: options.pretty, oneShot: true });
  const call = new DeadlineCall(options.timeoutSeconds, context.stderr);
  // With api.rateLimit.shared, a one-shot call counts in the key's shared window and keeps the shared webhook spacing.
  const sharedSettings = sharedApiKeyOptions(config);
  const sharedKey =
    sharedSettings === undefined
      ? undefined
      : new SharedApiKey({
          ...sharedSettings,
          // One call, no chat waiting on it: a busy machine's slow Redis is waited for rather than worked around (the
          // sidecar's 250 ms and 1 s keep chat moving; here they would only lose the shared window and spacing).
          answerTimeoutMs: ONE_SHOT_REDIS_ANSWER_MS,
          connectTimeoutMs: ONE_SHOT_REDIS_CONNECT_MS,
          logger,
          onWebhookSpacingLocal: (reason) => {
            context.stderr.write(`${call.localSpacingLine(redisLabel(sharedSettings.url), reason)}\n`);
          },
        });
  const client = new GsaClient({ ...serviceClientOptions(config), logger, budget: sharedKey?.budget, webhookSpacing: sharedKey?.webhookSpacing });
  try {
    return await run({ client, config, logger, callOptions: (what) => call.options(what) });
  } catch (error) {
    if (!(error instanceof GsaError)) throw error;
    // A cooldown the deadline cut short says when the call can be made, which the timeout line would not.
    const expired = error.code === 'cooldown' ? undefined : call.expiredLine();
    context.stderr.write(`${expired ?? `error (${error.code}): ${error.message}`}\n`);
    return error.code === 'invalid_input' ? EXIT_USAGE : EXIT_REFUSED;
  } finally {
    call.close();
    await client.close();
    // Waits for the call's departure to reach Redis (at most one answer timeout): the next command must see it.
    await sharedKey?.close();
  }
}
