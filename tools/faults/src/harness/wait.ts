/**
 * Polls `check` until it answers true (a throw counts as "not yet") and resolves with the time it
 * took in ms; rejects naming `what` after `timeoutMs`. Every wait in the fault suites is one of
 * these: a condition, never a fixed sleep.
 */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000, intervalMs = 50): Promise<number> {
  const started = performance.now();
  const deadline = started + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return performance.now() - started;
      lastError = undefined;
    } catch (err: unknown) {
      lastError = err;
    }
    if (performance.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`${what}: not true after ${timeoutMs} ms${why}`);
    }
    await delay(intervalMs);
  }
}

/** A promise that resolves after `ms` (the pacing of load loops and chaos schedules, not a wait for a condition). */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
