// The notifications façade (interfaces.md "Notifications", config `notify`): a state watch that decides what to tell
// and one sender per webhook that posts it in the webhook's format. It lives as long as the process, like the
// operations endpoints, and reads the current sidecar only through the sources it is given; a reload hands it the new
// `notify` section (reconfigure), keeping the senders of unchanged webhooks and the states already known.
// With no webhook configured it does nothing at all: no timer, no subscription.
// It never blocks or throws into the core: a notification is queued and the caller goes on, whatever the receiver
// does. It never logs a webhook URL (a secret): log lines name `notify.webhooks[i]` and its host.

import type { Logger } from 'pino';
import type { BridgeEvents } from '../bridge/events.js';
import type { NotifyConfig, NotifyFormat } from '../config/schema.js';
import type { Clock } from '../time/clock.js';
import { discordBody } from './discordFormat.js';
import { jsonBody } from './jsonFormat.js';
import type { Notification } from './notifyEvents.js';
import { StateWatch, type NotifySources } from './stateWatch.js';
import { WebhookSender, type WebhookSenderOptions } from './webhookSender.js';

/** What notify.* defaults to when the section is absent (schema.ts): no webhook, so nothing runs. */
const DEFAULT_AFTER_MS = 300_000;

/** How long close() gives queued notifications by default: well inside the 10 s a stop has. */
const DEFAULT_CLOSE_DEADLINE_MS = 1_000;

export interface NotifierOptions {
  /** The config's `notify` section; undefined: none configured. */
  readonly config: NotifyConfig | undefined;
  readonly sources: NotifySources;
  readonly events: BridgeEvents;
  readonly logger: Logger;
  /** Wall-clock ms (ServiceHealth's). Tests pass fake time. */
  readonly clock?: Clock | undefined;
  /** How often the sources are read. @default 1000 */
  readonly sampleMs?: number | undefined;
  /** Each sender's timeouts, retries and queue (webhookSender.ts has the defaults). */
  readonly sender?: Omit<WebhookSenderOptions, 'url' | 'name' | 'logger' | 'clock'> | undefined;
}

interface Webhook {
  /** Index, format and URL: a sender is kept across a reload only when all three are unchanged. */
  readonly identity: string;
  readonly format: NotifyFormat;
  readonly sender: WebhookSender;
}

function identityOf(index: number, url: string, format: NotifyFormat): string {
  return `${String(index)}\u0000${format}\u0000${url}`;
}

export class Notifier {
  readonly #options: NotifierOptions;
  readonly #watch: StateWatch;
  #webhooks: Webhook[] = [];
  #started = false;
  #watching = false;
  #closed = false;

  constructor(options: NotifierOptions) {
    this.#options = options;
    this.#watch = new StateWatch({
      sources: options.sources,
      events: options.events,
      clock: options.clock,
      sampleMs: options.sampleMs,
      rules: { afterMs: options.config?.afterMs ?? DEFAULT_AFTER_MS, moderation: options.config?.moderation ?? false },
      notify: (notification) => {
        this.notify(notification);
      },
    });
    this.#webhooks = this.#sendersFor(options.config, []);
  }

  /** The webhooks' senders, in config order (their queue and counts, for tests and diagnostics). */
  get senders(): readonly WebhookSender[] {
    return this.#webhooks.map((webhook) => webhook.sender);
  }

  /** Starts watching, when at least one webhook is configured. Idempotent. */
  start(): void {
    if (this.#closed) return;
    this.#started = true;
    this.#follow();
    if (this.#webhooks.length > 0) this.#describe();
  }

  /** A reload's `notify` section: unchanged webhooks keep their sender (and queue); the rules apply at once. */
  reconfigure(config: NotifyConfig | undefined): void {
    if (this.#closed) return;
    const previous = this.#webhooks;
    this.#webhooks = this.#sendersFor(config, previous);
    const kept = new Set(this.#webhooks);
    for (const webhook of previous) if (!kept.has(webhook)) void webhook.sender.close(0);
    const changed = previous.length !== this.#webhooks.length || previous.some((webhook) => !kept.has(webhook));
    if (changed && this.#started) this.#describe();
    this.#watch.setRules({ afterMs: config?.afterMs ?? DEFAULT_AFTER_MS, moderation: config?.moderation ?? false });
    if (this.#started) this.#follow();
  }

  /** Hands one notification to every webhook's queue; returns at once. */
  notify(notification: Notification): void {
    for (const { format, sender } of this.#webhooks) {
      try {
        sender.send(format === 'discord' ? discordBody(notification) : jsonBody(notification));
      } catch {
        // Formatting is pure and the sender never throws; a bug here must still not reach the core.
      }
    }
  }

  /** Stops watching, then gives queued notifications until `deadlineMs` to go out. Never rejects. */
  async close(deadlineMs: number = DEFAULT_CLOSE_DEADLINE_MS): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#watch.close();
    this.#watching = false;
    await Promise.all(this.#webhooks.map((webhook) => webhook.sender.close(deadlineMs)));
  }

  /** Where notifications go, by config key, format and host (never the URL: it is a secret). */
  #describe(): void {
    if (this.#webhooks.length === 0) {
      this.#options.logger.info('notifications off: notify.webhooks is empty');
      return;
    }
    const where = this.#webhooks.map(({ sender, format }, index) => `notify.webhooks[${String(index)}] (${format}, ${sender.host})`);
    this.#options.logger.info({ webhooks: this.#webhooks.length }, `notifications go to ${where.join(', ')}`);
  }

  /** The watch runs while there is someone to tell. */
  #follow(): void {
    if (this.#webhooks.length > 0 && !this.#watching) {
      this.#watch.start();
      this.#watching = true;
    } else if (this.#webhooks.length === 0 && this.#watching) {
      this.#watch.close();
      this.#watching = false;
    }
  }

  #sendersFor(config: NotifyConfig | undefined, previous: readonly Webhook[]): Webhook[] {
    const byIdentity = new Map(previous.map((webhook) => [webhook.identity, webhook]));
    return (config?.webhooks ?? []).map(({ url, format }, index) => {
      const identity = identityOf(index, url, format);
      const known = byIdentity.get(identity);
      if (known !== undefined) return known;
      const sender = new WebhookSender({ ...this.#options.sender, url, name: `notify.webhooks[${String(index)}]`, logger: this.#options.logger, clock: this.#options.clock });
      return { identity, format, sender };
    });
  }
}
