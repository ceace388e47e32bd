// Writes what the `mute` and `unmute` commands did into the moderation log of the config's data directory, so
// `moderation list` shows them beside the chat filter's steps: when, the player as the host named them, the
// period, and GSA's answer (or why nothing was sent). Only appends (a running sidecar may own the directory), and
// only to a data directory that exists: a command run from a shell elsewhere creates no stray ./data. A record that
// cannot be written is one warning line, never the command's failure.

import { stat } from 'node:fs/promises';
import { GsaError } from '../gsa/index.js';
import { appendModerationRecord, resultOfCode, type ModerationResult } from '../moderation/moderationLog.js';
import type { CliContext } from './context.js';

export interface CommandStep {
  readonly action: 'mute' | 'unmute';
  /** The player as the host named them: the Steam64 or EOS id, or GSA's uuid. */
  readonly player: string;
  /** A mute's period code, end date or `permanent`; null for unmute. */
  readonly period: string | null;
}

/** A command's failure as a step's result: GSA's refusal, or `failed` when it gave no answer (or the error is not GSA's). */
export function resultOf(error: unknown): ModerationResult {
  return error instanceof GsaError ? resultOfCode(error.code) : 'failed';
}

/** Appends the step with its result; a missing directory records nothing, a failed write is a warning. */
export async function recordCommandStep(context: CliContext, dataDir: string, step: CommandStep, result: ModerationResult, answer: string): Promise<void> {
  const exists = await stat(dataDir).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!exists) return;
  try {
    await appendModerationRecord(dataDir, {
      at: new Date().toISOString(),
      server: null,
      player: step.player,
      rule: null,
      action: step.action,
      period: step.period,
      result,
      answer,
      by: 'command',
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    context.stderr.write(`warning: the ${step.action} was not written to the moderation log in ${dataDir} (${reason}); moderation list will not show it\n`);
  }
}

/** Runs one call of the command; when it fails, records why (GSA's refusal, or that it gave no answer) and rethrows. */
export async function recordingFailure<T>(record: (result: ModerationResult, answer: string) => Promise<void>, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    await record(resultOf(error), error instanceof Error ? error.message : String(error));
    throw error;
  }
}
