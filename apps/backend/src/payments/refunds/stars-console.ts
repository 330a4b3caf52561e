import { ALREADY_REFUNDED } from '../../botcommands/index.js';
import type { PaymentDeps } from '../deps.js';
import { paymentError } from '../errors.js';
import type { OrderRow } from '../orders/orders.store.js';
import { refundedMeanwhile, underRefundClaim, type PressOutcome } from './claim.js';
import { claimOrderRefund } from './refunds.store.js';
import { recordRefund } from './reverse.js';
import { starRefundVerdict } from './star-outcome.js';
import { telegramIdOf } from '../../accounts/index.js';

/**
 * Console refund of a paid stars order, platform first (the card rail's rules): the bot returns the
 * crediting charge to its payer (refund_star_payment), and the reversal is recorded only after the
 * platform confirmed it, under the charge id as refund id (unique with the provider). A refusal or
 * an unknown outcome records nothing; pressing again is safe because the platform refunds a charge
 * at most once and answers an already refunded charge as done, which is then recorded. Presses are
 * serialised per order like card refunds (underRefundClaim): one refund_star_payment in flight per
 * order at most. Returns the refund id. Orders credited before the payer was recorded fall back to
 * the account's telegram identity (the platform refuses a charge that is not that user's).
 */
export async function refundStarsOrder(deps: PaymentDeps, order: OrderRow, operatorId: bigint | null): Promise<string> {
  if (order.refund_id !== null) return order.refund_id;
  const platformChargeId = order.platform_charge_id;
  if (order.state !== 'paid' || platformChargeId === null) throw paymentError('order_not_paid', 'only a paid order can be refunded');
  const payer = await starRefundPayer(deps.db, order);
  if (payer === null) throw paymentError('refund_rejected', 'the payer of this order is not known; nothing was recorded');
  return underRefundClaim(
    deps,
    order.id,
    operatorId,
    platformChargeId,
    claimOrderRefund,
    async (): Promise<PressOutcome<string>> => {
      const verdict = starRefundVerdict(await deps.bot.refundStarPayment(payer, platformChargeId), ALREADY_REFUNDED);
      const log = { orderId: order.id, platformChargeId };
      if (verdict.kind === 'refused') {
        deps.logger.warn({ ...log, error: verdict.error }, 'console stars refund refused by the platform; nothing recorded');
        return {
          after: { kind: 'clear' },
          answer: paymentError('refund_rejected', `the platform refused this refund (${verdict.error}); nothing was recorded`),
        };
      }
      if (verdict.kind === 'unknown') {
        deps.logger.warn({ ...log, error: verdict.error }, 'console stars refund not confirmed; nothing recorded');
        return {
          after: { kind: 'keep' },
          answer: paymentError('bot_unavailable', 'the payment bot did not confirm the refund; nothing was recorded, press again'),
        };
      }
      const recorded = await deps.db.transaction().execute((trx) => recordRefund(trx, deps.logger, order.id, platformChargeId, deps.now()));
      if (recorded === 'recorded') deps.metrics.refunded(order.rail);
      return { after: { kind: 'keep' }, answer: platformChargeId };
    },
    () => refundedMeanwhile(deps, order.id),
  );
}

/**
 * Who a stars order's refund returns the stars to: the payer recorded on the order, else (orders
 * credited before the payer was recorded) the account's telegram identity; null when neither is a
 * platform user id. The console's confirmation page names the same payer (one rule).
 */
export async function starRefundPayer(
  db: PaymentDeps['db'],
  order: Pick<OrderRow, 'platform_user_id' | 'account_id'>,
): Promise<bigint | null> {
  if (order.platform_user_id !== null) return order.platform_user_id;
  const externalId = await telegramIdOf(db, order.account_id);
  return externalId !== undefined && /^[1-9][0-9]{0,15}$/.test(externalId) ? BigInt(externalId) : null;
}
