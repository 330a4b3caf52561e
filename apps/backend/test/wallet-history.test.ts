import { createLogger } from '@wordgame/logging';
import { upsertProduct } from '../src/catalog/catalog.store.js';
import type { Database } from '../src/db/database.js';
import { parsePlatformHeader } from '../src/gate/context.js';
import { historyPage, type HistoryEntry } from '../src/history/index.js';
import { grantChips } from '../src/ledger/postings/append.js';
import { insertOrder } from '../src/payments/orders/orders.store.js';
import type { Caller } from '../src/rpc/caller.js';
import { freshMigratedPostgres } from '../src/testing/databases.js';
import { buy } from '../src/wallet/buy.js';
import { failure } from './support/harness.js';
import { fullRefund, paidOrder } from './support/orders.js';
import { newAccount } from './support/wallet.js';

const quiet = createLogger('wallet-history-test', 'silent');

function webCaller(accountId: bigint): Caller {
  const platform = parsePlatformHeader('direct;web');
  if (platform === null) throw new Error('bad test platform');
  return { accountId, platform };
}

/**
 * The player's history on PostgreSQL: every order and ledger operation of the caller's account and
 * no other's, newest first, the credit of an order shown once (as the order), a refund with the
 * debt it left, titles in the asked language, and a cursor that walks every entry exactly once
 * even where several entries share one instant.
 */
describe('wallet history (PostgreSQL)', () => {
  let pg: Database;
  let pack: bigint;
  let hints: bigint;
  const db = () => pg.db;

  beforeAll(async () => {
    pg = await freshMigratedPostgres();
    const now = new Date();
    pack = (
      await upsertProduct(
        pg.db,
        {
          id: 0n,
          title: 'Bag of chips',
          active: true,
          atoms: [{ kind: 'chips', quantity: 500n }],
          prices: [{ method: 'provider', amount: 49_900n, currency: 'RUB' }],
          texts: [
            { locale: 'en', title: 'Bag of chips', description: '' },
            { locale: 'ru', title: 'Мешок фишек', description: '' },
          ],
        },
        now,
      )
    ).id;
    hints = (
      await upsertProduct(
        pg.db,
        {
          id: 0n,
          title: 'Hints x5',
          active: true,
          atoms: [{ kind: 'hints', quantity: 5n }],
          prices: [{ method: 'chips', amount: 550n, currency: 'CHIPS' }],
          texts: [
            { locale: 'en', title: 'Hints x5', description: '' },
            { locale: 'ru', title: 'Подсказки x5', description: '' },
          ],
        },
        now,
      )
    ).id;
  });
  afterAll(() => pg.close());

  async function walk(accountId: bigint, limit: number, language: 'en' | 'ru' = 'en'): Promise<{ entries: HistoryEntry[]; pages: number }> {
    const entries: HistoryEntry[] = [];
    let cursor = '';
    let pages = 0;
    do {
      const page = await historyPage(db(), accountId, cursor, limit, language);
      expect(page.entries.length).toBeLessThanOrEqual(limit);
      entries.push(...page.entries);
      cursor = page.nextCursor;
      pages += 1;
      if (pages > 100) throw new Error('the cursor does not end');
    } while (cursor !== '');
    return { entries, pages };
  }

  it('lists a grant, a paid and refunded order, a chip spend and the refund that left a debt, newest first, each once', async () => {
    const me = await newAccount(db());
    const other = await newAccount(db());
    const t = (s: number) => new Date(Date.UTC(2026, 0, 10, 12, 0, s));
    await grantChips(db(), me, 'direct', 100n, 'welcome');
    const order = await paidOrder(db(), pack, me, 'direct', { chips: 500n }, t(10));
    await paidOrder(db(), pack, other, 'direct', { chips: 500n }, t(10));
    await buy(db(), webCaller(me), hints, null, t(20));
    expect(await fullRefund(db(), quiet, order.id, t(30))).toBe('recorded');

    const { entries } = await walk(me, 2, 'ru');
    expect(entries.map((e) => e.kind)).toEqual(['grant', 'refund', 'spend', 'order']);
    const [grant, refund, spend, bought] = entries as [HistoryEntry, HistoryEntry, HistoryEntry, HistoryEntry];
    expect(grant).toMatchObject({ chips: 100n, segment: 'direct', balanceAfter: 100n, rail: '', title: '' });
    // 100 granted + 500 bought - 550 spent = 50; the refund takes back 500: -450, a debt.
    expect(refund).toMatchObject({
      title: 'Мешок фишек',
      rail: 'card',
      chips: -500n,
      amount: -100n,
      currency: 'RUB',
      orderId: order.id,
      balanceAfter: -450n,
    });
    expect(spend).toMatchObject({ title: 'Подсказки x5', chips: -550n, hints: 5n, hintsAfter: 5n, rail: '', balanceAfter: 50n });
    expect(bought).toMatchObject({
      entryId: `order:${order.id}`,
      title: 'Мешок фишек',
      state: 'refunded',
      rail: 'card',
      amount: 100n,
      currency: 'RUB',
      chips: 500n,
      refundedAtMs: BigInt(t(30).getTime()),
      atMs: BigInt(t(10).getTime()),
    });
    // The grant came "now", after the fixed 2026 instants; the rest are in time order.
    expect(entries.slice(1).map((e) => e.atMs)).toEqual([t(30), t(20), t(10)].map((d) => BigInt(d.getTime())));
    expect((await walk(me, 20, 'en')).entries[1]?.title).toBe('Bag of chips');
    expect((await walk(other, 20)).entries.map((e) => e.kind)).toEqual(['order']);
  });

  it('walks entries that share one instant exactly once at every page size, and shows pending and failed orders', async () => {
    const me = await newAccount(db());
    const at = new Date(Date.UTC(2026, 0, 11, 9, 0, 0, 123));
    const paid = [];
    for (let i = 0; i < 4; i++) paid.push(await paidOrder(db(), pack, me, 'telegram', { chips: 10n }, at));
    for (const o of paid.slice(0, 3)) await fullRefund(db(), quiet, o.id, at);
    await insertOrder(db(), {
      id: '00000000-0000-4000-8000-000000000001',
      account_id: me,
      product_id: pack,
      title: 'Bag of chips',
      rail: 'stars',
      provider: 'telegram_stars',
      shop: null,
      segment: 'telegram',
      amount: 50n,
      currency: 'XTR',
      chips: 500n,
      state: 'failed',
      failure_reason: 'expired unpaid',
      created_at: at,
      expires_at: at,
    });
    const all = (await walk(me, 100)).entries.map((e) => e.entryId);
    expect(all).toHaveLength(8);
    expect(new Set(all).size).toBe(8);
    for (const limit of [1, 2, 3, 5, 7]) {
      const { entries, pages } = await walk(me, limit);
      expect(entries.map((e) => e.entryId)).toEqual(all);
      expect(pages).toBe(Math.ceil(8 / limit));
    }
    const failed = (await walk(me, 100)).entries.find((e) => e.orderId === '00000000-0000-4000-8000-000000000001');
    expect(failed).toMatchObject({ kind: 'order', state: 'failed', failureReason: 'expired unpaid', rail: 'stars', currency: 'XTR' });
    // Each refund at the shared instant says what the segment held right after it, in ledger order.
    const refunds = (await walk(me, 100)).entries.filter((e) => e.kind === 'refund');
    expect(refunds.map((e) => e.balanceAfter)).toEqual([10n, 20n, 30n]);
  });

  it('refuses a cursor no page gave', async () => {
    const me = await newAccount(db());
    for (const bad of ['x', '1.2.3', '123.0.not-a-number', '123.1.42']) {
      expect(await failure(historyPage(db(), me, bad, 10, 'en'))).toMatchObject({ errorCode: 'invalid_cursor' });
    }
  });
});
