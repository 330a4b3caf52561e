import { connector } from '@wordgame/contracts';
import type { OrderRail } from '../db/schema.js';
import type { PaymentDeps } from './deps.js';

/** The credited order a customer is told about. */
export interface CreditedPayment {
  accountId: bigint;
  orderId: string;
  rail: OrderRail;
  /** The pack's title, as on the order. */
  title: string;
  /** Chips the pack added (the order's snapshot). */
  chips: bigint;
}

/**
 * Tells the customer their money arrived, on every channel the account has, like the failure
 * notice: a NOTIFY command (PAYMENT_CREDITED, worded by the bot from libs/i18n in the user's
 * language) when the account has a telegram identity, and a mail when it has a confirmed e-mail
 * address. Called once per credit, after the credit committed (see onCredited); never inside the
 * money transaction, so a slow channel cannot hold a lock or undo a credit. Best-effort: never
 * throws; each channel's outcome is logged (never the address) and counted.
 */
export async function notifyPaymentCredited(deps: PaymentDeps, paid: CreditedPayment): Promise<void> {
  const [bot, email] = await Promise.all([viaBot(deps, paid), viaMail(deps, paid)]);
  deps.metrics.notice('credited', 'bot', bot);
  deps.metrics.notice('credited', 'email', email);
  deps.logger.info({ orderId: paid.orderId, accountId: String(paid.accountId), rail: paid.rail, bot, email }, 'payment credited notice');
}

async function viaBot(deps: PaymentDeps, paid: CreditedPayment): Promise<string> {
  try {
    const identity = await deps.db
      .selectFrom('platform_identities')
      .select('external_id')
      .where('account_id', '=', paid.accountId)
      .where('kind', '=', 'telegram')
      .executeTakeFirst();
    if (!identity) return 'skipped';
    const outcome = await deps.bot.notify({
      externalId: identity.external_id,
      kind: connector.NotificationKind.PAYMENT_CREDITED,
      params: { order_id: paid.orderId, product_title: paid.title, chips: String(paid.chips) },
    });
    return outcome.status;
  } catch (err: unknown) {
    deps.logger.warn({ err, orderId: paid.orderId }, 'payment credited notice: bot channel failed');
    return 'failed';
  }
}

async function viaMail(deps: PaymentDeps, paid: CreditedPayment): Promise<string> {
  try {
    const account = await deps.db
      .selectFrom('accounts')
      .select('email')
      .where('id', '=', paid.accountId)
      .where('email', 'is not', null)
      .where('email_confirmed_at', 'is not', null)
      .executeTakeFirst();
    if (!account?.email) return 'skipped';
    await deps.mailer.send({
      to: account.email,
      subject: 'Your payment was received',
      text: [
        `Your ${paid.rail === 'stars' ? 'stars' : 'card'} payment for "${paid.title}" was received; ${paid.chips} chips were added to your wallet.`,
        '',
        `Order: ${paid.orderId}`,
      ].join('\n'),
    });
    return 'sent';
  } catch (err: unknown) {
    deps.logger.warn(
      { err: err instanceof Error ? err.name : 'unknown', orderId: paid.orderId },
      'payment credited notice: mail channel failed',
    );
    return 'failed';
  }
}
