// Routes the data directory's control requests by their `op`, so several commands share the one channel
// (`reviews retry` → "retry", `mutes` → "mutes", `reload` → "reload"), each served by its own handler.
// It never looks inside a request beyond `op`, and never changes a handler's answer.

import type { ControlHandler } from './controlChannel.js';

/** One handler per op; a request with any other op is answered `unknown request "<op>"`, as before there were several. */
export function routeControl(routes: Readonly<Record<string, ControlHandler>>): ControlHandler {
  const table = new Map(Object.entries(routes));
  return (request) => {
    const handler = table.get(request.op);
    // The op is the peer's text: quoted, and cut, in the answer.
    if (handler === undefined) return Promise.resolve({ ok: false, error: `unknown request ${JSON.stringify(request.op.slice(0, 64))}` });
    return handler(request);
  };
}
