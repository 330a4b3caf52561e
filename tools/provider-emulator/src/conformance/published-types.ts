/**
 * The answers of the YooKassa API v3 as a client written by others types them: the object types of
 * `@a2seven/yoo-checkout` (its published .d.ts), from which the conformance suite generates JSON
 * schemas (ts-json-schema-generator) and validates every answer the emulator gives (ajv). Nothing
 * here is imported at run time; the file exists to be read by the schema generator.
 *
 * The SDK's types are used as they are, with three adjustments, each taken from the published API
 * reference because the SDK's types cannot say it:
 * - Which fields are always present. The SDK declares its `Payment` and `Refund` classes with every
 *   field non-optional (`payment_token`, `income_amount`, `expires_at`, …), although no answer
 *   carries all of them; the reference marks as always present: payment `id`, `status`, `amount`,
 *   `recipient`, `created_at`, `test`, `paid`, `refundable`; refund `id`, `payment_id`, `status`,
 *   `created_at`, `amount`. Every other field is optional here but keeps the SDK's type.
 * - What the reference documents for refunds and the SDK (1.1.4) does not declare: the fields
 *   `cancellation_details` and `receipt_registration`, and the status `pending` (the SDK's
 *   `IRefundStatus` is only `canceled | succeeded`).
 * - The error body. The SDK's `ICreateError` also declares `errorCode` (never sent: the SDK's
 *   error factory copies the HTTP client's error, not the body) and a required `parameter`, which
 *   the reference sends only when one parameter is at fault; `type` is the literal "error".
 *   A list's `next_cursor` is likewise present only when more items remain.
 */
import type { ICreateError, IPaymentList, IReceiptStatus, IRefundList, Payment, Refund } from '@a2seven/yoo-checkout';

type PaymentAlways = 'id' | 'status' | 'amount' | 'recipient' | 'created_at' | 'test' | 'paid' | 'refundable';
type RefundAlways = 'id' | 'payment_id' | 'status' | 'created_at' | 'amount';

/** A payment object (create, get, capture, cancel, list item, notification object). */
export type PaymentAnswer = Partial<Omit<Payment, PaymentAlways>> & Pick<Payment, PaymentAlways>;

/** A refund object (create, get, list item, notification object). */
export type RefundAnswer = Partial<Omit<Refund, RefundAlways>> &
  Pick<Refund, Exclude<RefundAlways, 'status'>> & {
    status: Refund['status'] | 'pending';
    cancellation_details?: { party: 'yoo_money' | 'refund_network' | 'merchant'; reason: string };
    receipt_registration?: IReceiptStatus;
  };

/** GET /v3/payments. */
export type PaymentListAnswer = Pick<IPaymentList, 'type'> & { items: PaymentAnswer[]; next_cursor?: IPaymentList['next_cursor'] };

/** GET /v3/refunds. */
export type RefundListAnswer = Pick<IRefundList, 'type'> & { items: RefundAnswer[]; next_cursor?: IRefundList['next_cursor'] };

/** Every error answer. */
export type ErrorAnswer = Pick<ICreateError, 'id' | 'code' | 'description'> & { type: 'error'; parameter?: ICreateError['parameter'] };
