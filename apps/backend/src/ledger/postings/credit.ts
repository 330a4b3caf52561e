import { sql, type CompiledQuery, type Kysely, type Selectable, type SelectType } from 'kysely';
import { runPrepared, type DB } from '../../db/index.js';
import { noAdsExtended } from './no-ads.js';

/** The orders table is payments' (payments.table.ts); the ledger, below payments, reads it off the composed database type. */
type OrderRow = Selectable<DB['orders']>;
type OrderRail = DB['orders']['rail'];
type OrderState = SelectType<DB['orders']['state']>;

/** What settled the order: the platform's charge id (stars) or the provider's payment id (card). */
export interface Settlement {
  platformChargeId?: string;
  /** Stars: the payer's platform user id (a refund returns the stars to them). */
  platformUserId?: bigint;
  providerPaymentId?: string;
  /**
   * A stars subscription's charge: the end of the period it paid for (the platform's expiration
   * date). The order, its benefits origin (`pass_until`, no ads until then) and its ledger row carry it.
   */
  passUntil?: Date;
}

/** Extra conditions the order must meet to be credited (the stars fast path checks them in the same statement). */
export interface CreditGuard {
  /** The order's rail. */
  rail?: OrderRail;
  /** The order's amount must equal the paid amount. */
  amount?: bigint;
  /**
   * Credit only if this platform charge id is neither on an order nor recorded as unmatched. Those
   * checks read the statement's snapshot, so the order row must also still be the version that
   * snapshot saw (same xmin): a writer that committed meanwhile (ForwardPayment recording this
   * charge as unmatched touches the order under its lock) makes this statement credit nothing,
   * and the caller falls back to its locked path.
   */
  newPlatformChargeId?: string;
  /** Credit only an order that is not a stars subscription's (those take their locked path: payments/stars/subscription.ts). */
  oneTime?: boolean;
}

/** The credit statement for these inputs: its prepared-statement name, SQL text and parameters. */
export interface CreditStatement {
  name: string;
  sql: string;
  parameters: unknown[];
}

type SlotName =
  | 'orderId'
  | 'now'
  | 'detail'
  | 'platformChargeId'
  | 'platformUserId'
  | 'providerPaymentId'
  | 'passUntil'
  | 'rail'
  | 'amount'
  | 'newPlatformChargeId';

/** Stands in for one input while a statement shape is compiled; kysely passes values through untouched. */
class Slot {
  constructor(readonly name: SlotName) {}
}

/**
 * The order credit over `creditableStates`, the states a confirmed payment may still credit. Those
 * states are the order's lifecycle, which the payments feature owns (payments/orders/state.ts binds
 * them once); the ledger owns the statement that moves the order to paid and writes the money.
 */
export interface OrderCredit {
  /**
   * Credits a creditable order exactly once, in ONE statement (one round trip, a named prepared
   * statement on the pool; atomic by itself or inside the caller's transaction): a conditional UPDATE moves the order from
   * pending/expired to paid (a second attempt matches no row: PostgreSQL re-checks the condition on
   * the latest row version after waiting for a concurrent writer, so no race credits twice), and
   * data-modifying CTEs fed by that UPDATE's row add the pack's chips to the order's segment, its
   * benefits to the same origin, append one `purchase` ledger row (rail = provider = the settling
   * provider, money snapshot) and the `paid` payment event. The unique (order_id, kind) key on the
   * ledger backs the conditional UPDATE. Returns the paid order, or null when the order was not
   * creditable (already paid, failed, missing, a refund of it in flight (`refund_hold` set), or a
   * `guard` condition failed).
   */
  creditOrder: (db: Kysely<DB>, orderId: string, settlement: Settlement, now: Date, guard?: CreditGuard) => Promise<OrderRow | null>;
  /**
   * The credit statement for these inputs. Its text depends only on which options are set, so each
   * shape is compiled by kysely once, with Slots in place of the inputs, and is one named prepared
   * statement; building and compiling the query on every payment was a fifth of the backend's CPU
   * per ForwardPayment. Same SQL, same parameters as compiling it per call (tested).
   */
  creditStatement: (db: Kysely<DB>, orderId: string, settlement: Settlement, now: Date, guard?: CreditGuard) => CreditStatement;
  /** Builds and compiles the credit statement (see creditOrder for what it does). */
  compileCredit: (
    db: Kysely<DB>,
    orderId: string,
    settlement: Settlement,
    now: Date,
    guard: CreditGuard,
    detail?: string,
  ) => CompiledQuery<OrderRow>;
}

/** The order credit for orders in `creditableStates` (see OrderCredit); one per set of states, its shapes compiled once. */
export function orderCredit(creditableStates: readonly OrderState[]): OrderCredit {
  /** Per shape: the SQL and, per parameter, the input it takes (a Slot) or a constant of the statement. */
  const shapes = new Map<string, { sql: string; slots: readonly unknown[] }>();
  const compileCredit: OrderCredit['compileCredit'] = (db, orderId, settlement, now, guard, detail) =>
    compileCreditFrom(creditableStates, db, orderId, settlement, now, guard, detail);
  const creditStatement: OrderCredit['creditStatement'] = (db, orderId, settlement, now, guard = {}) => {
    const shape = [
      settlement.platformChargeId,
      settlement.platformUserId,
      settlement.providerPaymentId,
      settlement.passUntil,
      guard.rail,
      guard.amount,
      guard.newPlatformChargeId,
      guard.oneTime ? true : undefined,
    ]
      .map((v) => (v === undefined ? '0' : '1'))
      .join('');
    let compiled = shapes.get(shape);
    if (!compiled) {
      const slot = <T>(name: SlotName, present: unknown): T => (present === undefined ? undefined : new Slot(name)) as T;
      const query = compileCredit(
        db,
        slot<string>('orderId', true),
        {
          platformChargeId: slot<string | undefined>('platformChargeId', settlement.platformChargeId),
          platformUserId: slot<bigint | undefined>('platformUserId', settlement.platformUserId),
          providerPaymentId: slot<string | undefined>('providerPaymentId', settlement.providerPaymentId),
          passUntil: slot<Date | undefined>('passUntil', settlement.passUntil),
        },
        slot<Date>('now', true),
        {
          rail: slot<OrderRail | undefined>('rail', guard.rail),
          amount: slot<bigint | undefined>('amount', guard.amount),
          newPlatformChargeId: slot<string | undefined>('newPlatformChargeId', guard.newPlatformChargeId),
          ...(guard.oneTime ? { oneTime: true } : {}),
        },
        slot<string>('detail', true),
      );
      compiled = { sql: query.sql, slots: query.parameters };
      shapes.set(shape, compiled);
    }
    const values: Record<SlotName, unknown> = {
      orderId,
      now,
      detail: settlement.platformChargeId ?? settlement.providerPaymentId ?? '',
      platformChargeId: settlement.platformChargeId,
      platformUserId: settlement.platformUserId,
      providerPaymentId: settlement.providerPaymentId,
      passUntil: settlement.passUntil,
      rail: guard.rail,
      amount: guard.amount,
      newPlatformChargeId: guard.newPlatformChargeId,
    };
    return {
      name: `credit_order_${shape}`,
      sql: compiled.sql,
      parameters: compiled.slots.map((slot) => (slot instanceof Slot ? values[slot.name] : slot)),
    };
  };
  const creditOrder: OrderCredit['creditOrder'] = async (db, orderId, settlement, now, guard = {}) => {
    const { name, sql: text, parameters } = creditStatement(db, orderId, settlement, now, guard);
    const [row] = await runPrepared<OrderRow>(db, name, text, parameters);
    return row ?? null;
  };
  return { creditOrder, creditStatement, compileCredit };
}

/** Builds and compiles the credit statement over `creditableStates` (see OrderCredit.creditOrder for what it does). */
function compileCreditFrom(
  creditableStates: readonly OrderState[],
  db: Kysely<DB>,
  orderId: string,
  settlement: Settlement,
  now: Date,
  guard: CreditGuard,
  detail = settlement.platformChargeId ?? settlement.providerPaymentId ?? '',
): CompiledQuery<OrderRow> {
  const { rail, amount, newPlatformChargeId, oneTime } = guard;
  const grantsBenefits = sql<boolean>`(o.hints > 0 or o.no_ads_days > 0 or o.no_ads_forever or o.pass_until is not null)`;
  const query = db
    .with('o', (q) => {
      let update = q
        .updateTable('orders')
        .set((eb) => ({
          state: 'paid',
          paid_at: now,
          ...(settlement.platformChargeId !== undefined ? { platform_charge_id: settlement.platformChargeId } : {}),
          ...(settlement.platformUserId !== undefined ? { platform_user_id: settlement.platformUserId } : {}),
          ...(settlement.providerPaymentId !== undefined
            ? { provider_payment_id: eb.fn.coalesce('provider_payment_id', eb.val(settlement.providerPaymentId)) }
            : {}),
          ...(settlement.passUntil !== undefined ? { pass_until: settlement.passUntil } : {}),
        }))
        .where('id', '=', orderId)
        .where('state', 'in', creditableStates)
        // A refund in flight (payments' refund_hold, set under this row's lock before any refund call) blocks every credit.
        .where('refund_hold', 'is', null);
      if (rail !== undefined) update = update.where('rail', '=', rail);
      if (amount !== undefined) update = update.where('amount', '=', amount);
      if (oneTime) update = update.where('subscription_period', 'is', null);
      if (newPlatformChargeId !== undefined) {
        update = update
          .where(sql<boolean>`orders.xmin = (select seen.xmin from orders as seen where seen.id = ${orderId})`)
          .where((eb) =>
            eb.not(
              eb.exists(eb.selectFrom('orders as prior').select('prior.id').where('prior.platform_charge_id', '=', newPlatformChargeId)),
            ),
          )
          .where((eb) =>
            eb.not(
              eb.exists(
                eb
                  .selectFrom('unmatched_payments')
                  .select('unmatched_payments.id')
                  .where('unmatched_payments.platform_charge_id', '=', newPlatformChargeId),
              ),
            ),
          );
      }
      return update.returningAll();
    })
    .with('seg', (q) =>
      q
        .insertInto('wallet_segments')
        .columns(['account_id', 'segment', 'balance'])
        .expression((eb) => eb.selectFrom('o').select(['o.account_id', 'o.segment', 'o.chips']).where('o.chips', '>', 0n))
        .onConflict((oc) =>
          oc.columns(['account_id', 'segment']).doUpdateSet({ balance: sql<bigint>`wallet_segments.balance + excluded.balance` }),
        )
        .returning('wallet_segments.account_id'),
    )
    .with('ben', (q) =>
      q
        .insertInto('benefits')
        .columns(['account_id', 'origin', 'no_ads_until', 'no_ads_forever', 'hints', 'pass_until'])
        .expression((eb) =>
          eb
            .selectFrom('o')
            .select([
              'o.account_id',
              'o.segment',
              sql<Date | null>`case when o.no_ads_days > 0 then ${now}::timestamptz + o.no_ads_days * 86400 * interval '1 second' end`.as(
                'no_ads_until',
              ),
              'o.no_ads_forever',
              'o.hints',
              'o.pass_until',
            ])
            .where(grantsBenefits),
        )
        .onConflict((oc) =>
          oc.columns(['account_id', 'origin']).doUpdateSet({
            no_ads_until: sql<Date | null>`case when excluded.no_ads_until is null then benefits.no_ads_until
              else ${noAdsExtended(sql`benefits.no_ads_until`, sql`${now}::timestamptz`, sql`(select o.no_ads_days from o)`)} end`,
            no_ads_forever: sql<boolean>`benefits.no_ads_forever or excluded.no_ads_forever`,
            hints: sql<bigint>`benefits.hints + excluded.hints`,
            pass_until: sql<Date | null>`greatest(benefits.pass_until, excluded.pass_until)`,
          }),
        )
        .returning('benefits.account_id'),
    )
    .with('led', (q) =>
      q
        .insertInto('ledger_operations')
        .columns([
          'account_id',
          'kind',
          'segment',
          'rail',
          'provider',
          'product_id',
          'order_id',
          'chips_delta',
          'money_minor',
          'currency',
          'created_at',
          'benefit_origin',
          'hints_delta',
          'no_ads_days',
          'no_ads_forever',
          'pass_until',
        ])
        .expression((eb) =>
          eb
            .selectFrom('o')
            .select([
              'o.account_id',
              sql.lit('purchase').as('kind'),
              'o.segment',
              'o.provider as rail',
              'o.provider',
              'o.product_id',
              'o.id',
              'o.chips',
              'o.amount',
              'o.currency',
              sql<Date>`${now}::timestamptz`.as('created_at'),
              sql<string | null>`case when ${grantsBenefits} then o.segment end`.as('benefit_origin'),
              'o.hints',
              'o.no_ads_days',
              'o.no_ads_forever',
              'o.pass_until',
            ]),
        )
        .returning('ledger_operations.id'),
    )
    .with('ev', (q) =>
      q
        .insertInto('payment_events')
        .columns(['order_id', 'kind', 'detail'])
        .expression((eb) => eb.selectFrom('o').select(['o.id', sql.lit('paid').as('kind'), sql<string>`${detail}::text`.as('detail')]))
        .returning('payment_events.id'),
    )
    .selectFrom('o')
    .selectAll('o')
    .compile();
  return query;
}
