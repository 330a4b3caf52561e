import fc from 'fast-check';
import { createLogger } from '@wordgame/logging';
import { upsertProduct } from '../src/catalog/catalog.store.js';
import type { Database } from '../src/db/database.js';
import { SEGMENTS, parsePlatformHeader, type Segment } from '../src/gate/context.js';
import { gate } from '../src/gate/gate.js';
import { useHint } from '../src/game/hint.js';
import { auditLedger } from '../src/ledger/audit.js';
import { postMakeGood } from '../src/ledger/postings/make-good.js';
import type { OrderRow } from '../src/payments/orders/orders.store.js';
import type { Caller } from '../src/rpc/caller.js';
import { freshMigratedPostgres } from '../src/testing/databases.js';
import { buy } from '../src/wallet/buy.js';
import { drawInOrder } from '../src/wallet/draw.js';
import { errorOf } from './support/harness.js';
import { gameToHintIn, walletHintDeps } from './support/hints.js';
import { fullRefund, orderProduct, paidOrder } from './support/orders.js';
import { newAccount } from './support/wallet.js';

const DAY = 86_400_000;
const CONTEXTS = ['direct;web', 'direct;ios', 'telegram', 'vk;android'] as const;
/** A context whose spend reaches this segment first (direct;web draws direct alone while the others hold nothing). */
const SPENDS_ONLY: Record<Segment, string> = { direct: 'direct;web', telegram: 'telegram', vk: 'vk;android' };

type Step =
  | { kind: 'credit'; segment: Segment; chips: bigint; hints: bigint; days: bigint; forever: boolean }
  | { kind: 'buy'; context: (typeof CONTEXTS)[number]; price: bigint }
  | { kind: 'hint'; context: (typeof CONTEXTS)[number] }
  | { kind: 'refund'; pick: number }
  | { kind: 'makeGood'; segment: Segment; chips: bigint; hints: bigint; days: bigint };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('credit' as const),
      segment: fc.constantFrom(...SEGMENTS),
      chips: fc.bigInt(0n, 120n),
      hints: fc.bigInt(0n, 3n),
      days: fc.bigInt(0n, 3n),
      forever: fc.boolean(),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('buy' as const), context: fc.constantFrom(...CONTEXTS), price: fc.bigInt(1n, 100n) }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('hint' as const), context: fc.constantFrom(...CONTEXTS) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('refund' as const), pick: fc.nat() }), weight: 3 },
  {
    arbitrary: fc.record({
      kind: fc.constant('makeGood' as const),
      segment: fc.constantFrom(...SEGMENTS),
      chips: fc.bigInt(0n, 120n),
      hints: fc.bigInt(0n, 3n),
      days: fc.bigInt(0n, 3n),
    }),
    weight: 2,
  },
);

function caller(accountId: bigint, header: string): Caller {
  const platform = parsePlatformHeader(header);
  if (platform === null) throw new Error(`bad test platform ${header}`);
  return { accountId, platform };
}

/**
 * From optional starting debts (a pack credited, spent and fully refunded per segment), random
 * sequences of pack credits, chip buys, wallet hints, full refunds and operators' make-goods across
 * the three segments of one account (PostgreSQL): every refund reverses its pack's chips and hints exactly
 * (debts allowed), every buy draws exactly what the draw rules give with debts counting as nothing
 * (never from a segment in debt), every hint comes from the first origin that holds one, and the
 * ledger audit is clean after each sequence; a make-good adds its chips and hints whatever the
 * balance (paying a debt off first).
 */
describe('wallet debts under random credits, buys, hints and refunds', () => {
  let pg: Database;
  let productId: bigint;
  const products = new Map<bigint, bigint>();
  const logger = createLogger('wallet-debt-property', 'silent');
  beforeAll(async () => {
    pg = await freshMigratedPostgres();
    productId = await orderProduct(pg.db);
  });
  afterAll(() => pg.close());

  const db = () => pg.db;
  const spendProduct = async (price: bigint) => {
    const known = products.get(price);
    if (known !== undefined) return known;
    const p = await upsertProduct(
      db(),
      {
        id: 0n,
        title: `Spend ${price}`,
        active: true,
        atoms: [{ kind: 'hints', quantity: 1n }],
        prices: [{ method: 'chips', amount: price, currency: 'CHIPS' }],
      },
      new Date(),
    );
    products.set(price, p.id);
    return p.id;
  };
  const balances = async (id: bigint) =>
    new Map(
      (await db().selectFrom('wallet_segments').select(['segment', 'balance']).where('account_id', '=', id).execute()).map((r) => [
        r.segment,
        r.balance,
      ]),
    );
  const benefits = async (id: bigint) =>
    new Map((await db().selectFrom('benefits').selectAll().where('account_id', '=', id).execute()).map((r) => [r.origin, r]));

  it('reverses every refunded pack exactly, never spends from a debt, adds every make-good, and keeps the audit clean (150 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(fc.bigInt(0n, 80n), fc.bigInt(0n, 80n), fc.bigInt(0n, 80n)),
        fc.array(step, { minLength: 1, maxLength: 20 }),
        async (debts, steps) => {
          const id = await newAccount(db());
          const deps = walletHintDeps(db(), logger);
          let game: bigint | null = null;
          const open: OrderRow[] = [];
          for (const [i, owed] of debts.entries()) {
            const segment = SEGMENTS[i];
            if (segment === undefined || owed === 0n) continue;
            const order = await paidOrder(db(), productId, id, segment, { chips: owed });
            await buy(db(), caller(id, SPENDS_ONLY[segment]), await spendProduct(owed), null, new Date());
            await fullRefund(db(), logger, order.id);
            expect((await balances(id)).get(segment)).toBe(-owed);
          }
          for (const s of steps) {
            if (s.kind === 'credit') {
              open.push(
                await paidOrder(db(), productId, id, s.segment, {
                  chips: s.chips,
                  hints: s.hints,
                  noAdsDays: s.days,
                  noAdsForever: s.forever,
                }),
              );
            } else if (s.kind === 'buy') {
              const who = caller(id, s.context);
              const before = await balances(id);
              const expected = drawInOrder(before, gate({ ...who.platform, emailConfirmed: false }).spendOrder, s.price);
              const outcome = await buy(db(), who, await spendProduct(s.price), null, new Date()).catch((e: unknown) => e);
              const after = await balances(id);
              if (expected === null) {
                expect(outcome).toMatchObject({ code: 'insufficient_chips' });
                expect(after).toEqual(before);
                continue;
              }
              expect(outcome).toMatchObject({ draws: expected });
              for (const d of expected) {
                expect((before.get(d.segment) ?? 0n) >= d.amount).toBe(true);
                expect(after.get(d.segment)).toBe((before.get(d.segment) ?? 0n) - d.amount);
              }
              for (const [segment, balance] of before) if (balance <= 0n) expect(after.get(segment)).toBe(balance);
            } else if (s.kind === 'makeGood') {
              if (s.chips + s.hints + s.days === 0n) continue;
              const balanceBefore = (await balances(id)).get(s.segment) ?? 0n;
              const hintsBefore = (await benefits(id)).get(s.segment)?.hints ?? 0n;
              const posted = await db()
                .transaction()
                .execute((trx) =>
                  postMakeGood(
                    trx,
                    { accountId: id, segment: s.segment, chips: s.chips, hints: s.hints, noAdsDays: s.days, note: 'property' },
                    new Date(),
                  ),
                );
              expect((await balances(id)).get(s.segment) ?? 0n).toBe(balanceBefore + s.chips);
              expect(posted.balance).toBe(s.chips > 0n ? balanceBefore + s.chips : null);
              expect((await benefits(id)).get(s.segment)?.hints ?? 0n).toBe(hintsBefore + s.hints);
            } else if (s.kind === 'hint') {
              const who = caller(id, s.context);
              game ??= await gameToHintIn(deps, caller(id, 'direct;web'));
              const before = await benefits(id);
              const from = gate({ ...who.platform, emailConfirmed: false }).spendOrder.find((o) => (before.get(o)?.hints ?? 0n) > 0n);
              const outcome = await useHint(deps, who, game).catch((e: unknown) => e);
              const after = await benefits(id);
              if (from === undefined) {
                expect(errorOf(outcome).errorCode).toBe('no_hints_left');
                for (const [origin, b] of before) expect(after.get(origin)?.hints).toBe(b.hints);
                continue;
              }
              expect(outcome).toMatchObject({ hint: { source: 'wallet', benefitOrigin: from } });
              expect(after.get(from)?.hints).toBe((before.get(from)?.hints ?? 0n) - 1n);
            } else if (open.length > 0) {
              const [order] = open.splice(s.pick % open.length, 1);
              if (!order) throw new Error('no order picked');
              const balanceBefore = (await balances(id)).get(order.segment) ?? 0n;
              const benefitBefore = (await benefits(id)).get(order.segment);
              expect(await fullRefund(db(), logger, order.id)).toBe('recorded');
              expect((await balances(id)).get(order.segment)).toBe(balanceBefore - order.chips);
              const benefitAfter = (await benefits(id)).get(order.segment);
              expect(benefitAfter?.hints ?? 0n).toBe((benefitBefore?.hints ?? 0n) - order.hints);
              const until = benefitBefore?.no_ads_until;
              expect(benefitAfter?.no_ads_until?.getTime()).toBe(until ? until.getTime() - Number(order.no_ads_days) * DAY : undefined);
              if (order.no_ads_forever)
                expect(benefitAfter?.no_ads_forever).toBe(open.some((o) => o.segment === order.segment && o.no_ads_forever));
              const row = await db()
                .selectFrom('ledger_operations')
                .select(['chips_delta', 'hints_delta'])
                .where('order_id', '=', order.id)
                .where('kind', '=', 'refund')
                .executeTakeFirstOrThrow();
              expect(row).toEqual({ chips_delta: -order.chips, hints_delta: -order.hints });
            }
          }
          expect((await auditLedger(db())).problems).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  }, 240_000);
});
