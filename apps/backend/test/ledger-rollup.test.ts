import fc from 'fast-check';
import { sql } from 'kysely';
import type { Database } from '../src/db/database.js';
import type { LedgerKind } from '../src/ledger/ledger.table.js';
import type { Segment } from '../src/gate/context.js';
import type { LedgerFilter } from '../src/console/ledger-filter.js';
import { CHIPS, ledgerTotals, type LedgerTotals } from '../src/console/ledger-query.js';
import { revenueReport, type RevenueLine } from '../src/console/revenue.js';
import { freshMigratedPostgres } from '../src/testing/databases.js';
import { orderProduct } from './support/orders.js';
import { newAccount } from './support/wallet.js';

/** Property runs on real servers take what a loaded machine gives them; the deadline only catches a hang. */
const PROPERTY_DEADLINE_MS = 600_000;

const DAY = 86_400_000;
const WALLETS: Segment[] = ['direct', 'telegram', 'vk'];
const KINDS: LedgerKind[] = ['grant', 'spend', 'purchase', 'refund'];

interface Row {
  accountId: bigint;
  kind: LedgerKind;
  segment: Segment;
  benefitOrigin: Segment | null;
  rail: string | null;
  chips: bigint;
  money: bigint | null;
  currency: string | null;
  productId?: bigint | null;
  at: Date;
}

/** The totals of `rows` under `f`, computed row by row (the oracle). */
function expected(rows: readonly Row[], f: LedgerFilter): LedgerTotals {
  const hit = rows.filter(
    (r) =>
      r.at >= f.from &&
      r.at < f.to &&
      (f.wallet === null || r.segment === f.wallet || r.benefitOrigin === f.wallet) &&
      (f.rail === null || r.rail === f.rail) &&
      (f.kind === null || r.kind === f.kind) &&
      (f.accountId === null || r.accountId === f.accountId),
  );
  const totals = new Map<string, { currency: string; amount: bigint; operations: bigint }>();
  const daily = new Map<string, { dayUnix: bigint; currency: string; amount: bigint }>();
  const add = (r: Row, currency: string, amount: bigint) => {
    const t = totals.get(currency) ?? { currency, amount: 0n, operations: 0n };
    t.amount += amount;
    t.operations += 1n;
    totals.set(currency, t);
    const dayUnix = BigInt(Math.floor(r.at.getTime() / DAY) * 86_400);
    const d = daily.get(`${dayUnix}|${currency}`) ?? { dayUnix, currency, amount: 0n };
    d.amount += amount;
    daily.set(`${dayUnix}|${currency}`, d);
  };
  for (const r of hit) {
    if (r.chips !== 0n) add(r, CHIPS, r.chips);
    if (r.currency !== null && r.money !== null) add(r, r.currency, r.money);
  }
  const order = (a: { currency: string }, b: { currency: string }) =>
    a.currency === b.currency ? 0 : a.currency === CHIPS ? -1 : b.currency === CHIPS ? 1 : a.currency < b.currency ? -1 : 1;
  return {
    matched: BigInt(hit.length),
    totals: [...totals.values()].sort(order),
    daily: [...daily.values()].sort((a, b) => (a.dayUnix === b.dayUnix ? order(a, b) : a.dayUnix < b.dayUnix ? -1 : 1)),
  };
}

async function insert(db: Database, r: Row): Promise<void> {
  await db.db
    .insertInto('ledger_operations')
    .values({
      account_id: r.accountId,
      kind: r.kind,
      segment: r.segment,
      benefit_origin: r.benefitOrigin,
      rail: r.rail,
      provider: r.rail,
      chips_delta: r.chips,
      money_minor: r.money,
      currency: r.currency,
      product_id: r.productId ?? null,
      created_at: r.at,
    })
    .execute();
}

/**
 * Console totals read whole closed days from the per-day rollup (migration 0040) and the rest from
 * the rows; for any filter they must equal the row-by-row totals, including after a row is
 * back-dated into a day that was already rolled up.
 */
describe('console ledger totals over the per-day rollup', () => {
  let database: Database;
  const rows: Row[] = [];
  const products: bigint[] = [];
  const now = Date.now();

  beforeAll(async () => {
    database = await freshMigratedPostgres();
    const accounts = [await newAccount(database.db), await newAccount(database.db)];
    const sample = fc.sample(
      fc.record({
        account: fc.nat(1),
        kind: fc.constantFrom(...KINDS),
        segment: fc.constantFrom(...WALLETS),
        origin: fc.option(fc.constantFrom(...WALLETS), { nil: null }),
        chips: fc.bigInt(-500n, 500n),
        money: fc.bigInt(-90_000n, 90_000n),
        ageMs: fc.integer({ min: 0, max: 40 * DAY }),
        product: fc.nat(2),
      }),
      { numRuns: 400, seed: 7 },
    );
    products.push(await orderProduct(database.db), await orderProduct(database.db));
    for (const s of sample) {
      const rail = s.kind === 'purchase' || s.kind === 'refund' ? (s.segment === 'telegram' ? 'telegram_stars' : 'yookassa') : null;
      const row: Row = {
        accountId: accounts[s.account] ?? 0n,
        kind: s.kind,
        segment: s.segment,
        benefitOrigin: s.origin,
        rail,
        chips: s.chips,
        money: rail === null ? null : s.money,
        currency: rail === null ? null : rail === 'telegram_stars' ? 'XTR' : 'RUB',
        productId: rail === null ? null : (products[s.product] ?? null),
        at: new Date(now - s.ageMs),
      };
      rows.push(row);
      await insert(database, row);
    }
  }, PROPERTY_DEADLINE_MS);
  afterAll(() => database.close());

  const filters = fc.record({
    fromAgo: fc.integer({ min: 0, max: 45 * DAY }),
    spanMs: fc.integer({ min: 1, max: 45 * DAY }),
    dayAligned: fc.boolean(),
    wallet: fc.option(fc.constantFrom(...WALLETS), { nil: null }),
    rail: fc.option(fc.constantFrom('yookassa', 'telegram_stars'), { nil: null }),
    kind: fc.option(fc.constantFrom(...KINDS), { nil: null }),
  });
  const toFilter = (x: {
    fromAgo: number;
    spanMs: number;
    dayAligned: boolean;
    wallet: Segment | null;
    rail: string | null;
    kind: LedgerKind | null;
  }): LedgerFilter => {
    let from = now - x.fromAgo;
    let to = from + x.spanMs + DAY;
    if (x.dayAligned) {
      from = Math.floor(from / DAY) * DAY;
      to = Math.ceil(to / DAY) * DAY;
    }
    return { from: new Date(from), to: new Date(to), wallet: x.wallet, rail: x.rail, kind: x.kind, accountId: null };
  };

  it(
    'equal the row-by-row totals for any range and filter (property)',
    async () => {
      await fc.assert(
        fc.asyncProperty(filters, async (x) => {
          const f = toFilter(x);
          expect(await ledgerTotals(database.db, f)).toEqual(expected(rows, f));
        }),
        { numRuns: 40 },
      );
      const rolled = await sql<{ n: bigint }>`select count(*) as n from ledger_rollup_days`.execute(database.db);
      expect(rolled.rows[0]?.n).toBeGreaterThan(0n);
    },
    PROPERTY_DEADLINE_MS,
  );

  it('a row back-dated into a rolled-up day invalidates that day, and the next query counts it', async () => {
    const f: LedgerFilter = {
      from: new Date(Math.floor((now - 30 * DAY) / DAY) * DAY),
      to: new Date(Math.ceil(now / DAY) * DAY + DAY),
      wallet: null,
      rail: null,
      kind: null,
      accountId: null,
    };
    await ledgerTotals(database.db, f);
    const day = new Date(Math.floor((now - 10 * DAY) / DAY) * DAY);
    const isRolled = async () =>
      (
        await sql<{ n: bigint }>`select count(*) as n from ledger_rollup_days where day = ${day.toISOString().slice(0, 10)}::date`.execute(
          database.db,
        )
      ).rows[0]?.n;
    expect(await isRolled()).toBe(1n);
    const late: Row = {
      ...(rows[0] as Row),
      kind: 'grant',
      rail: null,
      money: null,
      currency: null,
      chips: 777n,
      at: new Date(day.getTime() + 3_600_000),
    };
    rows.push(late);
    await insert(database, late);
    expect(await isRolled()).toBe(0n);
    expect(await ledgerTotals(database.db, f)).toEqual(expected(rows, f));
    expect(await isRolled()).toBe(1n);
  });

  it('a row dated now leaves the rollup alone (the hot path skips the trigger)', async () => {
    const f: LedgerFilter = {
      from: new Date(Math.floor((now - 20 * DAY) / DAY) * DAY),
      to: new Date(Math.ceil(Date.now() / DAY) * DAY + DAY),
      wallet: null,
      rail: null,
      kind: null,
      accountId: null,
    };
    await ledgerTotals(database.db, f);
    const before = (await sql<{ n: bigint }>`select count(*) as n from ledger_rollup_days`.execute(database.db)).rows[0]?.n;
    const fresh: Row = { ...(rows[0] as Row), kind: 'grant', rail: null, money: null, currency: null, chips: 5n, at: new Date() };
    rows.push(fresh);
    await insert(database, fresh);
    expect((await sql<{ n: bigint }>`select count(*) as n from ledger_rollup_days`.execute(database.db)).rows[0]?.n).toBe(before);
    expect(await ledgerTotals(database.db, f)).toEqual(expected(rows, f));
  });
  /** Revenue lines of `rows` over whole days [from, to), computed row by row (the oracle). */
  const expectedRevenue = (from: number, to: number): Omit<RevenueLine, 'title'>[] => {
    const lines = new Map<string, Omit<RevenueLine, 'title'>>();
    for (const r of rows) {
      const at = r.at.getTime();
      if (at < from || at >= to || r.currency === null || r.money === null || (r.kind !== 'purchase' && r.kind !== 'refund')) continue;
      const dayUnix = BigInt(Math.floor(at / DAY) * 86_400);
      const key = `${dayUnix}|${r.rail}|${r.productId}|${r.currency}`;
      const l = lines.get(key) ?? {
        dayUnix,
        rail: r.rail ?? '',
        productId: r.productId ?? 0n,
        currency: r.currency,
        gross: 0n,
        refunds: 0n,
        net: 0n,
        purchases: 0n,
        refundCount: 0n,
      };
      if (r.kind === 'purchase') {
        l.gross += r.money;
        l.purchases += 1n;
      } else {
        l.refunds -= r.money;
        l.refundCount += 1n;
      }
      l.net = l.gross - l.refunds;
      lines.set(key, l);
    }
    const cmp = (a: string | bigint, b: string | bigint) => (a < b ? -1 : a > b ? 1 : 0);
    return [...lines.values()].sort(
      (a, b) => cmp(a.dayUnix, b.dayUnix) || cmp(a.rail, b.rail) || cmp(a.productId, b.productId) || cmp(a.currency, b.currency),
    );
  };
  const withoutTitles = (lines: RevenueLine[]) => lines.map(({ title: _title, ...l }) => l);

  it(
    'revenue per day, rail, product and currency (rollup for closed days, rows for today) equals the rows (property)',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 45 }), fc.integer({ min: 1, max: 45 }), async (startAgo, days) => {
          const from = Math.floor(now / DAY) * DAY - startAgo * DAY;
          const to = from + days * DAY;
          const report = await revenueReport(database.db, new Date(from), new Date(to));
          expect(withoutTitles(report.lines)).toEqual(expectedRevenue(from, to));
          expect(report.rollupEnd.getTime()).toBeLessThanOrEqual(Math.max(from, Math.min(to, Math.floor(now / DAY) * DAY)));
        }),
        { numRuns: 25 },
      );
      const byProduct = await sql<{
        n: bigint;
      }>`select count(distinct product_id) as n from ledger_daily_totals where product_id is not null`.execute(database.db);
      expect(byProduct.rows[0]?.n).toBe(2n);
    },
    PROPERTY_DEADLINE_MS,
  );

  it('a purchase back-dated into a rolled-up day is counted in its product once the day is rebuilt', async () => {
    const from = Math.floor(now / DAY) * DAY - 30 * DAY;
    const to = Math.floor(now / DAY) * DAY + DAY;
    await revenueReport(database.db, new Date(from), new Date(to));
    const late: Row = {
      ...(rows[0] as Row),
      kind: 'purchase',
      rail: 'yookassa',
      currency: 'RUB',
      money: 12_345n,
      chips: 10n,
      productId: products[1] ?? null,
      at: new Date(Math.floor((now - 12 * DAY) / DAY) * DAY + 7_200_000),
    };
    rows.push(late);
    await insert(database, late);
    const report = await revenueReport(database.db, new Date(from), new Date(to));
    expect(withoutTitles(report.lines)).toEqual(expectedRevenue(from, to));
    expect(report.lines.find((l) => l.productId === products[1])?.title).toBe('Test pack');
  });
});
