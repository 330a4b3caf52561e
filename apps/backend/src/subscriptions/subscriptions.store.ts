import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../db/index.js';
import type { Segment } from '../gate/index.js';
import { isoOrNull, type JsonValue } from '../support/index.js';

type Db = Kysely<DB> | Transaction<DB>;
/** A star_subscriptions row. */
export type SubscriptionRow = Selectable<DB['star_subscriptions']>;

/** A subscription's first paid period, as its first payment records it. */
export interface FirstPeriod {
  accountId: bigint;
  productId: bigint;
  firstOrderId: string;
  segment: Segment;
  platformUserId: bigint;
  amount: bigint;
  currency: string;
  chargeId: string;
  periodStart: Date;
  periodEnd: Date;
  /** When the payment was recorded (the backend's clock). */
  at: Date;
}

/**
 * Records a subscription and its first period (the first payment credited its order in the same
 * transaction). A subscription already recorded for this first order is left as it is; answers its id.
 */
export async function insertSubscription(trx: Transaction<DB>, p: FirstPeriod): Promise<bigint> {
  const inserted = await trx
    .insertInto('star_subscriptions')
    .values({
      account_id: p.accountId,
      product_id: p.productId,
      first_order_id: p.firstOrderId,
      segment: p.segment,
      platform_user_id: p.platformUserId,
      amount: p.amount,
      currency: p.currency,
      paid_until: p.periodEnd,
      last_charge_id: p.chargeId,
      created_at: p.at,
      updated_at: p.at,
    })
    .onConflict((oc) => oc.column('first_order_id').doNothing())
    .returning('id')
    .executeTakeFirst();
  const id =
    inserted?.id ??
    (await trx.selectFrom('star_subscriptions').select('id').where('first_order_id', '=', p.firstOrderId).executeTakeFirstOrThrow()).id;
  await insertPeriod(trx, {
    subscriptionId: id,
    chargeId: p.chargeId,
    orderId: p.firstOrderId,
    renewal: false,
    start: p.periodStart,
    end: p.periodEnd,
    at: p.at,
  });
  return id;
}

/** The subscription whose first order is `firstOrderId`, row-locked until the transaction ends; undefined when none. */
export async function subscriptionByFirstOrderForUpdate(trx: Transaction<DB>, firstOrderId: string): Promise<SubscriptionRow | undefined> {
  return trx.selectFrom('star_subscriptions').selectAll().where('first_order_id', '=', firstOrderId).forUpdate().executeTakeFirst();
}

/** One paid period to record. */
export interface NewPeriod {
  subscriptionId: bigint;
  chargeId: string;
  orderId: string;
  renewal: boolean;
  start: Date;
  end: Date;
  at: Date;
}

/** Records a paid period; a charge already recorded is left as it is. */
export async function insertPeriod(trx: Transaction<DB>, p: NewPeriod): Promise<void> {
  await trx
    .insertInto('star_subscription_periods')
    .values({
      charge_id: p.chargeId,
      subscription_id: p.subscriptionId,
      order_id: p.orderId,
      renewal: p.renewal,
      period_start: p.start,
      period_end: p.end,
      created_at: p.at,
    })
    .onConflict((oc) => oc.column('charge_id').doNothing())
    .execute();
}

/**
 * Extends a subscription (row locked by the caller) to a renewal's period end: paid_until is the
 * later of the two, and the charge becomes its latest when its period ends last (a late renewal of
 * an earlier period extends nothing).
 */
export async function extendSubscription(trx: Transaction<DB>, id: bigint, end: Date, chargeId: string, now: Date): Promise<void> {
  await trx
    .updateTable('star_subscriptions')
    .set({
      paid_until: sql<Date>`greatest(paid_until, ${end}::timestamptz)`,
      last_charge_id: sql<string>`case when ${end}::timestamptz >= paid_until then ${chargeId}::text else last_charge_id end`,
      updated_at: now,
    })
    .where('id', '=', id)
    .execute();
}

/**
 * Marks the period an order paid for refunded and moves its subscription back to its latest
 * unrefunded period (none left: to its first period's start, nothing paid), in the caller's
 * transaction (the refund's). Answers false when the order paid no subscription period.
 */
export async function refundPeriod(trx: Transaction<DB>, orderId: string, now: Date): Promise<boolean> {
  const period = await trx
    .updateTable('star_subscription_periods')
    .set({ refunded_at: now })
    .where('order_id', '=', orderId)
    .where('refunded_at', 'is', null)
    .returning('subscription_id')
    .executeTakeFirst();
  if (!period) return false;
  await sql`
    update star_subscriptions s set
      paid_until = coalesce(latest.period_end, (select min(p.period_start) from star_subscription_periods p where p.subscription_id = s.id)),
      last_charge_id = coalesce(latest.charge_id, s.last_charge_id),
      updated_at = ${now}
    from (select null::int as k) one
    left join lateral (
      select p.period_end, p.charge_id from star_subscription_periods p
      where p.subscription_id = ${period.subscription_id}::bigint and p.refunded_at is null
      order by p.period_end desc limit 1
    ) latest on true
    where s.id = ${period.subscription_id}::bigint`.execute(trx);
  return true;
}

/** A subscription as its player sees it, with its count of unrefunded periods. */
export type SubscriptionListing = SubscriptionRow & { periods: number };

/** The account's subscriptions, newest first (at most 50), with their unrefunded period counts. */
export async function subscriptionsOf(db: Db, accountId: bigint): Promise<SubscriptionListing[]> {
  const rows = await db
    .selectFrom('star_subscriptions as s')
    .selectAll('s')
    .select((eb) =>
      eb
        .selectFrom('star_subscription_periods as p')
        .select(sql<number>`count(*)::int`.as('n'))
        .whereRef('p.subscription_id', '=', 's.id')
        .where('p.refunded_at', 'is', null)
        .as('periods'),
    )
    .where('s.account_id', '=', accountId)
    .orderBy('s.id', 'desc')
    .limit(50)
    .execute();
  return rows.map((r) => ({ ...r, periods: r.periods ?? 0 }));
}

/** One of the account's subscriptions; undefined when it has none by this id. */
export async function subscriptionOf(db: Db, accountId: bigint, id: bigint): Promise<SubscriptionListing | undefined> {
  return (await subscriptionsOf(db, accountId)).find((s) => s.id === id);
}

/** Records whether renewals are off (`cancelledAt`) or back on (null), after the bot's Ack said the platform did it. */
export async function setCancelled(db: Db, id: bigint, cancelledAt: Date | null, now: Date): Promise<void> {
  await db.updateTable('star_subscriptions').set({ cancelled_at: cancelledAt, updated_at: now }).where('id', '=', id).execute();
}

/** One UTC day of the console's subscription figures. */
export interface SubscriptionDayRow {
  day: string;
  started: bigint;
  renewals: bigint;
  cancellations: bigint;
}

/**
 * The console's figures at `now`: subscriptions with a paid period running (and of those, the
 * cancelled ones), and per UTC day from `from`: first payments and renewals recorded (unrefunded or
 * not: money taken that day), and subscriptions whose renewals were turned off that day.
 */
export async function subscriptionFigures(
  db: Db,
  from: Date,
  now: Date,
): Promise<{ active: bigint; activeCancelled: bigint; days: SubscriptionDayRow[] }> {
  const counts = await db
    .selectFrom('star_subscriptions')
    .select([sql<bigint>`count(*)`.as('active'), sql<bigint>`count(*) filter (where cancelled_at is not null)`.as('cancelled')])
    .where('paid_until', '>', now)
    .executeTakeFirstOrThrow();
  const days = await sql<SubscriptionDayRow>`
    with d as (select generate_series((${from}::timestamptz at time zone 'UTC')::date, (${now}::timestamptz at time zone 'UTC')::date, interval '1 day')::date as day),
    p as (select (created_at at time zone 'UTC')::date as day, count(*) filter (where not renewal) as started, count(*) filter (where renewal) as renewals
          from star_subscription_periods where created_at >= ${from} group by 1),
    c as (select (cancelled_at at time zone 'UTC')::date as day, count(*) as cancellations
          from star_subscriptions where cancelled_at >= ${from} group by 1)
    select d.day::text as day, coalesce(p.started, 0)::bigint as started, coalesce(p.renewals, 0)::bigint as renewals,
           coalesce(c.cancellations, 0)::bigint as cancellations
    from d left join p on p.day = d.day left join c on c.day = d.day
    order by d.day desc`.execute(db);
  return { active: BigInt(counts.active), activeCancelled: BigInt(counts.cancelled), days: days.rows };
}

/**
 * Locks the subscription whose period `orderId` paid for (FOR UPDATE), before a refund of that order
 * writes the wallet: the lock order a renewal takes (its subscription, then the money), so a refund
 * and a renewal of one subscription never deadlock. Answers whether the order paid a period.
 */
export async function lockSubscriptionOfOrder(trx: Transaction<DB>, orderId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('star_subscriptions as s')
    .select('s.id')
    .where('s.id', '=', (eb) =>
      eb.selectFrom('star_subscription_periods as p').select('p.subscription_id').where('p.order_id', '=', orderId),
    )
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

/** A deleted account's subscriptions forget their payer's platform user id (0: none); the money records stay. */
export async function eraseSubscriptionPayers(trx: Transaction<DB>, accountId: bigint): Promise<void> {
  await trx.updateTable('star_subscriptions').set({ platform_user_id: 0n }).where('account_id', '=', accountId).execute();
}

/** The player's data export section: each subscription with its paid periods (money as integer strings, times ISO). */
export async function subscriptionsSection(db: Db, accountId: bigint): Promise<JsonValue> {
  const subs = await db
    .selectFrom('star_subscriptions')
    .select(['id', 'product_id', 'first_order_id', 'amount', 'currency', 'paid_until', 'cancelled_at', 'created_at'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  const periods =
    subs.length === 0
      ? []
      : await db
          .selectFrom('star_subscription_periods')
          .select(['subscription_id', 'order_id', 'renewal', 'period_start', 'period_end', 'refunded_at'])
          .where(
            'subscription_id',
            'in',
            subs.map((s) => s.id),
          )
          .orderBy('period_end')
          .execute();
  return subs.map((s) => ({
    subscription_id: String(s.id),
    product_id: String(s.product_id),
    first_order_id: s.first_order_id,
    amount: String(s.amount),
    currency: s.currency,
    paid_until: s.paid_until.toISOString(),
    cancelled_at: isoOrNull(s.cancelled_at),
    started_at: s.created_at.toISOString(),
    periods: periods
      .filter((p) => p.subscription_id === s.id)
      .map((p) => ({
        order_id: p.order_id,
        renewal: p.renewal,
        start: p.period_start.toISOString(),
        end: p.period_end.toISOString(),
        refunded_at: isoOrNull(p.refunded_at),
      })),
  }));
}
