import type { FreshDatabase } from './postgres.js';

/** What the database says about a set of orders: how many are paid, and every exactly-once violation. */
export interface CreditFacts {
  orders: number;
  paid: number;
  purchaseRows: number;
  /** Orders with more than one purchase row (credited twice). */
  doubleCredited: string[];
  /** Paid orders without a purchase row, or purchase rows of orders that are not paid. */
  inconsistent: string[];
  /** Rows in unmatched_payments (payments that matched no creditable order). */
  unmatched: number;
}

/** Reads the credit facts of `orderIds` straight from PostgreSQL. */
export async function creditFacts(db: FreshDatabase, orderIds: readonly string[]): Promise<CreditFacts> {
  const ids = [...orderIds];
  const counts = await db.query<{ orders: number; paid: number; rows: number }>(
    `select count(*)::int as orders,
            count(*) filter (where o.state = 'paid')::int as paid,
            coalesce(sum((select count(*) from ledger_operations l where l.order_id = o.id and l.kind = 'purchase')), 0)::int as rows
       from orders o where o.id = any($1::uuid[])`,
    [ids],
  );
  const doubled = await db.query<{ id: string }>(
    `select order_id::text as id from ledger_operations where kind = 'purchase' and order_id = any($1::uuid[]) group by order_id having count(*) > 1`,
    [ids],
  );
  const inconsistent = await db.query<{ id: string }>(
    `select o.id::text as id from orders o
      where o.id = any($1::uuid[])
        and (o.state = 'paid') <> exists (select 1 from ledger_operations l where l.order_id = o.id and l.kind = 'purchase')`,
    [ids],
  );
  const unmatched = await db.query<{ n: number }>('select count(*)::int as n from unmatched_payments');
  const row = counts.rows[0];
  return {
    orders: row?.orders ?? 0,
    paid: row?.paid ?? 0,
    purchaseRows: row?.rows ?? 0,
    doubleCredited: doubled.rows.map((r) => r.id),
    inconsistent: inconsistent.rows.map((r) => r.id),
    unmatched: unmatched.rows[0]?.n ?? 0,
  };
}
