import type { Clock } from '../clock.ts';

/**
 * Change times for gossip paging (`since`). A gossip answer is capped and pages by change time,
 * so many entries sharing one millisecond (a batch applied in one go, or a test's frozen clock)
 * would make a page boundary impossible to cross. Each stamp is therefore strictly later than the
 * previous one (at least the clock's time, else the previous stamp + 1 ms), and stamps already
 * in the database are observed so a process never issues one older than what is stored.
 */
export interface ChangeStamper {
  next(): Date;
  /** Raise the floor to a time seen in the database (another replica's stamp). */
  observe(date: Date | null | undefined): void;
}

export function createChangeStamper(clock: Clock): ChangeStamper {
  let last = 0;
  return {
    next() {
      last = Math.max(clock.now().getTime(), last + 1);
      return new Date(last);
    },
    observe(date) {
      if (date) last = Math.max(last, date.getTime());
    },
  };
}
