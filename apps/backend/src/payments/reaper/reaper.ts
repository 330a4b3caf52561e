import type { Logger } from '@wordgame/logging';
import { RECHECK_AGE_MS } from '../orders/state.js';
import { recordEvents, type OrderRow } from '../orders/repository.js';
import { shopOf, type CardRail, type PaymentDeps } from '../deps.js';
import { ProviderError } from '../card/provider/types.js';
import { pruneRereads } from '../card/reread-window.js';
import { settleFromProvider } from '../card/settle.js';
import { forEachPooled, createTicker } from '../../support/index.js';
import { claimCardRechecks, expirePendingOrders } from './store.js';

/** What one tick did. */
export interface TickReport {
  expired: number;
  rechecked: number;
  credited: number;
  failed: number;
  errors: number;
}

/** The reaper loop: `tick(now)` for tests, `start()`/`stop()` with the app. */
export interface Reaper {
  tick(now?: Date): Promise<TickReport>;
  start(): void;
  stop(): Promise<void>;
}

/** How the reaper paces itself (README: REAPER_INTERVAL_MS, REAPER_RECHECK_BATCH, REAPER_RECHECK_CONCURRENCY). */
export interface ReaperOptions {
  /** Tick interval in ms; 0 = the loop is off (tests call `tick`). Also the re-check lease. */
  intervalMs: number;
  /** Most card orders one tick re-checks. */
  recheckBatch: number;
  /** Most provider re-reads in flight at once within a tick. */
  recheckConcurrency: number;
}

/** Most pending orders one tick expires (the rest are expired by the next ticks). */
const EXPIRE_BATCH = 200;

/**
 * One tick loop for the whole backend, safe with several replicas. A tick (1) expires pending
 * orders past their 30-minute lifetime (state expired: still creditable) and (2) re-checks card
 * orders, pending or expired, older than one minute that carry a provider payment id, on every
 * tick (a lost notification is noticed within a tick, not a minute later).
 *
 * Re-check claim: one UPDATE picks at most `recheckBatch` such orders whose lease (`recheck_after`)
 * has run out, with `FOR UPDATE SKIP LOCKED`, and sets their lease to now + one tick interval
 * (at least 1 ms). A replica ticking at the same time skips rows the other is claiming and finds
 * the claimed ones leased, so two replicas never re-check an order in the same tick; the lease is
 * no longer than the interval, so the next tick (which starts at least an interval later) claims
 * the order again. Since every claim sets the lease to claim time + the same interval, ordering by
 * `recheck_after` (never-checked first) is ordering by last re-check: with more orders than one
 * batch, every order gets its turn, least recently checked first. The provider is then re-read
 * outside any transaction, at most `recheckConcurrency` calls at a time, and each answer is settled
 * like a notification would be (credit once / fail). A tick that outlives its lease may let another
 * replica re-check an order twice; settling is idempotent, so that costs one provider call only.
 */
export function createReaper(deps: PaymentDeps, options: ReaperOptions, logger: Logger = deps.logger): Reaper {
  const leaseMs = Math.max(1, options.intervalMs);

  async function expire(now: Date): Promise<number> {
    return deps.db.transaction().execute(async (trx) => {
      const expired = await expirePendingOrders(trx, now, EXPIRE_BATCH);
      await recordEvents(trx, expired, 'expired');
      return expired.length;
    });
  }

  async function claimRechecks(card: CardRail, now: Date): Promise<OrderRow[]> {
    const shopIds = Object.values(card.shops).map((s) => s.id);
    if (shopIds.length === 0) return [];
    const oldEnough = new Date(now.getTime() - RECHECK_AGE_MS);
    return claimCardRechecks(deps.db, {
      provider: card.provider.name,
      shopIds,
      createdUpTo: oldEnough,
      now,
      leaseUntil: new Date(now.getTime() + leaseMs),
      limit: options.recheckBatch,
    });
  }

  async function tick(now: Date = deps.now()): Promise<TickReport> {
    const report: TickReport = { expired: await expire(now), rechecked: 0, credited: 0, failed: 0, errors: 0 };
    const card = deps.card;
    if (!card) return report;
    await pruneRereads(deps.db, now).catch((err: unknown) => logger.warn({ err }, 'could not prune provider re-read claims; next tick'));
    const claimed = await claimRechecks(card, now);
    await forEachPooled(claimed, options.recheckConcurrency, async (order) => {
      const shop = shopOf(card, order.shop);
      if (!shop || order.provider_payment_id === null) return;
      report.rechecked += 1;
      try {
        const payment = await card.provider.getPayment(shop, order.provider_payment_id);
        const d = await settleFromProvider(deps, order, shop, payment);
        if (d.detail === 'credited') report.credited += 1;
        if (d.detail === 'failed') report.failed += 1;
      } catch (err: unknown) {
        report.errors += 1;
        const detail = err instanceof ProviderError ? { failure: err.failure, status: err.status } : { err };
        logger.warn({ orderId: order.id, ...detail }, 'reaper re-check failed; retried on a later tick');
      }
    });
    if (report.expired + report.rechecked > 0) logger.info({ ...report }, 'reaper tick');
    return report;
  }

  const observed = async (now?: Date): Promise<TickReport> => {
    const started = performance.now();
    try {
      const report = await tick(now);
      deps.metrics.reaperTick(report, (performance.now() - started) / 1000);
      return report;
    } catch (err: unknown) {
      deps.metrics.reaperTick(null, (performance.now() - started) / 1000);
      throw err;
    }
  };
  return { tick: observed, ...createTicker(observed, options.intervalMs, logger, 'reaper tick failed') };
}
