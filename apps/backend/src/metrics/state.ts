import type { Kysely } from 'kysely';
import type pg from 'pg';
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/index.js';
import { measurePool } from './pool.js';
import { readStateCounts, type StateRow } from './metrics.store.js';

/** Age buckets of open orders (label `age`): upper bounds in seconds, the last one open-ended. */
export const AGE_BUCKETS: ReadonlyArray<readonly [string, number]> = [
  ['lt_1m', 60],
  ['1m_5m', 300],
  ['5m_15m', 900],
  ['15m_1h', 3_600],
  ['1h_6h', 21_600],
  ['6h_1d', 86_400],
  ['ge_1d', Number.POSITIVE_INFINITY],
];

/** How long one read of the database state serves scrapes. */
const CACHE_MS = 5_000;

/** What the scrape-time collector reads: the database, its pool (PostgreSQL only), the readiness check. */
export interface StateSources {
  db: Kysely<DB>;
  pool?: pg.Pool | undefined;
  /** True when the database answers (the /readyz check). */
  ready(): Promise<boolean>;
  logger: Logger;
}

/**
 * Registers the series read on scrape: `backend_orders_open{rail,state,age,payment}` (pending and
 * honoured-expired orders; `payment` = yes when the provider payment or platform charge id is
 * recorded), `backend_unmatched_payments{refund_status}`, `backend_ready`, and on PostgreSQL the
 * pool's series (pool.ts). The order and unmatched counts come from ONE statement (the open-orders
 * partial index and the small unmatched table), read at most every 5 s whatever the number of
 * scrapers; a failed read leaves those series out of that scrape and is logged. Answers a function
 * that unregisters them all (before the database they read is closed).
 */
export function registerStateCollector(registry: Registry, sources: StateSources): () => void {
  let cached: { at: number; rows: Promise<StateRow[] | null> } | undefined;
  const read = (): Promise<StateRow[] | null> => {
    const now = performance.now();
    if (cached && now - cached.at < CACHE_MS) return cached.rows;
    const rows = readStateCounts(sources.db, AGE_BUCKETS).catch((err: unknown) => {
      sources.logger.warn({ err }, 'metrics: reading order and unmatched counts failed');
      return null;
    });
    cached = { at: now, rows };
    return rows;
  };
  const registers = [registry];
  new Gauge({
    name: 'backend_orders_open',
    help: 'Orders still creditable (state pending or expired), by rail, state, age since creation (lt_1m, 1m_5m, 5m_15m, 15m_1h, 1h_6h, 6h_1d, ge_1d) and payment (yes: a provider payment id or platform charge id is recorded). Read on scrape, cached 5 s.',
    labelNames: ['rail', 'state', 'age', 'payment'],
    registers,
    async collect() {
      this.reset();
      const rows = await read();
      for (const r of rows ?? [])
        if (r.what === 'order') this.set({ rail: r.rail, state: r.state, age: r.age, payment: r.payment ? 'yes' : 'no' }, Number(r.n));
    },
  });
  new Gauge({
    name: 'backend_unmatched_payments',
    help: 'Payments that credited nothing (unmatched_payments rows), by automatic refund status: pending, refunded, failed (needs an operator). Read on scrape, cached 5 s.',
    labelNames: ['refund_status'],
    registers,
    async collect() {
      this.reset();
      const rows = await read();
      if (rows === null) return;
      for (const status of ['pending', 'refunded', 'failed']) this.set({ refund_status: status }, 0);
      for (const r of rows) if (r.what === 'unmatched') this.set({ refund_status: r.state }, Number(r.n));
    },
  });
  new Gauge({
    name: 'backend_ready',
    help: '1 when the database answers the readiness probe (as /readyz), else 0.',
    registers,
    async collect() {
      this.set((await sources.ready()) ? 1 : 0);
    },
  });
  const names = ['backend_orders_open', 'backend_unmatched_payments', 'backend_ready'];
  const unpool = sources.pool ? measurePool(registry, sources.pool) : () => undefined;
  return () => {
    for (const name of names) registry.removeSingleMetric(name);
    unpool();
  };
}
