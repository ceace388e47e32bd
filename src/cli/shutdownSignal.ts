// Resolves when the process is asked to stop (SIGINT from Ctrl-C, SIGTERM from a service manager), so a
// long-running command can close its servers and exit 0.

export function shutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
