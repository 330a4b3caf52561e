import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/index.js';

/** One group of the state gauges: open orders by rail, state, payment and age bucket, or unmatched payments by refund status. */
export interface StateRow {
  what: 'order' | 'unmatched';
  rail: string;
  state: string;
  payment: boolean;
  age: string;
  n: bigint | number | string;
}

/**
 * The one statement behind the order and unmatched gauges: open orders (pending or expired) counted
 * by rail, state, whether a payment id is recorded and age bucket (`buckets`: label and upper bound
 * in seconds, the last one open-ended), then unmatched payments by provider and refund status.
 * No locks; groups with no rows are absent.
 */
export async function readStateCounts(db: Kysely<DB>, buckets: ReadonlyArray<readonly [string, number]>): Promise<StateRow[]> {
  const bucket = sql.join(
    buckets.map(([name, upper]) =>
      Number.isFinite(upper)
        ? sql`when extract(epoch from now() - created_at) < ${sql.lit(upper)} then ${sql.lit(name)}`
        : sql`else ${sql.lit(name)}`,
    ),
    sql` `,
  );
  const { rows } = await sql<StateRow>`
    select 'order' as what, rail, state, (provider_payment_id is not null or platform_charge_id is not null) as payment,
           case ${bucket} end as age, count(*) as n
      from orders where state in ('pending', 'expired')
     group by 1, 2, 3, 4, 5
    union all
    select 'unmatched', provider, refund_status, true, '', count(*)
      from unmatched_payments group by 1, 2, 3, 4, 5`.execute(db);
  return rows;
}
