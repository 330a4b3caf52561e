import { z } from 'zod';
import { ApiError, ControlError, invalidRequest, notFound } from './errors.js';
import { formatMoney } from './money.js';
import { isRefundable } from './payments.js';
import { checkReceiptTotal, receiptSchema } from './receipt.js';
import {
  newObjectId,
  nowIso,
  type EmulatorState,
  type PaymentRecord,
  type Refund,
  type RefundCancellationDetails,
  type RefundOutcome,
  type RefundRecord,
  type Shop,
} from './state.js';
import { amountSchema, minorOf, parseBody, rawField } from './validation.js';

/** What YooKassa reports for a refund it declined, unless the control API chose other details. */
export const DEFAULT_REFUND_CANCELLATION: RefundCancellationDetails = { party: 'yoo_money', reason: 'general_decline' };

const createSchema = z.object({
  payment_id: z.string({ error: 'is required' }).min(1, 'is required'),
  amount: amountSchema,
  description: z.string({ error: 'must be a string' }).max(250, 'must be at most 250 characters').optional(),
  receipt: receiptSchema.optional(),
});

/**
 * POST /v3/refunds: refunds part or all of the shop's own `succeeded` payment. The amount may not
 * exceed what is left after succeeded and pending refunds. The new refund's status is the outcome
 * chosen beforehand through the control API (default `succeeded`); outcome `error500` fails the
 * call with 500 and creates nothing. Returns the refund and whether it succeeded right away.
 */
export function createRefund(state: EmulatorState, shop: Shop, body: unknown): { record: RefundRecord; succeeded: boolean } {
  const input = parseBody(createSchema, body);
  const payment = state.payments.get(input.payment_id);
  if (!payment || payment.shopId !== shop.shopId) {
    throw invalidRequest(`Payment ${input.payment_id} not found`, 'payment_id');
  }
  if (payment.object.status !== 'succeeded') {
    throw invalidRequest(
      `Payment ${input.payment_id} is in status ${payment.object.status}; only a succeeded payment can be refunded`,
      'payment_id',
    );
  }
  if (input.amount.currency !== payment.object.amount.currency) {
    throw invalidRequest('refund currency must match the payment currency', 'amount.currency');
  }
  const amountMinor = minorOf(input.amount);
  const remainder = payment.amountMinor - payment.refundedMinor - pendingRefundsOf(state, payment);
  if (amountMinor > remainder) {
    throw invalidRequest(`Refund amount exceeds the refundable remainder of the payment (${formatMoney(remainder)})`, 'amount.value');
  }
  if (input.receipt) checkReceiptTotal(input.receipt, amountMinor, input.amount.currency, 'receipt');

  const { outcome, details } = takeOutcome(state);
  if (outcome === 'error500') throw new ApiError(500, 'Internal server error: the result of the request is unknown, retry it');

  const object: Refund = {
    id: newObjectId('0015'),
    payment_id: payment.object.id,
    status: 'pending',
    ...(input.receipt ? { receipt_registration: 'pending' as const } : {}),
    created_at: nowIso(),
    amount: { value: formatMoney(amountMinor), currency: input.amount.currency },
    ...(input.description === undefined ? {} : { description: input.description }),
  };
  const record: RefundRecord = {
    shopId: shop.shopId,
    object,
    amountMinor,
    receipt: input.receipt ? rawField(body, 'receipt') : null,
  };
  state.refunds.set(object.id, record);
  if (outcome === 'succeeded') markSucceeded(state, record);
  if (outcome === 'canceled') markCanceled(record, details ?? DEFAULT_REFUND_CANCELLATION);
  return { record, succeeded: outcome === 'succeeded' };
}

/** GET /v3/refunds/{id}: the shop's own refund; another shop's or an unknown id is 404. */
export function getRefund(state: EmulatorState, shop: Shop, id: string): RefundRecord {
  const record = state.refunds.get(id);
  if (!record || record.shopId !== shop.shopId) throw notFound(`Refund ${id} not found`);
  return record;
}

/** A refund for the control API, whichever shop owns it; unknown ids are a 404 ControlError. */
export function refundForControl(state: EmulatorState, id: string): RefundRecord {
  const record = state.refunds.get(id);
  if (!record) throw new ControlError(404, `no refund ${id}`);
  return record;
}

/**
 * Control: settles a `pending` refund. `succeeded` adds it to the payment's refunded_amount (and
 * fires refund.succeeded); `canceled` records cancellation_details (YooKassa has no event for it).
 */
export function settleRefund(
  state: EmulatorState,
  id: string,
  status: 'succeeded' | 'canceled',
  details: RefundCancellationDetails = DEFAULT_REFUND_CANCELLATION,
): RefundRecord {
  const record = refundForControl(state, id);
  if (record.object.status !== 'pending') {
    throw new ControlError(409, `refund ${id} is ${record.object.status}; only a pending refund can be settled`);
  }
  if (status === 'succeeded') markSucceeded(state, record);
  else markCanceled(record, details);
  return record;
}

/**
 * Control: the outcome of the next `times` refund creations (all of them when `times` is absent);
 * afterwards refunds succeed again.
 */
export function setRefundOutcome(state: EmulatorState, outcome: RefundOutcome, times?: number, details?: RefundCancellationDetails): void {
  if (times !== undefined && (!Number.isInteger(times) || times < 1)) {
    throw new ControlError(400, 'times must be a whole number of at least 1');
  }
  state.refundOutcome = { outcome, remaining: times ?? null, details: details ?? null };
}

function takeOutcome(state: EmulatorState): { outcome: RefundOutcome; details: RefundCancellationDetails | null } {
  const current = state.refundOutcome;
  if (current.remaining !== null) {
    const remaining = current.remaining - 1;
    state.refundOutcome = remaining > 0 ? { ...current, remaining } : { outcome: 'succeeded', remaining: null, details: null };
  }
  return { outcome: current.outcome, details: current.details };
}

function pendingRefundsOf(state: EmulatorState, payment: PaymentRecord): bigint {
  let sum = 0n;
  for (const refund of state.refunds.values()) {
    if (refund.object.payment_id === payment.object.id && refund.object.status === 'pending') sum += refund.amountMinor;
  }
  return sum;
}

function markSucceeded(state: EmulatorState, record: RefundRecord): void {
  record.object.status = 'succeeded';
  if (record.object.receipt_registration) record.object.receipt_registration = 'succeeded';
  const payment = state.payments.get(record.object.payment_id);
  if (!payment) return;
  payment.refundedMinor += record.amountMinor;
  payment.object.refunded_amount = { value: formatMoney(payment.refundedMinor), currency: payment.object.amount.currency };
  payment.object.refundable = isRefundable(payment);
}

function markCanceled(record: RefundRecord, details: RefundCancellationDetails): void {
  record.object.status = 'canceled';
  record.object.cancellation_details = { ...details };
}
