// The reloads `gsa-bridge reload` asks a running `run` for, through its control channel: each is posted into the run
// loop's signal queue (so it runs in turn with SIGHUPs) and answered with what the reload that took it did. Once the
// sidecar is stopping none is taken any more: a new one is refused at once, the ones still waiting are answered with
// the same reason, and the log says so. A reload taken then would apply a config to adapters being stopped, or leave
// its asker waiting for a loop that has ended.
// It never reloads anything itself and never reads the config.

import { RELOAD_TRIGGER, type ReloadOutcome } from './reloadCommand.js';

/** What an asker is told: the reload's outcome, or why none will run for it. */
export type ReloadAnswer = ReloadOutcome | { readonly refused: string };

/** The reason a reload asked for after the stop began is refused with (the command prints it). */
export const REFUSED_WHILE_STOPPING = 'the sidecar is stopping';

/** The structural logger the refusals are told through (pino satisfies it). */
export interface ReloadRequestsLogger {
  warn(object: object, message: string): void;
}

export class ReloadRequests {
  readonly #post: () => void;
  readonly #logger: ReloadRequestsLogger;
  #waiting: ((answer: ReloadAnswer) => void)[] = [];
  #stopping = false;

  /** `post` queues one reload into the run loop (coalesced there: several waiting askers share one reload). */
  constructor(post: () => void, logger: ReloadRequestsLogger) {
    this.#post = post;
    this.#logger = logger;
  }

  /** Asks for a reload; resolves with its outcome, or at once with the refusal when the sidecar is stopping. */
  ask(): Promise<ReloadAnswer> {
    if (this.#stopping) {
      this.#warnRefused(1);
      return Promise.resolve({ refused: REFUSED_WHILE_STOPPING });
    }
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#post();
    });
  }

  /**
   * A reload is starting: the askers waiting now are answered by it (it reads the file after they asked). Call
   * `answer` with its outcome; one who asks while it runs posts the next.
   */
  take(): (outcome: ReloadOutcome) => void {
    const asked = this.#waiting;
    this.#waiting = [];
    return (outcome) => {
      for (const answer of asked) answer(outcome);
    };
  }

  /** The sidecar begins to stop: the askers still waiting are told it will not reload, and later ones are refused. */
  stop(): void {
    this.#stopping = true;
    const asked = this.#waiting;
    this.#waiting = [];
    if (asked.length > 0) this.#warnRefused(asked.length);
    for (const answer of asked) answer({ refused: REFUSED_WHILE_STOPPING });
  }

  #warnRefused(count: number): void {
    this.#logger.warn({ requests: count }, `${RELOAD_TRIGGER} refused: ${REFUSED_WHILE_STOPPING}; the config is not reloaded`);
  }
}
