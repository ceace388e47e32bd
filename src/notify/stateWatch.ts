// Turns what the sidecar knows into notifications, once per change of state: it samples read-only sources every
// second (ServiceHealth's problems, each adapter's readiness, the Retry-After hold) and listens to the core's events
// (reviews turned unconfirmed or dead, the chat filter's steps). A state is told when it starts (credentials refused
// at once; GSA unreachable, an adapter down, a hold only once they lasted notify.afterMs, a hold at least a minute),
// again as a summary at most every afterMs while it lasts, and once when it ends; one that ends before it was told
// is never told. Reviews come one at a time, so their state starts with the first one and ends after afterMs
// without another.
// It never sends anything (the notifier does), never blocks or throws into the sources or the event emitter, and
// never changes the sidecar.

import type { BridgeEvents, ModerationEvent, ReviewEvent } from '../bridge/events.js';
import type { OperationsSources } from '../ops/operations.js';
import { describeDuration, SYSTEM_CREDENTIALS_PROBLEM, type ServiceProblem } from '../ops/serviceHealth.js';
import { systemClock, type Clock } from '../time/clock.js';
import { printableText } from '../text/printableText.js';
import { severityOf, type ModerationStep, type Notification, type NotifiedPlayer, type NotifyPhase, type NotifyState } from './notifyEvents.js';

/** What the watch reads, at the time it samples: the same functions /readyz and the gauges read. Each must return at once. */
export type NotifySources = Pick<OperationsSources, 'adapters' | 'serviceProblems' | 'budgetHoldSeconds'>;

/** The parts of notify that decide what is told and when (notify.afterMs, notify.moderation). */
export interface StateWatchRules {
  /** How long a slow-to-tell state lasts before it is told, and the least time between two summaries of one state. */
  readonly afterMs: number;
  /** Each step of the chat filter (a warning, a mute, an unmute) is told too. */
  readonly moderation: boolean;
}

export interface StateWatchOptions {
  readonly sources: NotifySources;
  readonly events: BridgeEvents;
  readonly rules: StateWatchRules;
  /** Takes each notification; must return at once and never throw (the notifier only queues it). */
  readonly notify: (notification: Notification) => void;
  /** Wall-clock ms, the same as ServiceHealth's (a problem's `since` is on it). Tests pass fake time. */
  readonly clock?: Clock | undefined;
  /** How often the sources are read. @default 1000 */
  readonly sampleMs?: number | undefined;
}

/** A Retry-After hold is worth telling only once it lasted this long, whatever afterMs says. */
const HOLD_MIN_MS = 60_000;
/**
 * A hold that ended comes back within a round trip when GSA answers 429 again: this long without one before the held
 * state is over, so back-to-back holds are one state, not a start and an end every minute.
 */
const HOLD_END_GRACE_MS = 10_000;

/** One state seen in a sample of the sources. */
interface Observed {
  readonly key: string;
  readonly state: 'credentials_refused' | 'gsa_unreachable' | 'adapter_down' | 'budget_held';
  readonly server: string | null;
  readonly adapter: string | null;
  /** When it began, when the source knows (a problem's `since`); else the first sample that saw it. */
  readonly since?: number | undefined;
  readonly problem?: ServiceProblem | undefined;
  readonly holdSeconds?: number | undefined;
}

/** A state seen in the sources, from the first sample that saw it until it is over. */
interface Lasting {
  observed: Observed;
  readonly since: number;
  /** When its start was told; undefined while it has not lasted long enough. */
  toldAt: number | undefined;
  /** When its start or last summary was told. */
  lastToldAt: number;
  /** The first sample that no longer saw it (a hold's grace). */
  clearSince: number | undefined;
}

/** Reviews of one server turning unconfirmed (or dead), one after another. */
interface ReviewEpisode {
  readonly state: 'reviews_unconfirmed' | 'reviews_dead';
  readonly server: string;
  readonly since: number;
  lastAt: number;
  lastToldAt: number;
  total: number;
  /** Since the last notification, by GSA's code. */
  readonly untold: Map<string, number>;
}

function countOf(codes: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const count of codes.values()) total += count;
  return total;
}

function describeCodes(codes: ReadonlyMap<string, number>): string {
  return [...codes].map(([code, count]) => `${code} ×${String(count)}`).join(', ');
}

const STEP_VERBS: Readonly<Record<ModerationStep, { readonly done: string; readonly would: string; readonly noun: string }>> = {
  warn: { done: 'warned', would: 'would have warned', noun: 'warning' },
  mute: { done: 'muted', would: 'would have muted', noun: 'mute' },
  unmute: { done: 'unmuted', would: 'would have unmuted', noun: 'unmute' },
};

/** The player a step was about, as the event names them: the id, and the game's name made printable. */
function notifiedPlayer(event: ModerationEvent): NotifiedPlayer | undefined {
  if (event.player === undefined) return undefined;
  const name = event.playerName === undefined ? '' : printableText(event.playerName, 64);
  return { id: printableText(event.player, 100), name: name === '' ? null : name };
}

/** "player 7656… "Rex"": the name quoted, so nothing in it reads as the sentence's own words. */
function describeNotified(player: NotifiedPlayer | undefined): string {
  if (player === undefined) return 'a player';
  return player.name === null ? `player ${player.id}` : `player ${player.id} ${JSON.stringify(player.name)}`;
}

export class StateWatch {
  readonly #sources: NotifySources;
  readonly #events: BridgeEvents;
  readonly #notify: (notification: Notification) => void;
  readonly #clock: Clock;
  readonly #sampleMs: number;
  #rules: StateWatchRules;
  readonly #lasting = new Map<string, Lasting>();
  readonly #reviews = new Map<string, ReviewEpisode>();
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void)[] = [];

  constructor(options: StateWatchOptions) {
    this.#sources = options.sources;
    this.#events = options.events;
    this.#notify = options.notify;
    this.#rules = options.rules;
    this.#clock = options.clock ?? systemClock;
    this.#sampleMs = options.sampleMs ?? 1000;
  }

  /** Subscribes to the events and samples every sampleMs. Idempotent. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#unsubscribe = [
      this.#events.on('review', (event) => {
        this.#review(event);
      }),
      this.#events.on('moderation', (event) => {
        this.#moderation(event);
      }),
    ];
    this.#timer = setInterval(() => {
      this.sample();
    }, this.#sampleMs);
    // Notifications are no reason to keep the process alive.
    this.#timer.unref();
  }

  /** A reload's notify.afterMs and notify.moderation; the states already known keep their times. */
  setRules(rules: StateWatchRules): void {
    this.#rules = rules;
  }

  /** Stops sampling and listening. States still lasting are not told as ended (nothing ended). */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  /** One look at the sources: what started, lasts or ended since the last. The interval calls it. Never throws. */
  sample(): void {
    const now = this.#clock.now();
    let observed: Observed[];
    let configured: Set<string>;
    try {
      ({ observed, configured } = this.#observe());
    } catch {
      // A source that fails (a sidecar mid-reload) is read again at the next sample.
      return;
    }
    const seen = new Set<string>();
    for (const state of observed) {
      seen.add(state.key);
      this.#lasts(state, now);
    }
    for (const [key, lasting] of this.#lasting) {
      if (seen.has(key)) continue;
      lasting.clearSince ??= now;
      const grace = lasting.observed.state === 'budget_held' ? HOLD_END_GRACE_MS : 0;
      if (now - lasting.clearSince < grace) continue;
      this.#lasting.delete(key);
      if (lasting.toldAt !== undefined) this.#tell(lasting.observed, 'end', this.#endMessage(lasting, now, configured), now);
    }
    this.#sampleReviews(now);
  }

  #observe(): { observed: Observed[]; configured: Set<string> } {
    const observed: Observed[] = [];
    for (const problem of this.#sources.serviceProblems()) {
      if (problem.kind === 'credentials') observed.push({ key: `credentials_refused:${problem.key}`, state: 'credentials_refused', server: null, adapter: null, since: problem.since, problem });
      else if (problem.kind === 'unreachable') observed.push({ key: 'gsa_unreachable', state: 'gsa_unreachable', server: null, adapter: null, since: problem.since, problem });
    }
    const configured = new Set<string>();
    for (const adapter of this.#sources.adapters()) {
      const key = `adapter_down:${adapter.server}\u0000${adapter.id}`;
      configured.add(key);
      if (!adapter.ready) observed.push({ key, state: 'adapter_down', server: adapter.server, adapter: adapter.id });
    }
    const holdSeconds = this.#sources.budgetHoldSeconds();
    if (holdSeconds > 0) observed.push({ key: 'budget_held', state: 'budget_held', server: null, adapter: null, holdSeconds });
    return { observed, configured };
  }

  /** How long a state must last before its start is told. */
  #delayOf(state: Observed['state']): number {
    switch (state) {
      case 'credentials_refused':
        return 0;
      case 'budget_held':
        return Math.max(HOLD_MIN_MS, this.#rules.afterMs);
      default:
        return this.#rules.afterMs;
    }
  }

  #lasts(observed: Observed, now: number): void {
    let lasting = this.#lasting.get(observed.key);
    if (lasting === undefined) {
      lasting = { observed, since: Math.min(observed.since ?? now, now), toldAt: undefined, lastToldAt: 0, clearSince: undefined };
      this.#lasting.set(observed.key, lasting);
    }
    lasting.observed = observed;
    lasting.clearSince = undefined;
    if (lasting.toldAt === undefined) {
      if (now - lasting.since < this.#delayOf(observed.state)) return;
      lasting.toldAt = now;
      lasting.lastToldAt = now;
      this.#tell(observed, 'start', this.#lastingMessage(lasting, 'start', now), now);
      return;
    }
    if (now - lasting.lastToldAt < this.#rules.afterMs) return;
    lasting.lastToldAt = now;
    this.#tell(observed, 'summary', this.#lastingMessage(lasting, 'summary', now), now);
  }

  #lastingMessage(lasting: Lasting, phase: 'start' | 'summary', now: number): string {
    const { observed } = lasting;
    const lasted = describeDuration(now - lasting.since);
    switch (observed.state) {
      case 'credentials_refused': {
        const message = observed.problem?.message ?? 'GSA refused the API credentials (401)';
        return phase === 'start' ? message : `${message} (refused for ${lasted}, ${String(observed.problem?.failures ?? 0)} requests so far)`;
      }
      case 'gsa_unreachable': {
        const failures = String(observed.problem?.failures ?? 0);
        const last = observed.problem?.message ?? 'GSA is unreachable';
        const head = phase === 'start' ? `GSA has been unreachable for ${lasted}` : `GSA still unreachable after ${lasted}`;
        return `${head} (${failures} requests failed so far): chat is decided by mute.onUnknown and reviews wait on disk. ${last}`;
      }
      case 'adapter_down': {
        const head = phase === 'start' ? `has been down for ${lasted}` : `still down after ${lasted}`;
        return `Adapter ${observed.adapter ?? '?'} of server ${observed.server ?? '?'} ${head} (an RCON adapter not logged in, or a mod listener not listening): its chat is not gated meanwhile.`;
      }
      case 'budget_held': {
        const left = String(Math.ceil(observed.holdSeconds ?? 0));
        const head = phase === 'start' ? `GSA has held this API key's calls with Retry-After for ${lasted}` : `API calls still held by Retry-After after ${lasted}`;
        return `${head} (${left} s left on the current hold): the key's budget is spent, perhaps by other sidecars or tools on the same key. Chat is decided by mute.onUnknown meanwhile and reviews wait on disk.`;
      }
    }
  }

  #endMessage(lasting: Lasting, now: number, configured: ReadonlySet<string>): string {
    const { observed } = lasting;
    const lasted = describeDuration(now - lasting.since);
    switch (observed.state) {
      case 'credentials_refused': {
        const which = observed.problem?.key === SYSTEM_CREDENTIALS_PROBLEM ? 'the System API key' : 'the API credentials';
        return `GSA no longer refuses ${which} (after ${lasted}): a request was accepted, or a reload brought new ones.`;
      }
      case 'gsa_unreachable':
        return `GSA answers again after ${lasted} unreachable.`;
      case 'adapter_down': {
        const where = `Adapter ${observed.adapter ?? '?'} of server ${observed.server ?? '?'}`;
        return configured.has(observed.key) ? `${where} is up again after ${lasted} down.` : `${where} is no longer in the config (it was down for ${lasted}).`;
      }
      case 'budget_held':
        return `API calls flow again after ${lasted} of Retry-After holds.`;
    }
  }

  #review(event: ReviewEvent): void {
    if (event.result !== 'unconfirmed' && event.result !== 'refused') return;
    const state = event.result === 'unconfirmed' ? 'reviews_unconfirmed' : 'reviews_dead';
    const key = `${state}:${event.server}`;
    const code = event.code ?? event.result;
    const now = this.#clock.now();
    const known = this.#reviews.get(key);
    if (known !== undefined) {
      known.lastAt = now;
      known.total += 1;
      known.untold.set(code, (known.untold.get(code) ?? 0) + 1);
      return;
    }
    this.#reviews.set(key, { state, server: event.server, since: now, lastAt: now, lastToldAt: now, total: 1, untold: new Map() });
    const message =
      state === 'reviews_unconfirmed'
        ? `Review ${event.review} for ${event.server} is unconfirmed: GSA did not confirm it and it may have been stored, so it was not sent again. Check GSA; \`gsa-bridge reviews retry ${event.review}\` sends it again.`
        : `Review ${event.review} for ${event.server} was refused by GSA (${code}) and is kept with the dead letters; \`gsa-bridge reviews list --state dead\` lists them.`;
    this.#tellReviews(state, event.server, 'start', message, now);
  }

  #sampleReviews(now: number): void {
    const { afterMs } = this.#rules;
    for (const [key, episode] of this.#reviews) {
      const what = episode.state === 'reviews_unconfirmed' ? 'unconfirmed' : 'refused by GSA';
      const untold = countOf(episode.untold);
      const untoldPart = untold === 0 ? '' : ` (${describeCodes(episode.untold)} since the last notification)`;
      if (now - episode.lastAt >= afterMs) {
        this.#reviews.delete(key);
        const message = `No review for ${episode.server} turned ${what} in the last ${describeDuration(afterMs)}: ${String(episode.total)} in ${describeDuration(episode.lastAt - episode.since)}${untoldPart}. \`gsa-bridge reviews list\` shows them.`;
        this.#tellReviews(episode.state, episode.server, 'end', message, now);
        continue;
      }
      if (untold === 0 || now - episode.lastToldAt < afterMs) continue;
      const message = `${String(untold)} more reviews for ${episode.server} turned ${what} (${describeCodes(episode.untold)}); ${String(episode.total)} since ${describeDuration(now - episode.since)} ago.`;
      episode.untold.clear();
      episode.lastToldAt = now;
      this.#tellReviews(episode.state, episode.server, 'summary', message, now);
    }
  }

  #moderation(event: ModerationEvent): void {
    // The line's own block comes with every strike: the step (warn, mute) is what a host wants to hear.
    if (!this.#rules.moderation || event.action === 'block') return;
    const verbs = STEP_VERBS[event.action];
    const player = notifiedPlayer(event);
    const who = describeNotified(player);
    const outcome: Record<ModerationEvent['result'], string> = {
      ok: `the chat filter ${verbs.done} ${who}`,
      dry_run: `the chat filter ${verbs.would} ${who} (moderation.filter.dryRun)`,
      refused: `GSA refused the chat filter's ${verbs.noun} of ${who}; \`gsa-bridge moderation list\` shows GSA's answer`,
      failed: `the chat filter's ${verbs.noun} of ${who} failed: GSA did not answer`,
      not_supported: `the chat filter's ${verbs.noun} of ${who} was not done: this game cannot do it`,
    };
    const trouble = event.result === 'refused' || event.result === 'failed';
    this.#send({
      kind: 'moderation',
      step: event.action,
      severity: trouble ? 'warning' : 'info',
      server: event.server,
      adapter: null,
      message: `On ${event.server}, ${outcome[event.result]}.`,
      at: this.#clock.now(),
      player,
    });
  }

  #tell(observed: Observed, phase: NotifyPhase, message: string, now: number): void {
    this.#send({ kind: 'state', state: observed.state, phase, severity: severityOf(observed.state, phase), server: observed.server, adapter: observed.adapter, message, at: now });
  }

  #tellReviews(state: NotifyState, server: string, phase: NotifyPhase, message: string, now: number): void {
    this.#send({ kind: 'state', state, phase, severity: severityOf(state, phase), server, adapter: null, message, at: now });
  }

  #send(notification: Notification): void {
    try {
      this.#notify(notification);
    } catch {
      // The notifier only queues; whatever went wrong there must not reach a source or the event emitter.
    }
  }
}
