/** Parameters of an exponential backoff with jitter. */
export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** Growth per failure; gRPC uses 1.6. */
  multiplier?: number;
  /** Relative jitter, 0.2 = ±20 % (gRPC's). */
  jitter?: number;
  /** Uniform [0, 1) source; injectable for tests. */
  random?: () => number;
}

/**
 * gRPC's connection backoff: the first delay is `initialMs`, each further one `multiplier` times
 * the previous, capped at `maxMs`, and every delay handed out is spread by ±`jitter` so a fleet of
 * clients does not reconnect in lockstep. `reset()` after a success starts over.
 */
export class Backoff {
  private current: number;
  private readonly multiplier: number;
  private readonly jitter: number;
  private readonly random: () => number;

  constructor(private readonly options: BackoffOptions) {
    this.current = options.initialMs;
    this.multiplier = options.multiplier ?? 1.6;
    this.jitter = options.jitter ?? 0.2;
    this.random = options.random ?? Math.random;
  }

  /** The next delay in milliseconds (jittered), advancing the base delay. */
  next(): number {
    const base = Math.min(this.current, this.options.maxMs);
    this.current = Math.min(this.current * this.multiplier, this.options.maxMs);
    const spread = 1 + this.jitter * (this.random() * 2 - 1);
    return Math.max(0, Math.round(base * spread));
  }

  reset(): void {
    this.current = this.options.initialMs;
  }
}

/**
 * The delay before try number `failures + 1` of one item that has failed `failures` times: the
 * same curve as Backoff (initial, x multiplier, capped, ±jitter) without shared state, so every
 * item (an outbox row) keeps its own schedule.
 */
export function delayAfter(failures: number, options: BackoffOptions): number {
  const multiplier = options.multiplier ?? 1.6;
  const jitter = options.jitter ?? 0.2;
  const base = Math.min(options.initialMs * multiplier ** Math.max(0, failures - 1), options.maxMs);
  const spread = 1 + jitter * ((options.random ?? Math.random)() * 2 - 1);
  return Math.max(0, Math.round(base * spread));
}
