import type { Clock } from '@swarm/domain';

/** A clock that moves only when a test says so: no sleeps, no flaky timing. */
export interface ManualClock extends Clock {
  advance(ms: number): void;
  set(date: Date): void;
}

export function createManualClock(start = new Date('2026-11-22T12:00:00.000Z')): ManualClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (ms) => {
      current += ms;
    },
    set: (date) => {
      current = date.getTime();
    },
  };
}
