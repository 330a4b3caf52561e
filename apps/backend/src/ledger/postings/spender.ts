import { CompiledQuery, type Transaction } from 'kysely';
import type { DB } from '../../db/index.js';
import { DomainError } from '../../rpc/index.js';

/**
 * The account row of a player-started money write, locked FOR SHARE, with `live` (not deleted)
 * and `suspended` (admin-suspended at `now`: no end, or an end still ahead — the rule of
 * accounts/status.ts isSuspended). `id` and `now` name the statement's parameters.
 *
 * Why FOR SHARE makes a block take effect at once: a block (moderation/moderate.ts), like an
 * account delete, locks the same row FOR UPDATE and updates it, which conflicts with SHARE. If the block holds the row first, the
 * money write waits for its commit and then reads the blocked row (READ COMMITTED re-reads the
 * newest version of a row it locks); if the money write holds it first, the block waits until the
 * write has committed. Either way no spend commits after a block has committed. The row is taken
 * first, before segments, benefits, orders or games, so every writer locks in one order.
 */
export function spenderRow(id: string, now: string): string {
  return `SELECT status <> 'deleted' AS live, status = 'suspended' AND (suspended_until IS NULL OR suspended_until > ${now}::timestamptz) AS suspended FROM accounts WHERE id = ${id}::bigint FOR SHARE`;
}

const LOCK_SPENDER = spenderRow('$1', '$2');

/** Why an account may not start a money write. */
export type SpendRefusal = 'caller_required' | 'account_suspended';

/**
 * Locks the account row FOR SHARE in the caller's transaction (see spenderRow) and answers why it
 * may not spend now — `caller_required` when missing or deleted, `account_suspended` when blocked —
 * or null when it may. Call it first in the transaction of the money write it guards.
 */
export async function lockSpender(trx: Transaction<DB>, accountId: bigint, now: Date): Promise<SpendRefusal | null> {
  const { rows } = await trx.executeQuery<{ live: boolean; suspended: boolean }>(CompiledQuery.raw(LOCK_SPENDER, [accountId, now]));
  const row = rows[0];
  if (!row?.live) return 'caller_required';
  return row.suspended ? 'account_suspended' : null;
}

/** lockSpender, with a refusal thrown as its DomainError. */
export async function requireSpender(trx: Transaction<DB>, accountId: bigint, now: Date): Promise<void> {
  const refusal = await lockSpender(trx, accountId, now);
  if (refusal === 'caller_required') throw new DomainError('caller_required', 'the caller account does not exist');
  if (refusal === 'account_suspended') throw new DomainError('account_suspended', 'the account is suspended');
}
