import type { PaymentDeps } from '../deps.js';
import { isOrderId } from '../errors.js';
import { creditOrder } from '../orders/credit.js';
import { orderForUpdate } from '../orders/orders.store.js';
import { isCreditable, STARS_PROVIDER } from '../orders/state.js';
import { onCredited } from '../credited.js';
import { attemptStarRefund, STAR_REFUND_LEASE_MS, FIRST_STAR_RETRY_MS } from '../refunds/star-refunds.js';
import { CREDITED_MEANWHILE, type ChargeAction } from '../refunds/uncredited.js';
import { chargeCredited, insertChargeToReturn, touchOrder, unmatchedByCharge } from './stars.store.js';
import { creditRenewal } from './subscription.js';

/** A stars charge the platform took that no order was credited with, as a reconciliation finding names it. */
export interface UncreditedStarCharge {
  platformChargeId: string;
  /** The order id the invoice payload named (untrusted text). */
  orderId: string | null;
  /** The payer's platform user id (a refund goes back to them); null when not known. */
  payerId: bigint | null;
  amount: bigint;
  /** When the platform took it (its transaction date): a subscription renewal's period runs one period from then. */
  occurredAt?: Date | null;
}

/** What an unmatched row's refund state means for an action that finds the charge already recorded there. */
function recordedToReturn(row: { refund_status: string; refund_error: string | null }, chargeId: string): ChargeAction {
  if (row.refund_status === 'refunded') return { kind: 'done', outcome: 'refunded', detail: chargeId };
  if (row.refund_status === 'failed')
    return {
      kind: 'refused',
      reason: 'rejected',
      message: `the platform refused to return this charge (${row.refund_error ?? 'no detail'}); see /_gm/unmatched`,
    };
  return { kind: 'done', outcome: 'refund_queued', detail: chargeId };
}

/**
 * Returns a stars charge that credited nothing to its payer, deciding first, in one transaction
 * under the named order's row lock (the lock ForwardPayment takes), that it may: a charge that
 * credited its order meanwhile (the bot's outbox delivered it) is refused ("use the ledger's
 * refund"); a charge already recorded as unmatched is the automatic refund's, and its state is told;
 * otherwise the charge is recorded as unmatched (reason `reconciliation_refund`), claimed by this
 * press, with a new version of the order row, so a ForwardPayment of it racing or arriving later
 * finds it recorded and credits nothing (answering credited=false: durably handled). Then the one
 * stars refund path returns it (attemptStarRefund): refunded, refused (failed, an operator follows
 * up on /_gm/unmatched) or unknown, left to the automatic refund loop, which retries it.
 */
export async function refundUncreditedStars(deps: PaymentDeps, c: UncreditedStarCharge): Promise<ChargeAction> {
  const now = deps.now();
  type Decided = { action: ChargeAction } | { claimed: NonNullable<Awaited<ReturnType<typeof insertChargeToReturn>>> };
  const decided = await deps.db.transaction().execute(async (trx): Promise<Decided> => {
    const order = isOrderId(c.orderId) ? await orderForUpdate(trx, c.orderId) : undefined;
    if (await chargeCredited(trx, c.platformChargeId)) return { action: CREDITED_MEANWHILE };
    const recorded = await unmatchedByCharge(trx, c.platformChargeId);
    if (recorded) return { action: recordedToReturn(recorded, c.platformChargeId) };
    if (order && isCreditable(order.state)) await touchOrder(trx, order.id);
    const claimed = await insertChargeToReturn(
      trx,
      {
        provider: STARS_PROVIDER,
        platform_charge_id: c.platformChargeId,
        order_id: (c.orderId ?? '').slice(0, 200),
        amount: c.amount,
        platform_user_id: c.payerId ?? 0n,
        reason: 'reconciliation_refund',
      },
      new Date(now.getTime() + STAR_REFUND_LEASE_MS),
    );
    return claimed
      ? { claimed }
      : { action: { kind: 'refused', reason: 'in_progress', message: 'this charge was recorded meanwhile; reload' } };
  });
  if ('action' in decided) return decided.action;
  const verdict = await attemptStarRefund(deps, decided.claimed, FIRST_STAR_RETRY_MS);
  if (verdict === 'refunded') return { kind: 'done', outcome: 'refunded', detail: c.platformChargeId };
  if (verdict === 'refused') {
    const row = await unmatchedByCharge(deps.db, c.platformChargeId);
    return recordedToReturn(row ?? { refund_status: 'failed', refund_error: null }, c.platformChargeId);
  }
  return { kind: 'done', outcome: 'refund_queued', detail: c.platformChargeId };
}

/**
 * Credits a stars order with a charge the bot has not forwarded (an operator's reconciliation
 * credit), under the order's row lock like ForwardPayment's locked path: done when the order is
 * credited with it (now, or meanwhile by the bot's delivery); refused when the charge is recorded as
 * unmatched (it is being returned to its payer: crediting it too would pay twice), credited another
 * order, or the order is not creditable, refunded in flight, or of another amount. A charge naming
 * a paid subscription's first order is a renewal the bot never forwarded: it is credited as one
 * (stars/subscription.ts), its period ending one period after the platform took it.
 */
export async function creditStarsCharge(deps: PaymentDeps, c: UncreditedStarCharge): Promise<ChargeAction> {
  const refuse = (message: string): ChargeAction => ({ kind: 'refused', reason: 'stale', message });
  if (!isOrderId(c.orderId)) return refuse('no order is known for this payment: refund it instead');
  const orderId = c.orderId;
  const now = deps.now();
  type Outcome = ChargeAction | { paid: NonNullable<Awaited<ReturnType<typeof creditOrder>>> };
  const outcome = await deps.db.transaction().execute(async (trx): Promise<Outcome> => {
    const order = await orderForUpdate(trx, orderId);
    if (!order || order.rail !== 'stars') return refuse('the order no longer exists');
    if (order.platform_charge_id === c.platformChargeId) return { kind: 'done', outcome: 'credited', detail: order.id };
    const recorded = await unmatchedByCharge(trx, c.platformChargeId);
    if (recorded) return refuse('this charge is recorded as unmatched meanwhile and is returned to its payer; it cannot credit the order');
    if (order.state === 'paid' && order.subscription_period !== null) {
      const at = c.occurredAt ?? null;
      const renewal = await creditRenewal(
        trx,
        order,
        {
          platformChargeId: c.platformChargeId,
          amount: c.amount,
          platformUserId: c.payerId ?? order.platform_user_id ?? 0n,
          expiresAt: at === null ? null : new Date(at.getTime() + order.subscription_period * 1000),
        },
        now,
      );
      if (renewal.kind === 'credited') return { paid: renewal.paid };
      if (renewal.kind === 'replay') return { kind: 'done', outcome: 'credited', detail: order.id };
      return refuse(
        renewal.reason === 'amount_mismatch'
          ? 'the charged amount differs from the subscription: refund it instead'
          : 'no subscription is recorded for this order: refund it instead',
      );
    }
    if (await chargeCredited(trx, c.platformChargeId)) return refuse('this charge credited another order meanwhile');
    if (!isCreditable(order.state) || order.refund_hold !== null)
      return refuse('the order could not be credited (already settled or failed)');
    if (order.amount !== c.amount) return refuse('the charged amount differs from the order: refund it instead');
    const paid = await creditOrder(
      trx,
      order.id,
      { platformChargeId: c.platformChargeId, ...(c.payerId === null ? {} : { platformUserId: c.payerId }) },
      now,
    );
    return paid ? { paid } : refuse('the order could not be credited (already settled or failed)');
  });
  if ('paid' in outcome) {
    deps.logger.info({ orderId: outcome.paid.id, platformChargeId: c.platformChargeId }, 'stars payment credited by an operator');
    onCredited(deps, outcome.paid);
    return { kind: 'done', outcome: 'credited', detail: outcome.paid.id };
  }
  return outcome;
}
