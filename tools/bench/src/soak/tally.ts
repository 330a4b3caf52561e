import { performance } from 'node:perf_hooks';
import { percentile } from '../stats.js';

/** Requests and errors counted over some span. */
export interface Count {
  requests: number;
  errors: number;
}

/** Everything one kind did over the whole run. */
export interface KindTotal extends Count {
  kind: string;
  p50Ms: number;
  p99Ms: number;
  firstError: string | undefined;
}

/**
 * Counts operations per kind and per sampling interval (by completion time; whatever completes
 * after the planned end counts in the last interval), keeps each kind's latencies and its first
 * error message.
 */
export class Tally {
  private readonly intervals: Map<string, Count>[];
  private readonly totals = new Map<string, { count: Count; latencies: number[]; firstError: string | undefined }>();

  constructor(
    private readonly kinds: readonly string[],
    private readonly t0: number,
    private readonly intervalMs: number,
    intervalCount: number,
  ) {
    this.intervals = Array.from({ length: intervalCount }, () => new Map<string, Count>());
    for (const kind of kinds) this.totals.set(kind, { count: { requests: 0, errors: 0 }, latencies: [], firstError: undefined });
  }

  /** Counts one finished operation of `kind`; `error` set means it failed. */
  record(kind: string, latencyMs: number, error?: string): void {
    const index = Math.min(this.intervals.length - 1, Math.max(0, Math.floor((performance.now() - this.t0) / this.intervalMs)));
    const slot = this.intervals[index] as Map<string, Count>;
    const count = slot.get(kind) ?? { requests: 0, errors: 0 };
    slot.set(kind, count);
    const total = this.totals.get(kind);
    if (!total) throw new Error(`unknown kind ${kind}`);
    count.requests += 1;
    total.count.requests += 1;
    total.latencies.push(latencyMs);
    if (error !== undefined) {
      count.errors += 1;
      total.count.errors += 1;
      total.firstError ??= error;
    }
  }

  /** All kinds together in interval `index`. */
  interval(index: number): Count {
    const sum: Count = { requests: 0, errors: 0 };
    for (const c of this.intervals[index]?.values() ?? []) {
      sum.requests += c.requests;
      sum.errors += c.errors;
    }
    return sum;
  }

  /** Errors per interval, all kinds together. */
  errorsPerInterval(): number[] {
    return this.intervals.map((_, i) => this.interval(i).errors);
  }

  /** Each kind's totals, latency percentiles and first error. */
  kindTotals(): KindTotal[] {
    return this.kinds.map((kind) => {
      const t = this.totals.get(kind) as { count: Count; latencies: number[]; firstError: string | undefined };
      const sorted = [...t.latencies].sort((a, b) => a - b);
      return {
        kind,
        ...t.count,
        p50Ms: percentile(sorted, 50) ?? Number.NaN,
        p99Ms: percentile(sorted, 99) ?? Number.NaN,
        firstError: t.firstError,
      };
    });
  }
}
