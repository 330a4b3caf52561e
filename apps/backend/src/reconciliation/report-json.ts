import type { Report } from './reconciliation.store.js';

/** A stored report as plain JSON (bigints as strings, times as ISO strings): the CLI's output. */
export function reportJson(report: Report): Record<string, unknown> {
  const { run } = report;
  return {
    run: {
      id: String(run.id),
      trigger: run.trigger,
      from: run.window_from.toISOString(),
      to: run.window_to.toISOString(),
      finishedAt: run.finished_at.toISOString(),
      outcome: run.outcome,
      rails: run.rails === '' ? [] : run.rails.split(','),
      ...(run.error === null ? {} : { error: run.error }),
    },
    mismatches: report.mismatches.map((m) => ({
      id: String(m.id),
      kind: m.kind,
      rail: m.rail,
      provider: m.provider,
      shop: m.shop,
      orderId: m.order_id,
      paymentId: m.payment_ref,
      refundId: m.refund_ref,
      payer: m.payer_ref,
      ledger: m.ledger_amount === null ? null : { amount: String(m.ledger_amount), currency: m.ledger_currency },
      provided: m.provider_amount === null ? null : { amount: String(m.provider_amount), currency: m.provider_currency },
      at: m.occurred_at?.toISOString() ?? null,
      resolution: m.resolution,
    })),
  };
}
