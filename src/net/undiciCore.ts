// The part of undici this project runs on: Pool, buildConnector and Dispatcher#request, loaded from undici's own
// lib files instead of its index. The index also loads fetch, WebSocket, EventSource, the cache stores, the mock
// agents and the proxy agents, which nothing here uses and a long-lived process pays for in memory: measured (RSS
// 3 s after import, a bare node 39.3 MB) `import 'undici'` 59.7 MB with a 9.5 MB heap, these files 51.3 MB with 5.9.
// It adds the request API (request, stream, pipeline, upgrade, connect) to Dispatcher.prototype as undici's index
// does (`Object.assign(Dispatcher.prototype, api)`), unless it is there already.
//
// What must hold: these paths are undici's internal layout, not its API, so they are tied to the version
// package-lock.json pins (7.30.2; the package has no `exports` map, so deep imports resolve). On an upgrade,
// test/integration/run-footprint.test.ts and the client's tests fail if a file moved or the request API is missing;
// src/types/undici-core.d.ts types them from undici's public types. Never import 'undici' for a value elsewhere in
// src/: that loads the whole index again (type-only imports are erased and cost nothing).
import requestApi from 'undici/lib/api/index.js';
import buildConnector from 'undici/lib/core/connect.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import Pool from 'undici/lib/dispatcher/pool.js';

// Undici's index, if a test or a host's code loaded it first, has done this already, with these same functions.
if (!Object.hasOwn(Dispatcher.prototype, 'request')) Object.assign(Dispatcher.prototype, requestApi);

export { buildConnector, Pool };
export type { Dispatcher } from 'undici';
