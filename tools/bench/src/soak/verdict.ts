import { median } from '../stats.js';

/**
 * The soak's pass rules, as pure functions of what it measured.
 *
 * Memory flat, per service: the RSS samples are cut into thirds by time; the first third is
 * warm-up (JIT, pools and caches filling) and is not judged. The median of the last third (M3) may
 * exceed the median of the second third (M2) by at most the slack, the largest of
 *   - MEMORY_SLACK_FRACTION of M2,
 *   - MEMORY_SLACK_MIB, and
 *   - RAMP_MIB x min(1, RAMP_SECONDS / the length of a third): V8 grows a process's heap to its
 *     working size after start and again after its memory reducer releases pages. Measured here
 *     under CI's load (two suites at once): the backend, gateway and bot each climb 50-55 MiB
 *     between the middle and the end of a 60 s run, and a 180 s run shows them rising for about
 *     a minute and then falling back below the middle (gateway 268 -> 130 MiB, backend 346 ->
 *     220 MiB): a ramp, not a leak. A third that short cannot tell such a ramp from growth; in
 *     longer thirds one ramp moves the median less and the allowance shrinks (RAMP_MIB x
 *     RAMP_SECONDS is 1,600 MiB*s, so thirds of 40 s and more are judged as before the ramp was
 *     re-measured).
 * So a 60 s run (20 s thirds) flags growth beyond 64 MiB between its middle and its end (a gross
 * leak); a 600 s run (200 s thirds) beyond max(10 %, 8 MiB) over 200 s.
 *
 * No error growth: the errors of all kinds in the last third of the run are not more than in the
 * first third.
 */
export const MEMORY_SLACK_FRACTION = 0.1;
export const MEMORY_SLACK_MIB = 8;
export const RAMP_MIB = 64;
export const RAMP_SECONDS = 25;
/** Fewer samples than this in a third and memory cannot be judged (the verdict fails). */
export const MIN_SAMPLES_PER_THIRD = 3;

/** One service's RSS over the run, in MiB, and whether it stayed flat. */
export interface MemoryVerdict {
  firstMiB: number;
  peakMiB: number;
  lastMiB: number;
  secondThirdMedianMiB: number;
  lastThirdMedianMiB: number;
  /** M3 - M2. */
  growthMiB: number;
  /** The slack M3 - M2 may use. */
  allowedMiB: number;
  flat: boolean;
}

/** Splits `values` (in time order) into three consecutive parts of as equal length as possible. */
export function thirds<T>(values: readonly T[]): [T[], T[], T[]] {
  const a = Math.round(values.length / 3);
  const b = Math.round((2 * values.length) / 3);
  return [values.slice(0, a), values.slice(a, b), values.slice(b)];
}

/** The slack for a run whose thirds last `thirdSeconds`, around a second-third median of `m2` MiB. */
export function memorySlackMiB(m2: number, thirdSeconds: number): number {
  return Math.max(MEMORY_SLACK_FRACTION * m2, MEMORY_SLACK_MIB, RAMP_MIB * Math.min(1, RAMP_SECONDS / thirdSeconds));
}

/** Judges one service's RSS samples (MiB, in time order, evenly spaced over `runSeconds`). */
export function memoryVerdict(samplesMiB: readonly number[], runSeconds: number): MemoryVerdict {
  const [, second, last] = thirds(samplesMiB);
  const secondMedian = median(second);
  const lastMedian = median(last);
  const allowed = memorySlackMiB(secondMedian, runSeconds / 3);
  const growth = lastMedian - secondMedian;
  const enough = second.length >= MIN_SAMPLES_PER_THIRD && last.length >= MIN_SAMPLES_PER_THIRD;
  return {
    firstMiB: samplesMiB[0] ?? Number.NaN,
    peakMiB: samplesMiB.length > 0 ? Math.max(...samplesMiB) : Number.NaN,
    lastMiB: samplesMiB.at(-1) ?? Number.NaN,
    secondThirdMedianMiB: secondMedian,
    lastThirdMedianMiB: lastMedian,
    growthMiB: growth,
    allowedMiB: allowed,
    flat: enough && growth <= allowed,
  };
}

/** Errors in the first and the last third of the run, and whether they did not grow. */
export interface ErrorVerdict {
  firstThird: number;
  lastThird: number;
  noGrowth: boolean;
}

/** Judges the errors per sampling interval (all kinds together, in time order). */
export function errorVerdict(errorsPerInterval: readonly number[]): ErrorVerdict {
  const [first, , last] = thirds(errorsPerInterval);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return { firstThird: sum(first), lastThird: sum(last), noGrowth: sum(last) <= sum(first) };
}
