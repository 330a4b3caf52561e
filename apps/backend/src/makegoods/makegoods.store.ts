import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../db/index.js';
import type { Segment } from '../gate/index.js';
import type { MakeGoodsTable } from './make-goods.table.js';

/** Advisory lock class of an operator's make-goods (one lock per operator; the daily caps are read under it). */
const OPERATOR_LOCK = 740541;

/** Takes the operator's make-good lock for the rest of the transaction: its grants run one at a time. */
export async function lockOperatorGrants(trx: Transaction<DB>, operatorId: bigint): Promise<void> {
  await sql`select pg_advisory_xact_lock(${OPERATOR_LOCK}, ${Number(operatorId % 2_147_483_647n)}::int)`.execute(trx);
}

/** The make-good an operator's form token already granted, if any. */
export async function makeGoodByToken(
  db: Kysely<DB> | Transaction<DB>,
  operatorId: bigint,
  formToken: string,
): Promise<Selectable<MakeGoodsTable> | undefined> {
  return db
    .selectFrom('make_goods')
    .selectAll()
    .where('operator_id', '=', operatorId)
    .where('form_token', '=', formToken)
    .executeTakeFirst();
}

/** What the operator's make-goods granted in [from, to): chips, hints and no-ads days. */
export async function grantedBetween(
  db: Kysely<DB> | Transaction<DB>,
  operatorId: bigint,
  from: Date,
  to: Date,
): Promise<{ chips: bigint; hints: bigint; noAdsDays: bigint }> {
  const row = await db
    .selectFrom('make_goods')
    .select([
      sql<bigint>`coalesce(sum(chips), 0)::bigint`.as('chips'),
      sql<bigint>`coalesce(sum(hints), 0)::bigint`.as('hints'),
      sql<bigint>`coalesce(sum(no_ads_days), 0)::bigint`.as('no_ads_days'),
    ])
    .where('operator_id', '=', operatorId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .executeTakeFirstOrThrow();
  return { chips: BigInt(row.chips), hints: BigInt(row.hints), noAdsDays: BigInt(row.no_ads_days) };
}

/** A new make-good row to record. */
export interface NewMakeGood {
  operatorId: bigint;
  formToken: string;
  accountId: bigint;
  segment: Segment;
  chips: bigint;
  hints: bigint;
  noAdsDays: bigint;
  reason: string;
  supportCase: string;
  at: Date;
}

/** Records a make-good in the caller's transaction; answers its id. */
export async function insertMakeGood(trx: Transaction<DB>, m: NewMakeGood): Promise<bigint> {
  const row = await trx
    .insertInto('make_goods')
    .values({
      operator_id: m.operatorId,
      form_token: m.formToken,
      account_id: m.accountId,
      segment: m.segment,
      chips: m.chips,
      hints: m.hints,
      no_ads_days: m.noAdsDays,
      reason: m.reason,
      support_case: m.supportCase,
      created_at: m.at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The account a grant would go to (deleted ones included, for the caller to refuse), or undefined. */
export async function targetAccount(
  db: Kysely<DB> | Transaction<DB>,
  accountId: bigint,
): Promise<{ id: bigint; display_name: string; status: string } | undefined> {
  return db.selectFrom('accounts').select(['id', 'display_name', 'status']).where('id', '=', accountId).executeTakeFirst();
}

/** The account's wallet segments and benefit origins, one row per segment that has either. */
export async function walletOf(
  db: Kysely<DB>,
  accountId: bigint,
): Promise<Array<{ segment: Segment; chips: bigint; hints: bigint; no_ads_until: Date | null }>> {
  const { rows } = await sql<{ segment: Segment; chips: bigint; hints: bigint; no_ads_until: Date | null }>`
    select coalesce(w.segment, b.origin) as segment, coalesce(w.balance, 0)::bigint as chips,
           coalesce(b.hints, 0)::bigint as hints, b.no_ads_until
    from (select segment, balance from wallet_segments where account_id = ${accountId}) w
    full join (select origin, hints, no_ads_until from benefits where account_id = ${accountId}) b on b.origin = w.segment
    order by 1`.execute(db);
  return rows.map((r) => ({ ...r, chips: BigInt(r.chips), hints: BigInt(r.hints) }));
}

/** The account a support case was opened for (null when none), or undefined for an unknown case. */
export async function supportCaseAccount(db: Kysely<DB> | Transaction<DB>, code: string): Promise<bigint | null | undefined> {
  const row = await db.selectFrom('support_cases').select('account_id').where('code', '=', code).executeTakeFirst();
  return row === undefined ? undefined : row.account_id;
}
