import type { Kysely } from 'kysely';
import type { DB } from '../db/index.js';
import type { MismatchAction } from './reconciliation.table.js';

/** One press's claim on a mismatch: the row and the claim's attempt number (what its release names). */
export interface MismatchClaim {
  id: bigint;
  attempt: number;
}

/**
 * Claims an open mismatch for `action` with one conditional update, before any provider or
 * platform call: it succeeds only when no action owns the row, or when the same action owns it
 * and its call is over (an attempt without a confirmed outcome, or a claimer that died after its
 * lease). Of any number of presses on any replica, one holds the row; the others get null.
 */
export async function claimMismatch(
  db: Kysely<DB>,
  id: bigint,
  action: MismatchAction,
  operatorId: bigint,
  now: Date,
  leaseMs: number,
): Promise<MismatchClaim | null> {
  const row = await db
    .updateTable('reconciliation_mismatches')
    .set((eb) => ({
      action,
      action_by: operatorId,
      action_at: now,
      action_until: new Date(now.getTime() + leaseMs),
      action_attempt: eb('action_attempt', '+', 1),
    }))
    .where('id', '=', id)
    .where('resolved_at', 'is', null)
    .where((w) => w.or([w('action', 'is', null), w.and([w('action', '=', action), w('action_until', '<=', now)])]))
    .returning('action_attempt')
    .executeTakeFirst();
  return row ? { id, attempt: row.action_attempt } : null;
}

/**
 * Marks an open mismatch resolved by `operatorId` in one statement (nothing moves, so nothing is
 * claimed first): only when no action owns it. Answers false otherwise.
 */
export async function resolveUnclaimed(db: Kysely<DB>, id: bigint, operatorId: bigint, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('reconciliation_mismatches')
    .set((eb) => ({
      action: 'resolve',
      action_by: operatorId,
      action_at: now,
      action_until: now,
      action_attempt: eb('action_attempt', '+', 1),
      resolution: 'resolved',
      resolved_at: now,
      resolved_by: operatorId,
    }))
    .where('id', '=', id)
    .where('resolved_at', 'is', null)
    .where('action', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Records the outcome of `action` on the mismatch it owns (whichever press of that action got there). */
export async function finishMismatch(
  db: Kysely<DB>,
  id: bigint,
  action: MismatchAction,
  resolution: string,
  operatorId: bigint,
  now: Date,
): Promise<void> {
  await db
    .updateTable('reconciliation_mismatches')
    .set({ resolution: resolution.slice(0, 200), resolved_at: now, resolved_by: operatorId, action_until: now })
    .where('id', '=', id)
    .where('resolved_at', 'is', null)
    .where('action', '=', action)
    .execute();
}

/** Drops a claim whose attempt moved nothing (a refusal): any action may be pressed again. */
export async function releaseMismatch(db: Kysely<DB>, claim: MismatchClaim): Promise<void> {
  await db
    .updateTable('reconciliation_mismatches')
    .set({ action: null, action_by: null, action_at: null, action_until: null })
    .where('id', '=', claim.id)
    .where('action_attempt', '=', claim.attempt)
    .where('resolved_at', 'is', null)
    .execute();
}

/**
 * Ends the call of a claim whose outcome is unknown (the money may have moved): the row stays with
 * its action, which may be pressed again at once; no other action may.
 */
export async function leaveMismatch(db: Kysely<DB>, claim: MismatchClaim, now: Date): Promise<void> {
  await db
    .updateTable('reconciliation_mismatches')
    .set({ action_until: now })
    .where('id', '=', claim.id)
    .where('action_attempt', '=', claim.attempt)
    .where('resolved_at', 'is', null)
    .execute();
}

/** Who owns a mismatch and how it ended, with the operators' logins (null when the operator row is gone). */
export interface MismatchStateRow {
  resolution: string | null;
  resolved_at: Date | null;
  resolved_by: bigint | null;
  resolver: string | null;
  action: MismatchAction | null;
  action_by: bigint | null;
  action_at: Date | null;
  action_until: Date | null;
  actor: string | null;
}

/** The mismatch's resolution and claim, joined to the operators behind them; undefined when there is no such mismatch. */
export async function mismatchState(db: Kysely<DB>, id: bigint): Promise<MismatchStateRow | undefined> {
  return db
    .selectFrom('reconciliation_mismatches as m')
    .leftJoin('operators as r', 'r.id', 'm.resolved_by')
    .leftJoin('operators as a', 'a.id', 'm.action_by')
    .select([
      'm.resolution',
      'm.resolved_at',
      'm.resolved_by',
      'r.login as resolver',
      'm.action',
      'm.action_by',
      'm.action_at',
      'm.action_until',
      'a.login as actor',
    ])
    .where('m.id', '=', id)
    .executeTakeFirst();
}
