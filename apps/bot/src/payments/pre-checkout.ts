import type { Logger } from '@wordgame/logging';
import type { MethodParams, PlatformClient, TgPreCheckoutQuery } from '../platform/index.js';
import type { DeadLetters } from '../store/index.js';
import type { PaymentOutbox } from './outbox.store.js';

/** ValidatePreCheckout over the bot-link, with its deadline applied by the caller. */
export type ValidatePreCheckout = (request: {
  orderId: string;
  amount: bigint;
  currency: string;
}) => Promise<{ ok: boolean; reason: string }>;

/**
 * True when this bot holds a confirmed payment for the order that no ForwardPayment response has
 * released yet; throws when that cannot be read (the SQLite file).
 */
export type PaymentHeld = (orderId: string) => boolean;

/** The fields of a pre-checkout query the verdict reads. */
export type PreCheckoutQuery = Pick<TgPreCheckoutQuery, 'invoice_payload' | 'total_amount' | 'currency'>;

/** A pre-checkout verdict; `reason` is shown to the payer when `ok` is false. */
export interface PreCheckoutVerdict {
  ok: boolean;
  reason: string;
}

/** Shown to the payer when the backend could not be asked in time. */
export const UNAVAILABLE_REASON = 'Payments are temporarily unavailable. Please try again in a few minutes.';
/** Shown when the backend declined without a reason. */
export const DECLINED_REASON = 'This purchase cannot be completed.';
/** Shown when the bot already holds a confirmed payment for the order (a second tap on a reusable link). */
export const PAYMENT_HELD_REASON = 'This order is already paid. The purchase will reach your wallet shortly.';

/**
 * The confirmed payments this bot has not forwarded: the rows of its outbox, and the
 * payments parked as dead letters (an outbox row the gateway refused, a successful_payment update
 * the bot could not handle). Either may throw when the SQLite file cannot be read.
 */
export function paymentHeldIn(outbox: PaymentOutbox, deadLetters: DeadLetters): PaymentHeld {
  return (orderId) => outbox.holdsPaymentFor(orderId) || deadLetters.holdsPaymentFor(orderId);
}

/**
 * Decides a pre-checkout query (fail-closed), order id = invoice payload. A payment the bot holds for
 * the order declines it at once, asking no one: the backend cannot know of that payment before it is
 * forwarded, and once the backend's hold has lapsed it would approve a second charge on the reusable
 * link. That check runs before this function first awaits, so at the query's place in the update
 * stream, after every successful_payment delivered before it was stored. Otherwise the verdict is
 * ValidatePreCheckout's: ok only on ok, a not-ok answer with the backend's short reason; a channel
 * failure, a missed deadline or an outbox that cannot be read declines with a generic "try again".
 */
export async function decidePreCheckout(
  held: PaymentHeld,
  validate: ValidatePreCheckout,
  query: PreCheckoutQuery,
  log: Logger,
): Promise<PreCheckoutVerdict> {
  try {
    if (held(query.invoice_payload)) {
      log.info('pre-checkout declined: a payment for this order waits in the outbox');
      return { ok: false, reason: PAYMENT_HELD_REASON };
    }
  } catch (err: unknown) {
    log.error({ err: err instanceof Error ? err.message : String(err) }, 'outbox not readable; declining the pre-checkout (fail-closed)');
    return { ok: false, reason: UNAVAILABLE_REASON };
  }
  try {
    const verdict = await validate({ orderId: query.invoice_payload, amount: BigInt(query.total_amount), currency: query.currency });
    return verdict.ok ? { ok: true, reason: '' } : { ok: false, reason: verdict.reason.trim() || DECLINED_REASON };
  } catch (err: unknown) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, 'pre-checkout not validated; declining (fail-closed)');
    return { ok: false, reason: UNAVAILABLE_REASON };
  }
}

/**
 * Answers a pre-checkout query with decidePreCheckout's verdict. The ValidatePreCheckout deadline is
 * set well inside the platform's 10 s, so the answer always reaches the platform in time.
 */
export async function answerPreCheckout(
  platform: PlatformClient,
  held: PaymentHeld,
  validate: ValidatePreCheckout,
  query: TgPreCheckoutQuery,
  logger: Logger,
): Promise<void> {
  const log = logger.child({ preCheckoutQueryId: query.id, orderId: query.invoice_payload });
  const verdict = await decidePreCheckout(held, validate, query, log);
  const params: MethodParams<'answerPreCheckoutQuery'> = verdict.ok
    ? { pre_checkout_query_id: query.id, ok: true }
    : { pre_checkout_query_id: query.id, ok: false, error_message: verdict.reason };
  await platform.call('answerPreCheckoutQuery', params);
  log.info({ ok: verdict.ok, amount: query.total_amount, currency: query.currency }, 'pre-checkout answered');
}
