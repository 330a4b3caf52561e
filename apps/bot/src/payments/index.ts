/**
 * Stars payments on the bot's side: the pre-checkout answer, the successful payment (and a refund
 * made outside the bot) made durable in the outbox, the forwarder that sends each waiting row to the
 * backend until it is answered, and the payer's notice of an applied refund.
 * The `outbox` operator command (outbox-cli.ts) is a program of its own, not imported.
 */
export { PaymentForwarder } from './forwarder.js';
export { PaymentOutbox, type OutboxKind } from './outbox.store.js';
export { outboxRefundOf } from './refunded-payment.js';
export { tellRefunded } from './refund-notice.js';
export { answerPreCheckout, paymentHeldIn, type ValidatePreCheckout } from './pre-checkout.js';
export { outboxPaymentOf } from './successful-payment.js';
