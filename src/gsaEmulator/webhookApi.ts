/**
 * The webhook API: `POST /api/v1/server/{id}/{action}?client_id=…` with the raw client secret as the
 * body. Queues server actions per numeric id; `cancel-scheduled` empties the queue unless locked.
 * Must never echo the secret, and must never tell an unknown id apart from bad keys: both are 401,
 * as on the real service, where an id not bound to the keys is indistinguishable from a wrong key.
 */
import { UNAUTHENTICATED_REPLY, type AcceptedCredentials } from './auth.js';
import { messageReply, type Reply } from './httpIo.js';
import type { EmulatorState, WebhookAction } from './state.js';
import { asInteger, ValidationErrors } from './validation.js';

export interface WebhookContext {
  readonly state: EmulatorState;
  readonly credentials: AcceptedCredentials;
}

export interface WebhookRequest {
  /** The `{GAMESERVER_ID}` path segment as written; only all-digit segments can name a server. */
  readonly serverSegment: string;
  readonly action: WebhookAction;
  readonly query: URLSearchParams;
  readonly body: Buffer;
  readonly at: number;
}

/** What the service does when `update` comes without `countdown`. */
export const DEFAULT_UPDATE_COUNTDOWN_MINUTES = 30;

const QUEUED_MESSAGES: Record<Exclude<WebhookAction, 'cancel-scheduled'>, string> = {
  start: 'Start queued.',
  stop: 'Stop queued.',
  restart: 'Restart queued.',
  update: 'Update queued.',
  wipe: 'Wipe queued.',
};

export function handleWebhook(ctx: WebhookContext, req: WebhookRequest): Reply {
  const id = /^\d{1,15}$/.test(req.serverSegment) ? Number(req.serverSegment) : undefined;
  const server = id === undefined ? undefined : ctx.state.serverById(id);
  // The body is the secret byte for byte: no trimming, since the service documents "nothing else".
  const clientId = req.query.get('client_id') ?? undefined;
  const keysMatch = ctx.credentials.matches(clientId, req.body.toString('utf8'));
  if (!keysMatch || clientId === undefined || server === undefined || id === undefined) return UNAUTHENTICATED_REPLY;
  // Throttled once the keys (and the server's binding to them) are accepted, before the action is taken.
  return ctx.state.budget.throttle(clientId, req.at, () => authenticatedReply(ctx, req, id));
}

function authenticatedReply(ctx: WebhookContext, req: WebhookRequest, id: number): Reply {
  if (req.action === 'cancel-scheduled') {
    if (ctx.state.isLocked(id)) return messageReply(409, 'A scheduled action is already running and cannot be cancelled.');
    ctx.state.clearActions(id);
    return messageReply(200, 'Scheduled actions cancelled.');
  }

  if (req.action === 'update') {
    const countdown = parseCountdown(req.query.get('countdown'));
    if (!countdown.ok) return countdown.reply;
    ctx.state.queueAction(id, { action: 'update', countdownMinutes: countdown.minutes, at: req.at });
  } else {
    ctx.state.queueAction(id, { action: req.action, at: req.at });
  }
  return messageReply(200, QUEUED_MESSAGES[req.action]);
}

/** Blank counts as absent (Laravel's ConvertEmptyStringsToNull), so `countdown=` means the default. */
function parseCountdown(raw: string | null): { ok: true; minutes: number } | { ok: false; reply: Reply } {
  const trimmed = raw?.trim() ?? '';
  if (trimmed === '') return { ok: true, minutes: DEFAULT_UPDATE_COUNTDOWN_MINUTES };
  const errors = new ValidationErrors();
  const minutes = asInteger(trimmed);
  if (minutes === undefined) errors.add('countdown', 'The countdown field must be an integer.');
  else if (minutes < 0) errors.add('countdown', 'The countdown field must be at least 0.');
  return minutes === undefined || minutes < 0 ? { ok: false, reply: errors.toReply() } : { ok: true, minutes };
}
