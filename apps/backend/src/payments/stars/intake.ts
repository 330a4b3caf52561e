import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { creditOrder } from '../orders/credit.js';
import { findOrder, orderForUpdate } from '../orders/orders.store.js';
import { isCreditable, STARS_PROVIDER } from '../orders/state.js';
import { onCredited } from '../credited.js';
import type { PaymentDeps } from '../deps.js';
import { DomainError } from '../../rpc/index.js';
import { isOrderId } from '../errors.js';
import { forwardRefund } from './refunded.js';
import { creditFirstPeriod, creditRenewal } from './subscription.js';
import {
  chargeCredited,
  chargeUnmatched,
  holdForCheckout,
  insertUnmatchedPayment,
  releaseCheckoutHold,
  touchOrder,
  unmatchedForOrder,
} from './stars.store.js';

/** The latest subscription_expiration_unix a forwarded payment may carry (year 9999). */
const MAX_EXPIRATION_UNIX = 253_402_300_799n;

/** A pre-checkout answer: ok, or a short user-facing reason. */
export type PreCheckoutVerdict = { ok: true } | { ok: false; reason: string };

/** Decline reasons shown to the payer by the platform. */
export const DECLINE = {
  missing: 'This order does not exist.',
  paid: 'This order is already paid.',
  failed: 'This order can no longer be paid. Please start a new purchase.',
  mismatch: 'The price does not match this order. Please start a new purchase.',
  held: 'This order is being paid right now. Please wait a few seconds.',
  account: 'This account cannot make purchases.',
  charged: 'This order already has a payment. Please start a new purchase.',
} as const;

/**
 * ValidatePreCheckout: approves only an existing stars order that is pending or honoured-expired
 * (never paid) whose amount and currency (XTR) equal the query's, and that no other approval holds.
 * Reusable invoice links make this the one place a repeat payment is stopped before money moves, so
 * an approval reserves the order for `holdMs` (the platform's answer window) in ONE conditional
 * UPDATE: of two queries racing for one order, PostgreSQL re-checks the condition of the second on
 * the row the first wrote and it matches nothing, so at most one live approval exists per order on
 * any number of backends. A hold whose payment never arrives lapses and the customer may pay again;
 * a payment that arrives after its hold lapsed still credits, and a second charge that raced it ends
 * unmatched and is returned to its payer automatically (refunds/star-refunds.ts).
 *
 * An order that already has a recorded charge is declined, credited (paid) or not: a charge recorded
 * in unmatched_payments under this order (e.g. of another amount, being returned) means the payer was
 * charged for it, and a new purchase is the way on. That check is its own statement after the hold's:
 * a ForwardPayment recording such a charge touches the order row under its lock, so the hold waits
 * for its commit and the next statement (a newer snapshot) sees the row; the hold is then taken back
 * (releaseCheckoutHold) before the decline. A payment still in the bot's outbox is the bot's to know
 * (it declines before asking).
 *
 * The hold's statement locks the order's account first (FOR SHARE, ledger/postings/spender.ts): a
 * blocked or deleted account's charge is declined before money moves, and a block committing
 * meanwhile waits for this approval or is seen by it. A payment already approved or taken is still
 * credited (ForwardPayment). The common case is two statements and no explicit transaction.
 */
export async function validatePreCheckout(
  deps: PaymentDeps,
  orderId: string | null,
  amount: bigint,
  currency: string | null,
): Promise<PreCheckoutVerdict> {
  if (!isOrderId(orderId)) return { ok: false, reason: DECLINE.missing };
  const now = deps.now();
  const holdUntil = new Date(now.getTime() + deps.stars.holdMs);
  const held = await holdForCheckout(deps.db, { orderId, amount, currency: currency ?? '', now, holdUntil });
  if (held === 'account') return { ok: false, reason: DECLINE.account };
  if (held === 'held') {
    if (!(await unmatchedForOrder(deps.db, orderId))) return { ok: true };
    await releaseCheckoutHold(deps.db, orderId, holdUntil);
    return { ok: false, reason: DECLINE.charged };
  }
  const order = await findOrder(deps.db, orderId);
  if (!order || order.rail !== 'stars') return { ok: false, reason: DECLINE.missing };
  if (order.state === 'paid') return { ok: false, reason: DECLINE.paid };
  if (order.state === 'failed') return { ok: false, reason: DECLINE.failed };
  if (order.amount !== amount || order.currency !== currency) return { ok: false, reason: DECLINE.mismatch };
  return { ok: false, reason: DECLINE.held };
}

/** A confirmed platform payment as the bot forwards it. */
export interface PlatformPaymentInput {
  orderId: string;
  platformChargeId: string;
  amount: bigint;
  platformUserId: bigint;
  /** A stars subscription's charge (the platform's is_recurring); absent = false. */
  isRecurring?: boolean;
  /** The subscription's first charge (is_first_recurring). */
  isFirstRecurring?: boolean;
  /** The end of the period a subscription charge paid for (subscription_expiration_date); absent = not given. */
  expiresAt?: Date | null;
}

/**
 * ForwardPayment: idempotent on the platform charge id. A new charge for a creditable stars order
 * with an equal amount is credited in one statement (the common case, one round trip). Otherwise,
 * in a transaction: a charge already credited answers true; a charge already recorded as unmatched
 * answers false; otherwise the named stars order is locked and credited when creditable with an
 * equal amount, else the payment is recorded in unmatched_payments (unique on the charge id) for
 * an operator and answers false. Any answer means the payment is durably handled, so the bot may
 * forget its outbox row.
 *
 * A stars subscription's order (orders.subscription_period set) never takes the one-statement path:
 * under its lock, its first payment credits it with the pass and records the subscription
 * (stars/subscription.ts), and a renewal (`isRecurring`, the paid first order named again) opens
 * and credits a renewal order for the charge, exactly once per charge id. A renewal for a payload we
 * have no subscription for is recorded unmatched (`unknown_subscription`) like any other payment.
 */
export async function forwardPayment(deps: PaymentDeps, p: PlatformPaymentInput): Promise<boolean> {
  const now = deps.now();
  // Fast path, one statement: a new charge for a creditable stars order of this amount is credited
  // at once. Anything else (a replay, an unmatched payment, a race lost) takes the locked path below.
  const credited =
    isOrderId(p.orderId) && p.isRecurring !== true
      ? await creditOrder(deps.db, p.orderId, { platformChargeId: p.platformChargeId, platformUserId: p.platformUserId }, now, {
          rail: 'stars',
          amount: p.amount,
          newPlatformChargeId: p.platformChargeId,
          oneTime: true,
        })
      : null;
  if (credited) {
    deps.logger.info({ orderId: p.orderId, platformChargeId: p.platformChargeId }, 'stars payment credited');
    onCredited(deps, credited);
    return true;
  }
  const outcome = await deps.db.transaction().execute(async (trx) => {
    if (await chargeCredited(trx, p.platformChargeId)) return { credited: true, replay: true };
    if (await chargeUnmatched(trx, p.platformChargeId)) return { credited: false, replay: true };

    const order = isOrderId(p.orderId) ? await orderForUpdate(trx, p.orderId) : undefined;
    if (order?.platform_charge_id === p.platformChargeId) return { credited: true, replay: true };
    if (order) {
      // Under the order lock: a concurrent forward of this charge may have recorded it meanwhile.
      if (await chargeUnmatched(trx, p.platformChargeId)) return { credited: false, replay: true };
    }
    const charge = {
      platformChargeId: p.platformChargeId,
      amount: p.amount,
      platformUserId: p.platformUserId,
      expiresAt: p.expiresAt ?? null,
    };
    let reason =
      !order || order.rail !== 'stars'
        ? p.isRecurring === true && p.isFirstRecurring !== true
          ? 'unknown_subscription'
          : 'unknown_order'
        : !isCreditable(order.state)
          ? `order_${order.state}`
          : order.amount !== p.amount
            ? 'amount_mismatch'
            : null;
    if (order && order.rail === 'stars' && order.subscription_period !== null) {
      if (reason === null) {
        const paid = await creditFirstPeriod(trx, order, charge, now);
        if (paid) return { credited: true, replay: false, paid, subscription: 'first' as const };
        reason = 'order_refund_hold';
      } else if (order.state === 'paid' && p.isRecurring === true) {
        const renewal = await creditRenewal(trx, order, charge, now);
        if (renewal.kind === 'replay') return { credited: true, replay: true };
        if (renewal.kind === 'credited') return { credited: true, replay: false, paid: renewal.paid, subscription: 'renewal' as const };
        reason = renewal.reason;
      }
    } else if (order && p.isRecurring === true && p.isFirstRecurring !== true) {
      reason = 'unknown_subscription';
    }
    if (reason === null) {
      const paid = await creditOrder(trx, p.orderId, { platformChargeId: p.platformChargeId, platformUserId: p.platformUserId }, now);
      return { credited: true, replay: false, paid };
    }
    // A new row version of the still creditable order: a concurrent fast-path credit of this same
    // charge whose snapshot predates this commit then credits nothing (see CreditGuard.newPlatformChargeId).
    if (order && isCreditable(order.state)) await touchOrder(trx, order.id);
    await insertUnmatchedPayment(trx, {
      provider: STARS_PROVIDER,
      platform_charge_id: p.platformChargeId,
      order_id: p.orderId.slice(0, 200),
      amount: p.amount,
      platform_user_id: p.platformUserId,
      reason,
    });
    return { credited: false, replay: false, reason };
  });
  if (!outcome.replay) {
    if (outcome.credited)
      deps.logger.info(
        { orderId: p.orderId, platformChargeId: p.platformChargeId },
        'subscription' in outcome && outcome.subscription === 'renewal' ? 'stars subscription renewal credited' : 'stars payment credited',
      );
    else
      deps.logger.warn(
        { orderId: p.orderId.slice(0, 200), platformChargeId: p.platformChargeId, reason: outcome.reason },
        'stars payment matched no creditable order; recorded as unmatched',
      );
    if ('paid' in outcome && outcome.paid) onCredited(deps, outcome.paid);
    if ('subscription' in outcome && outcome.subscription !== undefined) deps.metrics.subscriptionCharge(outcome.subscription);
    if ('reason' in outcome && outcome.reason !== undefined) deps.metrics.unmatched('stars', outcome.reason);
  }
  return outcome.credited;
}

/** The BotIntakeService methods of the stars rail, merged with chat eligibility in app.ts. */
export function starsIntakeMethods(
  deps: PaymentDeps,
): Pick<ServiceImpl<typeof backendApi.BotIntakeService>, 'validatePreCheckout' | 'forwardPayment' | 'forwardRefund'> {
  return {
    async validatePreCheckout(req) {
      const q = decodeTable(
        req.body,
        (bb) => fb.PreCheckoutQuery.getRootAsPreCheckoutQuery(bb),
        (t) => ({ orderId: t.orderId(), amount: t.amount(), currency: t.currency() }),
      );
      const verdict = await validatePreCheckout(deps, q.orderId, q.amount, q.currency);
      if (!verdict.ok) deps.logger.info({ orderId: (q.orderId ?? '').slice(0, 64), reason: verdict.reason }, 'pre-checkout declined');
      return {
        body: encodeTable((b) =>
          fb.PreCheckoutVerdict.createPreCheckoutVerdict(b, verdict.ok, b.createString(verdict.ok ? '' : verdict.reason)),
        ),
      };
    },
    async forwardPayment(req) {
      const p = decodeTable(
        req.body,
        (bb) => fb.PlatformPayment.getRootAsPlatformPayment(bb),
        (t) => ({
          orderId: t.orderId() ?? '',
          platformChargeId: t.platformPaymentChargeId() ?? '',
          amount: t.amount(),
          platformUserId: t.platformUserId(),
          isRecurring: t.isRecurring(),
          isFirstRecurring: t.isFirstRecurring(),
          expirationUnix: t.subscriptionExpirationUnix(),
        }),
      );
      if (p.platformChargeId === '' || p.platformChargeId.length > 256) {
        throw new DomainError('malformed_body', 'platform_payment_charge_id must be 1-256 characters');
      }
      if (p.expirationUnix < 0n || p.expirationUnix > MAX_EXPIRATION_UNIX || (p.expirationUnix !== 0n && !p.isRecurring)) {
        throw new DomainError('malformed_body', 'subscription_expiration_unix must be 0, or a time in seconds on a recurring payment');
      }
      const { expirationUnix, ...payment } = p;
      const credited = await forwardPayment(deps, {
        ...payment,
        expiresAt: expirationUnix === 0n ? null : new Date(Number(expirationUnix) * 1000),
      });
      return { body: encodeTable((b) => fb.PlatformPaymentResult.createPlatformPaymentResult(b, credited)) };
    },
    async forwardRefund(req) {
      const r = decodeTable(
        req.body,
        (bb) => fb.PlatformRefund.getRootAsPlatformRefund(bb),
        (t) => ({
          orderId: t.orderId() ?? '',
          platformChargeId: t.platformPaymentChargeId() ?? '',
          amount: t.amount(),
          platformUserId: t.platformUserId(),
          currency: t.currency() ?? '',
        }),
      );
      if (r.platformChargeId === '' || r.platformChargeId.length > 256) {
        throw new DomainError('malformed_body', 'platform_payment_charge_id must be 1-256 characters');
      }
      if (r.currency !== 'XTR') throw new DomainError('malformed_body', 'currency must be XTR');
      if (r.amount <= 0n) throw new DomainError('malformed_body', 'amount must be positive');
      const outcome = await forwardRefund(deps, r);
      return { body: encodeTable((b) => fb.PlatformRefundResult.createPlatformRefundResult(b, outcome !== 'unknown')) };
    },
  };
}
