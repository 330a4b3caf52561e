import type { Kysely } from 'kysely';
import { lockAccountStatus, markAccountDeleted } from '../accounts/index.js';
import type { DB } from '../db/index.js';
import { forfeitGamesOf } from '../game/index.js';
import { eraseCaseTextsOf } from '../helpdesk/index.js';
import { DomainError } from '../rpc/index.js';

/** What a soft delete did. */
export interface Deletion {
  sessionsRevoked: number;
  /** Active games the account sat in, now finished with the other seat winning. */
  forfeited: Array<{ gameId: bigint; seat: number }>;
}

/**
 * Soft-deletes an account in one transaction: the row stays (ledger integrity) with status
 * `deleted` and `deleted_at`; every session of the account is revoked (deleted, so ResolveSession
 * answers `session_invalid` at once; gateway replicas honour it within their session cache TTL);
 * its active games are forfeited. Its seats then show as deleted, and friend requests or blocks
 * aimed at it are refused with `account_deleted`. Its e-mail is released (cleared, with any pending
 * confirmation links) so the person can sign up afresh with it; the old account stays deleted and
 * keeps its ledger. A second delete is `caller_required`.
 */
export async function softDeleteAccount(db: Kysely<DB>, accountId: bigint, now: Date): Promise<Deletion> {
  return db.transaction().execute(async (trx) => {
    const row = await lockAccountStatus(trx, accountId);
    if (row === undefined || row.status === 'deleted') throw new DomainError('caller_required', 'the caller account does not exist');
    const sessionsRevoked = await markAccountDeleted(trx, accountId, now);
    const forfeited = await forfeitGamesOf(trx, accountId, now);
    await eraseCaseTextsOf(trx, accountId, now);
    return { sessionsRevoked, forfeited };
  });
}
