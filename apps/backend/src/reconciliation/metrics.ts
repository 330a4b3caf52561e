import type { Logger } from '@wordgame/logging';
import type { Kysely } from 'kysely';
import { Counter, Gauge, type Registry } from 'prom-client';
import { type DB } from '../db/index.js';
import { MISMATCH_KINDS } from './reconciliation.table.js';
import { lastCounts } from './reconciliation.store.js';

/** How a run ended, as `reconciliation_runs_total{outcome}` counts it (`skipped`: another replica held the lease). */
export type RunMetricOutcome = 'clean' | 'mismatches' | 'failed' | 'incomplete' | 'skipped';

/** The reconciliation metrics on a registry the caller owns. */
export interface ReconciliationMetrics {
  countRun(outcome: RunMetricOutcome): void;
}

/**
 * Registers on `registry`: `reconciliation_mismatches{kind}` (open mismatches of the last
 * completed run, every kind present; a failed or incomplete run leaves them as they were) and `reconciliation_last_run_timestamp_seconds` (when it
 * finished), both read from PostgreSQL at scrape time, so every replica reports the same values
 * whichever one ran the job; and `reconciliation_runs_total{outcome}` counted by this process. The
 * alert fires on `reconciliation_mismatches > 0`. A scrape while the database is down keeps the
 * previous values (logged).
 */
export function reconciliationMetrics(registry: Registry, db: Kysely<DB>, logger: Logger): ReconciliationMetrics {
  for (const name of ['reconciliation_last_run_timestamp_seconds', 'reconciliation_mismatches', 'reconciliation_runs_total'])
    registry.removeSingleMetric(name);
  new Gauge({
    name: 'reconciliation_last_run_timestamp_seconds',
    help: 'Unix time the last completed provider reconciliation finished (0: never)',
    registers: [registry],
    async collect() {
      try {
        const { finishedAt } = await lastCounts(db);
        this.set(finishedAt === null ? 0 : finishedAt.getTime() / 1000);
      } catch (err: unknown) {
        logger.warn({ err }, 'reconciliation metrics not refreshed');
      }
    },
  });
  new Gauge({
    name: 'reconciliation_mismatches',
    help: 'Open mismatches between the providers and the ledger in the last completed reconciliation, by kind',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      try {
        const { counts } = await lastCounts(db);
        for (const kind of MISMATCH_KINDS) this.set({ kind }, counts[kind]);
      } catch (err: unknown) {
        logger.warn({ err }, 'reconciliation metrics not refreshed');
      }
    },
  });
  const runs = new Counter({
    name: 'reconciliation_runs_total',
    help: 'Reconciliation runs by outcome (clean, mismatches, failed, incomplete, skipped)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of ['clean', 'mismatches', 'failed', 'incomplete', 'skipped'] as const) runs.inc({ outcome }, 0);
  return { countRun: (outcome) => runs.inc({ outcome }) };
}
