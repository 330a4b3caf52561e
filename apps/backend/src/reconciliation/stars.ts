import type { Kysely } from 'kysely';
import type { DB } from '../db/index.js';
import { STARS_PROVIDER } from '../payments/index.js';
import { paidStarOrders, refundedStarOrders, refundedUnmatched, starOrdersForCharges, unmatchedForCharges } from './books.store.js';
import { finding, inWindow, isOrderId, RunIncomplete, type Finding, type Window } from './finding.js';
import { readStarsSince } from './star-read.js';
import type { StarTransactionSource } from './star-source.js';

/** How a stars run reads the platform (README: RECONCILIATION_STARS_MAX_CALLS). */
export interface StarsReadOptions {
  /** Most get_star_transactions calls one run makes; past it the run is `incomplete`. */
  maxCalls: number;
  /** The one clock: the read's start bounds the ledger side (see reconcileStars). */
  now(): Date;
}
/**
 * How far before the window the platform's list is read: our paid_at / refunded_at trail the
 * platform's transaction date by the time the bot took to forward it, so a credit near the window's
 * start still finds its transaction.
 */
export const STAR_MARGIN_MS = 60 * 60 * 1000;

const PROVIDER = STARS_PROVIDER;

/**
 * Compares the platform's stars transactions with ours for a window. Each incoming payment in the
 * window must have credited the order it names (the invoice payload) with its charge id and amount,
 * unless it is a recorded unmatched payment (those have their own page and automatic refund). Each
 * refund in the window must be recorded on its order or its unmatched payment. The other way round,
 * every stars order credited and every refund recorded in the window must appear in the list. A
 * charge that credited nothing and was refunded (e.g. by a reconciliation action) is balanced.
 *
 * The platform's list is read whichever order it answers in (readStarsSince), in at most
 * `options.maxCalls` calls; a read that cannot vouch for the whole range throws RunIncomplete, so
 * the run reports nothing rather than mismatches from a partial list. The ledger side counts only
 * credits and refunds recorded before the read began: those were forwarded after the platform
 * listed them, so the read saw them whatever the order; later ones are left to the next run
 * (a newest-first list is read from its newest end at the start, and misses what comes after).
 */
export async function reconcileStars(
  db: Kysely<DB>,
  source: StarTransactionSource,
  window: Window,
  options: StarsReadOptions,
): Promise<Finding[]> {
  const readStart = options.now();
  const since = new Date(window.from.getTime() - STAR_MARGIN_MS);
  const read = await readStarsSince(source, since, options.maxCalls);
  if (!read.complete) {
    throw new RunIncomplete(
      `stars: the platform's transactions since ${since.toISOString()} were not all read (${read.reason}, after ${read.calls} of at most ${options.maxCalls} calls); nothing is reported for this run. A call bound: raise RECONCILIATION_STARS_MAX_CALLS or shorten the window; a changed list: run again`,
    );
  }
  const txs = read.transactions;
  // Ledger rows recorded from the read's start on are left to the next run.
  const ledgerTo = readStart.getTime() < window.to.getTime() ? readStart : window.to;
  // The platform dates transactions in whole seconds: the window's start is taken to its second.
  const seconds = { from: new Date(Math.floor(window.from.getTime() / 1000) * 1000), to: window.to };
  const payments = txs.filter((t) => t.kind === 'payment');
  const refunds = txs.filter((t) => t.kind === 'refund');
  const base = { rail: 'stars' as const, provider: PROVIDER, providerCurrency: 'XTR' };
  const findings: Finding[] = [];

  const platformChargeIds = [...new Set(txs.map((t) => t.id))];
  const payloads = payments.map((t) => t.payload).filter(isOrderId);
  const orders = await starOrdersForCharges(db, platformChargeIds, payloads);
  const byCharge = new Map(orders.filter((o) => o.platform_charge_id !== null).map((o) => [o.platform_charge_id ?? '', o]));
  const byId = new Map(orders.map((o) => [o.id, o]));
  const unmatched = await unmatchedForCharges(db, platformChargeIds);
  const unmatchedBy = new Map(unmatched.map((u) => [u.platform_charge_id, u]));

  // A charge refunded that never credited anything is balanced (money back): neither side is reported.
  const refundedIds = new Set(refunds.map((t) => t.id));
  const balanced = new Set(payments.filter((t) => refundedIds.has(t.id) && byCharge.get(t.id)?.state !== 'paid').map((t) => t.id));
  for (const tx of payments) {
    if (!inWindow(tx.date, seconds) || unmatchedBy.has(tx.id) || balanced.has(tx.id)) continue;
    const order = byCharge.get(tx.id);
    const seen = { paymentRef: tx.id, payerRef: tx.userId?.toString() ?? null, providerAmount: tx.amount, occurredAt: tx.date };
    if (order?.state !== 'paid') {
      findings.push(finding({ ...base, ...seen, kind: 'taken_not_credited', orderId: order?.id ?? byId.get(tx.payload)?.id ?? null }));
    } else if (order.amount !== tx.amount) {
      findings.push(
        finding({
          ...base,
          ...seen,
          kind: 'amount_mismatch',
          orderId: order.id,
          ledgerAmount: order.amount,
          ledgerCurrency: order.currency,
        }),
      );
    }
  }
  for (const tx of refunds) {
    if (!inWindow(tx.date, seconds)) continue;
    const order = byCharge.get(tx.id);
    if (order?.refund_id === tx.id || unmatchedBy.get(tx.id)?.refund_status === 'refunded' || balanced.has(tx.id)) continue;
    findings.push(
      finding({
        ...base,
        kind: 'refund_provider_only',
        orderId: order?.id ?? null,
        paymentRef: tx.id,
        refundRef: tx.id,
        payerRef: tx.userId?.toString() ?? null,
        providerAmount: tx.amount,
        occurredAt: tx.date,
      }),
    );
  }

  const paidCharges = new Set(payments.map((t) => t.id));
  const ledgerWindow = { from: window.from, to: ledgerTo };
  const credited = await paidStarOrders(db, ledgerWindow);
  for (const order of credited) {
    if (order.platform_charge_id !== null && paidCharges.has(order.platform_charge_id)) continue;
    findings.push(
      finding({
        ...base,
        kind: 'credited_not_taken',
        orderId: order.id,
        paymentRef: order.platform_charge_id ?? '',
        payerRef: order.platform_user_id?.toString() ?? null,
        ledgerAmount: order.amount,
        ledgerCurrency: order.currency,
        providerCurrency: null,
        occurredAt: order.paid_at,
      }),
    );
  }

  const refundedCharges = new Set(refunds.map((t) => t.id));
  const refundedOrders = await refundedStarOrders(db, ledgerWindow);
  for (const order of refundedOrders) {
    if (refundedCharges.has(order.refund_id ?? '')) continue;
    findings.push(
      finding({
        ...base,
        kind: 'refund_ledger_only',
        orderId: order.id,
        paymentRef: order.platform_charge_id ?? '',
        refundRef: order.refund_id,
        ledgerAmount: order.amount,
        ledgerCurrency: order.currency,
        providerCurrency: null,
        occurredAt: order.refunded_at,
      }),
    );
  }
  for (const row of await refundedUnmatched(db, ledgerWindow)) {
    if (refundedCharges.has(row.platform_charge_id)) continue;
    findings.push(
      finding({
        ...base,
        kind: 'refund_ledger_only',
        paymentRef: row.platform_charge_id,
        refundRef: row.platform_charge_id,
        payerRef: row.platform_user_id.toString(),
        ledgerAmount: row.amount,
        ledgerCurrency: 'XTR',
        providerCurrency: null,
        occurredAt: row.refunded_at,
      }),
    );
  }
  return findings;
}
