import { Gauge, type Registry } from 'prom-client';
import type { Kysely } from 'kysely';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/index.js';
import type { Clock } from '../support/index.js';
import { openCaseAges } from './helpdesk.store.js';

/** The age buckets of open cases: label and lower bound in seconds (a fixed set, never an id). */
export const CASE_AGE_BUCKETS: ReadonlyArray<readonly [string, number]> = [
  ['lt_1h', 0],
  ['1h_6h', 3_600],
  ['6h_1d', 21_600],
  ['1d_3d', 86_400],
  ['ge_3d', 259_200],
];

/** A scrape reads the database at most this often. */
const CACHE_MS = 5_000;

/**
 * Registers `backend_support_cases_open{age}` (open cases by age bucket) and
 * `backend_support_cases_overdue` (open cases older than SUPPORT_CASE_MAX_WAIT_SECONDS; the
 * SupportCaseWaiting alert), read from the database on scrape (one query, cached 5 s). Answers the
 * unregister function. A failed read leaves both without samples (and is logged), never a stale 0.
 */
export function registerSupportMetrics(registry: Registry, db: Kysely<DB>, now: Clock, maxWaitSeconds: number, logger: Logger): () => void {
  let cached: { at: number; ages: Promise<Awaited<ReturnType<typeof openCaseAges>> | null> } | undefined;
  const read = () => {
    const t = performance.now();
    if (cached && t - cached.at < CACHE_MS) return cached.ages;
    const ages = openCaseAges(
      db,
      CASE_AGE_BUCKETS.map(([, lower]) => lower),
      maxWaitSeconds,
      now(),
    ).catch((err: unknown) => {
      logger.warn({ err }, 'metrics: reading open support cases failed');
      return null;
    });
    cached = { at: t, ages };
    return ages;
  };
  const registers = [registry];
  new Gauge({
    name: 'backend_support_cases_open',
    help: 'Open support cases (opened from the bot, waiting for an operator), by age since opening: lt_1h, 1h_6h, 6h_1d, 1d_3d, ge_3d. Read on scrape, cached 5 s.',
    labelNames: ['age'],
    registers,
    async collect() {
      this.reset();
      const ages = await read();
      if (ages === null) return;
      CASE_AGE_BUCKETS.forEach(([age], i) => this.set({ age }, ages.buckets[i] ?? 0));
    },
  });
  new Gauge({
    name: 'backend_support_cases_overdue',
    help: 'Open support cases waiting longer than SUPPORT_CASE_MAX_WAIT_SECONDS (alert SupportCaseWaiting). Read on scrape, cached 5 s.',
    registers,
    async collect() {
      this.reset();
      const ages = await read();
      if (ages !== null) this.set(ages.overdue);
    },
  });
  return () => {
    registry.removeSingleMetric('backend_support_cases_open');
    registry.removeSingleMetric('backend_support_cases_overdue');
  };
}
