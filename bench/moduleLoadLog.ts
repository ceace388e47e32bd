// Preloaded with `node --import <this file>`: records which modules a process loads, to MODULE_LOG_FILE, one
// file:// URL a line. ES modules through a load hook (moduleLoadHooks.ts), CommonJS modules (which `require` each
// other outside the ES loader) through the CommonJS loader's compile step. Investigating only: the hooks cost
// memory and time, so bench/idle-memory.ts uses it in a separate run it does not measure.

import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

register('./moduleLoadHooks.js', import.meta.url);

interface CommonJsLoader {
  prototype: { _compile: (this: unknown, content: string, filename: string) => unknown };
}
// The CommonJS loader's internal compile step: every CommonJS file passes through it once, whoever required it.
const loader = createRequire(import.meta.url)('node:module') as CommonJsLoader;
const compile = loader.prototype._compile;
loader.prototype._compile = function (this: unknown, content: string, filename: string): unknown {
  const file = process.env.MODULE_LOG_FILE;
  if (file !== undefined) appendFileSync(file, `${pathToFileURL(filename).href}\n`);
  return compile.call(this, content, filename);
};
