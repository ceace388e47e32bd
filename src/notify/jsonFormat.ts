// A notification as the generic webhook's JSON body (interfaces.md "Notifications"): exactly
// `{event, severity, server, adapter, message, at}`, for a host's own script or chat bridge. `event` is
// `<state>.<phase>` (`gsa_unreachable.start`, `adapter_down.end`) or `moderation.<step>`; `server` and `adapter` are
// null when the notification is not about one; `at` is an ISO 8601 time. The message is the plain sentence, not
// escaped for any chat: the receiver renders it.
// Pure: it never sends.

import { eventName, type Notification, type NotifySeverity } from './notifyEvents.js';

export interface JsonWebhookBody {
  readonly event: string;
  readonly severity: NotifySeverity;
  readonly server: string | null;
  readonly adapter: string | null;
  readonly message: string;
  readonly at: string;
}

export function jsonBody(notification: Notification): JsonWebhookBody {
  return {
    event: eventName(notification),
    severity: notification.severity,
    server: notification.server,
    adapter: notification.adapter,
    message: notification.message,
    at: new Date(notification.at).toISOString(),
  };
}
