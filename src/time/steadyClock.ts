// Makes a clock that never goes backward, for windows and holds that must not stall when the wall clock is set
// back (an NTP step, a host fixing its time): a start stamped "in the future" would otherwise keep a rate
// window full, and a hold unexpired, for as long as the step.
// It never slows or speeds the clock it wraps: after a step back it goes on from where it was, at the same pace.

import type { Clock } from './clock.js';

export function steadyClock(clock: Clock): Clock {
  let latest = -Infinity;
  let stepsBack = 0;
  return {
    now: () => {
      const now = clock.now() + stepsBack;
      if (now < latest) {
        stepsBack += latest - now;
        return latest;
      }
      latest = now;
      return now;
    },
  };
}
