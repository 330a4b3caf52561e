import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/index.js';

/** The readiness probe's trivial statement (`select 1`): resolves when the database answers, rejects when it fails. */
export async function probeDatabase(db: Kysely<DB>): Promise<void> {
  await sql`select 1`.execute(db);
}
