// Types for the undici lib files src/net/undiciCore.ts loads instead of undici's index (which would load fetch,
// WebSocket and the rest; see there for why). Each is what undici's index re-exports under the same name, so the
// types are undici's own public ones. Only what undiciCore.ts imports is declared; add a file here before using it.
declare module 'undici/lib/dispatcher/pool.js' {
  import { Pool } from 'undici';
  export = Pool;
}

declare module 'undici/lib/dispatcher/dispatcher.js' {
  import { Dispatcher } from 'undici';
  export = Dispatcher;
}

declare module 'undici/lib/core/connect.js' {
  import { buildConnector } from 'undici';
  export = buildConnector;
}

declare module 'undici/lib/api/index.js' {
  import type { Dispatcher } from 'undici';
  /** The request API undici's index puts on Dispatcher.prototype; each function runs with a dispatcher as `this`. */
  const api: Readonly<Pick<Dispatcher, 'request' | 'stream' | 'pipeline' | 'upgrade' | 'connect'>>;
  export = api;
}
