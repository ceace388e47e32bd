/**
 * The one error the emulator throws at its callers: bad control input (an unknown server, a malformed
 * fault). Its message names the offending field so a test author can fix the call at once.
 * Must never carry a client secret in its message.
 */
import type { z } from 'zod';

export class EmulatorInputError extends Error {
  /** Stable code so callers branch on it, not on message text. */
  readonly code = 'EMULATOR_BAD_INPUT';
  override readonly name = 'EmulatorInputError';
}

/** Formats zod issues as "field: problem; field: problem". */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`)
    .join('; ');
}
