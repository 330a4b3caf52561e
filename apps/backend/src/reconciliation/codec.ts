import type { Builder } from 'flatbuffers';
import { encodeTable, fb } from '@wordgame/contracts';
import type { MismatchView } from './history.store.js';
import type { RunRow } from './reconciliation.store.js';

const unix = (d: Date | null) => (d === null ? 0n : BigInt(Math.floor(d.getTime() / 1000)));

/** Who resolved a row: the operator's login, `operator #<id>` once the operator row is gone, '' while open. */
const resolverOf = (m: MismatchView) => m.resolver ?? (m.resolved_by === null ? '' : `operator #${m.resolved_by}`);

/** One mismatch as backend.fb.ReconciliationMismatch, inside the table `b` is building. */
function mismatchItem(b: Builder, m: MismatchView): number {
  const s = (v: string | null) => b.createString(v ?? '');
  return fb.ReconciliationMismatch.createReconciliationMismatch(
    b,
    m.id,
    s(m.kind),
    s(m.rail),
    s(m.provider),
    s(m.shop),
    s(m.order_id),
    s(m.payment_ref),
    s(m.refund_ref),
    s(m.payer_ref),
    m.ledger_amount !== null,
    m.ledger_amount ?? 0n,
    s(m.ledger_currency),
    m.provider_amount !== null,
    m.provider_amount ?? 0n,
    s(m.provider_currency),
    unix(m.occurred_at),
    s(m.resolution),
    unix(m.resolved_at),
    m.run_id,
    m.account_id ?? 0n,
    s(resolverOf(m)),
    s(m.order_state),
    m.order_chips ?? 0n,
  );
}

/** A stored report (or none yet) as backend.fb.ReconciliationReport. */
export function encodeReport(report: { run: RunRow; mismatches: MismatchView[] } | null): Uint8Array {
  return encodeTable((b) => {
    if (report === null) {
      return fb.ReconciliationReport.createReconciliationReport(
        b,
        false,
        0n,
        0,
        0n,
        0n,
        0n,
        0,
        0,
        0,
        fb.ReconciliationReport.createMismatchesVector(b, []),
      );
    }
    const s = (v: string | null) => b.createString(v ?? '');
    const items = report.mismatches.map((m) => mismatchItem(b, m));
    const { run } = report;
    return fb.ReconciliationReport.createReconciliationReport(
      b,
      true,
      run.id,
      s(run.trigger),
      unix(run.window_from),
      unix(run.window_to),
      unix(run.finished_at),
      s(run.outcome),
      s(run.error),
      s(run.rails),
      fb.ReconciliationReport.createMismatchesVector(b, items),
    );
  });
}

/** One mismatch (a confirmation page's) as backend.fb.ReconciliationMismatch. */
export function encodeMismatch(m: MismatchView): Uint8Array {
  return encodeTable((b) => mismatchItem(b, m));
}

/** One page of the history as backend.fb.ResolvedMismatches; `next` is the cursor of the page after, null on the last. */
export function encodeResolved(rows: MismatchView[], next: { resolvedUs: bigint; id: bigint } | null): Uint8Array {
  return encodeTable((b) =>
    fb.ResolvedMismatches.createResolvedMismatches(
      b,
      fb.ResolvedMismatches.createMismatchesVector(
        b,
        rows.map((m) => mismatchItem(b, m)),
      ),
      next !== null,
      next?.resolvedUs ?? 0n,
      next?.id ?? 0n,
    ),
  );
}
