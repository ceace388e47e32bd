// The sidecar's Prometheus metrics (names and labels are the contract's, interfaces.md "Operations endpoints"):
// counters and histograms fed by the core's events, gauges read at scrape time from functions it is given, and the
// process defaults, all in a registry of its own (never prom-client's global one: several sidecars may share a
// test process). Labels are bounded: an endpoint from a fixed set, an HTTP status or a fixed word, allow/block/not_gated, the
// configured servers and adapter ids, an unattributed line's reason (UNATTRIBUTED_REASONS); never a player id or a message.
// It never changes what the core does and never throws into a publisher.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from './promClientCore.js';
import { UNATTRIBUTED_REASONS, type UnattributedReason } from '../bridge/chatAttribution.js';
import type { AccessEvent, BridgeEvents, ChatLineEvent, ModerationEvent, MoneyEvent, RequestEvent, VerdictEvent } from '../bridge/events.js';
import { BUDGET_CLASSES } from '../gsa/budget/budgetShares.js';
import type { BudgetState } from '../gsa/budget/rateLimiter.js';
import { HotHistogram } from './hotHistogram.js';

/** One adapter as readiness and the adapter gauge see it. */
export interface AdapterState {
  /** The GSA container name of its game server. */
  readonly server: string;
  /** The adapter's id (stable across reorderings of the config file). */
  readonly id: string;
  /** Up: a mod listener listening, an RCON session logged in. */
  readonly ready: boolean;
}

/** What the gauges read at scrape time. Each must return at once and never throw. */
export interface MetricsSources {
  readonly adapters: () => readonly AdapterState[];
  readonly outboxPending: () => number;
  /** Whether the API budget is shared through Redis right now (api.rateLimit.shared); absent: never (0). */
  readonly budgetShared?: (() => boolean) | undefined;
  /** Seconds the Retry-After hold in force on the key still runs; absent: never held (0). */
  readonly budgetHoldSeconds?: (() => number) | undefined;
  /** Whether GSA refuses the key of `api` right now (a 401 on the key, not a player's 403); absent: never (0). */
  readonly credentialsRefused?: ((api: ApiName) => boolean) | undefined;
  /** Seconds since the outage in force began; 0 while GSA answers (absent: always 0). */
  readonly unreachableSeconds?: (() => number) | undefined;
  /** The API keys in use, each named by a hash (never the key or a secret); absent: none exposed. */
  readonly apiKeys?: (() => readonly ApiKeyLabel[]) | undefined;
  /** The mod API key's limiter: calls waiting per class and the window's room; absent or undefined: no series. */
  readonly budgetState?: (() => BudgetState | undefined) | undefined;
}

/** The two APIs whose keys a sidecar may hold: the mod API (client id and secret) and the System API (api.system.key). */
export type ApiName = 'mod' | 'system';

export const API_NAMES: readonly ApiName[] = ['mod', 'system'];

/** One key as gsa_bridge_api_key_info labels it. */
export interface ApiKeyLabel {
  readonly api: ApiName;
  /** A short hash naming the key (apiKeyDigest): the same on every sidecar using the key. */
  readonly key: string;
}

export interface SidecarMetricsOptions {
  readonly events: BridgeEvents;
  readonly sources: MetricsSources;
  /** Process CPU, memory, event loop lag, GC… (prom-client's defaults). Default true; tests of labels turn it off. */
  readonly processDefaults?: boolean | undefined;
}

/** Why a chat line got its verdict, for gsa_bridge_chat_verdict_reasons_total{reason} (VerdictEvent.reason). */
export type VerdictReason = VerdictEvent['reason'];

export const VERDICT_REASONS: readonly VerdictReason[] = ['ok', 'muted', 'unknown', 'not_gated', 'filtered'];

/** A chat filter step and what it came to, for gsa_bridge_moderation_actions_total{action,result}. */
export const MODERATION_ACTION_LABELS: readonly ModerationEvent['action'][] = ['block', 'warn', 'mute', 'unmute'];
export const MODERATION_RESULT_LABELS: readonly ModerationEvent['result'][] = ['ok', 'refused', 'failed', 'dry_run', 'not_supported'];

/** A money request's kind and fate, for gsa_bridge_money_requests_total{kind,state}. */
export const MONEY_KIND_LABELS: readonly MoneyEvent['kind'][] = ['order', 'tokens'];
export const MONEY_STATE_LABELS: readonly MoneyEvent['state'][] = ['done', 'refused', 'unconfirmed'];

/** The outcome of a SIGHUP, for gsa_bridge_config_reloads_total{result}. */
export type ReloadResult = 'success' | 'invalid' | 'failed';

export const RELOAD_RESULTS: readonly ReloadResult[] = ['success', 'invalid', 'failed'];

/** The adapter label of chat lines reported to a bridge directly, through no adapter's sink (an embedding, a test). */
export const NO_ADAPTER_LABEL = '';

/** The status label when no answer came (network error, timeout). */
export const NO_ANSWER_STATUS = 'none';

/** Requests to GSA: from a fast answer on loopback to the 5 s default timeout and a little beyond. */
const REQUEST_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Chat verdicts: a cache hit is decided in microseconds; a service answer takes a round trip; the policy answers
 * at 270 ms of the default 300 ms decision timeout (chatGate.ts), so there are buckets on both sides of it.
 */
const VERDICT_BUCKETS_S = [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 1];

/** An HTTP status as a label: the number, or a fixed word for none, so the label set stays bounded. */
export function statusLabel(status: number | undefined): string {
  if (status === undefined) return NO_ANSWER_STATUS;
  return Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : 'other';
}

export class SidecarMetrics {
  readonly registry = new Registry();
  readonly #reloads: Counter<'result'>;
  readonly #unsubscribe: (() => void)[];

  constructor(options: SidecarMetricsOptions) {
    const registers = [this.registry];
    const { sources } = options;
    const requests = new Counter({
      name: 'gsa_bridge_api_requests_total',
      help: 'Attempts at requests to GSA, by endpoint (mute, review, webhook, system-read, system-write; access, report-settings, report, shop, shop-order, tokens, ui) and HTTP status ("none": no answer).',
      labelNames: ['endpoint', 'status'],
      registers,
    });
    const requestDuration = new Histogram({
      name: 'gsa_bridge_api_request_duration_seconds',
      help: 'Time from sending a request to GSA to its answer or failure (rate-limit waits not included).',
      labelNames: ['endpoint'],
      buckets: REQUEST_BUCKETS_S,
      registers,
    });
    const hits = new Counter({ name: 'gsa_bridge_mute_cache_hits_total', help: 'Chat lines and mute checks answered from the mute cache.', registers });
    const misses = new Counter({ name: 'gsa_bridge_mute_cache_misses_total', help: 'Chat lines and mute checks the mute cache could not answer.', registers });
    // Every chat line counts here, so the hot listeners add to plain numbers and the counter takes them at scrape
    // time: a labelled prom-client counter hashes its labels on each inc() (about 180 ns, more than a cached verdict).
    // not_gated: a line on a channel outside mute.gatedChannels, allowed unchecked; apart from "allow" so that
    // allow and block stay the lines the mute check decided.
    const unscraped = { allow: 0, block: 0, not_gated: 0 };
    // Keyed by every reason the event can carry: a new reason that is not added here fails to compile.
    const unscrapedReasons: Record<VerdictReason, number> = { ok: 0, muted: 0, unknown: 0, not_gated: 0, filtered: 0 };
    new Counter({
      name: 'gsa_bridge_chat_verdicts_total',
      help: 'Chat lines decided, by verdict (allow, block; not_gated: on a channel outside mute.gatedChannels, allowed unchecked).',
      labelNames: ['verdict'],
      registers,
      collect() {
        this.inc({ verdict: 'allow' }, unscraped.allow);
        this.inc({ verdict: 'block' }, unscraped.block);
        this.inc({ verdict: 'not_gated' }, unscraped.not_gated);
        unscraped.allow = 0;
        unscraped.block = 0;
        unscraped.not_gated = 0;
      },
    });
    // Beside the contract's counter, not a label on it: its series {verdict="allow"} and {verdict="block"} stay as
    // they are. `unknown` is the share of chat that GSA did not answer in time for (mute.onUnknown decided).
    new Counter({
      name: 'gsa_bridge_chat_verdict_reasons_total',
      help: 'Chat lines decided, by reason: ok (not muted), muted, unknown (GSA did not answer in time; mute.onUnknown decided), not_gated (a channel outside mute.gatedChannels, allowed unchecked), filtered (blocked by the chat filter, moderation.filter).',
      labelNames: ['reason'],
      registers,
      collect() {
        for (const reason of VERDICT_REASONS) {
          this.inc({ reason }, unscrapedReasons[reason]);
          unscrapedReasons[reason] = 0;
        }
      },
    });
    const verdictDuration = new HotHistogram({
      name: 'gsa_bridge_chat_verdict_duration_seconds',
      help: 'Time to decide a gated chat line (mute.decisionTimeoutMs bounds it; a cache hit is near 0; not_gated lines are not timed).',
      buckets: VERDICT_BUCKETS_S,
      registers,
    });
    const chatLines = new ChatLineTallies(sources.adapters);
    new Counter({
      name: 'gsa_bridge_chat_lines_total',
      help: "Chat-like lines an adapter read (a mod's chat frames; chat lines of a game's console or log), tied to a listed player or not: the denominator of gsa_bridge_chat_unattributed_total.",
      labelNames: ['server', 'adapter'],
      registers,
      collect() {
        for (const tally of chatLines.all()) {
          this.inc({ server: tally.server, adapter: tally.adapter }, tally.lines);
          tally.lines = 0;
        }
      },
    });
    new Counter({
      name: 'gsa_bridge_chat_unattributed_total',
      help: "Chat-like lines that could not be tied to a listed player, so their speaker's mute was not checked, by reason: unreadable (no reader, chatPattern included, could read a speaker; a mod's chat frame with a bad player field), not_listed (the name is not on the game's player list), ambiguous (several listed players fit), unconfirmed_id (an id on the line the player list does not confirm for that name).",
      labelNames: ['server', 'adapter', 'reason'],
      registers,
      collect() {
        for (const tally of chatLines.all()) {
          for (const reason of UNATTRIBUTED_REASONS) {
            this.inc({ server: tally.server, adapter: tally.adapter, reason }, tally.unattributed[reason]);
            tally.unattributed[reason] = 0;
          }
        }
      },
    });
    const resent = new Counter({
      name: 'gsa_bridge_reviews_resent_after_restart_total',
      help: 'Reviews sent again after a restart that were in flight (sent, no answer journaled) when the previous process stopped: possible duplicates at GSA.',
      registers,
    });
    const damaged = new Counter({
      name: 'gsa_bridge_reviews_damaged_total',
      help: 'Review journal lines found damaged at start (whole lines that no longer read as a record, each possibly an acknowledged review) and moved byte for byte to reviews.damaged.jsonl for a person: gsa-bridge reviews list --state damaged.',
      registers,
    });
    new Gauge({
      name: 'gsa_bridge_outbox_pending',
      help: 'Reviews accepted and not yet delivered, refused or unconfirmed.',
      registers,
      collect() {
        this.set(sources.outboxPending());
      },
    });
    new Gauge({
      name: 'gsa_bridge_budget_shared',
      help: 'Whether the API budget is shared with the other sidecars on the key through Redis (1), or kept by this sidecar alone (0): no api.rateLimit.shared, or its local fallback of floor(requests / nodes) while Redis cannot be reached.',
      registers,
      collect() {
        this.set(sources.budgetShared?.() === true ? 1 : 0);
      },
    });
    new Gauge({
      name: 'gsa_bridge_budget_hold_seconds',
      help: "Seconds the Retry-After hold in force on the API key still runs (GSA's own answer to this sidecar, or one shared by another sidecar through Redis and within this sidecar's api.retry.maxRetryAfterMs): no call on the key starts until then. 0 when none.",
      registers,
      collect() {
        this.set(Math.max(0, sources.budgetHoldSeconds?.() ?? 0));
      },
    });
    new Gauge({
      name: 'gsa_bridge_credentials_refused',
      help: 'Whether GSA refuses the API key right now (1), by api: mod (a 401 to a mute lookup or a review, until one succeeds; api.clientId / api.clientSecret), system (a 401 of the System API; api.system.key). A player refused on their own account (a 403, a review not_eligible) never sets it.',
      labelNames: ['api'],
      registers,
      collect() {
        for (const api of API_NAMES) this.set({ api }, sources.credentialsRefused?.(api) === true ? 1 : 0);
      },
    });
    new Gauge({
      name: 'gsa_bridge_gsa_unreachable_seconds',
      help: 'Seconds since GSA stopped answering (network errors, timeouts, 5xx; counted from the first failure of the outage); 0 while it answers.',
      registers,
      collect() {
        this.set(Math.max(0, sources.unreachableSeconds?.() ?? 0));
      },
    });
    new Gauge({
      name: 'gsa_bridge_api_key_info',
      help: 'Always 1: the API keys this sidecar uses, by api (mod, system) and key (16 hex digits of a SHA-256 of the client id, or of the System API key: the name of its shared budget in Redis, never the key or the secret). Sidecars with the same key spend one budget.',
      labelNames: ['api', 'key'],
      registers,
      collect() {
        // Reset first: a reload that changes the key must drop the old one.
        this.reset();
        for (const { api, key } of sources.apiKeys?.() ?? []) this.set({ api, key }, 1);
      },
    });
    new Gauge({
      name: 'gsa_bridge_budget_waiting',
      help: "Calls on the mod API key waiting for the budget, by class (mute: first lookups and refreshes; review; action). Chat lines whose lookup waits past mute.decisionTimeoutMs are decided by mute.onUnknown.",
      labelNames: ['class'],
      registers,
      collect() {
        const state = sources.budgetState?.();
        for (const budgetClass of BUDGET_CLASSES) this.set({ class: budgetClass }, state?.waiting[budgetClass] ?? 0);
      },
    });
    new Gauge({
      name: 'gsa_bridge_budget_window_free',
      help: "Calls the mod API key's window has room for now, as this sidecar sees it (with api.rateLimit.shared: 0 while Redis says wait, else an upper bound: other sidecars' calls are not counted here); NaN when unknown.",
      registers,
      collect() {
        // NaN (unknown) when the budget cannot tell (a budget of another kind): better than a wrong number.
        this.set(sources.budgetState?.()?.windowFree ?? Number.NaN);
      },
    });
    new Gauge({
      name: 'gsa_bridge_adapter_connected',
      help: 'Whether each adapter is up (1) or not (0): a mod listener listening, an RCON session logged in.',
      labelNames: ['server', 'adapter'],
      registers,
      collect() {
        // Reset first: an adapter removed by a reload must disappear, not stay at its last value.
        this.reset();
        for (const adapter of sources.adapters()) this.set({ server: adapter.server, adapter: adapter.id }, adapter.ready ? 1 : 0);
      },
    });
    const moderation = new Counter({
      name: 'gsa_bridge_moderation_actions_total',
      help: 'Steps the chat filter took (moderation.filter), by action (block: a line blocked; warn; mute; unmute) and result (ok; refused: GSA said no; failed: no answer or an error; dry_run: only recorded; not_supported: the game or the setup cannot).',
      labelNames: ['action', 'result'],
      registers,
    });
    for (const action of MODERATION_ACTION_LABELS) for (const result of MODERATION_RESULT_LABELS) moderation.inc({ action, result }, 0);
    const accessDecisions = new Counter({
      name: 'gsa_bridge_access_decisions_total',
      help: "GSA's access check at joins (access.enforce) and for mods' player.access, by server and decision: allow, deny (GSA does not allow the player), unknown_admit / unknown_deny (GSA could not be asked: access.onUnknown, or a transport error, decided).",
      labelNames: ['server', 'decision'],
      registers,
    });
    const money = new Counter({
      name: 'gsa_bridge_money_requests_total',
      help: 'Shop orders and token spends mods asked for, by kind (order, tokens) and state: done, refused (nothing spent), unconfirmed (sent, answer lost, never resent: see gsa-bridge orders list).',
      labelNames: ['kind', 'state'],
      registers,
    });
    for (const kind of MONEY_KIND_LABELS) for (const state of MONEY_STATE_LABELS) money.inc({ kind, state }, 0);
    this.#reloads = new Counter({
      name: 'gsa_bridge_config_reloads_total',
      help: 'Config reloads (SIGHUP or gsa-bridge reload) by result: success (applied), invalid (refused, old config kept), failed (could not be applied, rolled back).',
      labelNames: ['result'],
      registers,
    });
    // Every known label value from the start, so a rate() or an alert sees 0 rather than no series.
    for (const result of RELOAD_RESULTS) this.#reloads.inc({ result }, 0);
    if (options.processDefaults ?? true) {
      collectDefaultMetrics({ register: this.registry });
      // prom-client 15 adds nodejs_active_handles_total, nodejs_active_requests_total and
      // nodejs_active_resources_total: gauges named like counters, which `promtool check metrics` rejects (and
      // Prometheus's naming rules forbid; prometheus/client_js#283). Each is the sum of its per-type gauge, which
      // stays: sum(nodejs_active_handles) is the same number.
      for (const metric of this.registry.getMetricsAsArray()) {
        if (metric instanceof Gauge && metric.name.endsWith('_total')) this.registry.removeSingleMetric(metric.name);
      }
    }

    const { events } = options;
    this.#unsubscribe = [
      events.on('request', (event: RequestEvent) => {
        requests.inc({ endpoint: event.endpoint, status: statusLabel(event.status) });
        requestDuration.observe({ endpoint: event.endpoint }, event.durationMs / 1000);
      }),
      events.on('muteCache', (event) => {
        if (event.hit) hits.inc();
        else misses.inc();
      }),
      events.on('reviewResent', () => {
        resent.inc();
      }),
      events.on('reviewsDamaged', (event) => {
        damaged.inc(event.lines);
      }),
      events.on('moderation', (event: ModerationEvent) => {
        moderation.inc({ action: event.action, result: event.result });
      }),
      events.on('access', (event: AccessEvent) => {
        accessDecisions.inc({ server: event.server, decision: event.decision });
      }),
      events.on('money', (event: MoneyEvent) => {
        money.inc({ kind: event.kind, state: event.state });
      }),
      events.on('chatLine', (event: ChatLineEvent) => {
        chatLines.count(event);
      }),
      events.on('verdict', (event: VerdictEvent) => {
        if (event.reason === 'not_gated') {
          unscraped.not_gated += 1;
          unscrapedReasons.not_gated += 1;
          return;
        }
        unscraped[event.verdict] += 1;
        unscrapedReasons[event.reason] += 1;
        verdictDuration.observe(event.durationMs / 1000);
      }),
    ];
  }

  /** The run command counts each SIGHUP's outcome here. */
  recordReload(result: ReloadResult): void {
    this.#reloads.inc({ result });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** Stops listening to the events (the registry still answers scrapes). */
  close(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }
}

/** One adapter's chat-like lines not yet taken by a scrape. */
interface ChatLineTally {
  readonly server: string;
  readonly adapter: string;
  lines: number;
  readonly unattributed: Record<UnattributedReason, number>;
}

/**
 * Chat-like lines per server and adapter, kept as plain numbers that the counters take at scrape time: every line an
 * adapter reads is counted, and a labelled prom-client counter hashes its labels on each inc(). Every adapter the
 * adapter gauge lists gets its series at 0 from its first scrape (lines, and each reason), so rate() and the
 * unattributed share see a 0 rather than no series, and a first unattributed line is an increase Prometheus can see.
 * An adapter a reload removed keeps its series (counters; a few per reload) until the process restarts.
 */
class ChatLineTallies {
  /** server → adapter id → tally: two string lookups per line, no key built. */
  readonly #byServer = new Map<string, Map<string, ChatLineTally>>();
  readonly #adapters: () => readonly AdapterState[];

  constructor(adapters: () => readonly AdapterState[]) {
    this.#adapters = adapters;
  }

  count(event: ChatLineEvent): void {
    const tally = this.#tally(event.server, event.adapter ?? NO_ADAPTER_LABEL);
    tally.lines += 1;
    if (event.unattributed !== undefined) tally.unattributed[event.unattributed] += 1;
  }

  /** Every tally, with one for each adapter configured now (the adapter gauge's list; made at 0 before its first line). */
  all(): ChatLineTally[] {
    for (const adapter of this.#adapters()) this.#tally(adapter.server, adapter.id);
    return [...this.#byServer.values()].flatMap((adapters) => [...adapters.values()]);
  }

  #tally(server: string, adapter: string): ChatLineTally {
    let adapters = this.#byServer.get(server);
    if (adapters === undefined) {
      adapters = new Map();
      this.#byServer.set(server, adapters);
    }
    let tally = adapters.get(adapter);
    if (tally === undefined) {
      tally = { server, adapter, lines: 0, unattributed: { unreadable: 0, not_listed: 0, ambiguous: 0, unconfirmed_id: 0 } };
      adapters.set(adapter, tally);
    }
    return tally;
  }
}
