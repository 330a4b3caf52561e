import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { verifyPassword } from '../accounts/index.js';
import type { DB } from '../db/index.js';
import type { OperatorRole } from './operators.table.js';
import { audit } from '../operator-audit/index.js';
import { DomainError } from '../rpc/index.js';
import { closeSession, insertSession, normaliseLogin, openSessionOperator, operatorForSignIn, type Operator } from './operators.store.js';

/** A signed-in operator and when the session ends. */
export interface OperatorSession extends Operator {
  expiresAt: Date;
}

function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Control characters (NUL included) never appear in an operator login. */
const UNUSABLE_LOGIN = /[\u0000-\u001f\u007f]/;
const UNUSABLE_LOGIN_ALL = new RegExp(UNUSABLE_LOGIN.source, 'g');

/**
 * Checks login and password (an unknown login still costs one scrypt derivation, and a disabled
 * operator is refused the same way), then issues an opaque 256-bit token; only its sha256 is
 * stored. Both outcomes are audited.
 */
export async function signIn(
  db: Kysely<DB>,
  login: string,
  password: string,
  ttlHours: number,
  now: Date,
): Promise<{ token: string; session: OperatorSession }> {
  if (UNUSABLE_LOGIN.test(login) || login.length > 254) {
    // No operator login holds a control character (and PostgreSQL text cannot hold NUL): refuse it
    // like a wrong password, at the same cost, without asking the database.
    await verifyPassword(password, null);
    await audit(db, {
      operatorId: null,
      action: 'sign_in',
      target: login.replace(UNUSABLE_LOGIN_ALL, '\ufffd').slice(0, 254),
      outcome: 'refused',
      detail: 'malformed login',
    });
    throw new DomainError('invalid_credentials', 'wrong login or password');
  }
  const name = normaliseLogin(login);
  const row = await operatorForSignIn(db, name);
  const ok = await verifyPassword(password, row?.password_hash ?? null);
  if (!row || !ok || row.disabled) {
    await audit(db, {
      operatorId: row?.id ?? null,
      action: 'sign_in',
      target: name.slice(0, 254),
      outcome: 'refused',
      detail: !row ? 'unknown login' : row.disabled ? 'disabled' : 'wrong password',
    });
    throw new DomainError('invalid_credentials', 'wrong login or password');
  }
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + ttlHours * 3_600_000);
  await insertSession(db, tokenHash(token), row.id, expiresAt);
  await audit(db, { operatorId: row.id, action: 'sign_in', target: row.login, outcome: 'ok' });
  return { token, session: { id: row.id, login: row.login, roles: row.roles, disabled: false, expiresAt } };
}

/** The operator behind a token: refused when unknown, closed, expired or the operator is disabled. */
export async function resolveOperator(db: Kysely<DB>, token: string | null | undefined, now: Date): Promise<OperatorSession> {
  if (!token || token.length > 128) throw new DomainError('operator_session_invalid', 'sign in again');
  const row = await openSessionOperator(db, tokenHash(token));
  if (!row || row.disabled || row.expires_at <= now) throw new DomainError('operator_session_invalid', 'sign in again');
  return { id: row.id, login: row.login, roles: row.roles, disabled: false, expiresAt: row.expires_at };
}

/** Closes a session; false when there was no open one (idempotent). */
export async function signOut(db: Kysely<DB>, token: string | null | undefined, now: Date): Promise<boolean> {
  if (!token || token.length > 128) return false;
  const operatorId = await closeSession(db, tokenHash(token), now);
  if (operatorId !== undefined) await audit(db, { operatorId, action: 'sign_out', outcome: 'ok' });
  return operatorId !== undefined;
}

/** The header that carries the console token from the gateway on every call but SignIn. */
export const OPERATOR_SESSION_HEADER = 'x-operator-session';

/**
 * Resolves the caller's operator from the request headers and requires `role`; a missing role is
 * audited and refused with operator_forbidden.
 */
export async function requireRole(
  db: Kysely<DB>,
  headers: Headers,
  role: OperatorRole,
  action: string,
  now: Date,
): Promise<OperatorSession> {
  const operator = await resolveOperator(db, headers.get(OPERATOR_SESSION_HEADER), now);
  if (!operator.roles.includes(role)) {
    await audit(db, { operatorId: operator.id, action, outcome: 'forbidden', detail: `needs ${role}` });
    throw new DomainError('operator_forbidden', `this needs the ${role} role`);
  }
  return operator;
}
