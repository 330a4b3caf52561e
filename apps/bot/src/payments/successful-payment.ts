import type { TgMessage, TgSuccessfulPayment } from '../platform/index.js';
import type { OutboxPayment } from './outbox.js';

/** The outbox row of a successful_payment message: order id from the invoice payload, the payer from `from`. */
export function outboxPaymentOf(payment: TgSuccessfulPayment, message: TgMessage): OutboxPayment {
  return {
    platformChargeId: payment.telegram_payment_charge_id,
    orderId: payment.invoice_payload,
    amount: BigInt(payment.total_amount),
    platformUserId: BigInt(message.from?.id ?? message.chat.id),
  };
}
