import type { Kysely } from 'kysely';
import { hashPassword } from '../accounts/index.js';
import type { DB } from '../db/index.js';
import type { OperatorRole } from './operators.table.js';

/** A stored operator without the password hash. */
export interface Operator {
  id: bigint;
  login: string;
  roles: OperatorRole[];
  disabled: boolean;
}

/** Normalises a login: trimmed, lower-cased. */
export function normaliseLogin(login: string): string {
  return login.trim().toLowerCase();
}

/**
 * Creates an operator, or replaces the password and roles of an existing login (re-enabling it),
 * so the CLI both seeds the first operator and resets one. Password: 12..256 characters.
 */
export async function upsertOperator(db: Kysely<DB>, login: string, password: string, roles: OperatorRole[]): Promise<Operator> {
  const name = normaliseLogin(login);
  if (!/^[a-z0-9._@+-]{3,254}$/.test(name)) throw new RangeError('login must be 3-254 characters of a-z 0-9 . _ @ + -');
  if (password.length < 12 || password.length > 256) throw new RangeError('password must be 12-256 characters');
  const password_hash = await hashPassword(password);
  const row = await db
    .insertInto('operators')
    .values({ login: name, password_hash, roles })
    .onConflict((oc) => oc.column('login').doUpdateSet({ password_hash, roles, disabled: false }))
    .returning(['id', 'login', 'roles', 'disabled'])
    .executeTakeFirstOrThrow();
  return row;
}

/** Disables (or re-enables) an operator; its sessions stop resolving at once. */
export async function setOperatorDisabled(db: Kysely<DB>, login: string, disabled: boolean): Promise<boolean> {
  const r = await db.updateTable('operators').set({ disabled }).where('login', '=', normaliseLogin(login)).executeTakeFirst();
  return r.numUpdatedRows > 0n;
}
