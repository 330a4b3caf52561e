import type { TgMessage, TgRefundedPayment } from '../platform/index.js';
import type { OutboxPayment } from './outbox.store.js';

/**
 * The refund-outbox row of a refunded_payment message (a refund made outside the bot): the order id
 * from the invoice payload, the payer from `from` (the private chat's user), whole stars.
 */
export function outboxRefundOf(refund: TgRefundedPayment, message: TgMessage): OutboxPayment {
  return {
    platformChargeId: refund.telegram_payment_charge_id,
    orderId: refund.invoice_payload,
    amount: BigInt(refund.total_amount),
    platformUserId: BigInt(message.from?.id ?? message.chat.id),
  };
}
