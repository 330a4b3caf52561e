import type { Kysely } from 'kysely';
import { lockAccountStatus, markAccountDeleted, type PlatformKind } from '../accounts/index.js';
import type { DB } from '../db/index.js';
import { forfeitGamesOf, loadGame, type GameDeps } from '../game/index.js';
import { eraseCaseTextsOf } from '../helpdesk/index.js';
import { audit } from '../operator-audit/index.js';
import type { Mailer } from '../mail/index.js';
import { erasePayerIds } from '../payments/index.js';
import { erasePayerRefs } from '../reconciliation/index.js';
import { eraseSubscriptionPayers } from '../subscriptions/index.js';
import { DomainError } from '../rpc/index.js';
import { queueForgets } from './privacy.store.js';

/** What a deletion did. */
export interface Deletion {
  sessionsRevoked: number;
  /** Active games the account sat in, now finished with the other seat winning. */
  forfeited: Array<{ gameId: bigint; seat: number }>;
  /** The platform identities that were unlinked (the chat gate is revoked for the telegram ones). */
  identities: Array<{ kind: PlatformKind; externalId: string }>;
  /** The account's e-mail addresses (the mailer's copies of mail to them are erased after the commit). */
  emails: string[];
}

/** What a deletion works with: the game's (forfeits, watchers, the chat gate) and the mailer whose copies it erases. */
export interface DeletionDeps extends GameDeps {
  mailer: Pick<Mailer, 'forget'>;
}

/** Who asked for a deletion: the player (their own session) or an operator on the player's request. */
export type DeletionBy = { kind: 'self' } | { kind: 'operator'; operatorId: bigint; reason: string };

/** A platform user id the bot can be told about (Telegram ids are positive integers). */
const PLATFORM_USER_ID = /^[1-9]\d{0,15}$/;

/**
 * Deletes an account and erases its personal data in one transaction (docs/operating/privacy.md):
 * the account row stays under its id with status `deleted` (the ledger and the orders refer to it,
 * and money records must stay for accounting) but loses display name, e-mail and password hash;
 * sessions, e-mail confirmations and platform identities are deleted (a returning Telegram or VK
 * user is a new account); payer ids on its orders, unmatched payments and reconciliation findings
 * are erased; a forget is queued for the bot (its language entry and queued items naming the user,
 * delivered by the forget loop even when the bot is down now); active games are forfeited. An
 * operator's deletion is audited in the same transaction. A second delete is `caller_required` for
 * the player, `account_deleted` for an operator (an unknown account: `unknown_account`).
 */
export async function softDeleteAccount(
  db: Kysely<DB>,
  accountId: bigint,
  now: Date,
  by: DeletionBy = { kind: 'self' },
): Promise<Deletion> {
  return db.transaction().execute(async (trx) => {
    const row = await lockAccountStatus(trx, accountId);
    if (by.kind === 'operator' && row === undefined) throw new DomainError('unknown_account', 'no such account');
    if (by.kind === 'operator' && row?.status === 'deleted') throw new DomainError('account_deleted', 'the account is deleted');
    if (row === undefined || row.status === 'deleted') throw new DomainError('caller_required', 'the caller account does not exist');
    // Before the identities go: a case opened before the account existed is found through them.
    await eraseCaseTextsOf(trx, accountId, now);
    const erased = await markAccountDeleted(trx, accountId, now);
    const telegramIds = erased.identities
      .filter((i) => i.kind === 'telegram' && PLATFORM_USER_ID.test(i.externalId))
      .map((i) => i.externalId);
    await erasePayerIds(trx, accountId, telegramIds.map(BigInt));
    await eraseSubscriptionPayers(trx, accountId);
    await erasePayerRefs(
      trx,
      accountId,
      erased.identities.map((i) => i.externalId),
    );
    await queueForgets(trx, telegramIds.map(BigInt), now);
    const forfeited = await forfeitGamesOf(trx, accountId, now);
    if (by.kind === 'operator')
      await audit(trx, {
        operatorId: by.operatorId,
        action: 'account_delete',
        target: `account:${accountId}`,
        outcome: 'ok',
        detail: by.reason,
      });
    return { sessionsRevoked: erased.sessionsRevoked, forfeited, identities: erased.identities, emails: erased.emails };
  });
}

/**
 * Deletes an account (softDeleteAccount) and then does what follows a committed deletion: the
 * mailer's kept copies of mail to the account's addresses are erased, the forfeited games' watchers
 * are told, and the moderated chat's write access of each telegram identity is revoked
 * (ChatGateCommand allow=false, best-effort and at most once like every chat gate command; logged,
 * never awaited).
 */
export async function deleteAccount(deps: DeletionDeps, accountId: bigint, by: DeletionBy = { kind: 'self' }): Promise<Deletion> {
  const done = await softDeleteAccount(deps.db, accountId, deps.now(), by);
  let mailsErased = 0;
  for (const address of done.emails) mailsErased += await deps.mailer.forget(address);
  for (const { gameId, seat } of done.forfeited) {
    const game = await loadGame(deps.db, gameId);
    if (game) deps.bus.publish(gameId, { kind: 'deleted', game, seat });
  }
  for (const identity of done.identities) {
    if (identity.kind !== 'telegram') continue;
    void deps.chatGate
      .send(identity.externalId, false)
      .then((outcome) =>
        deps.logger.info(
          { accountId: String(accountId), allow: false, outcome: outcome.status, reason: 'account_deleted' },
          'chat gate command sent',
        ),
      )
      .catch((err: unknown) => deps.logger.warn({ err, accountId: String(accountId) }, 'chat gate revocation failed'));
  }
  deps.logger.info(
    {
      accountId: String(accountId),
      by: by.kind,
      ...(by.kind === 'operator' ? { operatorId: String(by.operatorId) } : {}),
      sessionsRevoked: done.sessionsRevoked,
      gamesForfeited: done.forfeited.length,
      mailsErased,
    },
    'account deleted',
  );
  return done;
}
