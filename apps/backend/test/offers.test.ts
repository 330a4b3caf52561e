import type { Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import fc from 'fast-check';
import { CompiledQuery } from 'kysely';
import { BUY_STATEMENT } from '../src/ledger/postings/index.js';
import { grantChips } from '../src/ledger/postings/append.js';
import { as, errorOf, failure, startHarness, type Harness } from './support/harness.js';
import { buyBody, createProduct, draftBody, type DraftSpec } from './support/wallet.js';
import { createOrder, forward, preCheckout, startBotCommandServer, telegramAccount, type BotCommandServer } from './payments-support.js';

/** Property runs on real servers take what a loaded machine gives them; the deadline only catches a hang. */
const PROPERTY_DEADLINE_MS = 600_000;

/** Time-limited offers and per-player purchase limits on real PostgreSQL, with the backend's clock injected. */
describe('offers and purchase limits', () => {
  let bot: BotCommandServer;
  let h: Harness;
  let payments: Client<typeof backendApi.PaymentsService>;
  let intake: Client<typeof backendApi.BotIntakeService>;
  let admin: Client<typeof backendApi.CatalogAdminService>;
  let wallet: Client<typeof backendApi.WalletService>;
  const warnings: Array<Record<string, unknown>> = [];
  let nowMs = Date.UTC(2026, 0, 14, 12);
  const at = (iso: string) => {
    nowMs = Date.parse(iso);
  };
  const unix = (iso: string) => BigInt(Date.parse(iso) / 1000);
  let accounts = 0;
  let charges = 0;
  const player = () => telegramAccount(h.database.db, `offer-${(accounts += 1)}`);

  beforeAll(async () => {
    bot = await startBotCommandServer();
    h = await startHarness({ GATEWAY_INTERNAL_URL: bot.url, REAPER_INTERVAL_MS: '0' }, warnings, { now: () => new Date(nowMs) });
    payments = h.client(backendApi.PaymentsService);
    intake = h.client(backendApi.BotIntakeService);
    admin = h.client(backendApi.CatalogAdminService);
    wallet = h.client(backendApi.WalletService);
  });
  // Every test starts on one day (the harness operator's session is valid then) and moves the clock itself.
  beforeEach(() => at('2026-01-14T12:00:00Z'));
  afterAll(async () => {
    await h.stop();
    await bot.stop();
  });

  const starsPack = (extra: Partial<DraftSpec>) =>
    createProduct(admin, { title: `Offer ${(accounts += 1)}`, atoms: [['chips', 10n]], prices: [['xtr', 5n]], ...extra });

  const catalog = async (id: bigint) =>
    decodeTable(
      (
        await wallet.getCatalog(
          { body: encodeTable((b) => fb.WalletCatalogQuery.createWalletCatalogQuery(b, b.createString('en'))) },
          as(id, 'telegram'),
        )
      ).body,
      (bb) => fb.WalletCatalog.getRootAsWalletCatalog(bb),
      (t) => ({
        now: t.serverNowUnix(),
        products: new Map(
          Array.from({ length: t.productsLength() }, (_, i) => {
            const p = t.products(i);
            return [p?.productId() ?? 0n, p?.availableUntilUnix() ?? 0n] as const;
          }),
        ),
      }),
    );

  const pay = async (orderId: string) => forward(intake, orderId, `charge-${(charges += 1)}`, 5n);

  describe('the offer window', () => {
    let offer: bigint;
    let chipsOffer: bigint;
    beforeAll(async () => {
      offer = await starsPack({ availableFrom: unix('2026-03-01T10:00:00Z'), availableUntil: unix('2026-03-01T12:00:00Z') });
      chipsOffer = await createProduct(admin, {
        title: 'Hint sale',
        atoms: [['hints', 1n]],
        prices: [['chips', 2n]],
        availableFrom: unix('2026-03-01T10:00:00Z'),
        availableUntil: unix('2026-03-01T12:00:00Z'),
      });
    });

    it('is hidden before it starts and refused by order creation and wallet.buy with offer_not_available', async () => {
      at('2026-03-01T09:59:59.999Z');
      const id = await player();
      await grantChips(h.database.db, id, 'telegram', 10n);
      expect((await catalog(id)).products.has(offer)).toBe(false);
      expect(await failure(createOrder(payments, id, 'telegram', offer, 'stars'))).toEqual({ code: 9, errorCode: 'offer_not_available' });
      expect(await failure(wallet.buy({ body: buyBody(chipsOffer) }, as(id, 'telegram')))).toEqual({
        code: 9,
        errorCode: 'offer_not_available',
      });
    });

    it('is shown from its first second with its end and the server clock, and sold on both paths', async () => {
      at('2026-03-01T10:00:00Z');
      const id = await player();
      await grantChips(h.database.db, id, 'telegram', 10n);
      const shop = await catalog(id);
      expect(shop.now).toBe(unix('2026-03-01T10:00:00Z'));
      expect(shop.products.get(offer)).toBe(unix('2026-03-01T12:00:00Z'));
      expect((await createOrder(payments, id, 'telegram', offer, 'stars')).state).toBe('pending');
      await wallet.buy({ body: buyBody(chipsOffer) }, as(id, 'telegram'));
    });

    it('ends at availableUntil exactly (the window is half-open), on both paths', async () => {
      const id = await player();
      await grantChips(h.database.db, id, 'telegram', 10n);
      at('2026-03-01T11:59:59.999Z');
      expect((await catalog(id)).products.has(offer)).toBe(true);
      await wallet.buy({ body: buyBody(chipsOffer) }, as(id, 'telegram'));
      at('2026-03-01T12:00:00Z');
      expect((await catalog(id)).products.has(offer)).toBe(false);
      expect((await catalog(id)).products.has(chipsOffer)).toBe(false);
      expect(await failure(createOrder(payments, id, 'telegram', offer, 'stars'))).toEqual({ code: 9, errorCode: 'offer_not_available' });
      expect(await failure(wallet.buy({ body: buyBody(chipsOffer) }, as(id, 'telegram')))).toEqual({
        code: 9,
        errorCode: 'offer_not_available',
      });
    });

    it('approves the checkout of and credits an order created inside the window that is paid after the window ended', async () => {
      at('2026-03-01T11:59:00Z');
      const id = await player();
      const order = await createOrder(payments, id, 'telegram', offer, 'stars');
      expect(order.expiresAt).toBe(unix('2026-03-01T12:29:00Z'));
      at('2026-03-01T12:20:00Z');
      expect(await preCheckout(intake, order.orderId, 5n, 'XTR')).toEqual({ ok: true, reason: '' });
      expect(await pay(order.orderId)).toBe(true);
      const row = await h.database.db.selectFrom('orders').select('state').where('id', '=', order.orderId).executeTakeFirstOrThrow();
      expect(row.state).toBe('paid');
    });

    it('a product without a window reports 0 as its end', async () => {
      at('2026-03-01T10:00:00Z');
      const open = await starsPack({});
      const id = await player();
      expect((await catalog(id)).products.get(open)).toBe(0n);
    });
  });

  describe('the purchase limit per period', () => {
    it.each([
      ['day', '2026-01-14T00:00:00Z', '2026-01-14T23:59:59.999Z', '2026-01-15T00:00:00Z'],
      ['week', '2026-01-12T00:00:00Z', '2026-01-18T23:59:59.999Z', '2026-01-19T00:00:00Z'],
      ['month', '2026-01-01T00:00:00Z', '2026-01-31T23:59:59.999Z', '2026-02-01T00:00:00Z'],
    ])(
      '%s: a paid order counts to the last millisecond of its UTC period, the next period sells again',
      async (period, first, last, next) => {
        const limited = await starsPack({ purchaseLimit: [1, period] });
        const id = await player();
        at(first);
        expect(await pay((await createOrder(payments, id, 'telegram', limited, 'stars')).orderId)).toBe(true);
        at(last);
        expect(await failure(createOrder(payments, id, 'telegram', limited, 'stars'))).toEqual({
          code: 9,
          errorCode: 'purchase_limit_reached',
        });
        at(next);
        expect((await createOrder(payments, id, 'telegram', limited, 'stars')).state).toBe('pending');
      },
    );

    it('ever: a paid order counts years later; another player is not limited by it', async () => {
      const limited = await starsPack({ purchaseLimit: [1, 'ever'] });
      const id = await player();
      at('2026-01-01T00:00:00Z');
      expect(await pay((await createOrder(payments, id, 'telegram', limited, 'stars')).orderId)).toBe(true);
      at('2029-06-01T00:00:00Z');
      expect(await failure(createOrder(payments, id, 'telegram', limited, 'stars'))).toEqual({
        code: 9,
        errorCode: 'purchase_limit_reached',
      });
      expect((await createOrder(payments, await player(), 'telegram', limited, 'stars')).state).toBe('pending');
    });

    it('a pending order counts while it lives; once expired it no longer does', async () => {
      const limited = await starsPack({ purchaseLimit: [1, 'day'] });
      const id = await player();
      at('2026-04-01T08:00:00Z');
      await createOrder(payments, id, 'telegram', limited, 'stars');
      at('2026-04-01T08:29:59.999Z');
      expect(await failure(createOrder(payments, id, 'telegram', limited, 'stars'))).toEqual({
        code: 9,
        errorCode: 'purchase_limit_reached',
      });
      at('2026-04-01T08:30:00Z');
      expect((await createOrder(payments, id, 'telegram', limited, 'stars')).state).toBe('pending');
    });

    it.each([
      ['day', '2026-05-05T00:00:00Z', '2026-05-05T23:59:59.999Z', '2026-05-06T00:00:00Z'],
      ['week', '2026-05-04T00:00:00Z', '2026-05-10T23:59:59.999Z', '2026-05-11T00:00:00Z'],
      ['month', '2026-05-01T00:00:00Z', '2026-05-31T23:59:59.999Z', '2026-06-01T00:00:00Z'],
      ['ever', '2026-05-01T00:00:00Z', '2031-05-31T00:00:00Z', null],
    ])(
      'wallet.buy, %s: chips purchases count to the end of the UTC period (the rule in the buy statement)',
      async (period, first, last, next) => {
        const hints = await createProduct(admin, {
          title: `Hints ${period}`,
          atoms: [['hints', 1n]],
          prices: [['chips', 3n]],
          purchaseLimit: [2, period],
        });
        const id = await player();
        await grantChips(h.database.db, id, 'telegram', 100n);
        at(first);
        await wallet.buy({ body: buyBody(hints) }, as(id, 'telegram'));
        await wallet.buy({ body: buyBody(hints) }, as(id, 'telegram'));
        at(last);
        expect(await failure(wallet.buy({ body: buyBody(hints) }, as(id, 'telegram')))).toEqual({
          code: 9,
          errorCode: 'purchase_limit_reached',
        });
        if (next === null) return;
        at(next);
        await wallet.buy({ body: buyBody(hints) }, as(id, 'telegram'));
      },
    );
  });

  it('one limit counts both ways of buying: a chips purchase counts against an order, and an order against a chips purchase', async () => {
    const both = await createProduct(admin, {
      title: 'Either way',
      atoms: [['hints', 2n]],
      prices: [
        ['chips', 4n],
        ['xtr', 5n],
      ],
      purchaseLimit: [1, 'ever'],
    });
    const chipsFirst = await player();
    await grantChips(h.database.db, chipsFirst, 'telegram', 10n);
    await wallet.buy({ body: buyBody(both) }, as(chipsFirst, 'telegram'));
    expect(await failure(createOrder(payments, chipsFirst, 'telegram', both, 'stars'))).toEqual({
      code: 9,
      errorCode: 'purchase_limit_reached',
    });
    const orderFirst = await player();
    await grantChips(h.database.db, orderFirst, 'telegram', 10n);
    await createOrder(payments, orderFirst, 'telegram', both, 'stars');
    expect(await failure(wallet.buy({ body: buyBody(both) }, as(orderFirst, 'telegram')))).toEqual({
      code: 9,
      errorCode: 'purchase_limit_reached',
    });
  });

  describe('racing purchases', () => {
    it(
      'N parallel order creations against a limit of L let exactly min(N, L) through, for several N and L',
      async () => {
        at('2026-06-10T10:00:00Z');
        await fc.assert(
          fc.asyncProperty(fc.integer({ min: 2, max: 8 }), fc.integer({ min: 1, max: 3 }), async (n, limit) => {
            const limited = await starsPack({ purchaseLimit: [limit, 'day'] });
            const id = await player();
            const results = await Promise.all(
              Array.from({ length: n }, () =>
                createOrder(payments, id, 'telegram', limited, 'stars').then(() => 'passed' as const, errorOf),
              ),
            );
            const passed = results.filter((r) => r === 'passed').length;
            const refused = results.filter((r) => r !== 'passed');
            expect(passed).toBe(Math.min(n, limit));
            for (const r of refused) expect(r).toEqual({ code: 9, errorCode: 'purchase_limit_reached' });
            const rows = await h.database.db.selectFrom('orders').select('id').where('account_id', '=', id).execute();
            expect(rows).toHaveLength(Math.min(n, limit));
          }),
          { numRuns: 6 },
        );
      },
      PROPERTY_DEADLINE_MS,
    );

    it('N parallel chips purchases against a limit of 1 let exactly one through', async () => {
      at('2026-06-10T10:00:00Z');
      const once = await createProduct(admin, {
        title: 'Once a day',
        atoms: [['hints', 1n]],
        prices: [['chips', 1n]],
        purchaseLimit: [1, 'day'],
      });
      const id = await player();
      await grantChips(h.database.db, id, 'telegram', 100n);
      const results = await Promise.allSettled(Array.from({ length: 6 }, () => wallet.buy({ body: buyBody(once) }, as(id, 'telegram'))));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const spends = await h.database.db
        .selectFrom('ledger_operations')
        .select('id')
        .where('account_id', '=', id)
        .where('kind', '=', 'spend')
        .execute();
      expect(spends).toHaveLength(1);
    });
  });

  it('a charge beyond a lowered limit is credited, counted and logged with its order id', async () => {
    at('2026-07-01T09:00:00Z');
    const spec: DraftSpec = { title: 'Lowered later', atoms: [['chips', 10n]], prices: [['xtr', 5n]], purchaseLimit: [2, 'ever'] };
    const product = await createProduct(admin, spec);
    const id = await player();
    const first = await createOrder(payments, id, 'telegram', product, 'stars');
    const second = await createOrder(payments, id, 'telegram', product, 'stars');
    await createProduct(admin, { ...spec, id: product, purchaseLimit: [1, 'ever'] });
    const before = await breaches();
    expect(await pay(first.orderId)).toBe(true);
    expect(await pay(second.orderId)).toBe(true);
    await until(async () => (await breaches()) === before + 1);
    await until(() => Promise.resolve(warnings.some((w) => w.orderId === second.orderId)));
    const credited = await h.database.db
      .selectFrom('ledger_operations')
      .select('chips_delta')
      .where('account_id', '=', id)
      .where('kind', '=', 'purchase')
      .execute();
    expect(credited.map((r) => r.chips_delta)).toEqual([10n, 10n]);
    expect(warnings.filter((w) => w.msg === 'credited an order beyond the product purchase limit').map((w) => w.orderId)).toEqual([
      second.orderId,
    ]);
  });

  /** One series of the backend's /metrics, by its exact label text. */
  const metric = async (series: string) => {
    const text = await (await fetch(h.metricsUrl)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return Number(line?.slice(series.length + 1) ?? NaN);
  };
  const breaches = () => metric('backend_purchase_limit_breaches_total{rail="stars"}');

  it('counts every refusal by path and reason', async () => {
    // The tests above refused on each path for each reason (they run first, in file order).
    expect(await metric('backend_offer_refusals_total{path="chips",reason="offer_not_available"}')).toBeGreaterThan(0);
    expect(await metric('backend_offer_refusals_total{path="chips",reason="purchase_limit_reached"}')).toBeGreaterThan(0);
    expect(await metric('backend_offer_refusals_total{path="order",reason="offer_not_available"}')).toBeGreaterThan(0);
    expect(await metric('backend_offer_refusals_total{path="order",reason="purchase_limit_reached"}')).toBeGreaterThan(0);
  });

  describe('what a product without a limit costs', () => {
    /** Scan nodes of the buy statement's plan over orders and ledger_operations, with how often each ran (EXPLAIN ANALYZE, rolled back). */
    const limitScans = async (productId: bigint, accountId: bigint) => {
      const flags = JSON.stringify({ spendOrder: ['telegram'], canSpend: true, frozen: false, trusted: true });
      const values = [accountId, productId, null, ['telegram'], ['telegram'], flags, new Date(nowMs)];
      let plan: unknown;
      await h.database.db
        .transaction()
        .execute(async (trx) => {
          const res = await trx.executeQuery<{ 'QUERY PLAN': unknown }>(
            CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${BUY_STATEMENT}`, values),
          );
          plan = res.rows[0]?.['QUERY PLAN'];
          throw new Error('roll back');
        })
        .catch((err: unknown) => {
          if (!(err instanceof Error && err.message === 'roll back')) throw err;
        });
      const scans: number[] = [];
      const walk = (node: unknown): void => {
        if (typeof node !== 'object' || node === null) return;
        const n = node as Record<string, unknown>;
        if (/Scan/.test(String(n['Node Type'])) && ['orders', 'ledger_operations'].includes(String(n['Relation Name'])))
          scans.push(Number(n['Actual Loops']));
        for (const v of Object.values(n)) (Array.isArray(v) ? v : [v]).forEach(walk);
      };
      walk(plan);
      return scans;
    };

    it('wallet.buy of a product without a limit never reads orders or past purchases; one with a limit does', async () => {
      const open = await createProduct(admin, { title: 'Plain hint', atoms: [['hints', 1n]], prices: [['chips', 1n]] });
      const limited = await createProduct(admin, {
        title: 'Rare hint',
        atoms: [['hints', 1n]],
        prices: [['chips', 1n]],
        purchaseLimit: [5, 'day'],
      });
      const id = await player();
      await grantChips(h.database.db, id, 'telegram', 10n);
      const plain = await limitScans(open, id);
      expect(plain.length).toBeGreaterThan(0);
      expect(plain.every((loops) => loops === 0)).toBe(true);
      expect((await limitScans(limited, id)).some((loops) => loops > 0)).toBe(true);
    });
  });

  describe('the editor', () => {
    it('stores and answers the offer fields, and a monthly stars pass', async () => {
      const res = await admin.upsertProduct({
        body: draftBody({
          title: 'Monthly pass',
          atoms: [['no_ads_days', 30n]],
          prices: [['xtr', 100n]],
          subscriptionPeriod: 2_592_000,
          availableFrom: unix('2026-01-01T00:00:00Z'),
          availableUntil: unix('2027-01-01T00:00:00Z'),
          purchaseLimit: [1, 'month'],
        }),
      });
      const record = decodeTable(
        res.body,
        (bb) => fb.ProductRecord.getRootAsProductRecord(bb),
        (t) => [t.subscriptionPeriod(), t.availableFromUnix(), t.availableUntilUnix(), t.purchaseLimit(), t.purchaseLimitPeriod()],
      );
      expect(record).toEqual([2_592_000, unix('2026-01-01T00:00:00Z'), unix('2027-01-01T00:00:00Z'), 1, 'month']);
    });

    it.each<[string, Partial<DraftSpec>, string]>([
      ['a period other than 30 days', { subscriptionPeriod: 86_400, prices: [['xtr', 1n]] }, 'invalid_offer'],
      [
        'a subscription with a chips price',
        {
          subscriptionPeriod: 2_592_000,
          prices: [
            ['xtr', 1n],
            ['chips', 1n],
          ],
        },
        'invalid_prices',
      ],
      ['a subscription sold by card', { subscriptionPeriod: 2_592_000, prices: [['provider', 100n, 'RUB']] }, 'invalid_prices'],
      ['a window ending before it starts', { availableFrom: 2000n, availableUntil: 1000n }, 'invalid_offer'],
      ['a window ending when it starts', { availableFrom: 1000n, availableUntil: 1000n }, 'invalid_offer'],
      ['a window edge past year 9999', { availableUntil: 253_402_300_800n }, 'invalid_offer'],
      ['a negative window edge', { availableFrom: -1n }, 'invalid_offer'],
      ['a limit without a period', { purchaseLimit: [1, ''] }, 'invalid_offer'],
      ['a limit per year', { purchaseLimit: [1, 'year'] }, 'invalid_offer'],
      ['a period without a limit', { purchaseLimit: [0, 'day'] }, 'invalid_offer'],
      ['a negative limit', { purchaseLimit: [-1, 'day'] }, 'invalid_offer'],
      ['a limit above a million', { purchaseLimit: [1_000_001, 'day'] }, 'invalid_offer'],
    ])('refuses %s', async (_name, extra, errorCode) => {
      const draft = {
        title: 'Bad offer',
        atoms: [['chips', 1n]] as DraftSpec['atoms'],
        prices: [['xtr', 1n]] as DraftSpec['prices'],
        ...extra,
      };
      expect(await failure(admin.upsertProduct({ body: draftBody(draft) }))).toEqual({ code: 3, errorCode });
    });
  });
});

/** Waits until `done` holds (polling the system under test, never timing it). */
async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 20));
}
