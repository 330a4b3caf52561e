import { shopOf, type PaymentDeps } from '../deps.js';
import { isOrderId } from '../errors.js';
import { findOrder, orderByProviderPayment, type OrderRow } from '../orders/orders.store.js';
import { ProviderError, type PaymentProvider, type ProviderPayment, type Shop } from '../card/provider/types.js';
import { utcText } from '../../support/index.js';
import { askRefund, recordCardRefund } from './card-refund.js';
import { underRefundClaim, type PressOutcome } from './claim.js';
import { claimUncreditedRefund, refundClaimOf } from './refunds.store.js';
import { CREDITED_MEANWHILE, type ChargeAction } from './uncredited.js';

/** A card payment the provider took that no order was credited with, as a reconciliation finding names it. */
export interface UncreditedCardPayment {
  shopId: string | null;
  paymentId: string;
  operatorId: bigint;
}

/** The provider idempotence key of the reconciliation refund of a payment: pressing again replays it. */
export const reconcileRefundKey = (paymentId: string): string => `reconcile-${paymentId}`;

const notMade = (message: string): ChargeAction => ({ kind: 'refused', reason: 'rejected', message });

/**
 * Returns a card payment that credited nothing (money taken, not credited) in full, deciding first,
 * under the order's row lock, that it may: the payment is re-read from the provider (it must still
 * be taken and not already refunded), then the order it could credit (the one it is recorded on, or
 * the one its metadata names while that order has no payment recorded) is claimed for the refund in
 * one conditional update, which sets the order's refund hold: from then on no notification, reaper
 * re-check or reconciliation credit credits it. An order credited meanwhile is refused ("use the
 * ledger's refund"); one whose refund another press holds is refused as in progress. A payment that
 * can credit no order (unknown order, order failed or paid by another payment) is refunded without
 * a hold. The outcome ends the hold: succeeded closes the order as refunded (recordRefund), pending
 * keeps the hold with the refund's id (the reaper finishes it), canceled or refused frees the order,
 * and no answer keeps the hold (pressing again replays the key `reconcile-<payment id>`).
 */
export async function refundUncreditedCard(deps: PaymentDeps, p: UncreditedCardPayment): Promise<ChargeAction> {
  const card = deps.card;
  const shop = card ? shopOf(card, p.shopId) : undefined;
  if (!card || !shop) return notMade('the card shop of this payment is not configured');
  let payment: ProviderPayment;
  try {
    payment = await card.provider.getPayment(shop, p.paymentId);
  } catch (err: unknown) {
    if (!(err instanceof ProviderError)) throw err;
    return notMade(`the provider did not confirm the payment (${err.failure}); nothing was done, press again`);
  }
  if (payment.status !== 'succeeded') return notMade(`the provider reports this payment ${payment.status}: no money to return`);
  const order = await creditableBy(deps, card.provider.name, payment);
  const key = reconcileRefundKey(payment.id);
  // Refunded in full by someone else; a refund under this key (an earlier press whose answer was lost) is replayed for its id.
  if (payment.refundedMinor >= payment.amountMinor && order?.refund_hold !== key) {
    return { kind: 'done', outcome: 'refunded', detail: order?.refund_id ?? 'already refunded at the provider' };
  }
  // A payment that can credit no order (unknown order, or one failed or paid by another payment) needs no hold.
  const unheld = () => refundCall(deps, card.provider, shop, payment, key, null);
  if (order === undefined) return unheld();
  if (order.state === 'paid') return order.provider_payment_id === payment.id ? CREDITED_MEANWHILE : unheld();
  if (order.state === 'failed' && order.refund_id === null) return unheld();
  return underRefundClaim(
    deps,
    order.id,
    p.operatorId,
    key,
    (db, claim) => claimUncreditedRefund(db, { ...claim, paymentId: payment.id }),
    async (claimed) => {
      const action = await refundCall(deps, card.provider, shop, payment, key, claimed);
      return { after: afterCall(action), answer: action };
    },
    () => whyNotClaimed(deps, order.id, payment.id),
  );
}

/** The order `payment` could credit: the one it is recorded on, else the one its metadata names while that has no payment recorded. */
async function creditableBy(deps: PaymentDeps, provider: string, payment: ProviderPayment): Promise<OrderRow | undefined> {
  const recorded = await orderByProviderPayment(deps.db, provider, payment.id);
  if (recorded) return recorded;
  const named = payment.metadata['order_id'];
  if (!isOrderId(named)) return undefined;
  const order = await findOrder(deps.db, named);
  return order?.rail === 'card' && order.provider === provider && order.provider_payment_id === null ? order : undefined;
}

/** The provider refund of the whole payment, and, when `held` is the claimed order, the refund recorded on it once succeeded. */
async function refundCall(
  deps: PaymentDeps,
  provider: PaymentProvider,
  shop: Shop,
  payment: ProviderPayment,
  key: string,
  held: OrderRow | null,
): Promise<ChargeAction> {
  const asked = await askRefund(
    provider,
    shop,
    { paymentId: payment.id, amountMinor: payment.amountMinor, currency: payment.currency, description: 'Returned: payment not credited' },
    key,
  );
  if ('failure' in asked) {
    deps.logger.warn(
      { paymentId: payment.id, failure: asked.error.failure, status: asked.error.status },
      'reconciliation refund: provider call failed',
    );
    if (asked.failure === 'unavailable') {
      return {
        kind: 'unknown',
        message: `the provider did not answer (${asked.error.status ?? 'no answer'}); nothing was recorded, press Refund again (it cannot refund twice)`,
      };
    }
    return notMade(`the provider refused: ${asked.error.detail.slice(0, 200)}`);
  }
  const refund = asked.refund;
  if (refund.status === 'canceled') return notMade(`the provider canceled refund ${refund.id}; nothing was recorded`);
  if (refund.status === 'pending') return { kind: 'done', outcome: 'refund_pending', detail: refund.id };
  if (held) await recordCardRefund(deps, held, refund.id);
  return { kind: 'done', outcome: 'refunded', detail: refund.id };
}

/** What a reconciliation refund's outcome leaves on its held order. */
function afterCall(action: ChargeAction): PressOutcome<ChargeAction>['after'] {
  if (action.kind === 'unknown') return { kind: 'keep' };
  if (action.kind === 'refused') return { kind: 'clear' };
  if (action.outcome === 'refund_pending') return { kind: 'pending', refundId: action.detail };
  return { kind: 'keep' };
}

/** Why the order could not be claimed for the refund, read after the claim failed. */
async function whyNotClaimed(deps: PaymentDeps, orderId: string, paymentId: string): Promise<ChargeAction> {
  const [order, claim] = await Promise.all([findOrder(deps.db, orderId), refundClaimOf(deps.db, orderId)]);
  if (!order) return notMade('the order no longer exists');
  if (order.refund_id !== null) return { kind: 'done', outcome: 'refunded', detail: order.refund_id };
  if (order.state === 'paid' && order.provider_payment_id === paymentId) return CREDITED_MEANWHILE;
  const since = claim?.refund_claimed_at ? ` since ${utcText(claim.refund_claimed_at)}` : '';
  const who = claim?.login ? ` by ${claim.login}` : '';
  return {
    kind: 'refused',
    reason: 'in_progress',
    message: `a refund of this order${who} is in progress${since}; reload the report to see its outcome (it will not refund twice)`,
  };
}
