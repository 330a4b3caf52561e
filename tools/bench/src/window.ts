import { performance } from 'node:perf_hooks';

/** Latencies (ms) of every completed operation and the wall time of the run. */
export interface WindowedRun {
  latenciesMs: number[];
  seconds: number;
}

/**
 * Runs `total` operations keeping `window` in flight (pipelining), stopping early once
 * `maxSeconds` have passed. `issue(i)` starts operation i and resolves when its answer is in.
 */
export function runWindowed(total: number, window: number, maxSeconds: number, issue: (i: number) => Promise<void>): Promise<WindowedRun> {
  const latenciesMs: number[] = [];
  const started = performance.now();
  const deadline = started + maxSeconds * 1000;
  let next = 0;
  let inFlight = 0;
  return new Promise<WindowedRun>((resolve, reject) => {
    const launch = () => {
      while (inFlight < window && next < total && performance.now() < deadline) {
        const i = next++;
        inFlight += 1;
        const t0 = performance.now();
        issue(i).then(() => {
          latenciesMs.push(performance.now() - t0);
          inFlight -= 1;
          launch();
        }, reject);
      }
      if (inFlight === 0) resolve({ latenciesMs, seconds: (performance.now() - started) / 1000 });
    };
    launch();
  });
}
