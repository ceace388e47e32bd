// Turns one pino JSON line into the human-readable line a person reads on a terminal: time, level word, where it
// happened (server/adapter, or "gsa-bridge" for the process as a whole), the message, then any other fields on
// the same line. pino-pretty's own formatter does the work, called synchronously per line (no worker transport),
// so nothing is lost when the process exits. It is loaded only when asked for: a JSON-logging daemon never pays
// for it. It must never see a line before the secret scrubber has (logger.ts orders that).

import { createRequire } from 'node:module';
import type { PrettyOptions } from 'pino-pretty';

type PrettyFactory = (options: PrettyOptions) => (line: string) => string;

/** What pretty lines show for a line that names no server: the process itself said it. */
export const PROCESS_SCOPE = 'gsa-bridge';

/** "ovddykvbs/ws-main", "ovddykvbs", or the process scope. */
export function scopeOf(log: Readonly<Record<string, unknown>>): string {
  const server = typeof log.server === 'string' ? log.server : undefined;
  const adapter = typeof log.adapter === 'string' ? log.adapter : undefined;
  if (server === undefined) return adapter ?? PROCESS_SCOPE;
  return adapter === undefined ? server : `${server}/${adapter}`;
}

export interface PrettyLineOptions {
  /** ANSI colours, for a terminal only. Default false. */
  readonly colors?: boolean;
}

export function prettyLineFormatter(options: PrettyLineOptions = {}): (jsonLine: string) => string {
  // pino-pretty is CommonJS; require keeps createLogger synchronous, and loads it only on this path.
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as { prettyFactory: PrettyFactory };
  return prettyFactory({
    colorize: options.colors ?? false,
    // Local time with its offset: a host reads it against their own clock, and the offset removes the doubt.
    translateTime: 'SYS:standard',
    // name, pid and hostname are the same on every line; server and adapter are shown in front of the message.
    ignore: 'pid,hostname,name,server,adapter',
    singleLine: true,
    messageFormat: (log, messageKey) => {
      const message = log[messageKey];
      return `[${scopeOf(log)}] ${typeof message === 'string' ? message : ''}`;
    },
  });
}
