import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { runPrepared, type DB } from '../../db/index.js';
import { spenderRow } from './spender.js';

/**
 * wallet.buy as one SQL statement (one round trip, its own transaction). Parameters:
 * $1 account id, $2 product id, $3 Idempotency-Key or null, $4 the gate's spend order (text[]),
 * $5 the visible segments (text[]), $6 the view flags of the context (jsonb: spendOrder, canSpend,
 * frozen, trusted), $7 now (timestamptz).
 *
 * A segment in debt (balance below zero, left by a full refund) is spendable as 0: nothing is
 * drawn from it and its debt does not reduce what the other segments can pay.
 *
 * Order of work, forced by data dependencies between the CTEs: the account row is locked FOR
 * SHARE and its status read (spender.ts: a deleted account is `caller_required`, a blocked one
 * `account_suspended`, decided on the row as it is once locked, so a block that committed a moment
 * ago is seen), then the account's segment rows are locked (FOR UPDATE, segment order), then its
 * benefit rows (origin order, the same order every other writer uses), then the outcome is decided, then (only when it is `ok`) the key is claimed
 * with the result stored, and only when the claim took (or there is no key) are segments debited,
 * one `spend` ledger row appended per segment drawn (benefits on the largest draw's row) and the
 * benefits granted. A refused purchase writes nothing. What the product grants is catalog's packGrant
 * rule (each kind's quantities summed), read here in SQL; test/pack-grant.test.ts holds the two together.
 *
 * `stale`: a row locked here was changed by a transaction that committed after this statement's
 * snapshot, so values read from the snapshot may be out of date; nothing is written and the
 * caller re-runs the statement after taking the locks first (LOCK_ACCOUNT), when the snapshot is
 * taken under the locks. Statuses: ok, replay, stale, caller_required, account_suspended,
 * idempotency_key_reused, unknown_product, not_sold_for_chips, offer_not_available (outside the
 * product's window at $7), purchase_limit_reached, insufficient_chips.
 *
 * Offers and limits: the window is two columns of the product row already read. The purchase
 * limit is counted only for a product that has one (`bought` reads no row otherwise): the
 * account's chips purchases of it (its `spend` rows carrying the benefit origin, one per purchase)
 * plus its paid and live pending orders of it, since the start of the UTC period holding $7. Two
 * racing buys of one account serialise on its segment locks, and the second runs again (`stale`)
 * with a snapshot that sees the first. `result` is the stored purchase JSON
 * (see purchase-record.ts) for ok and replay.
 */
export const BUY_STATEMENT = `
WITH
acct AS MATERIALIZED (
  SELECT status <> 'deleted' AS live, status = 'suspended' AND (suspended_until IS NULL OR suspended_until > $7::timestamptz) AS suspended FROM accounts WHERE id = $1::bigint FOR SHARE
),
seg AS MATERIALIZED (
  SELECT segment, balance, xmin::text AS v FROM wallet_segments
  WHERE account_id = $1::bigint AND (SELECT count(*) FROM acct) >= 0 ORDER BY segment FOR UPDATE
),
ben AS MATERIALIZED (
  SELECT origin, no_ads_until, no_ads_forever, hints, xmin::text AS v FROM benefits
  WHERE account_id = $1::bigint AND (SELECT count(*) FROM seg) >= 0 ORDER BY origin FOR UPDATE
),
stale AS (
  SELECT EXISTS (SELECT 1 FROM seg JOIN wallet_segments w ON w.account_id = $1::bigint AND w.segment = seg.segment WHERE w.xmin::text <> seg.v)
      OR EXISTS (SELECT 1 FROM ben JOIN benefits b ON b.account_id = $1::bigint AND b.origin = ben.origin WHERE b.xmin::text <> ben.v) AS stale
),
prior AS (
  SELECT product_id, result FROM buy_requests WHERE account_id = $1::bigint AND idempotency_key = $3::text
),
product AS (
  SELECT p.id, pr.amount AS price,
         coalesce(sum(a.quantity) FILTER (WHERE a.kind = 'hints'), 0)::bigint AS hints,
         coalesce(sum(a.quantity) FILTER (WHERE a.kind = 'no_ads_days'), 0)::bigint AS days,
         coalesce(bool_or(a.kind = 'no_ads_forever'), false) AS forever,
         (p.available_from IS NULL OR p.available_from <= $7::timestamptz)
           AND (p.available_until IS NULL OR $7::timestamptz < p.available_until) AS on_offer,
         p.purchase_limit, p.purchase_limit_period
  FROM catalog_products p
  LEFT JOIN catalog_prices pr ON pr.product_id = p.id AND pr.method = 'chips' AND p.subscription_period IS NULL
  LEFT JOIN catalog_product_atoms pa ON pa.product_id = p.id
  LEFT JOIN catalog_atoms a ON a.id = pa.atom_id
  WHERE p.id = $2::bigint AND p.active
  GROUP BY p.id, pr.amount
),
bought AS (
  SELECT (SELECT count(*) FROM ledger_operations l
           WHERE l.account_id = $1::bigint AND l.created_at >= w.since AND l.kind = 'spend'
             AND l.product_id = $2::bigint AND l.benefit_origin IS NOT NULL)
       + (SELECT count(*) FROM orders o
           WHERE o.account_id = $1::bigint AND o.product_id = $2::bigint AND o.created_at >= w.since
             AND (o.state = 'paid' OR (o.state = 'pending' AND o.expires_at > $7::timestamptz))) AS n
  FROM (
    SELECT CASE purchase_limit_period
             WHEN 'ever' THEN '-infinity'::timestamptz
             ELSE date_trunc(purchase_limit_period, $7::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' END AS since
    FROM product WHERE purchase_limit IS NOT NULL
  ) w
),
held AS (
  SELECT o.segment, o.ord, greatest(coalesce(s.balance, 0), 0)::bigint AS spendable
  FROM unnest($4::text[]) WITH ORDINALITY AS o(segment, ord)
  LEFT JOIN seg s ON s.segment = o.segment
),
draws AS (
  SELECT h.segment, h.ord,
         least(h.spendable, greatest(pr.price - coalesce(sum(h.spendable) OVER w, 0), 0))::bigint AS amount
  FROM held h
  CROSS JOIN product pr
  WINDOW w AS (ORDER BY h.ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
drawn AS (SELECT segment, ord, amount FROM draws WHERE amount > 0),
origin AS (SELECT segment AS origin FROM drawn ORDER BY amount DESC, ord LIMIT 1),
status AS (
  SELECT CASE
    WHEN NOT EXISTS (SELECT 1 FROM seg) OR NOT coalesce((SELECT live FROM acct), false) THEN 'caller_required'
    WHEN (SELECT suspended FROM acct) THEN 'account_suspended'
    WHEN (SELECT stale FROM stale) THEN 'stale'
    WHEN EXISTS (SELECT 1 FROM prior) THEN CASE WHEN (SELECT product_id FROM prior) = $2::bigint THEN 'replay' ELSE 'idempotency_key_reused' END
    WHEN NOT EXISTS (SELECT 1 FROM product) THEN 'unknown_product'
    WHEN (SELECT price FROM product) IS NULL THEN 'not_sold_for_chips'
    WHEN NOT (SELECT on_offer FROM product) THEN 'offer_not_available'
    WHEN coalesce((SELECT n FROM bought), 0) >= (SELECT purchase_limit FROM product) THEN 'purchase_limit_reached'
    WHEN coalesce((SELECT sum(amount) FROM drawn), 0) < (SELECT price FROM product) THEN 'insufficient_chips'
    ELSE 'ok' END AS status
),
grant_ AS (
  SELECT o.origin, pr.hints, pr.days, pr.forever FROM origin o CROSS JOIN product pr
  WHERE pr.hints > 0 OR pr.days > 0 OR pr.forever
),
newben AS (
  SELECT g.origin,
         CASE WHEN g.days > 0 THEN greatest(coalesce(b.no_ads_until, $7::timestamptz), $7::timestamptz) + (g.days * 86400) * interval '1 second'
              ELSE b.no_ads_until END AS no_ads_until,
         coalesce(b.no_ads_forever, false) OR g.forever AS no_ads_forever,
         coalesce(b.hints, 0) + g.hints AS hints
  FROM grant_ g LEFT JOIN ben b ON b.origin = g.origin
),
after AS (
  SELECT origin, no_ads_until, no_ads_forever, hints FROM newben
  UNION ALL
  SELECT origin, no_ads_until, no_ads_forever, hints FROM ben WHERE origin NOT IN (SELECT origin FROM newben)
),
outcome AS (
  SELECT jsonb_build_object(
    'productId', $2::bigint::text,
    'price', (SELECT price FROM product)::text,
    'draws', coalesce((SELECT jsonb_agg(jsonb_build_object('segment', segment, 'amount', amount::text) ORDER BY ord) FROM drawn), '[]'::jsonb),
    'benefitOrigin', (SELECT origin FROM origin),
    'wallet', jsonb_build_object(
      'segments', coalesce((
        SELECT jsonb_agg(jsonb_build_object('segment', v.segment, 'balance', (coalesce(s.balance, 0) - coalesce(d.amount, 0))::text) ORDER BY v.ord)
        FROM unnest($5::text[]) WITH ORDINALITY AS v(segment, ord)
        LEFT JOIN seg s ON s.segment = v.segment
        LEFT JOIN drawn d ON d.segment = v.segment), '[]'::jsonb),
      'benefits', coalesce((
        SELECT jsonb_agg(jsonb_build_object('origin', x.origin, 'noAdsUntil', x.no_ads_until, 'noAdsForever', x.no_ads_forever, 'hints', x.hints::text) ORDER BY v.ord)
        FROM unnest($5::text[]) WITH ORDINALITY AS v(segment, ord)
        JOIN after x ON x.origin = v.segment), '[]'::jsonb)
    ) || $6::jsonb
  ) AS result
),
claim AS (
  INSERT INTO buy_requests (account_id, idempotency_key, product_id, result)
  SELECT $1::bigint, $3::text, $2::bigint, o.result FROM outcome o
  WHERE $3::text IS NOT NULL AND (SELECT status FROM status) = 'ok'
  ON CONFLICT DO NOTHING
  RETURNING 1 AS claimed
),
go AS (
  SELECT 1 AS go WHERE (SELECT status FROM status) = 'ok' AND ($3::text IS NULL OR EXISTS (SELECT 1 FROM claim))
),
debit AS (
  UPDATE wallet_segments w SET balance = w.balance - d.amount
  FROM drawn d, go
  WHERE w.account_id = $1::bigint AND w.segment = d.segment
  RETURNING w.segment
),
spend AS (
  INSERT INTO ledger_operations (account_id, kind, segment, product_id, chips_delta, created_at, benefit_origin, hints_delta, no_ads_days, no_ads_forever)
  SELECT $1::bigint, 'spend', d.segment, $2::bigint, -d.amount, $7::timestamptz,
         CASE WHEN d.segment = o.origin THEN o.origin END,
         CASE WHEN d.segment = o.origin THEN pr.hints ELSE 0 END,
         CASE WHEN d.segment = o.origin THEN pr.days ELSE 0 END,
         d.segment = o.origin AND pr.forever
  FROM drawn d CROSS JOIN origin o CROSS JOIN product pr CROSS JOIN go
  ORDER BY d.ord
  RETURNING id
),
granted AS (
  INSERT INTO benefits AS b (account_id, origin, no_ads_until, no_ads_forever, hints)
  SELECT $1::bigint, g.origin, CASE WHEN g.days > 0 THEN $7::timestamptz + (g.days * 86400) * interval '1 second' END, g.forever, g.hints
  FROM grant_ g CROSS JOIN go
  ON CONFLICT (account_id, origin) DO UPDATE SET
    no_ads_until = CASE WHEN (SELECT days FROM grant_) > 0
                        THEN greatest(coalesce(b.no_ads_until, $7::timestamptz), $7::timestamptz) + ((SELECT days FROM grant_) * 86400) * interval '1 second'
                        ELSE b.no_ads_until END,
    no_ads_forever = b.no_ads_forever OR excluded.no_ads_forever,
    hints = b.hints + excluded.hints
  RETURNING origin
)
SELECT s.status,
       CASE s.status WHEN 'ok' THEN (SELECT result FROM outcome) WHEN 'replay' THEN (SELECT result FROM prior) END AS result,
       (SELECT count(*) FROM go) AS went,
       (SELECT count(*) FROM debit) AS debited,
       (SELECT count(*) FROM spend) AS appended,
       (SELECT count(*) FROM granted) AS granted
FROM status s
`;

/**
 * Locks an account's row (FOR SHARE), its segment rows, then its benefit rows, in the statement's
 * order; run first in a transaction so BUY_STATEMENT's snapshot is taken under the locks (it can
 * then not be stale). Parameters: $1 account id, $2 now (timestamptz).
 */
export const LOCK_ACCOUNT = `
WITH
acct AS MATERIALIZED (${spenderRow('$1', '$2')}),
seg AS MATERIALIZED (
  SELECT segment FROM wallet_segments WHERE account_id = $1::bigint AND (SELECT count(*) FROM acct) >= 0 ORDER BY segment FOR UPDATE
),
ben AS MATERIALIZED (
  SELECT origin FROM benefits WHERE account_id = $1::bigint AND (SELECT count(*) FROM seg) >= 0 ORDER BY origin FOR UPDATE
)
SELECT (SELECT count(*) FROM seg) AS segments, (SELECT count(*) FROM ben) AS benefits
`;

/** One row of BUY_STATEMENT. */
export interface BuyRow {
  status: string;
  result: unknown;
  went: bigint;
  debited: bigint;
  appended: bigint;
  granted: bigint;
}

/** Runs BUY_STATEMENT as its own transaction (the named prepared statement `wallet_buy`, one round trip); its one row. */
export async function runBuy(db: Kysely<DB>, values: readonly unknown[]): Promise<BuyRow> {
  return onlyRow(await runPrepared<BuyRow>(db, 'wallet_buy', BUY_STATEMENT, values));
}

/**
 * Runs BUY_STATEMENT inside `trx` after LOCK_ACCOUNT took the account's locks, so its snapshot is
 * taken under them: the re-run of a `stale` buy. `accountId` and `now` are BUY_STATEMENT's $1 and $7.
 */
export async function runBuyUnderLocks(trx: Transaction<DB>, accountId: bigint, now: Date, values: readonly unknown[]): Promise<BuyRow> {
  await trx.executeQuery(CompiledQuery.raw(LOCK_ACCOUNT, [accountId, now]));
  return onlyRow((await trx.executeQuery<BuyRow>(CompiledQuery.raw(BUY_STATEMENT, [...values]))).rows);
}

function onlyRow(rows: readonly BuyRow[]): BuyRow {
  const row = rows[0];
  if (!row) throw new Error('wallet.buy statement returned no row');
  return row;
}
