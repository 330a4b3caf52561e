import { Counter, Histogram, type MetricObjectWithValues, type MetricType, type MetricValueWithName } from 'prom-client';

/** One procedure's answered-ok count and latency histogram, updated with plain arithmetic. */
export interface MethodRecorder {
  /** Counts one call answered ok. */
  ok(): void;
  /** Records one call's duration in seconds. */
  observe(seconds: number): void;
}

/** One procedure's latency histogram as plain numbers. */
export interface Series {
  /** Calls per bucket (not cumulative), the last slot for beyond the largest bound. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * A histogram as prom-client exposes it, but recorded through series handed out once (one per
 * `method` label value, or the one series of a histogram without labels): prom-client's `observe`
 * validates and hashes the label set on every call, a measurable share of a wallet.get's CPU.
 * `backend_rpc_duration_seconds{method}` and `backend_db_pool_acquire_seconds` use it. The scrape
 * output is the same as prom-client's Histogram (cumulative `le` buckets, `+Inf`, `_sum`, `_count`).
 */
export class SeriesHistogram extends Histogram<'method'> {
  private readonly bounds: readonly number[];
  private readonly metricName: string;
  private readonly metricHelp: string;
  private readonly labelled: boolean;
  // Not #private: prom-client's constructor calls reset() before subclass fields exist.
  private readonly table = new Map<string, Series>();

  constructor(
    name: string,
    help: string,
    bounds: readonly number[],
    registers: NonNullable<ConstructorParameters<typeof Histogram>[0]['registers']>,
    labels: 'method' | 'none' = 'method',
  ) {
    super({ name, help, labelNames: labels === 'method' ? ['method'] : [], buckets: [...bounds], registers });
    this.labelled = labels === 'method';
    this.bounds = bounds;
    this.metricName = name;
    this.metricHelp = help;
  }

  /** The series of `method` (`''` for a histogram without labels), created at zero and exposed from then on. */
  series(method: string): Series {
    let s = this.table.get(method);
    if (s === undefined) {
      s = { buckets: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
      this.table.set(method, s);
    }
    return s;
  }

  /** Records into `s`: the first bound that is >= seconds takes the call. */
  record(s: Series, seconds: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > (bounds[i] as number)) i += 1;
    s.buckets[i] = (s.buckets[i] ?? 0) + 1;
    s.sum += seconds;
    s.count += 1;
  }

  /** What the registry's text scrape reads (prom-client 15 prefers it to get() for histograms). */
  getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<'method' | 'le'>>> {
    return Promise.resolve(this.snapshot());
  }

  override get(): Promise<MetricObjectWithValues<MetricValueWithName<'method' | 'le'>>> {
    return Promise.resolve(this.snapshot());
  }

  private snapshot(): MetricObjectWithValues<MetricValueWithName<'method' | 'le'>> {
    const name = this.metricName;
    const values: MetricValueWithName<'method' | 'le'>[] = [];
    for (const [method, s] of this.table) {
      const own = this.labelled ? { method } : {};
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += s.buckets[i] ?? 0;
        values.push({ labels: { le, ...own }, value: acc, metricName: `${name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...own }, value: s.count, metricName: `${name}_bucket` });
      values.push({ labels: own, value: s.sum, metricName: `${name}_sum` });
      values.push({ labels: own, value: s.count, metricName: `${name}_count` });
    }
    // prom-client's typings declare `type` as a numeric enum it never exports; at run time it is this string.
    return { name, help: this.metricHelp, type: 'histogram' as unknown as MetricType, values, aggregator: 'sum', collect: () => undefined };
  }

  override reset(): void {
    super.reset();
    // Called by prom-client's constructor too, before this class's fields are set.
    for (const s of (this.table as Map<string, Series> | undefined)?.values() ?? []) {
      s.buckets.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}

/**
 * `backend_rpc_requests_total{method,code}`: failures counted by prom-client (rare, any code), ok
 * answers (every call) in a plain per-procedure count added to the `code="ok"` sample at scrape.
 */
export class MethodCounter extends Counter<'method' | 'code'> {
  // Not #private: prom-client's constructor calls reset() before subclass fields exist.
  private readonly okCounts = new Map<string, { n: number }>();

  constructor(name: string, help: string, registers: NonNullable<ConstructorParameters<typeof Counter>[0]['registers']>) {
    super({ name, help, labelNames: ['method', 'code'], registers });
  }

  /** The ok count of `method`, exposed at zero from now on. */
  okOf(method: string): { n: number } {
    let c = this.okCounts.get(method);
    if (c === undefined) {
      c = { n: 0 };
      this.okCounts.set(method, c);
    }
    return c;
  }

  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<'method' | 'code'>>> {
    const data = await super.get();
    // super.get() hands out prom-client's own sample objects: copy before adding to them.
    const values = data.values.map((v) => ({ ...v }));
    for (const [method, c] of this.okCounts) {
      const found = values.find((v) => v.labels.method === method && v.labels.code === 'ok');
      if (found) found.value += c.n;
      else values.push({ labels: { method, code: 'ok' }, value: c.n });
    }
    return { ...data, values };
  }

  override reset(): void {
    super.reset();
    for (const c of (this.okCounts as Map<string, { n: number }> | undefined)?.values() ?? []) c.n = 0;
  }
}

/** The recorder of `method`: its ok count in `requests`, its durations in `duration` (none for a stream). */
export function methodRecorder(requests: MethodCounter, duration: SeriesHistogram | undefined, method: string): MethodRecorder {
  const count = requests.okOf(method);
  const s = duration?.series(method);
  return {
    ok: () => {
      count.n += 1;
    },
    observe: (seconds) => {
      if (s !== undefined) duration?.record(s, seconds);
    },
  };
}
