// What a command may touch of the outside world: its output streams and environment. Injected so that
// tests can run commands in-process and read what they printed.

export interface Output {
  write(text: string): unknown;
}

export interface CliContext {
  readonly stdout: Output;
  readonly stderr: Output;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Directory the default ./config.json and relative --config paths are read from; defaults to process.cwd().
   * Tests set it to a temp directory so a developer's own config.json in the project root never leaks in. */
  readonly cwd?: string;
}

export function processContext(): CliContext {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}
