/**
 * The backend's one clock. Every rule that depends on time (order expiry, reaper ages, holds, the
 * hint idle window and daily allowance, sessions, confirmations, moderation terms, rate limits) reads
 * it through the deps app.ts builds, so tests drive time by passing their own. Reading the system
 * time anywhere else in apps/backend/src is a lint error (eslint.config.js, no-restricted-syntax).
 */
export type Clock = () => Date;

/** The real clock. */
// eslint-disable-next-line no-restricted-syntax -- the one place the backend reads the system time
export const systemClock: Clock = () => new Date();

/** A clock a test sets and moves forward. */
export interface SettableClock extends Clock {
  set(to: Date): void;
  advance(ms: number): void;
}

/** A settable clock starting at `start`. */
export function settableClock(start: Date): SettableClock {
  let current = start.getTime();
  const clock = (() => new Date(current)) as SettableClock;
  clock.set = (to) => {
    current = to.getTime();
  };
  clock.advance = (ms) => {
    current += ms;
  };
  return clock;
}

/** A time as operators read it in a message: `2025-01-31 12:00:00 UTC`. */
export function utcText(at: Date): string {
  return `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
