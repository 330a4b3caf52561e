import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL server tests use: DATABASE_URL, else the local trust-auth server. */
export function testServerUrl(): string {
  return process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
}

/** Runs one administrative statement (create/drop database) on `serverUrl` over its own connection. */
export async function adminQuery(serverUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database with a small pool for the test's own reads and fixtures; `drop()` removes it. */
export interface FreshDatabase {
  url: string;
  /** Runs one statement against the database. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  drop(): Promise<void>;
}

/**
 * Creates a uniquely named database (`<prefix>_<time>_<random>`) on `serverUrl`, so suites run in
 * parallel without seeing each other's rows. The pool outlives a server restart: a dropped idle
 * client is replaced on the next query.
 */
export async function freshDatabase(prefix: string, serverUrl = testServerUrl()): Promise<FreshDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2, connectionTimeoutMillis: 5_000 });
  pool.on('error', () => undefined);
  return {
    url: url.toString(),
    query: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => pool.query<R>(text, values),
    drop: async () => {
      await pool.end();
      await adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

/**
 * Credits chips to one segment the way a grant does: the balance and its ledger operation together
 * (test funding written as SQL, so a change to the wallet schema must update it).
 */
export async function grantChips(
  db: Pick<FreshDatabase, 'query'>,
  accountId: string,
  segment: string,
  chips: bigint,
  note = 'test grant',
): Promise<void> {
  await db.query(
    `insert into wallet_segments (account_id, segment, balance) values ($1, $2, $3)
     on conflict (account_id, segment) do update set balance = wallet_segments.balance + excluded.balance`,
    [accountId, segment, chips.toString()],
  );
  await db.query(`insert into ledger_operations (account_id, kind, segment, chips_delta, note) values ($1, 'grant', $2, $3, $4)`, [
    accountId,
    segment,
    chips.toString(),
    note,
  ]);
}
