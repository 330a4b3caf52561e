import type { Kysely } from 'kysely';
import type { DB } from '../db/index.js';
import { isoOrNull, type JsonValue } from '../support/index.js';

/** The export's `wallet` section: each segment's chips and each origin's benefits (below zero is a debt). */
export async function walletSection(db: Kysely<DB>, accountId: bigint): Promise<JsonValue> {
  const segments = await db
    .selectFrom('wallet_segments')
    .select(['segment', 'balance'])
    .where('account_id', '=', accountId)
    .orderBy('segment')
    .execute();
  const benefits = await db
    .selectFrom('benefits')
    .select(['origin', 'no_ads_until', 'no_ads_forever', 'hints'])
    .where('account_id', '=', accountId)
    .orderBy('origin')
    .execute();
  return {
    segments: segments.map((s) => ({ segment: s.segment, chips: s.balance.toString() })),
    benefits: benefits.map((b) => ({
      origin: b.origin,
      no_ads_until: isoOrNull(b.no_ads_until),
      no_ads_forever: b.no_ads_forever,
      hints: b.hints.toString(),
    })),
  };
}

/** The export's `ledger` section: every ledger operation of the account, oldest first; money in minor units. */
export async function ledgerSection(db: Kysely<DB>, accountId: bigint): Promise<JsonValue> {
  const rows = await db.selectFrom('ledger_operations').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  return rows.map((r) => ({
    id: r.id.toString(),
    kind: r.kind,
    segment: r.segment,
    benefit_origin: r.benefit_origin,
    rail: r.rail,
    provider: r.provider,
    order_id: r.order_id,
    product_id: r.product_id?.toString() ?? null,
    chips_delta: r.chips_delta.toString(),
    money_minor: r.money_minor?.toString() ?? null,
    currency: r.currency,
    hints_delta: r.hints_delta.toString(),
    no_ads_days: r.no_ads_days.toString(),
    no_ads_forever: r.no_ads_forever,
    refund_id: r.refund_id,
    note: r.note,
    created_at: r.created_at.toISOString(),
  }));
}
