/**
 * The database module's one public entry: the PostgreSQL connection, prepared statements,
 * migrations, the database type the modules' *.table.ts files compose, and the unavailable-database classifier the error edge uses. Other
 * features import from here only.
 */
export { type Database, openDatabase, runPrepared } from './database.js';
export { withinCall } from './acquire.js';
export { migrateToLatest } from './migrate.js';
export type { DB, Timestamp } from './schema.js';
export { isDatabaseUnavailable } from './unavailable.js';
