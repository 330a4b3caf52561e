import { Code, ConnectError } from '@connectrpc/connect';
import { ERROR_CODE_HEADER } from '../rpc/errors.js';

/**
 * The payment domain's error codes (orders, intake, refunds), each with its Connect code. They use
 * the backend's one convention: a ConnectError carrying the machine code in `x-error-code`.
 */
export const PAYMENT_ERROR_CODES = {
  invalid_rail: Code.InvalidArgument,
  rail_not_offered: Code.FailedPrecondition,
  rail_not_configured: Code.FailedPrecondition,
  not_sold_on_rail: Code.FailedPrecondition,
  email_required: Code.FailedPrecondition,
  bot_unavailable: Code.Unavailable,
  provider_unavailable: Code.Unavailable,
  payment_rejected: Code.FailedPrecondition,
  invalid_order_id: Code.InvalidArgument,
  unknown_order: Code.NotFound,
  unknown_provider: Code.InvalidArgument,
  intake_unavailable: Code.Unavailable,
  refund_not_supported: Code.FailedPrecondition,
  order_not_paid: Code.FailedPrecondition,
  refund_rejected: Code.FailedPrecondition,
} as const satisfies Record<string, Code>;

export type PaymentErrorCode = keyof typeof PAYMENT_ERROR_CODES;

/** An expected payment failure: Connect code by table, machine code in `x-error-code`, short safe message. */
export function paymentError(code: PaymentErrorCode, message: string): ConnectError {
  return new ConnectError(message, PAYMENT_ERROR_CODES[code], { [ERROR_CODE_HEADER]: code });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True for a lower-case canonical uuid (the only form order ids take). */
export function isOrderId(value: string | null | undefined): value is string {
  return typeof value === 'string' && UUID.test(value);
}
