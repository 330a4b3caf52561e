import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Logger } from '@wordgame/logging';
import { ACQUIRE_CAP_MS, boundCheckouts } from './acquire.js';
import type { DB } from './schema.js';

const INT8_OID = 20;
const INT8_ARRAY_OID = 1016;

/** An open database: kysely over a PostgreSQL pg pool, and how to close it. */
export interface Database {
  readonly db: Kysely<DB>;
  /** The pg pool behind `db` (shared by the rate limits; never a second pool). */
  readonly pool: pg.Pool;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL URL. */
  url: string;
  poolMax?: number;
  statementTimeoutMs?: number;
  /** How long a checkout outside a call waits (DB_ACQUIRE_TIMEOUT_MS); default JOB_ACQUIRE_TIMEOUT_MS. */
  jobAcquireTimeoutMs?: number;
  logger?: Logger;
}

type TextParser = (value: string) => unknown;
type PreparedRunner = <R>(name: string, text: string, values: readonly unknown[]) => Promise<R[]>;

const preparedRunners = new WeakMap<Kysely<DB>, PreparedRunner>();

/**
 * Runs one hot-path statement on its own (autocommit: the statement is its transaction). On a
 * PostgreSQL pool opened by openDatabase it is a named prepared statement, parsed and planned once
 * per pooled connection instead of on every call; otherwise (a kysely built elsewhere) it goes
 * through kysely. `text` uses $1..$n.
 */
export function runPrepared<R>(db: Kysely<DB>, name: string, text: string, values: readonly unknown[]): Promise<R[]> {
  const runner = preparedRunners.get(db);
  if (runner) return runner<R>(name, text, values);
  return db.executeQuery<R>(CompiledQuery.raw(text, [...values])).then((r) => r.rows);
}

/** PostgreSQL's refusal of a cached plan whose result type a schema change altered (SQLSTATE 0A000). */
function isStalePlan(err: unknown): boolean {
  return (
    err instanceof Error && (err as { code?: unknown }).code === '0A000' && /cached plan must not change result type/.test(err.message)
  );
}

/** int8 arrives as text from pg; parse it to bigint (money is int8). */
function pgTypes(): pg.CustomTypesConfig {
  const builtin = (oid: number): TextParser => pg.types.getTypeParser(oid, 'text') as TextParser;
  const int8Array = builtin(INT8_ARRAY_OID);
  const parsers: Record<number, TextParser> = {
    [INT8_OID]: (value) => BigInt(value),
    [INT8_ARRAY_OID]: (value) => (int8Array(value) as Array<string | null>).map((v) => (v === null ? null : BigInt(v))),
  };
  return { getTypeParser: ((oid: number) => parsers[oid] ?? builtin(oid)) as pg.CustomTypesConfig['getTypeParser'] };
}

/**
 * Opens the PostgreSQL database at `url`. Int8 columns read back as `bigint`. The pg pool has
 * bounded waits so a stuck database surfaces as an error instead of a hang: a checkout waits as
 * long as its call may last (boundCheckouts; at most ACQUIRE_CAP_MS), a statement
 * DB_STATEMENT_TIMEOUT_MS, an idle transaction 30 s.
 */
export function openDatabase(options: DatabaseOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolMax ?? 20,
    connectionTimeoutMillis: ACQUIRE_CAP_MS,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs ?? 10_000,
    idle_in_transaction_session_timeout: 30_000,
    types: pgTypes(),
  });
  // A client losing its server (e.g. a PostgreSQL restart) must not crash the process, idle or
  // checked out (a transaction between statements): each client's error is logged once here; the
  // pool re-emits an idle client's error (needs a listener) and drops a broken client on release.
  pool.on('connect', (client) => client.on('error', (err) => options.logger?.warn({ err }, 'database connection failed')));
  pool.on('error', () => undefined);
  boundCheckouts(pool, options.jobAcquireTimeoutMs);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  // A migration that changes a table a prepared statement reads (a column added, as a rolling deploy
  // does while older replicas serve) makes PostgreSQL refuse the cached plan before it runs anything:
  // every name then moves to a new generation, parsed afresh on each connection, and the call is
  // repeated once (nothing ran, so repeating is safe).
  let generation = 0;
  const prepared = async <R>(name: string, text: string, values: readonly unknown[]): Promise<R[]> => {
    const seen = generation;
    const named = () => (generation === 0 ? name : `${name}~${generation}`);
    try {
      return (await pool.query<R & pg.QueryResultRow>({ name: named(), text, values: [...values] })).rows;
    } catch (err: unknown) {
      if (!isStalePlan(err)) throw err;
      if (generation === seen) generation += 1;
      options.logger?.warn({ statement: name, generation }, 'prepared statement plan went stale after a schema change: prepared again');
      return (await pool.query<R & pg.QueryResultRow>({ name: named(), text, values: [...values] })).rows;
    }
  };
  preparedRunners.set(db, prepared);
  return Promise.resolve({ db, pool, close: () => db.destroy() });
}
