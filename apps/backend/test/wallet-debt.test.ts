import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { createLogger } from '@wordgame/logging';
import { upsertProduct } from '../src/catalog/catalog.store.js';
import type { Database } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { parsePlatformHeader, type Segment } from '../src/gate/context.js';
import { useHint } from '../src/game/hint.js';
import { auditLedger } from '../src/ledger/audit.js';
import { grantChips } from '../src/ledger/postings/append.js';
import type { Caller } from '../src/rpc/caller.js';
import { freshMigratedPostgres } from '../src/testing/databases.js';
import { buy } from '../src/wallet/buy.js';
import { errorOf } from './support/harness.js';
import { gameToHintIn, walletHintDeps } from './support/hints.js';
import { fullRefund, orderProduct, paidOrder } from './support/orders.js';
import { newAccount } from './support/wallet.js';

const DAY = 86_400_000;

function caller(accountId: bigint, header: string): Caller {
  const platform = parsePlatformHeader(header);
  if (platform === null) throw new Error(`bad test platform ${header}`);
  return { accountId, platform };
}

/** A logger whose JSON lines are kept for assertions. */
function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger('wallet-debt-test', 'info', sink), lines };
}

/**
 * Full refunds revoke exactly what the pack funded: chips and hints already spent become a debt
 * (a negative balance), nothing is drawn from a segment or origin in debt, a later credit pays the
 * debt off, and the ledger audit stays exact throughout (PostgreSQL).
 */
describe('wallet debt after a full refund (PostgreSQL)', () => {
  let pg: Database;
  let productId: bigint;
  const db = () => pg.db;
  const priced = new Map<bigint, bigint>();
  beforeAll(async () => {
    pg = await freshMigratedPostgres();
    productId = await orderProduct(pg.db);
  });
  afterAll(() => pg.close());

  /** A chip-priced product granting one hint (one per price, reused). */
  const spendProduct = async (price: bigint) => {
    const known = priced.get(price);
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
    priced.set(price, p.id);
    return p.id;
  };
  const segments = async (id: bigint) =>
    Object.fromEntries(
      (await db().selectFrom('wallet_segments').select(['segment', 'balance']).where('account_id', '=', id).execute()).map((r) => [
        r.segment,
        r.balance,
      ]),
    );
  const benefitsOf = (id: bigint, origin: Segment) =>
    db().selectFrom('benefits').selectAll().where('account_id', '=', id).where('origin', '=', origin).executeTakeFirstOrThrow();
  const clean = async () => expect((await auditLedger(db())).problems).toEqual([]);

  it('reverses chips, hints, no-ads days and forever in full: the spent part becomes an exact debt, logged and noted', async () => {
    const { logger, lines } = capturingLogger();
    const id = await newAccount(db());
    const paidAt = new Date(Date.now() - DAY);
    const order = await paidOrder(db(), productId, id, 'direct', { chips: 1000n, hints: 3n, noAdsDays: 7n, noAdsForever: true }, paidAt);
    const before = await benefitsOf(id, 'direct');
    expect(before).toMatchObject({ hints: 3n, no_ads_forever: true, no_ads_until: new Date(paidAt.getTime() + 7 * DAY) });

    const me = caller(id, 'direct;web');
    expect((await buy(db(), me, await spendProduct(700n), null, new Date())).draws).toEqual([{ segment: 'direct', amount: 700n }]);
    const deps = walletHintDeps(db(), logger);
    const game = await gameToHintIn(deps, me);
    for (let i = 0; i < 4; i += 1)
      expect((await useHint(deps, me, game)).hint).toMatchObject({ source: 'wallet', benefitOrigin: 'direct' });
    expect(await segments(id)).toMatchObject({ direct: 300n });
    expect((await benefitsOf(id, 'direct')).hints).toBe(0n);

    expect(await fullRefund(db(), logger, order.id)).toBe('recorded');
    expect(await segments(id)).toMatchObject({ direct: -700n });
    const after = await benefitsOf(id, 'direct');
    expect(after.hints).toBe(-3n);
    expect(after.no_ads_forever).toBe(false);
    expect(after.no_ads_until?.getTime()).toBe((before.no_ads_until?.getTime() ?? 0) - 7 * DAY);
    const reversal = await db()
      .selectFrom('ledger_operations')
      .selectAll()
      .where('order_id', '=', order.id)
      .where('kind', '=', 'refund')
      .executeTakeFirstOrThrow();
    expect(reversal).toMatchObject({
      segment: 'direct',
      chips_delta: -1000n,
      benefit_origin: 'direct',
      hints_delta: -3n,
      no_ads_days: 7n,
      no_ads_forever: true,
      money_minor: -100n,
    });
    expect(reversal.note).toBe('refund left a debt: direct chips -700, direct hints -3');
    const warn = lines.find((l) => l['msg'] === 'refund left the wallet in debt (already spent)');
    expect(warn).toMatchObject({ level: 40, accountId: String(id), segment: 'direct', balance: '-700', hints: '-3' });
    await clean();

    expect(await fullRefund(db(), logger, order.id)).toBe('already_refunded');
    expect(await segments(id)).toMatchObject({ direct: -700n });
    await clean();
  });

  it('a segment in debt pays for nothing and does not offset the others; a later credit pays the debt off first', async () => {
    const logger = createLogger('wallet-debt-test', 'silent');
    const id = await newAccount(db());
    const order = await paidOrder(db(), productId, id, 'direct', { chips: 100n });
    const web = caller(id, 'direct;web');
    await buy(db(), web, await spendProduct(50n), null, new Date());
    await fullRefund(db(), logger, order.id);
    expect(await segments(id)).toMatchObject({ direct: -50n });

    const refusal = await buy(db(), web, await spendProduct(1n), 'debt-1', new Date()).catch((e: unknown) => e);
    expect(refusal).toMatchObject({ code: 'insufficient_chips' });
    expect(await db().selectFrom('buy_requests').select('idempotency_key').where('account_id', '=', id).execute()).toEqual([]);

    await grantChips(db(), id, 'telegram', 100n);
    const paidByTelegram = await buy(db(), web, await spendProduct(100n), null, new Date());
    expect(paidByTelegram.draws).toEqual([{ segment: 'telegram', amount: 100n }]);
    expect(paidByTelegram.benefitOrigin).toBe('telegram');
    expect(paidByTelegram.wallet.segments).toEqual([
      { segment: 'direct', balance: -50n },
      { segment: 'telegram', balance: 0n },
      { segment: 'vk', balance: 0n },
    ]);
    expect(await segments(id)).toMatchObject({ direct: -50n, telegram: 0n });

    await grantChips(db(), id, 'telegram', 60n);
    await grantChips(db(), id, 'vk', 60n);
    const split = await buy(db(), web, await spendProduct(100n), null, new Date());
    expect(split.draws).toEqual([
      { segment: 'telegram', amount: 60n },
      { segment: 'vk', amount: 40n },
    ]);
    expect(await segments(id)).toEqual({ direct: -50n, telegram: 0n, vk: 20n });
    await expect(buy(db(), web, await spendProduct(50n), null, new Date())).rejects.toMatchObject({ code: 'insufficient_chips' });

    await paidOrder(db(), productId, id, 'direct', { chips: 80n });
    expect(await segments(id)).toMatchObject({ direct: 30n });
    expect((await buy(db(), web, await spendProduct(50n), null, new Date())).draws).toEqual([
      { segment: 'direct', amount: 30n },
      { segment: 'vk', amount: 20n },
    ]);
    await clean();
  });

  it('a hint is never taken from an origin in debt', async () => {
    const logger = createLogger('wallet-debt-test', 'silent');
    const id = await newAccount(db());
    const me = caller(id, 'direct;web');
    const order = await paidOrder(db(), productId, id, 'direct', { chips: 0n, hints: 2n });
    const deps = walletHintDeps(db(), logger);
    const game = await gameToHintIn(deps, me);
    await useHint(deps, me, game);
    await fullRefund(db(), logger, order.id);
    expect((await benefitsOf(id, 'direct')).hints).toBe(-1n);
    expect(errorOf(await useHint(deps, me, game).catch((e: unknown) => e)).errorCode).toBe('no_hints_left');

    await paidOrder(db(), productId, id, 'vk', { chips: 0n, hints: 1n });
    expect((await useHint(deps, me, game)).hint).toMatchObject({ source: 'wallet', benefitOrigin: 'vk' });
    expect((await benefitsOf(id, 'direct')).hints).toBe(-1n);
    expect(errorOf(await useHint(deps, me, game).catch((e: unknown) => e)).errorCode).toBe('no_hints_left');
    await clean();
  });

  it('moves a lapsed no-ads term back by exactly the pack days; a later grant runs from its own time; the audit agrees', async () => {
    const logger = createLogger('wallet-debt-test', 'silent');
    const id = await newAccount(db());
    const t0 = new Date(Date.now() - 60 * DAY);
    const order = await paidOrder(db(), productId, id, 'vk', { chips: 0n, noAdsDays: 7n }, t0);
    expect((await benefitsOf(id, 'vk')).no_ads_until).toEqual(new Date(t0.getTime() + 7 * DAY));

    expect(await fullRefund(db(), logger, order.id, new Date(t0.getTime() + 30 * DAY))).toBe('recorded');
    expect((await benefitsOf(id, 'vk')).no_ads_until).toEqual(t0);
    expect(
      await db()
        .selectFrom('ledger_operations')
        .select(['no_ads_days', 'hints_delta', 'note'])
        .where('order_id', '=', order.id)
        .where('kind', '=', 'refund')
        .executeTakeFirstOrThrow(),
    ).toEqual({
      no_ads_days: 7n,
      hints_delta: 0n,
      note: '',
    });
    await clean();

    const later = new Date(t0.getTime() + 31 * DAY);
    await paidOrder(db(), productId, id, 'vk', { chips: 0n, noAdsDays: 3n }, later);
    expect((await benefitsOf(id, 'vk')).no_ads_until).toEqual(new Date(later.getTime() + 3 * DAY));
    await clean();
  });

  it('revokes no-ads forever only when no other unrefunded grant of the origin holds it', async () => {
    const logger = createLogger('wallet-debt-test', 'silent');
    const id = await newAccount(db());
    const first = await paidOrder(db(), productId, id, 'telegram', { chips: 10n, noAdsForever: true });
    const second = await paidOrder(db(), productId, id, 'telegram', { chips: 10n, noAdsForever: true });
    await fullRefund(db(), logger, first.id);
    expect((await benefitsOf(id, 'telegram')).no_ads_forever).toBe(true);
    await clean();
    await fullRefund(db(), logger, second.id);
    expect((await benefitsOf(id, 'telegram')).no_ads_forever).toBe(false);
    await clean();
  });

  it('the audit reads negative balances exactly: clean when they match the ledger, a problem when they do not', async () => {
    const logger = createLogger('wallet-debt-test', 'silent');
    const id = await newAccount(db());
    const order = await paidOrder(db(), productId, id, 'vk', { chips: 40n, hints: 2n });
    await buy(db(), caller(id, 'vk;android'), await spendProduct(30n), null, new Date());
    await fullRefund(db(), logger, order.id);
    expect(await segments(id)).toMatchObject({ vk: -30n });
    await clean();

    await sql`update wallet_segments set balance = -31 where account_id = ${id} and segment = 'vk'`.execute(db());
    await sql`update benefits set hints = -2 where account_id = ${id} and origin = 'vk'`.execute(db());
    expect((await auditLedger(db())).problems).toEqual([
      `account ${id} segment vk: balance -31 but ledger sums to -30`,
      `account ${id} origin vk: hints -2 but grants sum to 1`,
    ]);
    await sql`update wallet_segments set balance = -30 where account_id = ${id} and segment = 'vk'`.execute(db());
    await sql`update benefits set hints = 1 where account_id = ${id} and origin = 'vk'`.execute(db());
    await clean();
  });
});

describe('migration 0062_wallet_debt', () => {
  it('allows negative balances; its down refuses while a debt exists and restores the checks once debts are settled', async () => {
    const migration = migrations['0062_wallet_debt'];
    if (!migration?.down) throw new Error('0062_wallet_debt is not registered with a down');
    const pg = await freshMigratedPostgres();
    try {
      const logger = createLogger('wallet-debt-test', 'silent');
      const productId = await orderProduct(pg.db);
      const id = await newAccount(pg.db);
      const order = await paidOrder(pg.db, productId, id, 'direct', { chips: 0n, hints: 2n });
      await pg.db.updateTable('benefits').set({ hints: 0n }).where('account_id', '=', id).execute();
      await fullRefund(pg.db, logger, order.id);
      expect(await pg.db.selectFrom('benefits').select('hints').where('account_id', '=', id).executeTakeFirstOrThrow()).toEqual({
        hints: -2n,
      });

      await expect(migration.down(pg.db)).rejects.toThrow(/wallet debts exist \(0 segments, 1 hint balances below zero\)/);
      await pg.db.updateTable('benefits').set({ hints: 0n }).where('account_id', '=', id).execute();
      await migration.down(pg.db);
      await expect(pg.db.updateTable('benefits').set({ hints: -1n }).where('account_id', '=', id).execute()).rejects.toThrow(
        /benefits_hints_check/,
      );
      await expect(pg.db.updateTable('wallet_segments').set({ balance: -1n }).where('account_id', '=', id).execute()).rejects.toThrow(
        /wallet_segments_balance_check/,
      );
      await migration.up(pg.db);
      await pg.db.updateTable('wallet_segments').set({ balance: -1n }).where('account_id', '=', id).execute();
    } finally {
      await pg.close();
    }
  });
});
