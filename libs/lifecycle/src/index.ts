import type { Logger } from '@wordgame/logging';

/** Anything with the build()/start()/stop() shape the services share. */
export interface Service {
  start(): Promise<unknown>;
  stop(): Promise<void>;
}

/**
 * Runs a built service as a process: starts it (exit 1 on failure), and on SIGTERM or SIGINT
 * stops it gracefully and exits 0. A second signal, or a stop that overruns `graceMs`, exits 1 at
 * once so an orchestrator never waits on a wedged shutdown.
 */
export function runService(service: Service, logger: Logger, graceMs = 10_000): void {
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'stopping');
    const force = setTimeout(() => {
      // The steps done and those still running, so an info-level log names the step that hung.
      const at = stopProgress === undefined ? {} : { steps: stopProgress.steps, pending: [...stopProgress.running] };
      logger.error({ graceMs, ...at }, 'graceful stop overran, exiting');
      process.exit(1);
    }, graceMs);
    force.unref();
    service.stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  // The images' early-stop preload answered signals until now; from here this handler owns them.
  (globalThis as Record<symbol, unknown>)[Symbol.for('wordgame.lifecycle.signals')] = true;
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  service.start().catch((err: unknown) => {
    logger.fatal({ err }, 'start failed');
    process.exit(1);
  });
}

/** A service's stop, step by step: each step timed and logged, the whole logged once at the end. */
export interface StopSteps {
  /** Runs `run` (awaited) as the step `name`; its ms is logged at debug. Steps may run side by side. */
  step: (name: string, run: () => unknown) => Promise<void>;
  /** Logs `message` at info with the total ms and every step's ms. */
  done: (message: string) => void;
}

/** The process's latest stop (a process stops once): what runService's overrun line reports. */
let stopProgress: { steps: Record<string, number>; running: Set<string> } | undefined;

/**
 * Times a stop: the whole stop must fit in runService's grace, and an operator reading the one
 * info line sees which step ate it; a stop that overruns the grace instead names the steps done
 * and those still running in runService's "graceful stop overran" line. One implementation for
 * every service, so the lines read alike.
 */
export function stopSteps(logger: Logger): StopSteps {
  const began = performance.now();
  const steps: Record<string, number> = {};
  const running = new Set<string>();
  stopProgress = { steps, running };
  return {
    step: async (name, run) => {
      const t0 = performance.now();
      running.add(name);
      await run();
      running.delete(name);
      steps[name] = Math.round(performance.now() - t0);
      logger.debug({ step: name, ms: steps[name] }, 'stop step done');
    },
    done: (message) => {
      logger.info({ ms: Math.round(performance.now() - began), steps }, message);
    },
  };
}

/** True when `work` settled (fulfilled or rejected) within `ms`, false when the time ran out first; the timer never outlives it. */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = work.then(
    () => true,
    () => true,
  );
  const out = await Promise.race([settled, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  clearTimeout(timer);
  return out;
}
