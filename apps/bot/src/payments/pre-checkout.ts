import type { Logger } from '@wordgame/logging';
import type { PlatformClient } from '../platform/client.js';
import { trueResult } from '../platform/shapes.js';
import type { TgPreCheckoutQuery } from '../platform/types.js';

/** ValidatePreCheckout over the bot-link, with its deadline applied by the caller. */
export type ValidatePreCheckout = (request: {
  orderId: string;
  amount: bigint;
  currency: string;
}) => Promise<{ ok: boolean; reason: string }>;

/** Shown to the payer when the backend could not be asked in time. */
export const UNAVAILABLE_REASON = 'Payments are temporarily unavailable. Please try again in a few minutes.';
/** Shown when the backend declined without a reason. */
export const DECLINED_REASON = 'This purchase cannot be completed.';

/**
 * Answers a pre-checkout query the way the spec demands (fail-closed): ok=true only when
 * ValidatePreCheckout answered ok for (order id = invoice payload, amount, currency); a not-ok
 * answer declines with the backend's short reason; any channel failure or a missed deadline
 * declines with a generic "try again" message. The deadline is set well inside the platform's
 * 10 s, so the answer always reaches the platform in time.
 */
export async function answerPreCheckout(
  platform: PlatformClient,
  validate: ValidatePreCheckout,
  query: TgPreCheckoutQuery,
  logger: Logger,
): Promise<void> {
  const log = logger.child({ preCheckoutQueryId: query.id, orderId: query.invoice_payload });
  let verdict: { ok: boolean; reason: string };
  try {
    verdict = await validate({ orderId: query.invoice_payload, amount: BigInt(query.total_amount), currency: query.currency });
  } catch (err: unknown) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, 'pre-checkout not validated; declining (fail-closed)');
    verdict = { ok: false, reason: UNAVAILABLE_REASON };
  }
  const params: Record<string, unknown> = { pre_checkout_query_id: query.id, ok: verdict.ok };
  if (!verdict.ok) params['error_message'] = verdict.reason.trim() || DECLINED_REASON;
  await platform.call('answerPreCheckoutQuery', params, { result: trueResult });
  log.info({ ok: verdict.ok, amount: query.total_amount, currency: query.currency }, 'pre-checkout answered');
}
