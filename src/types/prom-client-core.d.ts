// Types for the prom-client lib files src/ops/promClientCore.ts loads instead of prom-client's index (which would
// load the cluster aggregator and the rest; see there for why). Each is what prom-client's index re-exports under
// the same name, so the types are prom-client's own public ones. Only what promClientCore.ts imports is declared;
// add a file here before using it.
declare module 'prom-client/lib/registry.js' {
  import { Registry } from 'prom-client';
  export = Registry;
}

declare module 'prom-client/lib/counter.js' {
  import { Counter } from 'prom-client';
  export = Counter;
}

declare module 'prom-client/lib/gauge.js' {
  import { Gauge } from 'prom-client';
  export = Gauge;
}

declare module 'prom-client/lib/histogram.js' {
  import { Histogram } from 'prom-client';
  export = Histogram;
}

declare module 'prom-client/lib/defaultMetrics.js' {
  import { collectDefaultMetrics } from 'prom-client';
  export = collectDefaultMetrics;
}
