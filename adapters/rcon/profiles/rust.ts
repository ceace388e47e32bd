// Rust over WebRCON. The server answers no WebSocket ping, so `serverinfo` keeps the session alive; chat arrives
// pushed as `Type: "Chat"` messages.

import type { RconProfile } from './profile.js';

export const rustProfile: RconProfile = {
  name: 'rust',
  probeCommand: 'serverinfo',
  transport: { kind: 'webrcon', keepaliveMs: 30_000, keepaliveCommand: 'serverinfo' },
};
