// The part of prom-client the metrics run on: Registry, Counter, Gauge, Histogram and collectDefaultMetrics, loaded
// from prom-client's own lib files instead of its index. The index also loads the cluster aggregator (node:cluster,
// child_process, dgram), the Pushgateway (http, https) and Summary, which nothing here uses and a long-lived
// process pays for in memory: measured (RSS 3 s after import, a bare node 39.3 MB) `import 'prom-client'` 51.8 MB,
// lib/registry.js alone 42 MB. What /metrics serves is unchanged: these are the same classes the index re-exports.
//
// What must hold: these paths are prom-client's internal layout, not its API, so they are tied to the version
// package-lock.json pins (15.1.3; the package has no `exports` map, so deep imports resolve). On an upgrade,
// test/integration/run-footprint.test.ts and the metrics tests fail if a file moved; src/types/prom-client-core.d.ts
// types them from prom-client's public types. Never import 'prom-client' for a value elsewhere in src/: that loads
// the whole index again (type-only imports are erased and cost nothing).
import Counter from 'prom-client/lib/counter.js';
import collectDefaultMetrics from 'prom-client/lib/defaultMetrics.js';
import Gauge from 'prom-client/lib/gauge.js';
import Histogram from 'prom-client/lib/histogram.js';
import Registry from 'prom-client/lib/registry.js';

export { collectDefaultMetrics, Counter, Gauge, Histogram, Registry };
