import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../db/index.js';
import { isoOrNull, type JsonValue } from '../support/index.js';
import type { SupportCaseEventKind, SupportCasesTable } from './helpdesk.table.js';

type Db = Kysely<DB> | Transaction<DB>;

/** One case row. */
export type CaseRow = Selectable<SupportCasesTable>;

/** A stars charge as our records know it (an order's crediting charge, or an unmatched payment). */
export interface ChargeRow {
  order_id: string;
  platform_charge_id: string;
  title: string;
  amount: bigint;
  at: Date;
  state: 'credited' | 'refunded' | 'checking';
}

/**
 * The platform user's stars charges, newest first: each stars order credited by their charge
 * (refunded once a refund is recorded, checking while one is in flight) and each payment of theirs
 * that matched no creditable order (refunded once returned, else checking). Titles in `language`
 * where the product has one, else the order's own title.
 */
export async function chargesOf(db: Db, platformUserId: bigint, language: string, limit: number): Promise<ChargeRow[]> {
  const { rows } = await sql<ChargeRow>`
    select * from (
      select o.id::text as order_id, o.platform_charge_id, coalesce(t.title, o.title) as title, o.amount,
        coalesce(o.paid_at, o.created_at) as at,
        case when o.refund_id is not null then 'refunded' when o.refund_hold is not null then 'checking' else 'credited' end as state
      from orders o
      left join catalog_product_texts t on t.product_id = o.product_id and t.locale = ${language}
      where o.rail = 'stars' and o.platform_user_id = ${platformUserId} and o.platform_charge_id is not null
      union all
      select u.order_id, u.platform_charge_id, coalesce(t.title, o.title, '') as title, u.amount, u.created_at as at,
        case when u.refund_status = 'refunded' then 'refunded' else 'checking' end as state
      from unmatched_payments u
      left join orders o on o.id::text = u.order_id
      left join catalog_product_texts t on t.product_id = o.product_id and t.locale = ${language}
      where u.provider = 'telegram_stars' and u.platform_user_id = ${platformUserId}
    ) charges
    order by at desc, platform_charge_id desc
    limit ${limit}`.execute(db);
  return rows;
}

/** Whose a stars charge is and which order of ours it credited or named; undefined when we never recorded it. */
export async function chargeOwner(
  db: Db,
  platformChargeId: string,
): Promise<{ platform_user_id: bigint; order_id: string | null } | undefined> {
  const { rows } = await sql<{ platform_user_id: bigint; order_id: string | null }>`
    select platform_user_id, order_id from (
      select o.platform_user_id, o.id::text as order_id, 0 as rank from orders o
      where o.platform_charge_id = ${platformChargeId} and o.rail = 'stars' and o.platform_user_id is not null
      union all
      select u.platform_user_id, o.id::text as order_id, 1 as rank from unmatched_payments u
      left join orders o on o.id::text = u.order_id
      where u.platform_charge_id = ${platformChargeId} and u.provider = 'telegram_stars'
    ) owners order by rank limit 1`.execute(db);
  return rows[0];
}

/** The account a platform identity maps to, if any. */
export async function accountOfIdentity(db: Db, platform: string, externalId: string): Promise<bigint | null> {
  const row = await db
    .selectFrom('platform_identities')
    .select('account_id')
    .where('kind', '=', platform as 'telegram' | 'vk')
    .where('external_id', '=', externalId)
    .executeTakeFirst();
  return row?.account_id ?? null;
}

/** Serialises case openings of one platform user (the open-case cap), until the transaction ends. */
export async function lockUserCases(trx: Transaction<DB>, platform: string, platformUserId: bigint): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`support:${platform}:${platformUserId}`}))`.execute(trx);
}

/** How many cases of this platform user are open. */
export async function openCasesOf(db: Db, platform: string, platformUserId: bigint): Promise<number> {
  const row = await db
    .selectFrom('support_cases')
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .where('platform', '=', platform as 'telegram' | 'vk')
    .where('platform_user_id', '=', platformUserId)
    .where('state', '=', 'open')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A new case to store. */
export interface NewCase {
  code: string;
  platform: 'telegram' | 'vk';
  platformUserId: bigint;
  accountId: bigint | null;
  platformChargeId: string | null;
  orderId: string | null;
  language: 'en' | 'ru';
  text: string;
  at: Date;
}

/** Inserts the case and its `opened` event; null when the code is taken (the caller draws another). */
export async function insertCase(trx: Transaction<DB>, c: NewCase): Promise<bigint | null> {
  const row = await trx
    .insertInto('support_cases')
    .values({
      code: c.code,
      platform: c.platform,
      platform_user_id: c.platformUserId,
      account_id: c.accountId,
      platform_charge_id: c.platformChargeId,
      order_id: c.orderId,
      language: c.language,
      text: c.text,
      opened_at: c.at,
    })
    .onConflict((oc) => oc.column('code').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (row === undefined) return null;
  await appendEvent(trx, { caseId: row.id, kind: 'opened', operatorId: null, text: '', outcome: '', at: c.at });
  return row.id;
}

/** One history entry to append. */
export interface NewEvent {
  caseId: bigint;
  kind: SupportCaseEventKind;
  operatorId: bigint | null;
  text: string;
  outcome: string;
  at: Date;
}

/** Appends one history entry. */
export async function appendEvent(db: Db, e: NewEvent): Promise<void> {
  await db
    .insertInto('support_case_events')
    .values({ case_id: e.caseId, kind: e.kind, operator_id: e.operatorId, text: e.text, outcome: e.outcome, at: e.at })
    .execute();
}

/** Open cases oldest first (at most `limit`) and how many are open in all. */
export async function openCases(db: Db, limit: number): Promise<{ rows: CaseRow[]; total: number }> {
  const [rows, total] = await Promise.all([
    db.selectFrom('support_cases').selectAll().where('state', '=', 'open').orderBy('opened_at').orderBy('id').limit(limit).execute(),
    db
      .selectFrom('support_cases')
      .select((eb) => eb.fn.countAll<bigint>().as('n'))
      .where('state', '=', 'open')
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/** A case by its code. */
export async function caseByCode(db: Db, code: string): Promise<CaseRow | undefined> {
  return db.selectFrom('support_cases').selectAll().where('code', '=', code).executeTakeFirst();
}

/** A case by its code, locked for an action on it. */
export async function caseForUpdate(trx: Transaction<DB>, code: string): Promise<CaseRow | undefined> {
  return trx.selectFrom('support_cases').selectAll().where('code', '=', code).forUpdate().executeTakeFirst();
}

/** Marks a case resolved by `operatorId`. */
export async function markResolved(trx: Transaction<DB>, caseId: bigint, operatorId: bigint, at: Date): Promise<void> {
  await trx
    .updateTable('support_cases')
    .set({ state: 'resolved', resolved_at: at, resolved_by: operatorId })
    .where('id', '=', caseId)
    .execute();
}

/** One history entry with its operator's login. */
export interface EventRow {
  kind: SupportCaseEventKind;
  operator_id: bigint | null;
  login: string | null;
  text: string;
  outcome: string;
  at: Date;
}

/** A case's history, oldest first. */
export async function caseEvents(db: Db, caseId: bigint): Promise<EventRow[]> {
  return db
    .selectFrom('support_case_events as e')
    .leftJoin('operators as o', 'o.id', 'e.operator_id')
    .select(['e.kind', 'e.operator_id', 'o.login', 'e.text', 'e.outcome', 'e.at'])
    .where('e.case_id', '=', caseId)
    .orderBy('e.id')
    .execute();
}

/** One line of a case's evidence, as read from the payments, ledger and reconciliation tables. */
export interface EvidenceRow {
  kind: 'order' | 'order_event' | 'ledger' | 'charge' | 'unmatched' | 'reconciliation';
  at: Date | null;
  summary: string;
}

/**
 * What our records hold about a case's order and charge, oldest first: the order (state, amount,
 * refund), its payment events, its ledger rows, the charge as recorded (the crediting order or an
 * unmatched payment with its automatic return) and the reconciliation findings naming either.
 */
export async function evidenceOf(db: Db, orderId: string | null, platformChargeId: string | null): Promise<EvidenceRow[]> {
  if (orderId === null && platformChargeId === null) return [];
  const { rows } = await sql<EvidenceRow>`
    select kind, at, summary from (
      select 'order' as kind, o.created_at as at, 0 as n,
        concat_ws(' ', 'order=' || o.id, 'state=' || o.state, 'rail=' || o.rail, 'amount=' || o.amount || ' ' || o.currency,
          'account=' || o.account_id, 'title=' || o.title, 'charge=' || o.platform_charge_id, 'refund=' || o.refund_id,
          'refund_in_flight=' || o.refund_hold, 'failure=' || o.failure_reason) as summary
      from orders o where o.id::text = ${orderId}
      union all
      select 'order_event', e.created_at, e.id, concat_ws(' ', e.kind, nullif(e.detail, '')) from payment_events e where e.order_id::text = ${orderId}
      union all
      select 'ledger', l.created_at, l.id,
        concat_ws(' ', 'op=' || l.id, 'kind=' || l.kind, 'segment=' || l.segment, 'chips=' || l.chips_delta, 'hints=' || l.hints_delta,
          'money=' || l.money_minor || ' ' || l.currency, 'refund=' || l.refund_id, nullif(l.note, ''))
      from ledger_operations l where l.order_id::text = ${orderId}
      union all
      select 'charge', coalesce(o.paid_at, o.created_at), 0,
        concat_ws(' ', 'charge=' || o.platform_charge_id, 'credited order=' || o.id, 'payer=' || o.platform_user_id, 'amount=' || o.amount || ' ' || o.currency)
      from orders o where o.platform_charge_id = ${platformChargeId}
      union all
      select 'unmatched', u.created_at, u.id,
        concat_ws(' ', 'charge=' || u.platform_charge_id, 'unmatched reason=' || u.reason, 'named order=' || u.order_id, 'payer=' || u.platform_user_id,
          'amount=' || u.amount, 'return=' || u.refund_status, 'attempts=' || u.refund_attempts, 'error=' || u.refund_error)
      from unmatched_payments u where u.platform_charge_id = ${platformChargeId}
      union all
      select 'reconciliation', coalesce(m.occurred_at, r.finished_at), m.id,
        concat_ws(' ', 'finding=' || m.kind, 'rail=' || m.rail, 'payment=' || m.payment_ref, 'refund=' || m.refund_ref,
          'ledger=' || m.ledger_amount || ' ' || m.ledger_currency, 'provider=' || m.provider_amount || ' ' || m.provider_currency,
          coalesce('resolved: ' || m.resolution, 'open'))
      from reconciliation_mismatches m join reconciliation_runs r on r.id = m.run_id
      where m.order_id = ${orderId} or m.payment_ref = ${platformChargeId}
    ) evidence
    order by at nulls last, n`.execute(db);
  return rows;
}

/**
 * Erases the texts of every support case of a deleted account (the case's words and the replies),
 * keeping the rows and their history: the cases opened while the account existed, and any opened by
 * one of its platform identities. Runs in the deletion's transaction; answers how many cases.
 */
export async function eraseCaseTextsOf(trx: Transaction<DB>, accountId: bigint, at: Date): Promise<number> {
  const { rows } = await sql<{ id: bigint }>`
    update support_cases c set text = '', platform_user_id = 0, erased_at = ${at}
    where c.erased_at is null and (c.account_id = ${accountId} or exists (
      select 1 from platform_identities i
      where i.account_id = ${accountId} and i.kind = c.platform and i.external_id = c.platform_user_id::text))
    returning c.id`.execute(trx);
  if (rows.length === 0) return 0;
  const ids = rows.map((r) => r.id);
  await trx.updateTable('support_case_events').set({ text: '' }).where('case_id', 'in', ids).execute();
  await trx
    .insertInto('support_case_events')
    .values(ids.map((id) => ({ case_id: id, kind: 'erased' as const, operator_id: null, text: '', outcome: '', at })))
    .execute();
  return rows.length;
}

/** Open cases per age bucket (the bucket's lower bound in seconds) and how many waited longer than `maxWaitSeconds`. */
export async function openCaseAges(
  db: Db,
  bounds: readonly number[],
  maxWaitSeconds: number,
  now: Date,
): Promise<{ buckets: number[]; overdue: number }> {
  const { rows } = await sql<{ bucket: number; n: bigint; overdue: bigint }>`
    select greatest(width_bucket(a.age, ${bounds}::float8[]), 1) as bucket, count(*) as n,
      count(*) filter (where a.age > ${maxWaitSeconds}) as overdue
    from (select extract(epoch from (${now}::timestamptz - opened_at))::float8 as age from support_cases where state = 'open') a
    group by 1`.execute(db);
  const buckets = bounds.map(() => 0);
  let overdue = 0;
  for (const r of rows) {
    const i = r.bucket - 1;
    buckets[i] = (buckets[i] ?? 0) + Number(r.n);
    overdue += Number(r.overdue);
  }
  return { buckets, overdue };
}

/** One operator audit row with its operator's login. */
export interface AuditRow {
  action: string;
  operator_id: bigint | null;
  login: string | null;
  target: string;
  outcome: string;
  at: Date;
}

/** The operator audit of a case (target = its code) and of its order (target = order:<id>), oldest first. */
export async function auditOf(db: Db, code: string, orderId: string | null): Promise<AuditRow[]> {
  const targets = orderId === null ? [code] : [code, `order:${orderId}`];
  return db
    .selectFrom('operator_audit as a')
    .leftJoin('operators as o', 'o.id', 'a.operator_id')
    .select(['a.action', 'a.operator_id', 'o.login', 'a.target', 'a.outcome', 'a.at'])
    .where('a.target', 'in', targets)
    .orderBy('a.id')
    .limit(200)
    .execute();
}

/**
 * The support-case section of a player's data export: every case the account opened (or opened
 * through one of its platform identities) with its history, oldest first. Erased texts are empty.
 */
export async function supportCasesSection(db: Db, accountId: bigint): Promise<JsonValue> {
  const { rows: cases } = await sql<{
    id: bigint;
    code: string;
    platform: string;
    platform_charge_id: string | null;
    order_id: string | null;
    language: string;
    text: string;
    state: string;
    opened_at: Date;
    resolved_at: Date | null;
  }>`
    select c.id, c.code, c.platform, c.platform_charge_id, c.order_id, c.language, c.text, c.state, c.opened_at, c.resolved_at
    from support_cases c
    where c.account_id = ${accountId} or exists (
      select 1 from platform_identities i
      where i.account_id = ${accountId} and i.kind = c.platform and i.external_id = c.platform_user_id::text)
    order by c.opened_at, c.id`.execute(db);
  if (cases.length === 0) return [];
  const events = await db
    .selectFrom('support_case_events')
    .select(['case_id', 'kind', 'text', 'at'])
    .where(
      'case_id',
      'in',
      cases.map((c) => c.id),
    )
    .orderBy('id')
    .execute();
  return cases.map((c) => ({
    code: c.code,
    platform: c.platform,
    platform_charge_id: c.platform_charge_id,
    order_id: c.order_id,
    language: c.language,
    text: c.text,
    state: c.state,
    opened_at: c.opened_at.toISOString(),
    resolved_at: isoOrNull(c.resolved_at),
    events: events.filter((e) => e.case_id === c.id).map((e) => ({ kind: e.kind, text: e.text, at: e.at.toISOString() })),
  }));
}
