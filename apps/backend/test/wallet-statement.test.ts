import fc from 'fast-check';
import { migrateToLatest } from '../src/db/migrate.js';
import type { Database } from '../src/db/database.js';
import { upsertProduct } from '../src/catalog/catalog.store.js';
import { gate } from '../src/gate/gate.js';
import { parsePlatformHeader, type Segment } from '../src/gate/context.js';
import { auditLedger } from '../src/ledger/audit.js';
import { grantChips } from '../src/ledger/postings/append.js';
import { freshPostgres } from '../src/testing/databases.js';
import { buy } from '../src/wallet/buy.js';
import { benefitOriginOf, drawInOrder } from '../src/wallet/draw.js';
import { newAccount } from './support/wallet.js';

/** Property runs on real servers take what a loaded machine gives them; the deadline only catches a hang. */
const PROPERTY_DEADLINE_MS = 600_000;

const CONTEXTS = ['direct;web', 'direct', 'direct;android', 'telegram', 'telegram;ios', 'vk;android'] as const;

function caller(accountId: bigint, header: string) {
  const platform = parsePlatformHeader(header);
  if (platform === null) throw new Error(`bad test platform ${header}`);
  return { accountId, platform };
}

async function product(db: Database, price: bigint, hints: bigint): Promise<bigint> {
  const p = await upsertProduct(
    db.db,
    {
      id: 0n,
      title: `Hints ${hints} for ${price}`,
      active: true,
      atoms: [{ kind: 'hints', quantity: hints }],
      prices: [{ method: 'chips', amount: price, currency: 'CHIPS' }],
    },
    new Date(),
  );
  return p.id;
}

async function balances(db: Database, accountId: bigint): Promise<Map<Segment, bigint>> {
  const rows = await db.db.selectFrom('wallet_segments').select(['segment', 'balance']).where('account_id', '=', accountId).execute();
  return new Map(rows.map((r) => [r.segment, r.balance]));
}

/**
 * The one-statement wallet.buy against the TypeScript rules it replaced (drawInOrder,
 * benefitOriginOf): for any balances, context and price the statement draws the same split,
 * credits the same origin, refuses exactly when the rules do, and writes nothing when it refuses.
 */
describe('wallet.buy statement follows the draw rules', () => {
  let pgdb: Database;
  beforeAll(async () => {
    pgdb = await freshPostgres();
    await migrateToLatest(pgdb.db);
  });
  afterAll(() => pgdb.close());

  it(
    'matches drawInOrder and benefitOriginOf for random balances, contexts and prices (PostgreSQL)',
    async () => {
      const products = new Map<string, bigint>();
      await fc.assert(
        fc.asyncProperty(
          fc.tuple(fc.bigInt(0n, 60n), fc.bigInt(0n, 60n), fc.bigInt(0n, 60n)),
          fc.constantFrom(...CONTEXTS),
          fc.bigInt(1n, 120n),
          fc.bigInt(1n, 5n),
          async ([d, t, v], context, price, hints) => {
            const id = await newAccount(pgdb.db);
            for (const [segment, amount] of [
              ['direct', d],
              ['telegram', t],
              ['vk', v],
            ] as const)
              if (amount > 0n) await grantChips(pgdb.db, id, segment, amount);
            const key = `${price}:${hints}`;
            const productId = products.get(key) ?? (await product(pgdb, price, hints));
            products.set(key, productId);
            const who = caller(id, context);
            const decision = gate({ ...who.platform, emailConfirmed: false });
            const before = await balances(pgdb, id);
            const expected = drawInOrder(before, decision.spendOrder, price);

            const attempt = buy(pgdb.db, who, productId, `k-${id}`, new Date());
            if (expected === null) {
              await expect(attempt).rejects.toMatchObject({ code: 'insufficient_chips' });
              expect(await balances(pgdb, id)).toEqual(before);
              expect(await pgdb.db.selectFrom('buy_requests').select('idempotency_key').where('account_id', '=', id).execute()).toEqual([]);
              return;
            }
            const result = await attempt;
            const origin = benefitOriginOf(expected);
            expect(result.draws).toEqual(expected);
            expect(result.benefitOrigin).toBe(origin);
            expect(result.replayed).toBe(false);
            const after = await balances(pgdb, id);
            for (const [segment, amount] of before)
              expect(after.get(segment)).toBe(amount - (expected.find((x) => x.segment === segment)?.amount ?? 0n));
            expect(result.wallet.segments).toEqual(
              decision.visibleSegments.map((segment) => ({ segment, balance: after.get(segment) ?? 0n })),
            );
            expect(result.wallet.benefits).toEqual([{ origin, noAdsUntil: null, noAdsForever: false, hints }]);
            const ops = await pgdb.db
              .selectFrom('ledger_operations')
              .select(['segment', 'chips_delta', 'benefit_origin', 'hints_delta'])
              .where('account_id', '=', id)
              .where('kind', '=', 'spend')
              .orderBy('id')
              .execute();
            expect(ops).toEqual(
              expected.map((x) => ({
                segment: x.segment,
                chips_delta: -x.amount,
                benefit_origin: x.segment === origin ? origin : null,
                hints_delta: x.segment === origin ? hints : 0n,
              })),
            );
            expect(await buy(pgdb.db, who, productId, `k-${id}`, new Date())).toEqual({ ...result, replayed: true });
          },
        ),
        { numRuns: 60 },
      );
      expect((await auditLedger(pgdb.db)).problems).toEqual([]);
    },
    PROPERTY_DEADLINE_MS,
  );
});
