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

/** One unit to take from a counter: its row key (`prefix:key`, as the library builds it) and window (0: never ends, as in the library). */
export interface Take {
  key: string;
  durationMs: number;
}

/** A counter after a take: units counted in its window, and the window's end in epoch ms (null: never ends). */
export interface Count {
  key: string;
  points: number;
  expire: number | null;
}

/**
 * Rows in the library's format (points, expire in epoch ms), so rows written by either stay one
 * count: a row whose window ended at `nowMs` starts again at 1 with a new window, any other row
 * gains a unit and keeps its window. Keys are upserted in sorted order, so two statements sharing
 * keys lock them in one order and never deadlock.
 */
const TAKE_UNITS = `INSERT INTO rate_limits (key, points, expire)
  SELECT t.key, 1, CASE WHEN t.duration_ms > 0 THEN $3::bigint + t.duration_ms END
  FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS t(key, duration_ms, n) ORDER BY t.n
  ON CONFLICT (key) DO UPDATE SET
    points = CASE WHEN rate_limits.expire <= $3::bigint THEN 1 ELSE rate_limits.points + 1 END,
    expire = CASE WHEN rate_limits.expire <= $3::bigint THEN excluded.expire ELSE rate_limits.expire END
  RETURNING key, points, expire`;

/**
 * Takes one unit from each counter of `takes` at `nowMs`, in ONE statement (one write
 * transaction), atomically per row, so every replica sharing the table counts as one. Every take
 * counts, whether or not it goes over; the caller decides what over means. A named prepared
 * statement: parsed and planned once per pooled connection.
 */
export async function takeUnits(store: CounterStore, takes: readonly Take[], nowMs: number): Promise<Count[]> {
  const sorted = [...takes].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const { rows } = await store.pool.query<{ key: string; points: number; expire: bigint | string | null }>({
    name: 'rate_limits_take',
    text: TAKE_UNITS,
    values: [sorted.map((t) => t.key), sorted.map((t) => Math.trunc(t.durationMs)), Math.trunc(nowMs)],
  });
  return rows.map((r) => ({ key: r.key, points: r.points, expire: r.expire === null ? null : Number(r.expire) }));
}

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
