import { randomUUID } from 'node:crypto';
import type { Logger } from '@wordgame/logging';
import type { Kysely } from 'kysely';
import type { DB } from '../db/index.js';
import type { RunTrigger } from './reconciliation.table.js';
import type { CardRail } from '../payments/index.js';
import { createTicker } from '../support/index.js';
import { reconcileCard } from './card.js';
import { RunIncomplete, type Finding, type Window } from './finding.js';
import type { ReconciliationMetrics } from './metrics.js';
import { reconcileStars } from './stars.js';
import type { StarTransactionSource } from './star-source.js';
import { claimLease, saveRun, type Report } from './reconciliation.store.js';

/** What the reconciliation reads and writes. */
export interface ReconcilerDeps {
  db: Kysely<DB>;
  logger: Logger;
  /** The card rail; null when no card shop is configured (the card side is then skipped). */
  card: CardRail | null;
  /** The platform's stars transactions; null to skip the stars side. */
  stars: StarTransactionSource | null;
  metrics?: ReconciliationMetrics;
  now(): Date;
}

/** README: RECONCILIATION_INTERVAL_MS, RECONCILIATION_WINDOW_MS, RECONCILIATION_LAG_MS, RECONCILIATION_STARS_MAX_CALLS. */
export interface ReconcilerOptions {
  /** How often the scheduled job runs (across all replicas); 0 = off. */
  intervalMs: number;
  /** The window a scheduled run compares. */
  windowMs: number;
  /** How far before now the window ends, so payments still settling are not reported. */
  lagMs: number;
  /** Most get_star_transactions calls one run makes; past it the run is stored `incomplete`. */
  starsMaxCalls: number;
}

/** The job: `run` for the CLI and tests, `tick` for the schedule, `start`/`stop` with the app. */
export interface Reconciler {
  run(window: Window, trigger: RunTrigger): Promise<Report>;
  /** One scheduled attempt: runs when this replica wins the lease, else answers null. */
  tick(now?: Date): Promise<Report | null>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * Provider reconciliation. A run lists what the card provider and the stars platform say happened
 * in the window, compares it with orders and refunds, and stores the report (a failed side stores
 * a failed run with its error, a side not read whole within its call bound an `incomplete` run with
 * the reason; neither stores a partial report). The schedule is safe with several replicas:
 * a one-row lease (`reconciliation_lease`) is claimed with a conditional UPDATE for one interval,
 * so within an interval exactly one replica runs; the CLI and the console run regardless of it.
 */
export function createReconciler(deps: ReconcilerDeps, options: ReconcilerOptions): Reconciler {
  const me = randomUUID();

  async function run(window: Window, trigger: RunTrigger): Promise<Report> {
    if (window.from.getTime() >= window.to.getTime()) throw new RangeError('the window must start before it ends');
    const startedAt = deps.now();
    const rails: string[] = [];
    const findings: Finding[] = [];
    let error: string | null = null;
    let incomplete = false;
    try {
      if (deps.card) {
        rails.push('card');
        findings.push(...(await reconcileCard(deps.db, deps.card, window)));
      }
      if (deps.stars) {
        rails.push('stars');
        findings.push(...(await reconcileStars(deps.db, deps.stars, window, { maxCalls: options.starsMaxCalls, now: () => deps.now() })));
      }
    } catch (err: unknown) {
      error = err instanceof Error ? err.message : String(err);
      incomplete = err instanceof RunIncomplete;
    }
    const report = await saveRun(deps.db, {
      trigger,
      window,
      startedAt,
      finishedAt: deps.now(),
      rails,
      findings: error === null ? findings : [],
      error,
      incomplete,
    });
    deps.metrics?.countRun(report.run.outcome);
    const log = {
      runId: String(report.run.id),
      trigger,
      from: window.from.toISOString(),
      to: window.to.toISOString(),
      mismatches: report.mismatches.length,
    };
    if (incomplete) deps.logger.warn({ ...log, error }, 'reconciliation incomplete');
    else if (error !== null) deps.logger.error({ ...log, error }, 'reconciliation failed');
    else if (report.mismatches.length > 0) deps.logger.warn(log, 'reconciliation found mismatches');
    else deps.logger.info(log, 'reconciliation clean');
    return report;
  }

  async function tick(now: Date = deps.now()): Promise<Report | null> {
    if (!(await claimLease(deps.db, me, new Date(now.getTime() + Math.max(1, options.intervalMs)), now))) {
      deps.metrics?.countRun('skipped');
      return null;
    }
    const to = new Date(now.getTime() - options.lagMs);
    return run({ from: new Date(to.getTime() - options.windowMs), to }, 'schedule');
  }

  const ticker = createTicker(() => tick(), options.intervalMs, deps.logger, 'reconciliation tick failed');
  return { run, tick, start: () => ticker.start(), stop: () => ticker.stop() };
}
