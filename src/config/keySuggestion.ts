// Guesses which known config key a misspelt one was meant to be, for "unknown key" messages.
// Must never guess wildly: a wrong "did you mean" sends a host to the wrong key, which is worse than no hint.

// Typos in config keys are mostly case ("mutedTTLms") or one or two letters; beyond that a guess misleads.
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const wanted = normalizeKey(key);
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(wanted, normalizeKey(candidate));
    const limit = wanted.length >= 6 ? 2 : 1;
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key;
}

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
