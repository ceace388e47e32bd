// The vocabulary of notifications (interfaces.md "Notifications"): the states a host must hear about, the phases of
// each (it started, it still lasts, it ended) and one step of the chat filter, with their severities and titles.
// Pure: it formats nothing for a receiver (discordFormat.ts, jsonFormat.ts do) and sends nothing.

/** The states a host must hear about while they last. */
export const NOTIFY_STATES = ['credentials_refused', 'gsa_unreachable', 'adapter_down', 'budget_held', 'reviews_unconfirmed', 'reviews_dead'] as const;
export type NotifyState = (typeof NOTIFY_STATES)[number];

/** start: the state began (or lasted long enough to be told); summary: it still lasts; end: it is over. */
export type NotifyPhase = 'start' | 'summary' | 'end';

/** A step of the chat filter (moderation events), told only when notify.moderation is true. */
export type ModerationStep = 'warn' | 'mute' | 'unmute';

export type NotifySeverity = 'critical' | 'warning' | 'info';

/** One thing to tell every webhook. */
export type Notification =
  | (NotificationText & { readonly kind: 'state'; readonly state: NotifyState; readonly phase: NotifyPhase })
  | (NotificationText & { readonly kind: 'moderation'; readonly step: ModerationStep; readonly player?: NotifiedPlayer | undefined });

/** Who a chat filter step was about: the id the moderation log keeps and the name (made printable), never chat text. */
export interface NotifiedPlayer {
  readonly id: string;
  readonly name: string | null;
}

interface NotificationText {
  readonly severity: NotifySeverity;
  /** The GSA container name the notification is about; null when it is about the whole sidecar. */
  readonly server: string | null;
  /** The adapter's id; null when it is not about one adapter. */
  readonly adapter: string | null;
  /** A whole sentence: what happened and what to do. Parts of it may come from outside (GSA's words). */
  readonly message: string;
  /** When it was noticed, wall-clock ms. */
  readonly at: number;
}

/** The `event` name a receiver switches on: `gsa_unreachable.start`, `adapter_down.end`, `moderation.mute`. */
export function eventName(notification: Notification): string {
  return notification.kind === 'state' ? `${notification.state}.${notification.phase}` : `moderation.${notification.step}`;
}

const STATE_SEVERITY: Readonly<Record<NotifyState, NotifySeverity>> = {
  credentials_refused: 'critical',
  gsa_unreachable: 'critical',
  adapter_down: 'warning',
  budget_held: 'warning',
  reviews_unconfirmed: 'warning',
  // Mostly a player's own refusal (not eligible to review yet): worth knowing, not worth waking anyone.
  reviews_dead: 'info',
};

/** A state's severity while it lasts; its end is good news (info). */
export function severityOf(state: NotifyState, phase: NotifyPhase): NotifySeverity {
  return phase === 'end' ? 'info' : STATE_SEVERITY[state];
}

const STATE_TITLES: Readonly<Record<NotifyState, Readonly<Record<NotifyPhase, string>>>> = {
  credentials_refused: { start: 'GSA refused the API credentials', summary: 'GSA still refuses the API credentials', end: 'API credentials no longer refused' },
  gsa_unreachable: { start: 'GSA unreachable', summary: 'GSA still unreachable', end: 'GSA reachable again' },
  adapter_down: { start: 'Adapter down', summary: 'Adapter still down', end: 'Adapter back up' },
  budget_held: { start: 'API calls held by Retry-After', summary: 'API calls still held by Retry-After', end: 'API calls no longer held' },
  reviews_unconfirmed: { start: 'Reviews unconfirmed', summary: 'More reviews unconfirmed', end: 'No more unconfirmed reviews' },
  reviews_dead: { start: 'Reviews refused by GSA', summary: 'More reviews refused by GSA', end: 'No more refused reviews' },
};

const STEP_TITLES: Readonly<Record<ModerationStep, string>> = {
  warn: 'Chat filter: a player warned',
  mute: 'Chat filter: a player muted',
  unmute: 'Chat filter: a player unmuted',
};

/** A short title of our own words only (never text from outside), for a receiver that shows one. */
export function titleOf(notification: Notification): string {
  return notification.kind === 'state' ? STATE_TITLES[notification.state][notification.phase] : STEP_TITLES[notification.step];
}
