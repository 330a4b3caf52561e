import type { Kysely } from 'kysely';
import type { Language } from '@wordgame/i18n';
import { listProducts, textOf } from '../catalog/index.js';
import type { DB } from '../db/index.js';
import { ledgerHistory, type LedgerHistoryRow, type LedgerKind } from '../ledger/index.js';
import { historyOrders, STARS_PROVIDER, type HistoryOrderRow } from '../payments/index.js';
import { DomainError } from '../rpc/index.js';

/** Source ranks in the history's order: at one instant an order comes before a ledger row. */
const ORDER_RANK = 1;
const LEDGER_RANK = 0;

/** One entry of a player's history (see fbs WalletHistoryEntry); every amount a whole bigint. */
export interface HistoryEntry {
  entryId: string;
  kind: 'order' | LedgerKind;
  atMs: bigint;
  productId: bigint;
  title: string;
  rail: '' | 'stars' | 'card';
  state: string;
  amount: bigint;
  currency: string;
  chips: bigint;
  hints: bigint;
  noAdsDays: bigint;
  noAdsForever: boolean;
  segment: string;
  orderId: string;
  refundedAtMs: bigint;
  balanceAfter: bigint;
  hintsAfter: bigint;
  receipt: boolean;
  refundReceipt: boolean;
  failureReason: string;
}

/** A page of history and the cursor of the next (older) one, empty at the end. */
export interface HistoryPage {
  entries: HistoryEntry[];
  nextCursor: string;
}

interface Cursor {
  atMicros: bigint;
  rank: number;
  id: string;
}

const CURSOR = /^(\d{1,19})\.([01])\.([0-9]{1,19}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** Reads a cursor a page gave (`<unix µs>.<rank>.<id>`); anything else is `invalid_cursor`. */
export function parseCursor(text: string): Cursor | null {
  if (text === '') return null;
  const m = CURSOR.exec(text);
  const rank = Number(m?.[2]);
  const id = m?.[3] ?? '';
  if (!m || (rank === LEDGER_RANK) !== /^[0-9]+$/.test(id))
    throw new DomainError('invalid_cursor', 'the cursor is not one a page of this list gave');
  return { atMicros: BigInt(m[1] ?? '0'), rank, id };
}

const railOf = (provider: string | null): HistoryEntry['rail'] => (provider === null ? '' : provider === STARS_PROVIDER ? 'stars' : 'card');

type Keyed = { at: bigint; rank: number; id: string; entry: HistoryEntry };

function compare(a: Keyed, b: Keyed): number {
  if (a.at !== b.at) return a.at > b.at ? -1 : 1;
  if (a.rank !== b.rank) return b.rank - a.rank;
  if (a.rank === LEDGER_RANK) return BigInt(a.id) > BigInt(b.id) ? -1 : BigInt(a.id) < BigInt(b.id) ? 1 : 0;
  return a.id > b.id ? -1 : a.id < b.id ? 1 : 0;
}

/**
 * A page of the account's history, newest first: every order (any state; a refunded one says so)
 * and every ledger operation but the credit of an order (the order is that entry), merged by time
 * over the two stores with one cursor. Titles are in `language` where the product has them, else
 * English (an order without its product keeps the title it was bought under).
 */
export async function historyPage(
  db: Kysely<DB>,
  accountId: bigint,
  cursorText: string,
  limit: number,
  language: Language,
): Promise<HistoryPage> {
  const cursor = parseCursor(cursorText);
  const [orders, ledger] = await Promise.all([
    historyOrders(db, accountId, ORDER_RANK, cursor, limit + 1),
    ledgerHistory(db, accountId, LEDGER_RANK, cursor, limit + 1),
  ]);
  const productIds = [
    ...new Set([...orders.map((o) => o.product_id), ...ledger.flatMap((l) => (l.product_id === null ? [] : [l.product_id]))]),
  ];
  const products = productIds.length === 0 ? [] : await listProducts(db, { includeInactive: true, ids: productIds });
  const titleOf = (id: bigint | null, fallback: string): string => {
    const product = products.find((p) => p.id === id);
    return product ? textOf(product, language).title : fallback;
  };
  const merged: Keyed[] = [
    ...orders.map((o) => ({ at: o.at_us, rank: ORDER_RANK, id: o.id, entry: orderEntry(o, titleOf(o.product_id, o.title)) })),
    ...ledger.map((l) => ({ at: l.at_us, rank: LEDGER_RANK, id: String(l.id), entry: ledgerEntry(l, titleOf(l.product_id, '')) })),
  ].sort(compare);
  const page = merged.slice(0, limit);
  const last = page.at(-1);
  return {
    entries: page.map((k) => k.entry),
    nextCursor: merged.length > limit && last ? `${last.at}.${last.rank}.${last.id}` : '',
  };
}

function orderEntry(o: HistoryOrderRow, title: string): HistoryEntry {
  return {
    entryId: `order:${o.id}`,
    kind: 'order',
    atMs: o.at_us / 1000n,
    productId: o.product_id,
    title,
    rail: o.rail,
    state: o.refunded_at !== null ? 'refunded' : o.state,
    amount: o.amount,
    currency: o.currency,
    chips: o.chips,
    hints: o.hints,
    noAdsDays: o.no_ads_days,
    noAdsForever: o.no_ads_forever,
    segment: o.segment,
    orderId: o.id,
    refundedAtMs: o.refunded_at === null ? 0n : BigInt(o.refunded_at.getTime()),
    balanceAfter: 0n,
    hintsAfter: 0n,
    receipt: o.receipt_sent,
    refundReceipt: o.refund_receipt_sent,
    failureReason: o.state === 'failed' ? (o.failure_reason ?? '') : '',
  };
}

function ledgerEntry(l: LedgerHistoryRow, title: string): HistoryEntry {
  return {
    entryId: `ledger:${l.id}`,
    kind: l.kind,
    atMs: l.at_us / 1000n,
    productId: l.product_id ?? 0n,
    title,
    rail: railOf(l.rail),
    state: 'done',
    amount: l.money_minor ?? 0n,
    currency: l.currency ?? '',
    chips: l.chips_delta,
    hints: l.hints_delta,
    noAdsDays: l.no_ads_days,
    noAdsForever: l.no_ads_forever,
    segment: l.segment ?? l.benefit_origin ?? '',
    orderId: l.order_id ?? '',
    refundedAtMs: 0n,
    balanceAfter: l.segment === null ? 0n : l.balance_after,
    hintsAfter: l.benefit_origin === null ? 0n : l.hints_after,
    receipt: false,
    refundReceipt: false,
    failureReason: '',
  };
}
