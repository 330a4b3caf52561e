import { connector } from '@wordgame/contracts';
import type { PaymentDeps } from './deps.js';

/**
 * Tells the customer their card payment failed: a NOTIFY command (PAYMENT_FAILED) through the bot
 * when the account has a telegram identity. Best-effort: never throws, only logs the outcome; the
 * failed order is visible in ListOrders either way.
 */
export async function notifyPaymentFailed(deps: PaymentDeps, accountId: bigint, orderId: string, reason: string): Promise<void> {
  try {
    const identity = await deps.db
      .selectFrom('platform_identities')
      .select('external_id')
      .where('account_id', '=', accountId)
      .where('kind', '=', 'telegram')
      .executeTakeFirst();
    if (!identity) return;
    const outcome = await deps.bot.notify({
      externalId: identity.external_id,
      kind: connector.NotificationKind.PAYMENT_FAILED,
      params: { order_id: orderId, reason },
    });
    deps.logger.info({ orderId, outcome: outcome.status }, 'payment failure notice sent');
  } catch (err: unknown) {
    deps.logger.warn({ err, orderId }, 'payment failure notice failed');
  }
}
