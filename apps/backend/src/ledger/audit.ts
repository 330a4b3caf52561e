import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/index.js';

/** What the ledger audit checked and every discrepancy it found (empty `problems` = clean). */
export interface AuditReport {
  operations: bigint;
  segmentsChecked: number;
  benefitsChecked: number;
  problems: string[];
}

const DAY_MS = 86_400_000;

/**
 * Proves the wallet equals the ledger, on one consistent snapshot: every segment balance is the
 * sum of its operations' chips_delta; every origin's hints are the sum of hints_delta, its
 * no-ads-forever flag is set exactly when more operations granted it than refunds revoked it, and
 * its no-ads end is the replay of its granted days (each extends from max(previous end, the
 * operation's time); a `refund` or `reversal` row's days move the end back). A stars subscription's pass replays
 * too: an origin's `pass_until` is the latest period end of its unrefunded subscription charges
 * (`purchase` rows with `pass_until` whose order has no `refund` row), each refund row revokes
 * exactly the end its purchase granted, and every recorded subscription period has its ledger row
 * (an unrefunded one its purchase, a refunded one its refund) with the same end, once.
 */
export async function auditLedger(db: Kysely<DB>): Promise<AuditReport> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const problems: string[] = [];
      const count = await sql<{ n: bigint }>`select count(*) as n from ledger_operations`.execute(trx);

      const segments = await sql<{ account_id: bigint; segment: string; balance: bigint | null; total: bigint | null }>`
        with sums as (
          select account_id, segment, sum(chips_delta)::bigint as total
          from ledger_operations where segment is not null group by account_id, segment
        )
        select coalesce(s.account_id, l.account_id) as account_id, coalesce(s.segment, l.segment) as segment,
               s.balance, l.total
        from wallet_segments s full outer join sums l on l.account_id = s.account_id and l.segment = s.segment
      `.execute(trx);
      for (const r of segments.rows) {
        if ((r.balance ?? 0n) !== (r.total ?? 0n)) {
          problems.push(
            `account ${r.account_id} segment ${r.segment}: balance ${r.balance ?? 'missing'} but ledger sums to ${r.total ?? 0n}`,
          );
        }
      }

      const benefits = await sql<{
        account_id: bigint;
        origin: string;
        hints: bigint | null;
        forever: boolean | null;
        until: Date | null;
        granted_hints: bigint | null;
        granted_forever: boolean | null;
      }>`
        with grants as (
          select account_id, benefit_origin as origin, sum(hints_delta)::bigint as granted_hints,
                 count(*) filter (where no_ads_forever and kind not in ('refund', 'reversal'))
                   > count(*) filter (where no_ads_forever and kind in ('refund', 'reversal')) as granted_forever
          from ledger_operations where benefit_origin is not null group by account_id, benefit_origin
        )
        select coalesce(b.account_id, g.account_id) as account_id, coalesce(b.origin, g.origin) as origin,
               b.hints, b.no_ads_forever as forever, b.no_ads_until as until, g.granted_hints, g.granted_forever
        from benefits b full outer join grants g on g.account_id = b.account_id and g.origin = b.origin
      `.execute(trx);

      const terms = await trx
        .selectFrom('ledger_operations')
        .select(['account_id', 'benefit_origin', 'no_ads_days', 'created_at', 'kind'])
        .where('no_ads_days', '>', 0n)
        .orderBy('account_id')
        .orderBy('benefit_origin')
        .orderBy('id')
        .execute();
      const replayed = new Map<string, number>();
      for (const t of terms) {
        const key = `${t.account_id}/${t.benefit_origin}`;
        const at = t.created_at.getTime();
        const days = Number(t.no_ads_days) * DAY_MS;
        if (t.kind === 'refund' || t.kind === 'reversal') {
          const end = replayed.get(key);
          if (end !== undefined) replayed.set(key, end - days);
          continue;
        }
        const base = Math.max(replayed.get(key) ?? at, at);
        replayed.set(key, base + days);
      }

      for (const r of benefits.rows) {
        const where = `account ${r.account_id} origin ${r.origin}`;
        if ((r.hints ?? 0n) !== (r.granted_hints ?? 0n))
          problems.push(`${where}: hints ${r.hints ?? 'missing'} but grants sum to ${r.granted_hints ?? 0n}`);
        if ((r.forever ?? false) !== (r.granted_forever ?? false))
          problems.push(`${where}: no_ads_forever ${r.forever} but grants say ${r.granted_forever}`);
        const expected = replayed.get(`${r.account_id}/${r.origin}`) ?? null;
        const actual = r.until?.getTime() ?? null;
        if (expected !== actual) {
          problems.push(
            `${where}: no_ads_until ${r.until?.toISOString() ?? 'none'} but grants replay to ${expected === null ? 'none' : new Date(expected).toISOString()}`,
          );
        }
      }
      problems.push(...(await auditPasses(trx)));
      return { operations: count.rows[0]?.n ?? 0n, segmentsChecked: segments.rows.length, benefitsChecked: benefits.rows.length, problems };
    });
}

/** The subscription pass checks of the audit (see auditLedger), in the caller's snapshot. */
async function auditPasses(trx: Transaction<DB>): Promise<string[]> {
  const problems: string[] = [];
  const passes = await sql<{ account_id: bigint; origin: string; actual: Date | null; expected: Date | null }>`
    with granted as (
      select g.account_id, g.benefit_origin as origin, max(g.pass_until) as expected
      from ledger_operations g
      where g.kind = 'purchase' and g.pass_until is not null
        and not exists (select 1 from ledger_operations r where r.order_id = g.order_id and r.kind = 'refund')
      group by 1, 2
    )
    select coalesce(b.account_id, g.account_id) as account_id, coalesce(b.origin, g.origin) as origin,
           b.pass_until as actual, g.expected
    from (select * from benefits where pass_until is not null) b
    full outer join granted g on g.account_id = b.account_id and g.origin = b.origin
  `.execute(trx);
  for (const r of passes.rows) {
    if ((r.actual?.getTime() ?? null) !== (r.expected?.getTime() ?? null))
      problems.push(
        `account ${r.account_id} origin ${r.origin}: pass_until ${r.actual?.toISOString() ?? 'none'} but subscription charges replay to ${r.expected?.toISOString() ?? 'none'}`,
      );
  }
  const revoked = await sql<{ order_id: string }>`
    select r.order_id from ledger_operations r join ledger_operations g on g.order_id = r.order_id and g.kind = 'purchase'
    where r.kind = 'refund' and r.pass_until is distinct from g.pass_until`.execute(trx);
  for (const r of revoked.rows) problems.push(`order ${r.order_id}: its refund revokes another pass end than its purchase granted`);
  const periods = await sql<{ charge_id: string; problem: string }>`
    select p.charge_id,
           case when g.id is null then 'no purchase row'
                when g.pass_until is distinct from p.period_end then 'purchase row grants another end'
                when p.refunded_at is null and r.id is not null then 'refunded in the ledger, not in the period'
                when p.refunded_at is not null and r.id is null then 'refunded in the period, not in the ledger'
           end as problem
    from star_subscription_periods p
    left join ledger_operations g on g.order_id = p.order_id and g.kind = 'purchase'
    left join ledger_operations r on r.order_id = p.order_id and r.kind = 'refund'
    where g.id is null or g.pass_until is distinct from p.period_end
       or (p.refunded_at is null) <> (r.id is null)`.execute(trx);
  for (const r of periods.rows) problems.push(`subscription charge ${r.charge_id}: ${r.problem}`);
  const subs = await sql<{ id: bigint; paid_until: Date; latest: Date }>`
    select s.id, s.paid_until, max(p.period_end) as latest
    from star_subscriptions s join star_subscription_periods p on p.subscription_id = s.id and p.refunded_at is null
    group by s.id, s.paid_until having s.paid_until <> max(p.period_end)`.execute(trx);
  for (const r of subs.rows)
    problems.push(`subscription ${r.id}: paid_until ${r.paid_until.toISOString()} but its paid periods end ${r.latest.toISOString()}`);
  return problems;
}
