import { DomainError, type DomainErrorCode } from '@wordgame/contracts';

/** An expected payment failure (orders, provider notifications, forwarded payments, refunds): a DomainError with a short safe message. */
export function paymentError(code: DomainErrorCode, message: string): DomainError {
  return new DomainError(code, message);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True for a lower-case canonical uuid (the only form order ids take). */
export function isOrderId(value: string | null | undefined): value is string {
  return typeof value === 'string' && UUID.test(value);
}
