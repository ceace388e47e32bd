// What a command may touch of the outside world: its input and output streams and environment. Injected so that
// tests can run commands in-process and read what they printed.

export interface Output {
  write(text: string): unknown;
  /** True when it is a terminal: logs turn human-readable, and `server wipe` may ask before it acts. */
  readonly isTTY?: boolean;
}

/** Where a confirmation is read from; only read when it and stdout are terminals. */
export interface Input extends NodeJS.ReadableStream {
  readonly isTTY?: boolean;
}

export interface CliContext {
  readonly stdout: Output;
  readonly stderr: Output;
  /** Absent in-process (tests): nothing is ever asked then. */
  readonly stdin?: Input;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Directory the default ./config.json and relative --config paths are read from; defaults to process.cwd().
   * Tests set it to a temp directory so a developer's own config.json in the project root never leaks in. */
  readonly cwd?: string;
}

export function processContext(): CliContext {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}

/** A person is at the keyboard: both stdin and stdout are terminals. Scripts, cron and CI never are. */
export function atTerminal(context: CliContext): boolean {
  return context.stdin?.isTTY === true && context.stdout.isTTY === true;
}
