// Module customization hooks for bench/moduleLoadLog.ts: appends the URL of every ES module (and every CommonJS
// module that an ES module imports) to the file named by MODULE_LOG_FILE, one line each. Investigating only:
// never loaded into a process whose memory is measured.

import { appendFileSync } from 'node:fs';
import type { LoadHook } from 'node:module';

export const load: LoadHook = async (url, context, nextLoad) => {
  const file = process.env.MODULE_LOG_FILE;
  if (file !== undefined) appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
};
