import type { Logger } from '@wordgame/logging';
import { ALREADY_REFUNDED } from '../../botcommands/index.js';
import type { PaymentDeps } from '../deps.js';
import { createTicker, type Ticker } from '../../support/index.js';
import { starRefundVerdict, type StarRefundVerdict } from './star-outcome.js';
import { claimDueStarRefunds, updatePendingStarRefund, type ClaimedStarRefund } from './refunds.store.js';

/** What one pass over the due automatic stars refunds did. */
export interface StarRefundReport {
  attempted: number;
  refunded: number;
  refused: number;
  retrying: number;
}

/** The loop that returns unmatched stars payments: `runDue(now)` for tests, start/stop with the app. */
export interface StarRefunder extends Ticker {
  runDue(now?: Date): Promise<StarRefundReport>;
}

export interface StarRefunderOptions {
  intervalMs: number;
  /** Longest wait between two attempts of one refund. */
  retryMaxMs: number;
  /** Rows claimed per pass. */
  batch?: number;
  /** Refund commands in flight at once. */
  concurrency?: number;
}

/** The first wait after an unknown outcome. */
export const FIRST_STAR_RETRY_MS = 5_000;
/** A claimed row is left to its claimer this long (longer than any command's Ack wait). */
export const STAR_REFUND_LEASE_MS = 120_000;

/**
 * One attempt to return a claimed unmatched stars payment to its payer, and its outcome written on
 * the row (see createStarRefunder): `refunded`, `refused` (failed, an operator follows up) or
 * `unknown` (still pending, due again after `retryDelayMs`). Used by the refund loop and by a
 * reconciliation refund, which records the charge here first so that exactly one path returns it.
 */
export async function attemptStarRefund(
  deps: PaymentDeps,
  row: ClaimedStarRefund,
  retryDelay: number,
  logger: Logger = deps.logger,
): Promise<StarRefundVerdict['kind']> {
  const log = { platformChargeId: row.platform_charge_id, orderId: row.order_id.slice(0, 64), attempt: row.refund_attempts };
  // A payer id the platform never issues can only be refused, on every attempt: an operator's case at once.
  const verdict: StarRefundVerdict =
    row.platform_user_id <= 0n
      ? { kind: 'refused', error: 'no valid payer id was forwarded with this payment' }
      : starRefundVerdict(await deps.bot.refundStarPayment(row.platform_user_id, row.platform_charge_id), ALREADY_REFUNDED);
  const now = deps.now();
  if (verdict.kind === 'refunded') {
    await updatePendingStarRefund(deps.db, row.id, { refund_status: 'refunded', refunded_at: now, refund_error: null });
    logger.info({ ...log, already: verdict.already, stars: String(row.amount) }, 'unmatched stars payment returned to the payer');
  } else if (verdict.kind === 'refused') {
    await updatePendingStarRefund(deps.db, row.id, { refund_status: 'failed', refund_error: verdict.error });
    logger.error({ ...log, error: verdict.error }, 'platform refused to return an unmatched stars payment; an operator follows up');
  } else {
    const next = new Date(now.getTime() + retryDelay);
    await updatePendingStarRefund(deps.db, row.id, { refund_next_at: next, refund_error: verdict.error });
    logger.warn({ ...log, error: verdict.error, next: next.toISOString() }, 'stars refund outcome unknown; sent again later');
  }
  return verdict.kind;
}

/** Wait before attempt `attempts + 1`: 5 s doubling, capped at `maxMs`. */
export function retryDelayMs(attempts: number, maxMs: number): number {
  return Math.min(maxMs, FIRST_STAR_RETRY_MS * 2 ** Math.min(Math.max(attempts - 1, 0), 20));
}

/**
 * Returns every stars payment that credited nothing (unmatched_payments: unknown order, order
 * already paid or failed, amount mismatch) to its payer through the bot's refund_star_payment,
 * exactly once. Command delivery is at-most-once, so the backend owns the retry: due rows are
 * claimed with `FOR UPDATE SKIP LOCKED` and a lease (safe with several backends and across
 * restarts: an unanswered claim is taken again when its lease ends), the command is sent, and the
 * row becomes `refunded` when the Ack says done or that the platform had already refunded the
 * charge (the platform refunds a charge once, so re-sending after an unknown outcome is safe),
 * `failed` with the platform's answer when the platform refuses (shown to operators), or stays
 * `pending` with a doubling delay when the outcome is unknown.
 */
export function createStarRefunder(deps: PaymentDeps, options: StarRefunderOptions, logger: Logger = deps.logger): StarRefunder {
  const batch = options.batch ?? 50;
  const concurrency = options.concurrency ?? 4;

  async function claim(now: Date) {
    return claimDueStarRefunds(deps.db, now, new Date(now.getTime() + STAR_REFUND_LEASE_MS), batch);
  }

  type Claimed = Awaited<ReturnType<typeof claim>>[number];

  async function refundOne(row: Claimed, report: StarRefundReport): Promise<void> {
    const verdict = await attemptStarRefund(deps, row, retryDelayMs(row.refund_attempts, options.retryMaxMs), logger);
    if (verdict === 'refunded') report.refunded += 1;
    else if (verdict === 'refused') report.refused += 1;
    else report.retrying += 1;
  }

  async function runDue(now: Date = deps.now()): Promise<StarRefundReport> {
    const report: StarRefundReport = { attempted: 0, refunded: 0, refused: 0, retrying: 0 };
    const rows = await claim(now);
    report.attempted = rows.length;
    let next = 0;
    const worker = async () => {
      for (let row = rows[next++]; row !== undefined; row = rows[next++]) {
        try {
          await refundOne(row, report);
        } catch (err: unknown) {
          // The claim's lease brings the row back; nothing is lost.
          logger.error({ err, platformChargeId: row.platform_charge_id }, 'stars refund attempt failed; retried when its lease ends');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, rows.length) }, worker));
    return report;
  }

  return { runDue, ...createTicker(() => runDue(), options.intervalMs, logger, 'stars refund pass failed') };
}
