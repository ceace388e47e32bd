// Asks a person at a terminal to confirm something that cannot be undone, and reads one line of answer. Only
// "y" or "yes" (any case) agrees; anything else, an empty line or the end of input declines.
// It must never be called without a terminal (atTerminal): a script or a scheduled job would hang on it.

import { createInterface } from 'node:readline';
import type { CliContext, Input } from './context.js';

export async function confirmAtTerminal(context: CliContext & { readonly stdin: Input }, question: string): Promise<boolean> {
  const reader = createInterface({ input: context.stdin, terminal: false });
  context.stdout.write(`${question} [y/N] `);
  try {
    const answer = await new Promise<string | undefined>((resolve) => {
      reader.once('line', resolve);
      reader.once('close', () => {
        resolve(undefined);
      });
    });
    if (answer === undefined) context.stdout.write('\n');
    return answer !== undefined && /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    reader.close();
    // A paused stdin keeps no handle open, so the command exits as soon as it is done.
    context.stdin.pause();
  }
}
