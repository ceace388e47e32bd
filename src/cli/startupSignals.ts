// Holds the signals `run` answers (SIGHUP, SIGTERM, SIGINT) from the first line of the entry point until run's
// SignalQueue takes them over, so a reload or a stop sent while the process is still loading its modules, its
// config or its data-directory lock is kept instead of killing it (Node's default for SIGHUP is to die).
// It imports nothing, so the entry point can load it before the heavy import graph; it never acts on a signal.

let held: NodeJS.Signals[] | undefined;
let heldSignals: readonly NodeJS.Signals[] = [];

const hold = (signal: NodeJS.Signals): void => {
  held?.push(signal);
};

/** Starts holding `signals`: from now on they no longer end the process, they wait for takeHeldSignals(). */
export function holdStartupSignals(signals: readonly NodeJS.Signals[]): void {
  if (held !== undefined) return;
  held = [];
  heldSignals = signals;
  for (const signal of signals) process.on(signal, hold);
}

/**
 * The signals that arrived since holdStartupSignals(), in order, and stops holding. Call it only after installing
 * the listeners that take over (JavaScript runs one callback at a time, so none can slip between the two).
 * Empty when nothing was held (run called in-process, as tests do).
 */
export function takeHeldSignals(): NodeJS.Signals[] {
  const arrived = held ?? [];
  for (const signal of heldSignals) process.off(signal, hold);
  held = undefined;
  heldSignals = [];
  return arrived;
}
