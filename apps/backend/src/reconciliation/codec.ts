import { encodeTable, fb } from '@wordgame/contracts';
import type { Report } from './store.js';

const unix = (d: Date | null) => (d === null ? 0n : BigInt(Math.floor(d.getTime() / 1000)));

/** A stored report (or none yet) as backend.fb.ReconciliationReport. */
export function encodeReport(report: Report | null): Uint8Array {
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
    const items = report.mismatches.map((m) =>
      fb.ReconciliationMismatch.createReconciliationMismatch(
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
      ),
    );
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
