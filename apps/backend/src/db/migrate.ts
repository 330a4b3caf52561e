import type { Kysely } from 'kysely';
import { Migrator, NO_MIGRATIONS, type MigrationResultSet } from 'kysely/migration';
import { migrations } from './migrations/index.js';

function migrator<T>(db: Kysely<T>): Migrator {
  return new Migrator({ db, provider: { getMigrations: () => Promise.resolve(migrations) } });
}

function unwrap({ error, results }: MigrationResultSet): string[] {
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed`, { cause: error });
  }
  return (results ?? []).map((r) => `${r.direction} ${r.migrationName}`);
}

/** Applies every pending migration; returns what ran. Safe to call on every start. */
export async function migrateToLatest<T>(db: Kysely<T>): Promise<string[]> {
  return unwrap(await migrator(db).migrateToLatest());
}

/** Reverts the most recent migration; returns what ran (empty when none is applied). */
export async function migrateDown<T>(db: Kysely<T>): Promise<string[]> {
  return unwrap(await migrator(db).migrateDown());
}

/** Reverts every migration, newest first. */
export async function migrateToZero<T>(db: Kysely<T>): Promise<string[]> {
  return unwrap(await migrator(db).migrateTo(NO_MIGRATIONS));
}
