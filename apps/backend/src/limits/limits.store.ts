import pg from 'pg';
import { RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** One counter: at most `points` per `durationSeconds` window per key, under its own key prefix. */
export interface Rule {
  prefix: string;
  points: number;
  durationSeconds: number;
}

/** Where counters live: the shared PostgreSQL table (every replica sees one count). */
export type CounterStore = { kind: 'postgres'; pool: pg.Pool };

/** The table migration 0070 creates; the library is told it exists and never creates it. */
const TABLE = 'rate_limits';

/**
 * A limiter for `rule` in `store`. On PostgreSQL every rule shares the `rate_limits` table (keys
 * carry the rule's prefix); only the rule named `sweeper` deletes rows expired an hour ago, once
 * an hour (one timer per process, not one per rule).
 */
export function limiterFor(store: CounterStore, rule: Rule, sweeper: boolean): RateLimiterAbstract {
  const base = { keyPrefix: rule.prefix, points: rule.points, duration: rule.durationSeconds };
  return new RateLimiterPostgres({
    ...base,
    storeClient: withStockTypes(store.pool),
    storeType: 'client',
    tableName: TABLE,
    tableCreated: true,
    clearExpiredByTimeout: sweeper,
  });
}

/** The one method of a pg client the library calls. */
interface Queryable {
  query(config: pg.QueryConfig): Promise<pg.QueryResult>;
}

/**
 * The backend's pool, but each query parses int8 as pg's stock parser does (a JS number): the pool
 * reads int8 as bigint for money, and the library does arithmetic on its epoch-ms `expire`.
 */
function withStockTypes(pool: pg.Pool): Queryable {
  return { query: (config) => pool.query({ ...config, types: pg.types }) };
}
