import type { Kysely } from 'kysely';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/index.js';
import type { KeyQuota } from '../limits/index.js';
import type { Mailer } from '../mail/index.js';
import type { Clock } from '../support/index.js';
import { DomainError } from '../rpc/index.js';
import { hashToken, newToken } from './sessions/tokens.js';
import {
  insertEmailConfirmation,
  isUniqueViolation,
  lockUsableConfirmation,
  markConfirmationUsed,
  setConfirmedEmail,
} from './accounts.store.js';

/** How long a mailed confirmation link stays valid. */
export const CONFIRMATION_TTL_HOURS = 48;

/** Where confirmation links point and how they are sent. */
export interface ConfirmationDeps {
  db: Kysely<DB>;
  mailer: Mailer;
  publicBaseUrl: string;
  logger: Logger;
  /** The backend clock (confirmation expiry). */
  now: Clock;
}

const COUNTED = Symbol('confirmation mail counted');

/** A confirmation mail to `email` that the per-recipient limit has counted; only permitConfirmationMail makes one. */
export interface ConfirmationPermit {
  readonly email: string;
  readonly [COUNTED]: true;
}

/**
 * Counts one confirmation mail to `email` (already normalised) against its recipient's limit:
 * `rate_limited` once the address has had its allowance this window, whichever account asks and
 * however many accounts with it were deleted meanwhile. Callers take the permit before changing
 * anything, so a refused sign-up or e-mail change leaves nothing behind.
 */
export async function permitConfirmationMail(limit: KeyQuota, email: string): Promise<ConfirmationPermit> {
  await limit.take(email);
  return { email, [COUNTED]: true };
}

/**
 * Stores a hashed one-time token for (account, the permit's e-mail) and mails the confirmation
 * link. The permit is the proof that the mail was counted: there is no other way to send one. A
 * mail failure is logged, not raised: the address stays pending and linking it again sends a new link.
 */
export async function requestConfirmation(deps: ConfirmationDeps, accountId: bigint, permit: ConfirmationPermit): Promise<void> {
  const { email } = permit;
  const token = newToken();
  await insertEmailConfirmation(deps.db, {
    accountId,
    email,
    tokenHash: hashToken(token),
    expiresAt: new Date(deps.now().getTime() + CONFIRMATION_TTL_HOURS * 3_600_000),
  });
  const link = new URL('/api/v1/user/profile/confirm-email', deps.publicBaseUrl);
  link.searchParams.set('token', token);
  try {
    await deps.mailer.send({
      to: email,
      subject: 'Confirm your e-mail address',
      text: `Open this link to confirm ${email} for your Word Game account:\n\n${link.toString()}\n\nThe link expires in ${CONFIRMATION_TTL_HOURS} hours. If you did not ask for this, ignore this message.`,
    });
    deps.logger.info({ accountId: String(accountId) }, 'confirmation mail sent');
  } catch (err: unknown) {
    deps.logger.warn({ err, accountId: String(accountId) }, 'confirmation mail failed');
  }
}

/**
 * Consumes a confirmation token: the account's e-mail becomes that address, confirmed. Unknown,
 * used or expired tokens are NotFound `confirmation_invalid`; an address another account holds is
 * `email_in_use` (the token stays unused).
 */
export async function confirmEmail(db: Kysely<DB>, token: string, now: Date): Promise<{ accountId: bigint; email: string }> {
  try {
    return await db.transaction().execute(async (trx) => {
      const row = await lockUsableConfirmation(trx, hashToken(token), now);
      if (!row) throw new DomainError('confirmation_invalid', 'the confirmation link is unknown, used or expired');
      await markConfirmationUsed(trx, row.id, now);
      await setConfirmedEmail(trx, row.account_id, row.email, now);
      return { accountId: row.account_id, email: row.email };
    });
  } catch (err: unknown) {
    if (isUniqueViolation(err)) throw new DomainError('email_in_use', 'this e-mail address belongs to another account');
    throw err;
  }
}
