import { connector } from '@wordgame/contracts';
import type { CommandOutcome } from '../commands.js';
import type { PaymentDeps } from '../deps.js';

/** The failed card order a customer is told about. */
export interface FailedPayment {
  accountId: bigint;
  orderId: string;
  /** The pack's title, as on the order. */
  title: string;
  /** The provider's cancellation reason (e.g. insufficient_funds), also the order's failure_reason. */
  reason: string;
}

/** How one channel went; logged, never raised. */
type ChannelOutcome = 'sent' | 'skipped' | 'failed' | CommandOutcome['status'];

/**
 * Tells the customer their card payment failed, on every channel the account has, so a web-only
 * customer hears of it too: a NOTIFY command (PAYMENT_FAILED) through the bot when the account has
 * a telegram identity, and a mail when it has a confirmed e-mail address. The order view shows the
 * failure (state failed, failure_reason) whatever happens here. Best-effort: never throws; each
 * channel's outcome is logged (never the address).
 */
export async function notifyPaymentFailed(deps: PaymentDeps, failed: FailedPayment): Promise<void> {
  const [bot, email] = await Promise.all([viaBot(deps, failed), viaMail(deps, failed)]);
  deps.metrics.notice('failed', 'bot', bot);
  deps.metrics.notice('failed', 'email', email);
  deps.logger.info({ orderId: failed.orderId, accountId: String(failed.accountId), bot, email }, 'payment failure notice');
}

async function viaBot(deps: PaymentDeps, failed: FailedPayment): Promise<ChannelOutcome> {
  try {
    const identity = await deps.db
      .selectFrom('platform_identities')
      .select('external_id')
      .where('account_id', '=', failed.accountId)
      .where('kind', '=', 'telegram')
      .executeTakeFirst();
    if (!identity) return 'skipped';
    const outcome = await deps.bot.notify({
      externalId: identity.external_id,
      kind: connector.NotificationKind.PAYMENT_FAILED,
      params: { order_id: failed.orderId, reason: failed.reason },
    });
    return outcome.status;
  } catch (err: unknown) {
    deps.logger.warn({ err, orderId: failed.orderId }, 'payment failure notice: bot channel failed');
    return 'failed';
  }
}

async function viaMail(deps: PaymentDeps, failed: FailedPayment): Promise<ChannelOutcome> {
  try {
    const account = await deps.db
      .selectFrom('accounts')
      .select('email')
      .where('id', '=', failed.accountId)
      .where('email', 'is not', null)
      .where('email_confirmed_at', 'is not', null)
      .executeTakeFirst();
    if (!account?.email) return 'skipped';
    await deps.mailer.send({
      to: account.email,
      subject: 'Your payment did not go through',
      text: [
        `Your card payment for "${failed.title}" was canceled (${failed.reason}); no chips were added.`,
        '',
        `Order: ${failed.orderId}`,
        '',
        'You can start a new purchase from the wallet at any time.',
      ].join('\n'),
    });
    return 'sent';
  } catch (err: unknown) {
    deps.logger.warn(
      { err: err instanceof Error ? err.name : 'unknown', orderId: failed.orderId },
      'payment failure notice: mail channel failed',
    );
    return 'failed';
  }
}
