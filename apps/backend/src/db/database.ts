import { mkdirSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { CompiledQuery, Kysely, PGliteDialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import { claimFolder } from '@wordgame/config';
import type { Logger } from '@wordgame/logging';
import type { DB } from './schema.js';

const INT8_OID = 20;
const INT8_ARRAY_OID = 1016;

/** An open database: kysely over PostgreSQL (pg pool) or embedded PGlite, and how to close it. */
export interface Database {
  readonly db: Kysely<DB>;
  readonly dialect: 'postgres' | 'pglite';
  /** The pg pool behind `db` on PostgreSQL (shared by the rate limits; never a second pool); absent on PGlite. */
  readonly pool?: pg.Pool;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL URL; absent = embedded PGlite. */
  url?: string | undefined;
  /** PGlite data directory, or `memory://` for a throwaway database. */
  pgliteDir?: string;
  poolMax?: number;
  statementTimeoutMs?: number;
  logger?: Logger;
}

type TextParser = (value: string) => unknown;
type PreparedRunner = <R>(name: string, text: string, values: readonly unknown[]) => Promise<R[]>;

const preparedRunners = new WeakMap<Kysely<DB>, PreparedRunner>();

/**
 * Runs one hot-path statement on its own (autocommit: the statement is its transaction). On a
 * PostgreSQL pool opened by openDatabase it is a named prepared statement, parsed and planned once
 * per pooled connection instead of on every call; otherwise (PGlite, a kysely built elsewhere) it
 * goes through kysely, which serialises PGlite's single connection. `text` uses $1..$n.
 */
export function runPrepared<R>(db: Kysely<DB>, name: string, text: string, values: readonly unknown[]): Promise<R[]> {
  const runner = preparedRunners.get(db);
  if (runner) return runner<R>(name, text, values);
  return db.executeQuery<R>(CompiledQuery.raw(text, [...values])).then((r) => r.rows);
}

/** int8 arrives as text from pg; parse it to bigint so both dialects agree (money is int8). */
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
 * PGlite, the dev database, loaded only when no PostgreSQL URL is given: it is a devDependency of the
 * backend, so the production bundle keeps it out (a dynamic import the build leaves unresolved) and
 * the images never carry its 27 MB. Without it installed, a missing DATABASE_URL is a clear error.
 */
async function loadPGlite(): Promise<typeof PGlite> {
  try {
    return (await import('@electric-sql/pglite')).PGlite;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND')
      throw new Error('DATABASE_URL is required: PGlite, the dev database used without it, is a dev dependency and is not installed here');
    throw err;
  }
}

/**
 * Opens the database: PostgreSQL when `url` is set, else PGlite (dev only, see loadPGlite) on a
 * folder this process claims first (claimFolder: refused while another process holds it, e.g. the
 * dev stack's database server). Int8 columns read back as
 * `bigint` on both. The pg pool has bounded waits (connect timeout, statement timeout, idle-in-
 * transaction timeout) so a stuck database surfaces as an error instead of a hang.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolMax ?? 20,
      connectionTimeoutMillis: 5_000,
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
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    const prepared = async <R>(name: string, text: string, values: readonly unknown[]): Promise<R[]> =>
      (await pool.query<R & pg.QueryResultRow>({ name, text, values: [...values] })).rows;
    preparedRunners.set(db, prepared);
    return { db, dialect: 'postgres', pool, close: () => db.destroy() };
  }
  const dir = options.pgliteDir ?? 'memory://';
  // One process per folder: a second PGlite on it would write beside the first and lose the writes.
  const release = dir.startsWith('memory://') ? () => undefined : claimFolder(dir, `${process.argv[1] ?? 'node'} with PGLITE_DIR`);
  try {
    if (!dir.startsWith('memory://')) mkdirSync(dir, { recursive: true });
    const pglite = await (
      await loadPGlite()
    ).create(dir, {
      parsers: { [INT8_OID]: (value: string) => BigInt(value) },
    });
    const db = new Kysely<DB>({ dialect: new PGliteDialect({ pglite }) });
    return { db, dialect: 'pglite', close: () => db.destroy().finally(release) };
  } catch (err) {
    release();
    throw err;
  }
}
