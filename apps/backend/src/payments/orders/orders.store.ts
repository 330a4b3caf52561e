import { CompiledQuery, sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import { createHash } from 'node:crypto';
import { runPrepared, type DB } from '../../db/index.js';
import type { OrdersTable, PaymentEventKind } from '../payments.table.js';
import { spenderRow, type SpendRefusal } from '../../ledger/index.js';

type Db = Kysely<DB> | Transaction<DB>;

/** An order row as read. */
export type OrderRow = Selectable<OrdersTable>;

/** Inserts a new order. */
export async function insertOrder(db: Db, order: Insertable<OrdersTable>): Promise<OrderRow> {
  return db.insertInto('orders').values(order).returningAll().executeTakeFirstOrThrow();
}

/** Every column of an order row, named: a prepared statement's result must not follow `*` through a migration. */
const ORDER_COLUMNS = [
  'id',
  'account_id',
  'product_id',
  'title',
  'rail',
  'provider',
  'shop',
  'segment',
  'amount',
  'currency',
  'chips',
  'hints',
  'no_ads_days',
  'no_ads_forever',
  'state',
  'created_at',
  'expires_at',
  'paid_at',
  'provider_payment_id',
  'platform_charge_id',
  'invoice_link',
  'confirmation_url',
  'failure_reason',
  'refund_id',
  'refunded_at',
  'recheck_after',
  'checkout_hold_until',
  'platform_user_id',
  'refund_attempt',
  'refund_claimed_at',
  'refund_claimed_by',
  'refund_hold',
  'refund_pending_id',
  'receipt_sent',
  'refund_receipt_sent',
  'subscription_period',
  'pass_until',
] as const satisfies readonly (keyof OrdersTable)[];
/** Compile-time check that ORDER_COLUMNS names every column of OrdersTable. */
const everyOrderColumn: Exclude<keyof OrdersTable, (typeof ORDER_COLUMNS)[number]> extends never ? true : never = true;
void everyOrderColumn;

/**
 * Opens an order in one statement: locks the ordering account's row FOR SHARE (the ledger's
 * spenderRow, so a block or a delete takes effect on the order at once, whatever a session cache
 * still holds), inserts the order and its `created` payment event only when the account is live
 * and not suspended at `now`, and answers the order or why none was opened. One statement where
 * it was a transaction of four; on its own it is a named prepared statement (one per set of
 * columns given), inside a caller's transaction it runs in that transaction.
 */
export async function insertOpenOrder(
  db: Db,
  order: Insertable<OrdersTable>,
  now: Date,
): Promise<{ order: OrderRow; refusal: null } | { order: null; refusal: SpendRefusal }> {
  const columns = Object.entries(order).filter(([, value]) => value !== undefined);
  const names = columns.map(([name]) => name);
  const text = `WITH s AS MATERIALIZED (${spenderRow('$1', '$2')}),
o AS (INSERT INTO orders (${names.map((name) => `"${name}"`).join(', ')})
      SELECT ${columns.map((_, i) => `$${i + 3}`).join(', ')} FROM s WHERE s.live AND NOT s.suspended
      RETURNING ${ORDER_COLUMNS.map((c) => `"${c}"`).join(', ')}),
e AS (INSERT INTO payment_events (order_id, kind, detail) SELECT id, 'created', '' FROM o)
SELECT s.live AS open_live, s.suspended AS open_suspended, o.* FROM s LEFT JOIN o ON true`;
  const params: unknown[] = [order.account_id, now, ...columns.map(([, value]) => value)];
  type Opened = OrderRow & { open_live: boolean; open_suspended: boolean };
  const rows = db.isTransaction
    ? (await db.executeQuery<Opened>(CompiledQuery.raw(text, params))).rows
    : await runPrepared<Opened>(db, `order_open_${createHash('sha1').update(names.join(',')).digest('hex').slice(0, 12)}`, text, params);
  const row = rows[0];
  if (!row?.open_live) return { order: null, refusal: 'caller_required' };
  if (row.open_suspended) return { order: null, refusal: 'account_suspended' };
  const { open_live: _live, open_suspended: _suspended, ...opened } = row;
  return { order: opened, refusal: null };
}

/** An order by id, or undefined. */
export async function findOrder(db: Db, orderId: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst();
}

/** An order by id, row-locked until the transaction ends (serialises everything that settles it). */
export async function orderForUpdate(trx: Transaction<DB>, orderId: string): Promise<OrderRow | undefined> {
  return trx.selectFrom('orders').selectAll().where('id', '=', orderId).forUpdate().executeTakeFirst();
}

/** The order a provider payment id was recorded on, for one provider. */
export async function orderByProviderPayment(db: Db, provider: string, paymentId: string): Promise<OrderRow | undefined> {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_payment_id', '=', paymentId)
    .executeTakeFirst();
}

/** The caller's most recent orders, newest first. */
export async function recentOrders(db: Db, accountId: bigint, limit: number): Promise<OrderRow[]> {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The ordering account's e-mail and when it was confirmed; undefined when the account is absent or deleted. */
export async function orderingAccount(
  db: Db,
  accountId: bigint,
): Promise<{ email: string | null; email_confirmed_at: Date | null } | undefined> {
  return db
    .selectFrom('accounts')
    .select(['email', 'email_confirmed_at'])
    .where('id', '=', accountId)
    .where('status', '<>', 'deleted')
    .executeTakeFirst();
}

/**
 * Records the provider payment created for an order, and whether it was created with a 54-FZ
 * receipt; answers the order as updated (throws when it does not exist).
 */
export async function setProviderPayment(
  db: Db,
  orderId: string,
  providerPaymentId: string,
  confirmationUrl: string | null,
  receiptSent: boolean,
): Promise<OrderRow> {
  return db
    .updateTable('orders')
    .set({ provider_payment_id: providerPaymentId, confirmation_url: confirmationUrl, receipt_sent: receiptSent })
    .where('id', '=', orderId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Fails an order that is still pending, with its reason; an order in any other state is left alone. */
export async function failPendingOrder(db: Db, orderId: string, reason: string): Promise<void> {
  await db
    .updateTable('orders')
    .set({ state: 'failed', failure_reason: reason })
    .where('id', '=', orderId)
    .where('state', '=', 'pending')
    .execute();
}

/** Appends a payment event (the order's audit trail: created, paid, failed, expired, refunded). */
export async function recordEvent(db: Db, orderId: string, kind: PaymentEventKind, detail = ''): Promise<void> {
  await db.insertInto('payment_events').values({ order_id: orderId, kind, detail }).execute();
}

/** Appends one event of `kind` for each of `orderIds` in one statement (none: nothing). */
export async function recordEvents(db: Db, orderIds: readonly string[], kind: PaymentEventKind): Promise<void> {
  if (orderIds.length === 0) return;
  await db
    .insertInto('payment_events')
    .values(orderIds.map((id) => ({ order_id: id, kind })))
    .execute();
}

/** Marks that the recorded refund of an order was asked with a 54-FZ receipt. */
export async function markRefundReceipt(db: Db, orderId: string): Promise<void> {
  await db.updateTable('orders').set({ refund_receipt_sent: true }).where('id', '=', orderId).execute();
}

/** A position in a history list: Unix microseconds of the entry, its source's rank, its id in that source. */
export interface HistoryCursor {
  atMicros: bigint;
  rank: number;
  id: string;
}

/** An order as the player's history shows it, with its creation time in Unix microseconds (exact, for the cursor). */
export type HistoryOrderRow = OrderRow & { at_us: bigint };

/**
 * One page of an account's orders (every state), newest first by (created_at, id), after `cursor`
 * in the history's order (time desc, then source rank desc, then id desc; orders are `rank`).
 */
export async function historyOrders(
  db: Db,
  accountId: bigint,
  rank: number,
  cursor: HistoryCursor | null,
  limit: number,
): Promise<HistoryOrderRow[]> {
  const atUs = sql<bigint>`(extract(epoch from orders.created_at) * 1000000)::bigint`;
  let q = db.selectFrom('orders').selectAll().select(atUs.as('at_us')).where('account_id', '=', accountId);
  if (cursor) {
    const c = cursor;
    q =
      rank < c.rank
        ? q.where(atUs, '<=', c.atMicros)
        : rank > c.rank
          ? q.where(atUs, '<', c.atMicros)
          : q.where((eb) => eb.or([eb(atUs, '<', c.atMicros), eb.and([eb(atUs, '=', c.atMicros), eb('id', '<', c.id)])]));
  }
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/**
 * Erases the payer's platform user ids a deleted account left on payment rows, in the deletion's
 * transaction: its orders keep every money column but lose `platform_user_id`; unmatched payments
 * it made (by payer id or naming one of its orders) get payer id 0, the value for "no valid payer"
 * (their automatic return then needs an operator), except those whose automatic return is still
 * pending: those stars are owed to that payer, and the refund needs the id.
 */
export async function erasePayerIds(trx: Transaction<DB>, accountId: bigint, platformUserIds: readonly bigint[]): Promise<void> {
  await trx.updateTable('orders').set({ platform_user_id: null }).where('account_id', '=', accountId).execute();
  await trx
    .updateTable('unmatched_payments')
    .set({ platform_user_id: 0n })
    .where('refund_status', '<>', 'pending')
    .where((eb) =>
      eb.or([
        ...(platformUserIds.length > 0 ? [eb('platform_user_id', 'in', [...platformUserIds])] : []),
        eb(
          'order_id',
          'in',
          eb
            .selectFrom('orders')
            .select(sql<string>`id::text`.as('id'))
            .where('account_id', '=', accountId),
        ),
      ]),
    )
    .execute();
}

/**
 * Takes the transaction-scoped advisory lock of one (account, product) purchase limit: every order
 * creation of a limited product takes it before counting, so two racing orders count one after the
 * other and cannot both pass. Released at commit or rollback.
 */
export async function lockPurchaseLimit(trx: Transaction<DB>, accountId: bigint, productId: bigint): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`purchase_limit:${accountId}:${productId}`}, 0))`.execute(trx);
}

/**
 * How many of the product the account bought or is buying since `since` (null: ever): its paid
 * orders and its pending orders still inside their lifetime at `now` (expired and failed ones do
 * not count), plus its chips purchases (one `spend` ledger row per purchase carries the benefit origin).
 */
export async function purchasesSince(db: Db, accountId: bigint, productId: bigint, since: Date | null, now: Date): Promise<number> {
  const from = since ?? new Date(0);
  const { rows } = await sql<{ n: string | bigint }>`
    select (select count(*) from orders
             where account_id = ${accountId} and product_id = ${productId} and created_at >= ${from}
               and (state = 'paid' or (state = 'pending' and expires_at > ${now})))
         + (select count(*) from ledger_operations
             where account_id = ${accountId} and created_at >= ${from} and kind = 'spend'
               and product_id = ${productId} and benefit_origin is not null) as n`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Paid orders and chips purchases of the product by the account in [since, until) (since null:
 * from the start): what a credited order is checked against.
 */
export async function paidPurchasesBetween(db: Db, accountId: bigint, productId: bigint, since: Date | null, until: Date): Promise<number> {
  const from = since ?? new Date(0);
  const { rows } = await sql<{ n: string | bigint }>`
    select (select count(*) from orders
             where account_id = ${accountId} and product_id = ${productId} and state = 'paid'
               and created_at >= ${from} and created_at < ${until})
         + (select count(*) from ledger_operations
             where account_id = ${accountId} and created_at >= ${from} and created_at < ${until} and kind = 'spend'
               and product_id = ${productId} and benefit_origin is not null) as n`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
