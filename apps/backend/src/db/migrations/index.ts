import type { Migration } from 'kysely/migration';
import * as m0001 from './0001_identity.js';

/**
 * Every migration, in order. Names sort lexically; a new migration appends a new entry and never
 * edits a landed one (expand, then contract; every `up` has a `down`).
 */
export const migrations: Record<string, Migration> = {
  '0001_identity': m0001,
};
