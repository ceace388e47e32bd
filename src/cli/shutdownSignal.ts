// Resolves when the process is asked to stop (SIGINT from Ctrl-C, SIGTERM from a service manager), so a
// long-running command can close its servers and exit 0. The one-signal case of SignalQueue.
import { SignalQueue } from './signalQueue.js';

export async function shutdownSignal(): Promise<NodeJS.Signals> {
  const signals = new SignalQueue(['SIGINT', 'SIGTERM']);
  try {
    return await signals.next();
  } finally {
    signals.close();
  }
}
