import type { TgMessage, TgSuccessfulPayment } from '../platform/index.js';
import type { OutboxPayment } from './outbox.store.js';

/**
 * The outbox row of a successful_payment message: order id from the invoice payload, the payer from
 * `from`; a subscription's charge (first or renewal, already validated in update-shapes.ts) also
 * keeps is_first_recurring and its subscription_expiration_date. A renewal is stored and forwarded
 * exactly like a first payment.
 */
export function outboxPaymentOf(payment: TgSuccessfulPayment, message: TgMessage): OutboxPayment {
  const row: OutboxPayment = {
    platformChargeId: payment.telegram_payment_charge_id,
    orderId: payment.invoice_payload,
    amount: BigInt(payment.total_amount),
    platformUserId: BigInt(message.from?.id ?? message.chat.id),
  };
  if (payment.is_recurring === true && payment.subscription_expiration_date !== undefined) {
    row.subscription = { first: payment.is_first_recurring === true, expirationUnix: BigInt(payment.subscription_expiration_date) };
  }
  return row;
}
