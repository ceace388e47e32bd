// What a command may touch of the outside world: its output streams and environment. Injected so that
// tests can run commands in-process and read what they printed.

export interface Output {
  write(text: string): unknown;
}

export interface CliContext {
  readonly stdout: Output;
  readonly stderr: Output;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export function processContext(): CliContext {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}
