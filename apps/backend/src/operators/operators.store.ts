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

/** An operator by normalised login, with its password hash; undefined when there is none. */
export async function operatorForSignIn(db: Kysely<DB>, login: string): Promise<(Operator & { password_hash: string }) | undefined> {
  return db
    .selectFrom('operators')
    .select(['id', 'login', 'roles', 'disabled', 'password_hash'])
    .where('login', '=', login)
    .executeTakeFirst();
}

/** Stores a new session under the sha256 of its token. */
export async function insertSession(db: Kysely<DB>, tokenHash: string, operatorId: bigint, expiresAt: Date): Promise<void> {
  await db.insertInto('operator_sessions').values({ token_hash: tokenHash, operator_id: operatorId, expires_at: expiresAt }).execute();
}

/** The operator of a session that is not closed (expired or not; disabled or not), by token hash; undefined when none. */
export async function openSessionOperator(db: Kysely<DB>, tokenHash: string): Promise<(Operator & { expires_at: Date }) | undefined> {
  return db
    .selectFrom('operator_sessions as s')
    .innerJoin('operators as o', 'o.id', 's.operator_id')
    .select(['o.id', 'o.login', 'o.roles', 'o.disabled', 's.expires_at'])
    .where('s.token_hash', '=', tokenHash)
    .where('s.closed_at', 'is', null)
    .executeTakeFirst();
}

/** Closes the open session of a token hash at `now`; answers its operator, or undefined when no open session had it. */
export async function closeSession(db: Kysely<DB>, tokenHash: string, now: Date): Promise<bigint | undefined> {
  const closed = await db
    .updateTable('operator_sessions')
    .set({ closed_at: now })
    .where('token_hash', '=', tokenHash)
    .where('closed_at', 'is', null)
    .returning('operator_id')
    .executeTakeFirst();
  return closed?.operator_id;
}
