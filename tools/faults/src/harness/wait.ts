import { availableParallelism, loadavg } from 'node:os';

/** The most a busy machine stretches a wait's deadline. */
const MAX_STRETCH = 4;

/**
 * How much longer than on an idle machine a deadline may take: the one-minute load average per
 * core, at least 1 and at most MAX_STRETCH. A deadline is there to fail instead of hanging, not to
 * time the system; on a machine shared with other suites (CI runs two at once) everything waited for
 * takes longer by about that much.
 */
export function loadStretch(): number {
  return Math.min(MAX_STRETCH, Math.max(1, (loadavg()[0] ?? 0) / availableParallelism()));
}

/**
 * Polls `check` until it answers true (a throw counts as "not yet") and resolves with the time it
 * took in ms; rejects naming `what` after `timeoutMs`, stretched by the machine's load
 * (loadStretch, read at each poll). Every wait in the fault suites is one of these: a condition,
 * never a fixed sleep.
 */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000, intervalMs = 50): Promise<number> {
  const started = performance.now();
  let stretch = 1;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return performance.now() - started;
      lastError = undefined;
    } catch (err: unknown) {
      lastError = err;
    }
    stretch = Math.max(stretch, loadStretch());
    if (performance.now() > started + timeoutMs * stretch) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      const stretched = stretch > 1 ? ` (${timeoutMs} ms stretched ${stretch.toFixed(1)}x for the machine's load)` : '';
      throw new Error(`${what}: not true after ${Math.round(performance.now() - started)} ms${stretched}${why}`);
    }
    await delay(intervalMs);
  }
}

/** A promise that resolves after `ms` (the pacing of load loops and chaos schedules, not a wait for a condition). */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
