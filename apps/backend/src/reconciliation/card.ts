import type { Kysely } from 'kysely';
import type { DB } from '../db/index.js';
import {
  type CardRail,
  type OrderRow,
  ProviderError,
  type ListPage,
  type ListQuery,
  type ProviderPayment,
  type Shop,
} from '../payments/index.js';
import {
  cardOrdersForPayments,
  orderIdByProviderPayment,
  paidCardOrders,
  recordedCardRefundIds,
  refundedCardOrders,
} from './books.store.js';
import { finding, isOrderId, type Finding, type Window } from './finding.js';

/** Most pages one list is read for in a run (100 per page): a runaway cursor cannot loop forever. */
const MAX_PAGES = 1_000;

/**
 * Compares the card provider's books with ours for a window, shop by shop. The provider's payments
 * and refunds created in the window are listed (every page); each succeeded payment must belong to a
 * paid order with the same amount and currency, and each succeeded refund must be the refund
 * recorded on an order. The other way round, every paid card order created in the window and every
 * refund recorded in it must exist at the provider as succeeded: those missing from the lists are
 * re-read one by one (the provider may have created them just outside the window) before they are
 * reported. A payment refunded in full before it was credited is balanced and not reported.
 */
export async function reconcileCard(db: Kysely<DB>, card: CardRail, window: Window): Promise<Finding[]> {
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const shop of Object.values(card.shops)) {
    if (seen.has(shop.id)) continue;
    seen.add(shop.id);
    findings.push(...(await reconcileShop(db, card, shop, window)));
  }
  return findings;
}

async function reconcileShop(db: Kysely<DB>, card: CardRail, shop: Shop, window: Window): Promise<Finding[]> {
  const provider = card.provider;
  const base = { rail: 'card' as const, provider: provider.name, shop: shop.id };
  const payments = (await readAll((q) => provider.listPayments(shop, q), window)).filter((p) => p.status === 'succeeded');
  const refunds = (await readAll((q) => provider.listRefunds(shop, q), window)).filter((r) => r.status === 'succeeded');
  const findings: Finding[] = [];

  const orders = await ordersFor(db, provider.name, payments);
  const balanced = new Set<string>();
  for (const payment of payments) {
    const order = orders.byPayment.get(payment.id) ?? orders.byId.get(payment.metadata['order_id'] ?? '');
    const provided = {
      paymentRef: payment.id,
      providerAmount: payment.amountMinor,
      providerCurrency: payment.currency,
      occurredAt: payment.createdAt ?? null,
    };
    if (order?.state !== 'paid' || (order.provider_payment_id !== null && order.provider_payment_id !== payment.id)) {
      if (payment.refundedMinor >= payment.amountMinor) {
        balanced.add(payment.id);
        continue;
      }
      findings.push(finding({ ...base, ...provided, kind: 'taken_not_credited', orderId: order?.id ?? null }));
    } else if (order.amount !== payment.amountMinor || order.currency !== payment.currency) {
      findings.push(
        finding({
          ...base,
          ...provided,
          kind: 'amount_mismatch',
          orderId: order.id,
          ledgerAmount: order.amount,
          ledgerCurrency: order.currency,
        }),
      );
    }
  }

  const listed = new Set(payments.map((p) => p.id));
  const paid = await paidCardOrders(db, provider.name, shop.id, window);
  for (const order of paid) {
    if (order.provider_payment_id !== null && listed.has(order.provider_payment_id)) continue;
    const ledger = { orderId: order.id, ledgerAmount: order.amount, ledgerCurrency: order.currency, occurredAt: order.paid_at };
    const payment =
      order.provider_payment_id === null ? null : await readOrNull(() => provider.getPayment(shop, order.provider_payment_id ?? ''));
    if (payment?.status !== 'succeeded') {
      findings.push(finding({ ...base, ...ledger, kind: 'credited_not_taken', paymentRef: order.provider_payment_id ?? '' }));
    } else if (payment.amountMinor !== order.amount || payment.currency !== order.currency) {
      findings.push(
        finding({
          ...base,
          ...ledger,
          kind: 'amount_mismatch',
          paymentRef: payment.id,
          providerAmount: payment.amountMinor,
          providerCurrency: payment.currency,
        }),
      );
    }
  }

  const refundIds = refunds.map((r) => r.id);
  const recorded = new Set(await recordedCardRefundIds(db, provider.name, refundIds));
  for (const refund of refunds) {
    if (recorded.has(refund.id) || balanced.has(refund.paymentId)) continue;
    const orderId = await orderIdByProviderPayment(db, refund.paymentId);
    findings.push(
      finding({
        ...base,
        kind: 'refund_provider_only',
        orderId: orderId ?? null,
        paymentRef: refund.paymentId,
        refundRef: refund.id,
        providerAmount: refund.amountMinor,
        providerCurrency: refund.currency,
        occurredAt: refund.createdAt ?? null,
      }),
    );
  }

  const listedRefunds = new Set(refundIds);
  const refundedOrders = await refundedCardOrders(db, provider.name, shop.id, window);
  for (const order of refundedOrders) {
    const refundId = order.refund_id ?? '';
    if (listedRefunds.has(refundId)) continue;
    const refund = await readOrNull(() => provider.getRefund(shop, refundId));
    if (refund?.status === 'succeeded') continue;
    findings.push(
      finding({
        ...base,
        kind: 'refund_ledger_only',
        orderId: order.id,
        paymentRef: order.provider_payment_id ?? '',
        refundRef: refundId,
        ledgerAmount: order.amount,
        ledgerCurrency: order.currency,
        occurredAt: order.refunded_at,
      }),
    );
  }
  return findings;
}

/** Reads every page of a provider list for the window. */
async function readAll<T>(list: (query: ListQuery) => Promise<ListPage<T>>, window: Window): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await list({ from: window.from, to: window.to, limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    items.push(...answer.items);
    if (answer.nextCursor === null) return items;
    cursor = answer.nextCursor;
  }
  throw new Error(`provider list longer than ${MAX_PAGES} pages`);
}

/** A provider object, or null when the provider says it does not exist. */
async function readOrNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (err: unknown) {
    if (err instanceof ProviderError && err.failure === 'not_found') return null;
    throw err;
  }
}

/** Our orders for these payments: by recorded payment id, and by the order id the payment's metadata names. */
async function ordersFor(
  db: Kysely<DB>,
  provider: string,
  payments: ProviderPayment[],
): Promise<{ byPayment: Map<string, OrderRow>; byId: Map<string, OrderRow> }> {
  const paymentIds = payments.map((p) => p.id);
  const orderIds = payments.map((p) => p.metadata['order_id']).filter(isOrderId);
  const rows = await cardOrdersForPayments(db, provider, paymentIds, orderIds);
  const byPayment = new Map<string, OrderRow>();
  const byId = new Map<string, OrderRow>();
  for (const row of rows) {
    byId.set(row.id, row);
    if (row.provider_payment_id !== null) byPayment.set(row.provider_payment_id, row);
  }
  return { byPayment, byId };
}
