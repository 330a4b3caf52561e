import type { Logger } from '@wordgame/logging';
import { RECHECK_AGE_MS } from '../orders/state.js';
import { recordEvents, type OrderRow } from '../orders/orders.store.js';
import { shopOf, type CardRail, type PaymentDeps } from '../deps.js';
import { ProviderError } from '../card/provider/types.js';
import { pruneRereads } from '../card/reread-window.js';
import { settleFromProvider } from '../card/settle.js';
import { forEachPooled, createTicker } from '../../support/index.js';
import { applyCardRefund } from '../refunds/card-refund.js';
import { claimRechecks, expirePendingOrders, type RecheckClaim } from './reaper.store.js';

/** What one tick did. */
export interface TickReport {
  expired: number;
  rechecked: number;
  credited: number;
  failed: number;
  errors: number;
  /** Held refunds the provider had reported pending, re-read and found final. */
  refunds_settled: number;
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
  /** Card orders one claim takes (a page); a tick claims pages until every due order was re-checked. */
  recheckBatch: number;
  /** Most provider re-reads in flight at once within a tick. */
  recheckConcurrency: number;
}

/** Pending orders one statement expires; a tick expires page after page until none is due. */
const EXPIRE_BATCH = 200;

/**
 * One tick loop for the whole backend, safe with several replicas. A tick (1) expires every pending
 * order past its 30-minute lifetime (state expired: still creditable), (2) re-checks every card
 * order, pending or expired, older than one minute that carries a provider payment id and has no
 * refund in flight (a lost notification is noticed within a tick, not a minute later), and (3)
 * re-reads every held refund the provider last reported pending and records it once final
 * (applyCardRefund: a lost refund notification is noticed within a tick). Each step pages through
 * all that is due, `recheckBatch` orders a claim, so a backlog larger than a page is covered by the
 * same tick.
 *
 * Re-check claim: one UPDATE picks at most `recheckBatch` such orders whose lease (`recheck_after`)
 * has run out, with `FOR UPDATE SKIP LOCKED`, and sets their lease to now + one tick interval
 * (at least 1 ms). A replica ticking at the same time skips rows the other is claiming and finds
 * the claimed ones leased, so two replicas never re-check an order in the same tick; the lease is
 * no longer than the interval, so the next tick (which starts at least an interval later) claims
 * the order again. Since every claim sets the lease to claim time + the same interval, ordering by
 * `recheck_after` (never-checked first) is ordering by last re-check: with more orders than one
 * page, the pages go least recently checked first. The provider is then re-read
 * outside any transaction, at most `recheckConcurrency` calls at a time, and each answer is settled
 * like a notification would be (credit once / fail). A tick that outlives its lease may let another
 * replica re-check an order twice; settling is idempotent, so that costs one provider call only.
 */
export function createReaper(deps: PaymentDeps, options: ReaperOptions, logger: Logger = deps.logger): Reaper {
  const leaseMs = Math.max(1, options.intervalMs);

  /** Expires every pending order past its lifetime, a page at a time. */
  async function expire(now: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const expired = await deps.db.transaction().execute(async (trx) => {
        const ids = await expirePendingOrders(trx, now, EXPIRE_BATCH);
        await recordEvents(trx, ids, 'expired');
        return ids.length;
      });
      total += expired;
      if (expired < EXPIRE_BATCH) return total;
    }
  }

  function claimFor(card: CardRail, now: Date): RecheckClaim | null {
    const shopIds = Object.values(card.shops).map((s) => s.id);
    if (shopIds.length === 0) return null;
    return {
      provider: card.provider.name,
      shopIds,
      createdUpTo: new Date(now.getTime() - RECHECK_AGE_MS),
      now,
      leaseUntil: new Date(now.getTime() + leaseMs),
      limit: options.recheckBatch,
    };
  }

  /**
   * Claims pages of due orders with `claim` until none is left and works each page through `work`,
   * at most `recheckConcurrency` at a time. Claimed orders are leased past `now`, so a later page of
   * the same tick never claims them again and the loop ends.
   */
  async function everyPage(claim: () => Promise<OrderRow[]>, work: (order: OrderRow) => Promise<void>): Promise<void> {
    for (;;) {
      const page = await claim();
      if (page.length === 0) return;
      await forEachPooled(page, options.recheckConcurrency, work);
      if (page.length < options.recheckBatch) return;
    }
  }

  async function tick(now: Date = deps.now()): Promise<TickReport> {
    const report: TickReport = { expired: await expire(now), rechecked: 0, credited: 0, failed: 0, errors: 0, refunds_settled: 0 };
    const card = deps.card;
    const claim = card ? claimFor(card, now) : null;
    if (!card || !claim) return report;
    await pruneRereads(deps.db, now).catch((err: unknown) => logger.warn({ err }, 'could not prune provider re-read claims; next tick'));
    await everyPage(
      () => claimRechecks(deps.db, 'payment', claim),
      async (order) => {
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
      },
    );
    await everyPage(
      () => claimRechecks(deps.db, 'refund', claim),
      async (order) => {
        const shop = shopOf(card, order.shop);
        if (!shop || order.refund_pending_id === null) return;
        try {
          const refund = await card.provider.getRefund(shop, order.refund_pending_id);
          const applied = await applyCardRefund(deps, order, refund);
          if (applied !== 'pending') report.refunds_settled += 1;
        } catch (err: unknown) {
          report.errors += 1;
          const detail = err instanceof ProviderError ? { failure: err.failure, status: err.status } : { err };
          logger.warn(
            { orderId: order.id, refundId: order.refund_pending_id, ...detail },
            'reaper refund re-read failed; retried on a later tick',
          );
        }
      },
    );
    if (report.expired + report.rechecked + report.refunds_settled > 0) logger.info({ ...report }, 'reaper tick');
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
