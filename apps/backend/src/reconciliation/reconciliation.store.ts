import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../db/index.js';
import {
  MISMATCH_KINDS,
  type MismatchKind,
  type ReconciliationMismatchesTable,
  type ReconciliationRunsTable,
  type RunOutcome,
  type RunTrigger,
} from './reconciliation.table.js';
import type { Finding, Window } from './finding.js';

export type RunRow = Selectable<ReconciliationRunsTable>;
export type MismatchRow = Selectable<ReconciliationMismatchesTable>;

/** A finished run as stored, with its mismatches. */
export interface Report {
  run: RunRow;
  mismatches: MismatchRow[];
}

/** What a run records. */
export interface RunRecord {
  trigger: RunTrigger;
  window: Window;
  startedAt: Date;
  finishedAt: Date;
  rails: string[];
  findings: Finding[];
  error: string | null;
  /** The error says why a side was not read whole: the outcome is `incomplete`, not `failed`. */
  incomplete?: boolean;
}

/** Stores one run and its mismatches in one transaction; answers the stored report. */
export async function saveRun(db: Kysely<DB>, record: RunRecord): Promise<Report> {
  const outcome: RunOutcome =
    record.error !== null ? (record.incomplete === true ? 'incomplete' : 'failed') : record.findings.length > 0 ? 'mismatches' : 'clean';
  return db.transaction().execute(async (trx) => {
    const run = await trx
      .insertInto('reconciliation_runs')
      .values({
        trigger: record.trigger,
        window_from: record.window.from,
        window_to: record.window.to,
        started_at: record.startedAt,
        finished_at: record.finishedAt,
        outcome,
        error: record.error === null ? null : record.error.slice(0, 500),
        rails: record.rails.join(','),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const mismatches =
      record.findings.length === 0
        ? []
        : await trx
            .insertInto('reconciliation_mismatches')
            .values(
              record.findings.map((f) => ({
                run_id: run.id,
                kind: f.kind,
                rail: f.rail,
                provider: f.provider,
                shop: f.shop,
                order_id: f.orderId,
                payment_ref: f.paymentRef,
                refund_ref: f.refundRef,
                payer_ref: f.payerRef,
                ledger_amount: f.ledgerAmount,
                ledger_currency: f.ledgerCurrency,
                provider_amount: f.providerAmount,
                provider_currency: f.providerCurrency,
                occurred_at: f.occurredAt,
              })),
            )
            .returningAll()
            .execute();
    return { run, mismatches: mismatches.sort((a, b) => (a.id < b.id ? -1 : 1)) };
  });
}

/** One mismatch by id; undefined when there is none. */
export async function mismatchById(db: Kysely<DB>, id: bigint): Promise<MismatchRow | undefined> {
  return db.selectFrom('reconciliation_mismatches').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Takes the one-row schedule lease (`reconciliation_lease`) for `holder` until `until`, with one
 * conditional update: only when the current lease has run out at `now`. Answers false when another
 * holder's lease still runs.
 */
export async function claimLease(db: Kysely<DB>, holder: string, until: Date, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('reconciliation_lease')
    .set({ holder, until })
    .where('id', '=', 1)
    .where('until', '<=', now)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The last completed run's open mismatch counts per kind (every kind present, 0 when none), and its
 * finish time. A failed or incomplete run completed nothing: it neither clears nor raises a count.
 */
export async function lastCounts(db: Kysely<DB>): Promise<{ counts: Record<MismatchKind, number>; finishedAt: Date | null }> {
  const counts = Object.fromEntries(MISMATCH_KINDS.map((k) => [k, 0])) as Record<MismatchKind, number>;
  const run = await db
    .selectFrom('reconciliation_runs')
    .select(['id', 'finished_at'])
    .where('outcome', 'in', ['clean', 'mismatches'])
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!run) return { counts, finishedAt: null };
  const rows = await db
    .selectFrom('reconciliation_mismatches')
    .select(['kind', (eb) => eb.fn.countAll<string>().as('n')])
    .where('run_id', '=', run.id)
    .where('resolved_at', 'is', null)
    .groupBy('kind')
    .execute();
  for (const row of rows) counts[row.kind] = Number(row.n);
  return { counts, finishedAt: run.finished_at };
}
