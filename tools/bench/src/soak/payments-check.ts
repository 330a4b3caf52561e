import pg from 'pg';
import type { Settled } from './traffic.js';

/** What became of the orders the soak settled, read from the database after the load. */
export interface PaymentsCheck {
  settled: number;
  paid: number;
  failed: number;
  /** Settled orders not in their expected end state with the expected number of purchase credits (first few, described). */
  wrong: string[];
  wrongCount: number;
  /** Orders of the whole run with more than one purchase credit. */
  doubleCredits: number;
  unmatchedPayments: number;
}

/**
 * Exactly once, nothing lost: every order the soak paid is `paid` with exactly one purchase row in
 * the ledger, every order it canceled is `failed` with none; no order anywhere has two purchase
 * rows and no payment was left unmatched.
 */
export async function checkPayments(dbUrl: string, settled: readonly Settled[]): Promise<PaymentsCheck> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const rows = (
      await db.query<{ id: string; state: string; credits: number }>(
        `select o.id, o.state, (select count(*)::int from ledger_operations l where l.order_id = o.id and l.kind = 'purchase') as credits
           from orders o where o.id = any($1::uuid[])`,
        [settled.map((s) => s.orderId)],
      )
    ).rows;
    const byId = new Map(rows.map((r) => [r.id, r]));
    const wrong: string[] = [];
    for (const s of settled) {
      const row = byId.get(s.orderId);
      const credits = s.expect === 'paid' ? 1 : 0;
      if (row?.state !== s.expect || row.credits !== credits)
        wrong.push(
          `${s.orderId}: expected ${s.expect} with ${credits} credit(s), found ${row ? `${row.state} with ${row.credits}` : 'no order'}`,
        );
    }
    const doubles = await db.query<{ n: number }>(
      `select count(*)::int as n from (select order_id from ledger_operations where kind = 'purchase' and order_id is not null group by order_id having count(*) > 1) d`,
    );
    const unmatched = await db.query<{ n: number }>('select count(*)::int as n from unmatched_payments');
    return {
      settled: settled.length,
      paid: settled.filter((s) => s.expect === 'paid').length,
      failed: settled.filter((s) => s.expect === 'failed').length,
      wrong: wrong.slice(0, 5),
      wrongCount: wrong.length,
      doubleCredits: doubles.rows[0]?.n ?? Number.NaN,
      unmatchedPayments: unmatched.rows[0]?.n ?? Number.NaN,
    };
  } finally {
    await db.end();
  }
}
