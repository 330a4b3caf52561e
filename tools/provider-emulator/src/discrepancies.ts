import { ControlError } from './errors.js';
import { formatMoney, parseMoney } from './money.js';
import { createPayment, paymentForControl, settlePayment } from './payments.js';
import { createRefund, refundForControl } from './refunds.js';
import type { Amount, EmulatorState, Payment, Refund } from './state.js';

/**
 * Control-only changes that make the provider's books disagree with the merchant's, for
 * reconciliation tests. None of them sends a notification: the merchant learns of them only by
 * listing or re-reading. Each throws {@link ControlError} (404 unknown object, 400 bad argument).
 */

/** A card payment that succeeded at the provider and that the merchant never heard of (money taken). */
export function createUnknownPayment(
  state: EmulatorState,
  input: { shopId: string; amount: Amount; metadata?: Record<string, string>; description?: string },
): Payment {
  const shop = state.shops.get(input.shopId);
  if (!shop) throw new ControlError(404, `no shop ${input.shopId}`);
  const record = createPayment(state, shop, {
    amount: input.amount,
    capture: true,
    confirmation: { type: 'redirect', return_url: 'https://merchant.example/return' },
    ...(input.description === undefined ? {} : { description: input.description }),
    metadata: input.metadata ?? {},
  });
  settlePayment(state, record.object.id);
  return structuredClone(record.object);
}

/** Changes the amount and/or currency the provider reports for an existing payment. */
export function alterPayment(state: EmulatorState, id: string, change: { value?: string; currency?: string }): Payment {
  const record = paymentForControl(state, id);
  if (change.value !== undefined) {
    const minor = parseMoney(change.value);
    if (minor === null || minor <= 0n) throw new ControlError(400, 'value must be a positive amount with at most two decimals');
    record.amountMinor = minor;
  }
  const currency = change.currency ?? record.object.amount.currency;
  record.object.amount = { value: formatMoney(record.amountMinor), currency };
  return structuredClone(record.object);
}

/** A succeeded refund made at the provider only (e.g. from the provider's back office). */
export function createProviderRefund(state: EmulatorState, paymentId: string, value?: string): Refund {
  const payment = paymentForControl(state, paymentId);
  const shop = state.shops.get(payment.shopId);
  if (!shop) throw new ControlError(404, `no shop ${payment.shopId}`);
  const amount = value ?? formatMoney(payment.amountMinor - payment.refundedMinor);
  const saved = state.refundOutcome;
  state.refundOutcome = { outcome: 'succeeded', remaining: null, details: null };
  try {
    return structuredClone(
      createRefund(state, shop, { payment_id: paymentId, amount: { value: amount, currency: payment.object.amount.currency } }).record
        .object,
    );
  } finally {
    state.refundOutcome = saved;
  }
}

/** Forgets a payment and its refunds, as if the provider never took the money. */
export function removePayment(state: EmulatorState, id: string): void {
  paymentForControl(state, id);
  state.payments.delete(id);
  for (const [refundId, refund] of state.refunds) if (refund.object.payment_id === id) state.refunds.delete(refundId);
}

/** Forgets a refund (the provider never returned that money); the payment's refunded amount shrinks. */
export function removeRefund(state: EmulatorState, id: string): void {
  const refund = refundForControl(state, id);
  state.refunds.delete(id);
  const payment = state.payments.get(refund.object.payment_id);
  if (!payment || refund.object.status !== 'succeeded') return;
  payment.refundedMinor -= refund.amountMinor;
  if (payment.refundedMinor === 0n) delete payment.object.refunded_amount;
  else payment.object.refunded_amount = { value: formatMoney(payment.refundedMinor), currency: payment.object.amount.currency };
  payment.object.refundable = payment.object.status === 'succeeded' && payment.refundedMinor < payment.amountMinor;
}
