/**
 * Stars payments on the bot's side: the pre-checkout answer, the successful payment made durable in
 * the outbox, and the forwarder that sends each waiting payment to the backend until it is answered.
 * The `outbox` operator command (outbox-cli.ts) is a program of its own, not imported.
 */
export { PaymentForwarder } from './forwarder.js';
export { PaymentOutbox } from './outbox.js';
export { answerPreCheckout, paymentHeldIn, type ValidatePreCheckout } from './pre-checkout.js';
export { outboxPaymentOf } from './successful-payment.js';
