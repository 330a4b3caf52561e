import type { ServiceImpl } from '@connectrpc/connect';
import type { Kysely } from 'kysely';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { listProducts, textOf } from '../catalog/index.js';
import type { DB } from '../db/index.js';
import { rollUpClosedDays } from '../ledger/index.js';
import { requireRole } from '../operators/index.js';
import { DomainError } from '../rpc/index.js';
import type { Clock } from '../support/index.js';
import { ceilUtcDay, floorUtcDay } from './daily-totals.js';
import { rolledUpRevenue, rowRevenue, type RevenueGroup } from './revenue.store.js';

const DAY_MS = 86_400_000;
/** The default range: the last 30 UTC days, today included. */
export const REVENUE_DEFAULT_DAYS = 30;
/** The longest range one query covers. */
export const REVENUE_MAX_DAYS = 366;
const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(9999, 0, 1);

/** One (UTC day, rail, product, currency) line: purchases (gross), refunds and their difference (net). */
export interface RevenueLine {
  dayUnix: bigint;
  rail: string;
  productId: bigint;
  title: string;
  currency: string;
  gross: bigint;
  refunds: bigint;
  net: bigint;
  purchases: bigint;
  refundCount: bigint;
}

/** A revenue report over [from, to), whole UTC days; days before `rollupEnd` were read from the rollup. */
export interface RevenueReport {
  from: Date;
  to: Date;
  rollupEnd: Date;
  lines: RevenueLine[];
}

/** The range asked for, in whole UTC days: 0 means the default (the last 30 days, today included). */
export function revenueRange(fromUnix: bigint, toUnix: bigint, now: Date): { from: Date; to: Date } {
  if (fromUnix < 0n || toUnix < 0n) throw new DomainError('invalid_filter', 'the range is two dates');
  const to = toUnix === 0n ? new Date(floorUtcDay(now).getTime() + DAY_MS) : ceilUtcDay(new Date(Number(toUnix) * 1000));
  const from = fromUnix === 0n ? new Date(to.getTime() - REVENUE_DEFAULT_DAYS * DAY_MS) : floorUtcDay(new Date(Number(fromUnix) * 1000));
  if (!(from.getTime() >= EARLIEST && to.getTime() <= LATEST)) throw new DomainError('invalid_filter', 'the range is out of bounds');
  if (from >= to) throw new DomainError('invalid_filter', 'the range starts before it ends');
  if (to.getTime() - from.getTime() > REVENUE_MAX_DAYS * DAY_MS)
    throw new DomainError('invalid_filter', `a range covers at most ${REVENUE_MAX_DAYS} days`);
  return { from, to };
}

/**
 * Revenue per UTC day, rail, product and currency over [from, to): whole closed days from the
 * ledger's daily rollup (rolled up on demand, product included), the days not closed yet (today)
 * from the ledger rows, as the ledger page's totals do. Purchases are gross; refunds are what went
 * back (positive); net is their difference. Currencies are never summed together: each line is one.
 */
export async function revenueReport(db: Kysely<DB>, from: Date, to: Date): Promise<RevenueReport> {
  const closedEnd = await rollUpClosedDays(db, from, to);
  const rollupEnd = closedEnd < from ? from : closedEnd > to ? to : closedEnd;
  const [rolled, rows] = await Promise.all([
    rollupEnd > from ? rolledUpRevenue(db, from, rollupEnd) : Promise.resolve([]),
    rollupEnd < to ? rowRevenue(db, rollupEnd, to) : Promise.resolve([]),
  ]);
  const lines = new Map<string, RevenueLine>();
  const add = (g: RevenueGroup) => {
    const productId = g.product_id === null ? 0n : BigInt(g.product_id);
    const rail = g.rail ?? '';
    const key = `${g.day}|${rail}|${productId}|${g.currency}`;
    const line = lines.get(key) ?? {
      dayUnix: BigInt(g.day),
      rail,
      productId,
      title: '',
      currency: g.currency,
      gross: 0n,
      refunds: 0n,
      net: 0n,
      purchases: 0n,
      refundCount: 0n,
    };
    const money = BigInt(g.money);
    if (g.kind === 'purchase') {
      line.gross += money;
      line.purchases += BigInt(g.n);
    } else {
      line.refunds -= money;
      line.refundCount += BigInt(g.n);
    }
    line.net = line.gross - line.refunds;
    lines.set(key, line);
  };
  for (const g of [...rolled, ...rows]) add(g);
  const ids = [...new Set([...lines.values()].map((l) => l.productId).filter((id) => id !== 0n))];
  const products = ids.length === 0 ? [] : await listProducts(db, { includeInactive: true, ids });
  for (const l of lines.values()) {
    const p = products.find((x) => x.id === l.productId);
    l.title = p ? textOf(p, 'en').title : '';
  }
  const cmp = (a: string | bigint, b: string | bigint) => (a < b ? -1 : a > b ? 1 : 0);
  const sorted = [...lines.values()].sort(
    (a, b) => cmp(a.dayUnix, b.dayUnix) || cmp(a.rail, b.rail) || cmp(a.productId, b.productId) || cmp(a.currency, b.currency),
  );
  return { from, to, rollupEnd, lines: sorted };
}

const unix = (d: Date) => BigInt(Math.floor(d.getTime() / 1000));

/** backend.v1.RevenueService: the revenue page's report (viewer, checked here whatever the gateway checked). */
export function revenueService(deps: { db: Kysely<DB>; now: Clock }): ServiceImpl<typeof backendApi.RevenueService> {
  return {
    async queryRevenue(req, ctx) {
      await requireRole(deps.db, ctx.requestHeader, 'viewer', 'revenue_view', deps.now());
      const q = decodeTable(
        req.body,
        (bb) => fb.RevenueQuery.getRootAsRevenueQuery(bb),
        (t) => ({ fromUnix: t.fromUnix(), toUnix: t.toUnix() }),
      );
      const { from, to } = revenueRange(q.fromUnix, q.toUnix, deps.now());
      const report = await revenueReport(deps.db, from, to);
      return {
        body: encodeTable((b) => {
          const rows = report.lines.map((l) =>
            fb.RevenueRow.createRevenueRow(
              b,
              l.dayUnix,
              b.createString(l.rail),
              l.productId,
              b.createString(l.title),
              b.createString(l.currency),
              l.gross,
              l.refunds,
              l.net,
              l.purchases,
              l.refundCount,
            ),
          );
          const vector = fb.RevenueReport.createRowsVector(b, rows);
          return fb.RevenueReport.createRevenueReport(b, vector, unix(report.from), unix(report.to), unix(report.rollupEnd));
        }),
      };
    },
  };
}
