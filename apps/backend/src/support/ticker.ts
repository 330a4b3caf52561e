import type { Logger } from '@wordgame/logging';

/**
 * A background loop's switch: `start()` begins ticking, `stop()` ends it after any tick in flight,
 * waiting for that tick at most TICK_STOP_WAIT_MS (a tick blocked on a peer that went away, e.g. a
 * bot command whose network the orchestrator already took, must not overrun the process's stop).
 */
export interface Ticker {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Runs `tick` every `intervalMs`, one tick at a time (the next is scheduled when the previous one
 * settles, so a slow tick never overlaps itself). A failed tick is logged as `failure` and the loop
 * goes on. `intervalMs <= 0` turns the loop off. Timers are unref'd: a loop never holds the process.
 */
/** The longest a stop waits for a tick in flight; an abandoned tick's work is leased in PostgreSQL, so nothing is lost. */
export const TICK_STOP_WAIT_MS = 2_000;

export function createTicker(tick: () => Promise<unknown>, intervalMs: number, logger: Logger, failure: string): Ticker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick()
        .catch((err: unknown) => logger.error({ err }, failure))
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, intervalMs);
    timer.unref();
  }

  return {
    start() {
      if (intervalMs <= 0 || !stopped) return;
      stopped = false;
      schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (!running) return;
      let wait: NodeJS.Timeout | undefined;
      const gaveUp = await Promise.race([
        running.then(() => false),
        new Promise<boolean>((resolve) => {
          wait = setTimeout(() => resolve(true), TICK_STOP_WAIT_MS);
          wait.unref();
        }),
      ]);
      clearTimeout(wait);
      if (gaveUp)
        logger.warn(
          { loop: failure, waitedMs: TICK_STOP_WAIT_MS },
          'loop stopped with a tick still in flight (its leases bring its work back)',
        );
    },
  };
}
