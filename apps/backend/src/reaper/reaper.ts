import type { Logger } from '@wordgame/logging';
import { RECHECK_AGE_MS } from '../orders/state.js';
import type { OrderRow } from '../orders/repository.js';
import { shopOf, type PaymentDeps } from '../payments/deps.js';
import { ProviderError } from '../payments/provider/types.js';
import { settleFromProvider } from '../payments/settle.js';
import { createTicker } from '../support/ticker.js';

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

const BATCH = 200;
/** After a re-check an order is left alone this long (also the lease another replica respects). */
const RECHECK_LEASE_MS = 60_000;

/**
 * One tick loop for the whole backend, safe with several replicas: every batch is claimed with
 * `FOR UPDATE SKIP LOCKED`, so two replicas never take the same rows. A tick (1) expires pending
 * orders past their 30-minute lifetime (state expired: still creditable) and (2) re-checks card
 * orders, pending or expired, older than one minute that carry a provider payment id: the row is
 * leased (recheck_after) in a short claim transaction, then the payment is re-read from the
 * provider outside any transaction and settled like a notification would (credit once / fail),
 * which covers a lost notification.
 */
export function createReaper(deps: PaymentDeps, intervalMs: number, logger: Logger = deps.logger): Reaper {
  async function expire(now: Date): Promise<number> {
    return deps.db.transaction().execute(async (trx) => {
      const rows = await trx
        .updateTable('orders')
        .set({ state: 'expired' })
        .where('id', 'in', (eb) =>
          eb.selectFrom('orders').select('id').where('state', '=', 'pending').where('expires_at', '<=', now).orderBy('expires_at').limit(BATCH).forUpdate().skipLocked(),
        )
        .where('state', '=', 'pending')
        .returning('id')
        .execute();
      if (rows.length > 0) await trx.insertInto('payment_events').values(rows.map((r) => ({ order_id: r.id, kind: 'expired' as const }))).execute();
      return rows.length;
    });
  }

  async function claimRechecks(now: Date): Promise<OrderRow[]> {
    const oldEnough = new Date(now.getTime() - RECHECK_AGE_MS);
    return deps.db
      .updateTable('orders')
      .set({ recheck_after: new Date(now.getTime() + RECHECK_LEASE_MS) })
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('orders')
          .select('id')
          .where('state', 'in', ['pending', 'expired'])
          .where('rail', '=', 'card')
          .where('provider_payment_id', 'is not', null)
          .where('created_at', '<=', oldEnough)
          .where((w) => w.or([w('recheck_after', 'is', null), w('recheck_after', '<=', now)]))
          .orderBy('created_at')
          .limit(BATCH)
          .forUpdate()
          .skipLocked(),
      )
      .returningAll()
      .execute();
  }

  async function tick(now: Date = deps.now()): Promise<TickReport> {
    const report: TickReport = { expired: await expire(now), rechecked: 0, credited: 0, failed: 0, errors: 0 };
    const card = deps.card;
    if (!card) return report;
    for (const order of await claimRechecks(now)) {
      const shop = shopOf(card, order.shop);
      if (!shop || order.provider_payment_id === null || order.provider !== card.provider.name) continue;
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
    }
    if (report.expired + report.rechecked > 0) logger.info({ ...report }, 'reaper tick');
    return report;
  }

  return { tick, ...createTicker(tick, intervalMs, logger, 'reaper tick failed') };
}
