/**
 * One rate-limit counter (migration 0070), in rate-limiter-flexible's layout so the library (the
 * sign-in limits) and the quotas' own upsert read and write one format: `key` is the rule's prefix,
 * ':' and the counted key; `points` the units taken in the window; `expire` the window's end in
 * epoch ms (null: never ends).
 */
export interface RateLimitsTable {
  key: string;
  points: number;
  expire: bigint | null;
}

declare module '../db/index.js' {
  /** The limits feature's table: counters every backend replica shares. */
  interface DB {
    rate_limits: RateLimitsTable;
  }
}
