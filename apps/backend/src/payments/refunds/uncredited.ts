/**
 * What an operator's action on money taken but not credited (a reconciliation finding) came to,
 * decided by the payments feature under the order's lock: done (credited, refunded, or a refund on
 * its way), refused with nothing moved (the picture the operator was offered is stale, or the
 * provider or platform refused), or unknown (money may have moved; pressing again is safe).
 */
export type ChargeAction =
  | { kind: 'done'; outcome: 'credited' | 'refunded' | 'refund_pending' | 'refund_queued'; detail: string }
  | { kind: 'refused'; reason: 'stale' | 'in_progress' | 'rejected'; message: string }
  | { kind: 'unknown'; message: string };

/** The refusal told when the order was credited since the finding was made: the ledger's refund is the way to return it. */
export const CREDITED_MEANWHILE: ChargeAction = {
  kind: 'refused',
  reason: 'stale',
  message: "credited meanwhile: this payment now funds its order; use the ledger's refund to return it",
};
