import { z } from 'zod';
import { ControlError, invalidRequest, notFound } from './errors.js';
import { feeOf, formatMoney } from './money.js';
import type { NotificationEvent } from './notifications.js';
import { checkReceiptTotal, receiptSchema } from './receipt.js';
import {
  newObjectId,
  nowIso,
  type Card,
  type EmulatorState,
  type Payment,
  type PaymentCancellationDetails,
  type PaymentRecord,
  type Shop,
} from './state.js';
import { amountSchema, metadataSchema, minorOf, parseBody, rawField, urlSchema } from './validation.js';

/** A payment after a state change, with the notification event that change fires. */
export interface PaymentChange {
  readonly record: PaymentRecord;
  readonly event: NotificationEvent;
}

const createSchema = z.object({
  amount: amountSchema,
  capture: z.boolean({ error: 'must be a boolean' }).optional(),
  confirmation: z.object(
    {
      type: z.literal('redirect', { error: 'only "redirect" is supported by the emulator' }),
      return_url: urlSchema,
      locale: z.enum(['ru_RU', 'en_US']).optional(),
      enforce: z.boolean().optional(),
    },
    { error: 'is required: { type: "redirect", return_url }' },
  ),
  description: z.string({ error: 'must be a string' }).max(128, 'must be at most 128 characters').optional(),
  metadata: metadataSchema.optional(),
  receipt: receiptSchema.optional(),
});

/**
 * POST /v3/payments: validates the body as YooKassa does and stores a `pending` payment whose
 * confirmation_url points at the emulator's checkout page. `capture` defaults to false, as in
 * the real API. The receipt, if sent, is validated (shape and total) and kept as sent.
 */
export function createPayment(state: EmulatorState, shop: Shop, body: unknown): PaymentRecord {
  const input = parseBody(createSchema, body);
  const amountMinor = minorOf(input.amount);
  if (input.receipt) checkReceiptTotal(input.receipt, amountMinor, input.amount.currency, 'receipt');
  const id = newObjectId('000f');
  const object: Payment = {
    id,
    status: 'pending',
    paid: false,
    amount: { value: formatMoney(amountMinor), currency: input.amount.currency },
    ...(input.description === undefined ? {} : { description: input.description }),
    recipient: { account_id: shop.shopId, gateway_id: shop.gatewayId },
    created_at: nowIso(),
    confirmation: {
      type: 'redirect',
      confirmation_url: `${state.baseUrl}/checkout/payments/v2/contract?orderId=${id}`,
      return_url: input.confirmation.return_url,
    },
    test: shop.test,
    refundable: false,
    ...(input.receipt === undefined ? {} : { receipt_registration: 'pending' as const }),
    metadata: input.metadata ?? {},
  };
  const record: PaymentRecord = {
    shopId: shop.shopId,
    capture: input.capture ?? false,
    object,
    amountMinor,
    refundedMinor: 0n,
    receipt: input.receipt ? rawField(body, 'receipt') : null,
  };
  state.payments.set(id, record);
  return record;
}

/** GET /v3/payments/{id}: the shop's own payment; another shop's or an unknown id is 404. */
export function getPayment(state: EmulatorState, shop: Shop, id: string): PaymentRecord {
  const record = state.payments.get(id);
  if (!record || record.shopId !== shop.shopId) throw notFound(`Payment ${id} not found`);
  return record;
}

const captureSchema = z.object({ amount: amountSchema.optional(), receipt: receiptSchema.optional() });

/**
 * POST /v3/payments/{id}/capture: a `waiting_for_capture` payment becomes `succeeded`, for the
 * whole authorised amount or a smaller `amount` (partial capture).
 */
export function capturePayment(state: EmulatorState, shop: Shop, id: string, body: unknown): PaymentChange {
  const record = getPayment(state, shop, id);
  const input = parseBody(captureSchema, body);
  requireStatus(record, 'waiting_for_capture', 'captured');
  if (input.amount) {
    const minor = minorOf(input.amount);
    if (input.amount.currency !== record.object.amount.currency) {
      throw invalidRequest('capture currency must match the payment currency', 'amount.currency');
    }
    if (minor > record.amountMinor) {
      throw invalidRequest('capture amount must not exceed the payment amount', 'amount.value');
    }
    record.amountMinor = minor;
    record.object.amount = { value: formatMoney(minor), currency: input.amount.currency };
  }
  if (input.receipt) checkReceiptTotal(input.receipt, record.amountMinor, record.object.amount.currency, 'receipt');
  markSucceeded(state, record);
  return { record, event: 'payment.succeeded' };
}

/**
 * POST /v3/payments/{id}/cancel: only a `waiting_for_capture` payment can be cancelled by the
 * merchant; it becomes `canceled` with party merchant, reason canceled_by_merchant.
 */
export function cancelPayment(state: EmulatorState, shop: Shop, id: string): PaymentChange {
  const record = getPayment(state, shop, id);
  requireStatus(record, 'waiting_for_capture', 'canceled');
  markCanceled(record, { party: 'merchant', reason: 'canceled_by_merchant' });
  return { record, event: 'payment.canceled' };
}

/** A payment for the control API, whichever shop owns it; unknown ids are a 404 ControlError. */
export function paymentForControl(state: EmulatorState, id: string): PaymentRecord {
  const record = state.payments.get(id);
  if (!record) throw new ControlError(404, `no payment ${id}`);
  return record;
}

/** The card a settled payment shows unless the caller chooses one (a YooKassa test card). */
export const DEFAULT_CARD: Card = {
  first6: '555555',
  last4: '4444',
  expiry_month: '12',
  expiry_year: '2030',
  card_type: 'MasterCard',
  issuer_country: 'RU',
};

/**
 * Control: the customer paid a `pending` payment by card. With capture: true it becomes
 * `succeeded` (captured_at, income_amount, refundable); with capture: false it becomes
 * `waiting_for_capture` until captured or cancelled, expiring in 7 days as in YooKassa.
 */
export function settlePayment(state: EmulatorState, id: string, card: Partial<Card> = {}): PaymentChange {
  const record = paymentForControl(state, id);
  if (record.object.status !== 'pending') {
    throw new ControlError(409, `payment ${id} is ${record.object.status}; only a pending payment can be paid`);
  }
  const fullCard: Card = { ...DEFAULT_CARD, ...card };
  record.object.paid = true;
  record.object.payment_method = { type: 'bank_card', id, saved: false, title: `Bank card *${fullCard.last4}`, card: fullCard };
  if (record.capture) {
    markSucceeded(state, record);
    return { record, event: 'payment.succeeded' };
  }
  record.object.status = 'waiting_for_capture';
  record.object.expires_at = new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString();
  return { record, event: 'payment.waiting_for_capture' };
}

/** Control: a `pending` or `waiting_for_capture` payment is declined or expires. */
export function declinePayment(state: EmulatorState, id: string, details: PaymentCancellationDetails): PaymentChange {
  const record = paymentForControl(state, id);
  const status = record.object.status;
  if (status !== 'pending' && status !== 'waiting_for_capture') {
    throw new ControlError(409, `payment ${id} is ${status}; only a pending or waiting_for_capture payment can be cancelled`);
  }
  markCanceled(record, details);
  return { record, event: 'payment.canceled' };
}

/** Whether a payment can still be refunded: succeeded and not yet fully refunded. */
export function isRefundable(record: PaymentRecord): boolean {
  return record.object.status === 'succeeded' && record.refundedMinor < record.amountMinor;
}

function requireStatus(record: PaymentRecord, status: Payment['status'], verb: string): void {
  if (record.object.status !== status) {
    throw invalidRequest(`Payment ${record.object.id} is in status ${record.object.status} and can't be ${verb}; it must be ${status}`);
  }
}

function markSucceeded(state: EmulatorState, record: PaymentRecord): void {
  const payment = record.object;
  payment.status = 'succeeded';
  payment.paid = true;
  payment.captured_at = nowIso();
  delete payment.expires_at;
  const income = record.amountMinor - feeOf(record.amountMinor, state.feeBasisPoints);
  payment.income_amount = { value: formatMoney(income), currency: payment.amount.currency };
  payment.refundable = isRefundable(record);
  if (payment.receipt_registration) payment.receipt_registration = 'succeeded';
}

function markCanceled(record: PaymentRecord, details: PaymentCancellationDetails): void {
  const payment = record.object;
  payment.status = 'canceled';
  payment.paid = false;
  payment.refundable = false;
  delete payment.expires_at;
  payment.cancellation_details = { ...details };
}
