import { median } from '../stats.js';

/**
 * The soak's pass rules, as pure functions of what it measured.
 *
 * Memory, per service, is judged on what survives a full garbage collection (heap.ts): read once
 * when the warm-up (the first third: JIT, pools and caches filling) ends and once when the load
 * ends, it may grow by at most the slack, max(MEMORY_SLACK_FRACTION of the first reading,
 * MEMORY_SLACK_MIB). A leak keeps what it holds through every collection; a heap V8 has merely
 * grown to its working size does not, which RSS cannot tell apart: in a 240 s soak here the
 * backend's RSS climbed 217 -> 383 MiB over 155 s and fell back to 230 MiB, and a 60 s run's
 * thirds sit inside such a climb (one CI run saw 66 MiB between its middle and its end).
 *
 * RSS is sampled throughout and printed; it is judged too (the last third's median at most the
 * slack above the second third's) only when a third lasts RSS_JUDGED_THIRD_SECONDS or longer
 * (the 600 s soak), long enough to outlast a ramp, so memory held outside JavaScript (native
 * modules, the allocator) cannot grow unseen in a long run.
 *
 * No error growth: the errors of all kinds in the last third of the run are not more than in the
 * first third.
 */
export const MEMORY_SLACK_FRACTION = 0.1;
export const MEMORY_SLACK_MIB = 8;
/** Thirds shorter than this do not judge RSS (they cannot outlast one heap ramp). */
export const RSS_JUDGED_THIRD_SECONDS = 200;
/** Fewer samples than this in a third and memory cannot be judged (the verdict fails). */
export const MIN_SAMPLES_PER_THIRD = 3;

/** One service's RSS over the run, in MiB, and whether it stayed flat (meaningful when `judged`). */
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
  /** The run's thirds are long enough for RSS to be judged. */
  judged: boolean;
  flat: boolean;
}

/** Splits `values` (in time order) into three consecutive parts of as equal length as possible. */
export function thirds<T>(values: readonly T[]): [T[], T[], T[]] {
  const a = Math.round(values.length / 3);
  const b = Math.round((2 * values.length) / 3);
  return [values.slice(0, a), values.slice(a, b), values.slice(b)];
}

/** The slack memory may grow by from a reading of `base` MiB. */
export function memorySlackMiB(base: number): number {
  return Math.max(MEMORY_SLACK_FRACTION * base, MEMORY_SLACK_MIB);
}

/** Judges one service's RSS samples (MiB, in time order, evenly spaced over `runSeconds`). */
export function memoryVerdict(samplesMiB: readonly number[], runSeconds: number): MemoryVerdict {
  const [, second, last] = thirds(samplesMiB);
  const secondMedian = median(second);
  const lastMedian = median(last);
  const allowed = memorySlackMiB(secondMedian);
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
    judged: runSeconds / 3 >= RSS_JUDGED_THIRD_SECONDS,
    flat: enough && growth <= allowed,
  };
}

/** One service's memory after a full GC when the warm-up ended and when the load ended, MiB. */
export interface RetainedVerdict {
  warmMiB: number;
  endMiB: number;
  growthMiB: number;
  allowedMiB: number;
  flat: boolean;
}

/** Judges the retained memory (heap used + external after a full GC) read after warm-up and at the end. */
export function retainedVerdict(warmMiB: number, endMiB: number): RetainedVerdict {
  const allowed = memorySlackMiB(warmMiB);
  const growth = endMiB - warmMiB;
  return { warmMiB, endMiB, growthMiB: growth, allowedMiB: allowed, flat: Number.isFinite(growth) && growth <= allowed };
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
