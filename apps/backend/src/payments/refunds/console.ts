import { findOrder, markRefundReceipt, type OrderRow } from '../orders/orders.store.js';
import { shopOf, type CardRail, type PaymentDeps } from '../deps.js';
import { isOrderId, paymentError } from '../errors.js';
import type { Shop } from '../card/provider/types.js';
import { askRefund, recordCardRefund } from './card-refund.js';
import { refundedMeanwhile, underRefundClaim, type PressOutcome } from './claim.js';
import { refundStarsOrder } from './stars-console.js';
import { accountEmail, advanceRefundAttempt, claimOrderRefund } from './refunds.store.js';

/** What the console shows after pressing refund. */
export interface ConsoleRefund {
  orderId: string;
  status: 'succeeded' | 'pending' | 'canceled';
  refundId: string;
  amount: bigint;
  currency: string;
}

/**
 * The provider idempotence key of an order's console refund attempt: stable within an attempt, so
 * pressing again while a refund is pending gets the same refund. Attempt 0 keeps the original
 * `refund-<order id>` so refunds already in flight before attempts existed keep their key.
 */
export function refundKey(orderId: string, attempt: number): string {
  return attempt === 0 ? `refund-${orderId}` : `refund-${orderId}-${attempt}`;
}

/**
 * Console refund of a paid card order, provider first: the full amount is refunded with the
 * idempotence key of the order's current refund attempt, and the refund is recorded (reversal + one
 * ledger row) only when the provider reports it succeeded (a pending answer is re-read once, since
 * a replayed key returns the first answer). Pending or canceled records nothing. Pending: press
 * again, which reuses the key and returns the same refund. Canceled: the order moves to its next
 * attempt, so pressing again starts a new refund under a new key (never more than one refund is
 * live, since a new attempt starts only after the previous refund was canceled). A refund already
 * recorded (e.g. its notification arrived first) answers succeeded without a provider call. A
 * failed provider call records nothing and answers provider_unavailable. The claim sets the order's
 * refund hold before the provider call; a pending refund keeps it with its id, which the reaper
 * re-reads until it is final (a lost notification finishes it too). Stars orders go back
 * through the bot (refundStarsOrder). Presses are serialised per order (underRefundClaim): while
 * one press's provider or platform call is in flight, another press makes no call and answers
 * refund_in_progress, or succeeded once the first press's refund is recorded. `operatorId` names
 * the presser to the others.
 */
export async function refundOrder(deps: PaymentDeps, orderId: string | null, operatorId: bigint | null = null): Promise<ConsoleRefund> {
  if (!isOrderId(orderId)) throw paymentError('invalid_order_id', 'order_id must be a uuid');
  const order = await findOrder(deps.db, orderId);
  if (!order) throw paymentError('unknown_order', 'no such order');
  const answer = (status: ConsoleRefund['status'], refundId: string): ConsoleRefund => ({
    orderId,
    status,
    refundId,
    amount: order.amount,
    currency: order.currency,
  });
  if (order.rail === 'stars') return answer('succeeded', await refundStarsOrder(deps, order, operatorId));
  if (order.refund_id !== null) return answer('succeeded', order.refund_id);
  if (order.state !== 'paid' || order.provider_payment_id === null)
    throw paymentError('order_not_paid', 'only a paid order can be refunded');
  const card = deps.card;
  const shop = card && card.provider.name === order.provider ? shopOf(card, order.shop) : undefined;
  if (!card || !shop) throw paymentError('rail_not_configured', "this order's shop is not configured");
  return underRefundClaim(
    deps,
    order.id,
    operatorId,
    refundKey(order.id, order.refund_attempt),
    claimOrderRefund,
    (claimed) => refundCard(deps, claimed, card, shop, answer),
    async () => answer('succeeded', await refundedMeanwhile(deps, order.id)),
  );
}

/** One provider refund of a claimed card order (see refundOrder): what its answer leaves on the order, and the press's answer. */
async function refundCard(
  deps: PaymentDeps,
  order: OrderRow,
  card: CardRail,
  shop: Shop,
  answer: (status: ConsoleRefund['status'], refundId: string) => ConsoleRefund,
): Promise<PressOutcome<ConsoleRefund>> {
  const orderId = order.id;
  const paymentId = order.provider_payment_id;
  if (paymentId === null) return { after: { kind: 'clear' }, answer: paymentError('order_not_paid', 'only a paid order can be refunded') };
  const account = await accountEmail(deps.db, order.account_id);
  const receipt =
    card.vatCode !== null && account?.email
      ? {
          email: account.email,
          vatCode: card.vatCode,
          items: [{ description: order.title, amountMinor: order.amount, currency: order.currency }],
        }
      : null;
  const asked = await askRefund(
    card.provider,
    shop,
    {
      paymentId,
      amountMinor: order.amount,
      currency: order.currency,
      description: `Refund of order ${order.id}`,
      ...(receipt ? { receipt } : {}),
    },
    refundKey(order.id, order.refund_attempt),
  );
  if ('failure' in asked) {
    const err = asked.error;
    deps.logger.warn(
      { orderId, failure: err.failure, status: err.status, detail: err.detail },
      'console refund: provider call failed; nothing recorded',
    );
    // No answer: the refund may exist, so the hold stays (pressing again replays the key).
    if (asked.failure === 'unavailable')
      return {
        after: { kind: 'keep' },
        answer: paymentError('provider_unavailable', 'the payment provider did not answer; nothing was recorded, try again'),
      };
    return {
      after: { kind: 'clear' },
      answer: paymentError('refund_rejected', 'the payment provider refused this refund; nothing was recorded'),
    };
  }
  const refund = asked.refund;
  if (refund.status === 'canceled') {
    const moved = await advanceRefundAttempt(deps.db, order.id, order.refund_attempt);
    deps.logger.warn(
      { orderId, refundId: refund.id, attempt: order.refund_attempt, moved },
      'console refund canceled by the provider; nothing recorded, pressing again starts a new refund',
    );
    return { after: { kind: 'clear' }, answer: answer('canceled', refund.id) };
  }
  // The provider took the refund (pending or done) with its receipt: the history says so.
  if (receipt) await markRefundReceipt(deps.db, order.id);
  if (refund.status !== 'succeeded') {
    deps.logger.info({ orderId, refundId: refund.id, status: refund.status }, 'console refund not succeeded yet; nothing recorded');
    return { after: { kind: 'pending', refundId: refund.id }, answer: answer(refund.status, refund.id) };
  }
  await recordCardRefund(deps, order, refund.id);
  return { after: { kind: 'keep' }, answer: answer('succeeded', refund.id) };
}
