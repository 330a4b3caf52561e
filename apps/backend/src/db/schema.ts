import type { ColumnType } from 'kysely';

/** A timestamptz column: read as Date, written as Date or an SQL default. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/**
 * The database as kysely sees it; grows with each migration. Each module declares its own tables in
 * its `*.table.ts` and adds them to this interface by declaration merging (`declare module
 * '../db/index.js' { interface DB { ... } }`): the database type is composed from per-feature table
 * interfaces as in kysely's example app, without db/ importing the modules that build on it (that
 * import would close a cycle). A program that compiles only part of the backend (tools/faults,
 * tools/bench) includes every backend table file (a glob in its tsconfig), so every table is known.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the modules' *.table.ts files
export interface DB {}
