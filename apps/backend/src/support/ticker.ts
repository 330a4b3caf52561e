import type { Logger } from '@wordgame/logging';

/** A background loop's switch: `start()` begins ticking, `stop()` ends it after any tick in flight. */
export interface Ticker {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Runs `tick` every `intervalMs`, one tick at a time (the next is scheduled when the previous one
 * settles, so a slow tick never overlaps itself). A failed tick is logged as `failure` and the loop
 * goes on. `intervalMs <= 0` turns the loop off. Timers are unref'd: a loop never holds the process.
 */
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
      await running;
    },
  };
}
