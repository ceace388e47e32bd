// Creates the process's pino logger: JSON lines on stderr (stdout stays free for command output), the
// secret-bearing keys redacted by path, and every known secret value scrubbed from each line as a last
// line of defence. It must never be bypassed by writing secrets to the console directly.

import { pino, type Logger, type LevelWithSilent } from 'pino';

export type LogLevel = LevelWithSilent;

export interface LoggerOptions {
  readonly level: LogLevel;
  /** Literal secret values (client secret, RCON passwords, mod tokens) to scrub wherever they appear. */
  readonly secrets?: readonly string[];
  /** Where lines go; default process.stderr. */
  readonly destination?: { write(line: string): unknown };
}

/** Keys that hold secrets wherever they appear in a logged object, a level or two deep. */
export const REDACTED_PATHS = [
  'clientSecret',
  'client_secret',
  'password',
  'token',
  'authorization',
  '*.clientSecret',
  '*.client_secret',
  '*.password',
  '*.token',
  '*.authorization',
  'headers["x-client-secret"]',
  '*.headers["x-client-secret"]',
  'config.api.clientSecret',
  'config.servers[*].adapters[*].token',
  'config.servers[*].adapters[*].password',
];

const MASK = '***';

/** Each secret as it may appear in a JSON log line: raw, and JSON-escaped when it has quotes or backslashes. */
function scrubbableForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  // Longest first, so a secret that contains another is replaced whole.
  return [...forms].sort((a, b) => b.length - a.length);
}

export function scrubSecrets(text: string, forms: readonly string[]): string {
  let result = text;
  for (const form of forms) if (result.includes(form)) result = result.split(form).join(MASK);
  return result;
}

export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? process.stderr;
  const forms = scrubbableForms(options.secrets ?? []);
  const stream = forms.length === 0 ? destination : { write: (line: string) => destination.write(scrubSecrets(line, forms)) };
  return pino(
    {
      level: options.level,
      base: { name: 'gsa-bridge' },
      redact: { paths: REDACTED_PATHS, censor: MASK },
    },
    stream,
  );
}

/** A logger that writes nothing, the default wherever one is injected. */
export function silentLogger(): Logger {
  return pino({ enabled: false });
}
