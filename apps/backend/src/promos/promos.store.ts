import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../db/index.js';
import type { Segment } from '../gate/index.js';
import type { PromoCodesTable, PromoHost } from './promos.table.js';

/** A code row as read. */
export type CodeRow = Selectable<PromoCodesTable>;

/** A code with its usage and its creator's login, as the console lists it. */
export interface CodeUsageRow extends CodeRow {
  reversed: number;
  created_by_login: string | null;
}

/** A redemption as the console shows it. */
export interface RedemptionRow {
  id: bigint;
  code_id: bigint;
  account_id: bigint;
  segment: Segment;
  chips: bigint;
  hints: bigint;
  no_ads_days: bigint;
  redeemed_at: Date;
  reversed_at: Date | null;
  reversed_by_login: string | null;
}

/** Redemption figures of one UTC day. */
export interface CodeDayRow {
  day: string;
  redemptions: bigint;
  reversals: bigint;
  chips: bigint;
}

/** Inserts a code; answers its id, or null when a code with the same hash exists (the unique key decides). */
export async function insertCode(db: Kysely<DB> | Transaction<DB>, row: Insertable<PromoCodesTable>): Promise<bigint | null> {
  const inserted = await db
    .insertInto('promo_codes')
    .values(row)
    .onConflict((oc) => oc.column('code_hash').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted?.id ?? null;
}

/** The code with this hash, its row locked FOR UPDATE (redemptions of one code take turns here). */
export async function lockCodeByHash(trx: Transaction<DB>, hash: Buffer): Promise<CodeRow | undefined> {
  return trx.selectFrom('promo_codes').selectAll().where('code_hash', '=', hash).forUpdate().executeTakeFirst();
}

/** True when the account has a redemption of the code (reversed or not). */
export async function hasRedeemed(trx: Transaction<DB>, codeId: bigint, accountId: bigint): Promise<boolean> {
  const row = await trx
    .selectFrom('promo_redemptions')
    .select('id')
    .where('code_id', '=', codeId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Records a redemption and counts it on the code, which must still have a use left (conditional
 * update; the caller holds the code row's lock). Answers the redemption's id, or null when the
 * code had no use left.
 */
export async function recordRedemption(
  trx: Transaction<DB>,
  code: CodeRow,
  accountId: bigint,
  segment: Segment,
  at: Date,
): Promise<bigint | null> {
  const counted = await trx
    .updateTable('promo_codes')
    .set({ redeemed: sql<number>`redeemed + 1` })
    .where('id', '=', code.id)
    .where(sql<boolean>`redeemed < max_redemptions`)
    .returning('id')
    .executeTakeFirst();
  if (counted === undefined) return null;
  const { id } = await trx
    .insertInto('promo_redemptions')
    .values({
      code_id: code.id,
      account_id: accountId,
      segment,
      chips: code.chips,
      hints: code.hints,
      no_ads_days: code.no_ads_days,
      redeemed_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

const withUsage = (db: Kysely<DB>) =>
  db
    .selectFrom('promo_codes as c')
    .leftJoin('operators as o', 'o.id', 'c.created_by')
    .selectAll('c')
    .select([
      'o.login as created_by_login',
      sql<number>`(select count(*)::int from promo_redemptions r where r.code_id = c.id and r.reversed_at is not null)`.as('reversed'),
    ]);

/** Every code with its usage, newest first (at most `limit`). */
export async function listCodes(db: Kysely<DB>, limit: number): Promise<CodeUsageRow[]> {
  return withUsage(db).orderBy('c.id', 'desc').limit(limit).execute();
}

/** One code with its usage. */
export async function codeById(db: Kysely<DB>, id: bigint): Promise<CodeUsageRow | undefined> {
  return withUsage(db).where('c.id', '=', id).executeTakeFirst();
}

/** A code's redemptions, newest first (at most `limit`). */
export async function redemptionsOf(db: Kysely<DB>, codeId: bigint, limit: number): Promise<RedemptionRow[]> {
  return db
    .selectFrom('promo_redemptions as r')
    .leftJoin('operators as o', 'o.id', 'r.reversed_by')
    .select([
      'r.id',
      'r.code_id',
      'r.account_id',
      'r.segment',
      'r.chips',
      'r.hints',
      'r.no_ads_days',
      'r.redeemed_at',
      'r.reversed_at',
      'o.login as reversed_by_login',
    ])
    .where('r.code_id', '=', codeId)
    .orderBy('r.id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * Redemptions and reversals of every code per UTC day since `since` (days without any left out),
 * oldest first, and the chips the day's redemptions granted.
 */
export async function redemptionDays(db: Kysely<DB>, since: Date): Promise<CodeDayRow[]> {
  const { rows } = await sql<CodeDayRow>`
    with ev as (
      select (redeemed_at at time zone 'UTC')::date as day, 1 as redeemed, 0 as reversed, chips from promo_redemptions where redeemed_at >= ${since}
      union all
      select (reversed_at at time zone 'UTC')::date, 0, 1, 0 from promo_redemptions where reversed_at >= ${since}
    )
    select day::text as day, sum(redeemed)::bigint as redemptions, sum(reversed)::bigint as reversals, sum(chips)::bigint as chips
    from ev group by day order by day`.execute(db);
  return rows;
}

/** A redemption, its row locked FOR UPDATE (one reversal at a time, once), with its code's prefix. */
export async function lockRedemption(trx: Transaction<DB>, id: bigint): Promise<(LockedRedemption & { prefix: string }) | undefined> {
  const r = await trx
    .selectFrom('promo_redemptions')
    .select(['id', 'code_id', 'account_id', 'segment', 'chips', 'hints', 'no_ads_days', 'reversed_at'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (r === undefined) return undefined;
  const { prefix } = await trx.selectFrom('promo_codes').select('prefix').where('id', '=', r.code_id).executeTakeFirstOrThrow();
  return { ...r, prefix };
}

/** A redemption as a reversal reads it. */
export interface LockedRedemption {
  id: bigint;
  code_id: bigint;
  account_id: bigint;
  segment: Segment;
  chips: bigint;
  hints: bigint;
  no_ads_days: bigint;
  reversed_at: Date | null;
}

/** Marks a redemption reversed by `operatorId` at `at`. */
export async function markReversed(trx: Transaction<DB>, id: bigint, operatorId: bigint, at: Date): Promise<void> {
  await trx.updateTable('promo_redemptions').set({ reversed_at: at, reversed_by: operatorId }).where('id', '=', id).execute();
}

/** The hosts as stored (a fixed order, for display). */
export const HOSTS: readonly PromoHost[] = ['web', 'telegram', 'vk'];
