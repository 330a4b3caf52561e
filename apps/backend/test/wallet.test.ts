import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Code, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { sql } from 'kysely';
import { auditLedger } from '../src/ledger/audit.js';
import { grantChips } from '../src/ledger/postings/append.js';
import { as, errorOf, failure, startHarness, type Harness } from './support/harness.js';
import { buyBody, createProduct, newAccount, readPurchase, readWallet } from './support/wallet.js';

const walletQuery = encodeTable((b) => fb.WalletQuery.createWalletQuery(b));
const catalogQuery = encodeTable((b) => fb.WalletCatalogQuery.createWalletCatalogQuery(b, 0));

/** A term of `days` that began while the buys ran (between the two clock readings), to the second. */
function expectTermEnd(untilMs: number, [from, to]: number[], days: number): void {
  const term = days * 86_400_000;
  expect(untilMs).toBeGreaterThanOrEqual(Math.floor(((from ?? 0) + term) / 1000) * 1000);
  expect(untilMs).toBeLessThanOrEqual((to ?? 0) + term);
}

describe('wallet over Connect on PostgreSQL', () => {
  let h: Harness;
  let wallet: Client<typeof backendApi.WalletService>;
  let admin: Client<typeof backendApi.CatalogAdminService>;
  let hints: bigint;
  let noAds: bigint;
  let forever: bigint;
  let pack: bigint;
  let retired: bigint;

  beforeAll(async () => {
    h = await startHarness();
    wallet = h.client(backendApi.WalletService);
    admin = h.client(backendApi.CatalogAdminService);
    hints = await createProduct(admin, { title: 'Hints x3', atoms: [['hints', 3n]], prices: [['chips', 3n]] });
    noAds = await createProduct(admin, {
      title: 'No ads week',
      atoms: [
        ['no_ads_days', 7n],
        ['hints', 1n],
      ],
      prices: [['chips', 40n]],
    });
    forever = await createProduct(admin, { title: 'No ads forever', atoms: [['no_ads_forever', 1n]], prices: [['chips', 500n]] });
    pack = await createProduct(admin, {
      title: '100 chips',
      atoms: [['chips', 100n]],
      prices: [
        ['provider', 9_900n, 'RUB'],
        ['xtr', 50n],
      ],
    });
    retired = await createProduct(admin, { title: 'Old hints', active: false, atoms: [['hints', 1n]], prices: [['chips', 1n]] });
  });
  afterAll(() => h.stop());

  const getWallet = async (id: bigint, platform: string) =>
    decodeTable(
      (await wallet.getWallet({ body: walletQuery }, as(id, platform))).body,
      (bb) => fb.WalletView.getRootAsWalletView(bb),
      readWallet,
    );

  const getCatalog = async (id: bigint, platform: string) =>
    decodeTable(
      (await wallet.getCatalog({ body: catalogQuery }, as(id, platform))).body,
      (bb) => fb.WalletCatalog.getRootAsWalletCatalog(bb),
      (t) => ({
        products: Object.fromEntries(
          Array.from({ length: t.productsLength() }, (_, i) => {
            const p = t.products(i);
            return [
              String(p?.productId()),
              Array.from(
                { length: p?.pricesLength() ?? 0 },
                (_, j) => `${p?.prices(j)?.method()}:${p?.prices(j)?.amount()}:${p?.prices(j)?.currency()}`,
              ),
            ];
          }),
        ),
        methods: Array.from({ length: t.purchaseMethodsLength() }, (_, i) => t.purchaseMethods(i)),
        emailRequired: t.emailRequired(),
        notice: t.notice(),
        frozen: t.frozen(),
        trusted: t.trusted(),
      }),
    );

  const funded = async (direct: bigint, telegram: bigint, vk: bigint, email?: { address: string; confirmed: boolean }) => {
    const id = await newAccount(h.database.db, email);
    if (direct > 0n) await grantChips(h.database.db, id, 'direct', direct, 'test');
    if (telegram > 0n) await grantChips(h.database.db, id, 'telegram', telegram, 'test');
    if (vk > 0n) await grantChips(h.database.db, id, 'vk', vk, 'test');
    return id;
  };

  const ledgerCount = async () => (await sql<{ n: bigint }>`select count(*) as n from ledger_operations`.execute(h.database.db)).rows[0]?.n;

  describe('wallet.catalog projects active products through the gate', () => {
    it('telegram: chips and stars prices only', async () => {
      const id = await funded(0n, 0n, 0n);
      const c = await getCatalog(id, 'telegram');
      expect(c.methods).toEqual(['chips', 'xtr']);
      expect(c.products[String(hints)]).toEqual(['chips:3:CHIPS']);
      expect(c.products[String(pack)]).toEqual(['xtr:50:XTR']);
      expect(c.products[String(retired)]).toBeUndefined();
      expect(c).toMatchObject({ emailRequired: false, notice: '', frozen: false, trusted: true });
    });

    it('direct without a confirmed e-mail: card prices shown with a notice to add an e-mail; with one, no notice', async () => {
      const bare = await getCatalog(await funded(0n, 0n, 0n), 'direct;web');
      expect(bare.methods).toEqual(['chips', 'provider']);
      expect(bare.products[String(pack)]).toEqual(['provider:9900:RUB']);
      expect(bare.emailRequired).toBe(true);
      expect(bare.notice).toMatch(/e-mail/);
      const unconfirmed = await getCatalog(await funded(0n, 0n, 0n, { address: 'u1@example.com', confirmed: false }), 'direct;ios');
      expect(unconfirmed.emailRequired).toBe(true);
      const confirmed = await getCatalog(await funded(0n, 0n, 0n, { address: 'c1@example.com', confirmed: true }), 'direct;android');
      expect(confirmed).toMatchObject({ emailRequired: false, notice: '' });
    });

    it('vk on ios is frozen and untrusted sessions see no prices', async () => {
      const id = await funded(0n, 0n, 0n);
      expect(await getCatalog(id, 'vk;ios')).toMatchObject({ products: {}, methods: [], frozen: true, trusted: true });
      const none = await getCatalog(id, 'none');
      expect(none).toMatchObject({ products: {}, methods: [], frozen: false, trusted: false });
      expect(none.notice).not.toBe('');
      expect((await getCatalog(id, 'vk;android')).products[String(pack)]).toEqual(['provider:9900:RUB']);
    });
  });

  describe('wallet.get shows only what the context may see', () => {
    it.each([
      ['telegram', { telegram: 20n }, ['telegram'], true, false, true],
      ['vk;android', { vk: 30n }, ['vk'], true, false, true],
      ['vk;ios', { vk: 30n }, [], false, true, true],
      ['direct;web', { direct: 10n, telegram: 20n, vk: 30n }, ['direct', 'telegram', 'vk'], true, false, true],
      ['direct', { direct: 10n, telegram: 20n, vk: 30n }, ['direct', 'telegram', 'vk'], true, false, true],
      ['direct;ios', { direct: 10n, telegram: 20n, vk: 30n }, ['direct', 'telegram', 'vk'], true, false, true],
      ['direct;android', { direct: 10n, telegram: 20n, vk: 30n }, ['direct', 'telegram', 'vk'], true, false, true],
      ['vk', { vk: 30n }, [], false, true, true],
      ['none', { direct: 10n, telegram: 20n, vk: 30n }, [], false, false, false],
    ])('%s', async (platform, segments, spendOrder, canSpend, frozen, trusted) => {
      const id = await funded(10n, 20n, 30n);
      expect(await getWallet(id, platform)).toEqual({ segments, benefits: [], spendOrder, canSpend, frozen, trusted });
    });
  });

  describe('wallet.buy', () => {
    it('on direct draws direct, telegram, vk in order, one ledger operation per segment, benefits to the largest draw', async () => {
      const id = await funded(10n, 25n, 30n);
      const before = await ledgerCount();
      const bought = [Date.now()];
      const p = readPurchase((await wallet.buy({ body: buyBody(noAds) }, as(id, 'direct;web'))).body);
      bought.push(Date.now());
      expect(p).toMatchObject({
        productId: noAds,
        price: 40n,
        draws: [
          ['direct', 10n],
          ['telegram', 25n],
          ['vk', 5n],
        ],
        benefitOrigin: 'telegram',
        replayed: false,
      });
      expect(p.wallet?.segments).toEqual({ direct: 0n, telegram: 0n, vk: 25n });
      expect(p.wallet?.benefits).toEqual([{ origin: 'telegram', until: expect.any(BigInt) as bigint, forever: false, hints: 1n }]);
      const until = Number(p.wallet?.benefits[0]?.until) * 1000;
      expectTermEnd(until, bought, 7);
      expect((await ledgerCount()) ?? 0n).toBe((before ?? 0n) + 3n);
      const ops = await h.database.db
        .selectFrom('ledger_operations')
        .select(['kind', 'segment', 'chips_delta', 'rail', 'benefit_origin', 'hints_delta', 'no_ads_days'])
        .where('account_id', '=', id)
        .where('kind', '=', 'spend')
        .orderBy('id')
        .execute();
      expect(ops).toEqual([
        { kind: 'spend', segment: 'direct', chips_delta: -10n, rail: null, benefit_origin: null, hints_delta: 0n, no_ads_days: 0n },
        { kind: 'spend', segment: 'telegram', chips_delta: -25n, rail: null, benefit_origin: 'telegram', hints_delta: 1n, no_ads_days: 7n },
        { kind: 'spend', segment: 'vk', chips_delta: -5n, rail: null, benefit_origin: null, hints_delta: 0n, no_ads_days: 0n },
      ]);
    });

    it('inside a host spends only that host, even when other segments could pay', async () => {
      const id = await funded(1_000n, 2n, 0n);
      expect(await failure(wallet.buy({ body: buyBody(hints) }, as(id, 'telegram')))).toEqual({
        code: Code.FailedPrecondition,
        errorCode: 'insufficient_chips',
      });
      await grantChips(h.database.db, id, 'telegram', 1n);
      const p = readPurchase((await wallet.buy({ body: buyBody(hints) }, as(id, 'telegram'))).body);
      expect(p.draws).toEqual([['telegram', 3n]]);
      expect(p.wallet?.segments).toEqual({ telegram: 0n });
      expect((await getWallet(id, 'direct;web')).segments).toEqual({ direct: 1_000n, telegram: 0n, vk: 0n });
    });

    it('extends a no-ads term from its current end and sets forever', async () => {
      const id = await funded(2_000n, 0n, 0n);
      const bought = [Date.now()];
      await wallet.buy({ body: buyBody(noAds) }, as(id, 'direct'));
      const second = readPurchase((await wallet.buy({ body: buyBody(noAds) }, as(id, 'direct'))).body);
      bought.push(Date.now());
      const until = Number(second.wallet?.benefits[0]?.until) * 1000;
      expectTermEnd(until, bought, 14);
      const third = readPurchase((await wallet.buy({ body: buyBody(forever) }, as(id, 'direct'))).body);
      expect(third.wallet?.benefits).toEqual([{ origin: 'direct', until: second.wallet?.benefits[0]?.until, forever: true, hints: 2n }]);
    });

    it('refuses untrusted and frozen contexts, unknown and non-chip products, and bad input, writing nothing', async () => {
      const id = await funded(100n, 100n, 100n);
      const before = await ledgerCount();
      const cases: Array<[Promise<unknown>, Code, string]> = [
        [wallet.buy({ body: buyBody(hints) }, as(id, 'none')), Code.PermissionDenied, 'purchase_forbidden'],
        [wallet.buy({ body: buyBody(hints) }, as(id, 'vk;ios')), Code.PermissionDenied, 'purchase_forbidden'],
        [wallet.buy({ body: buyBody(999_999n) }, as(id, 'direct')), Code.NotFound, 'unknown_product'],
        [wallet.buy({ body: buyBody(retired) }, as(id, 'direct')), Code.NotFound, 'unknown_product'],
        [wallet.buy({ body: buyBody(pack) }, as(id, 'direct')), Code.FailedPrecondition, 'not_sold_for_chips'],
        [wallet.buy({ body: buyBody(0n) }, as(id, 'direct')), Code.InvalidArgument, 'invalid_product_id'],
        [wallet.buy({ body: buyBody(-5n) }, as(id, 'direct')), Code.InvalidArgument, 'invalid_product_id'],
        [wallet.buy({ body: buyBody(2n ** 63n - 1n) }, as(id, 'direct')), Code.NotFound, 'unknown_product'],
        [wallet.buy({ body: buyBody(hints, 'has space') }, as(id, 'direct')), Code.InvalidArgument, 'invalid_idempotency_key'],
        [wallet.buy({ body: buyBody(hints, 'k'.repeat(129)) }, as(id, 'direct')), Code.InvalidArgument, 'invalid_idempotency_key'],
        [wallet.buy({ body: buyBody(forever) }, as(id, 'direct')), Code.FailedPrecondition, 'insufficient_chips'],
        [wallet.buy({ body: new Uint8Array([9, 9, 9]) }, as(id, 'direct')), Code.InvalidArgument, 'malformed_body'],
        [wallet.buy({ body: buyBody(hints) }), Code.Unauthenticated, 'caller_required'],
        [wallet.buy({ body: buyBody(hints) }, as(424_242n, 'direct')), Code.Unauthenticated, 'caller_required'],
        [wallet.getWallet({ body: walletQuery }, as(424_242n, 'direct')), Code.Unauthenticated, 'caller_required'],
        [wallet.getCatalog({ body: catalogQuery }, as(424_242n, 'direct')), Code.Unauthenticated, 'caller_required'],
        [wallet.getWallet({ body: walletQuery }, as(id, 'direct;mac')), Code.Unauthenticated, 'caller_required'],
      ];
      for (const [call, code, errorCode] of cases) expect(await failure(call)).toEqual({ code, errorCode });
      expect(await ledgerCount()).toBe(before);
      expect((await getWallet(id, 'direct')).segments).toEqual({ direct: 100n, telegram: 100n, vk: 100n });
      expect(await h.database.db.selectFrom('buy_requests').select('idempotency_key').where('account_id', '=', id).execute()).toEqual([]);
    });

    it('returns the first result for a repeated Idempotency-Key and refuses it for another product', async () => {
      const id = await funded(10n, 0n, 0n);
      const first = readPurchase((await wallet.buy({ body: buyBody(hints, 'retry-1') }, as(id, 'direct'))).body);
      const again = readPurchase((await wallet.buy({ body: buyBody(hints, 'retry-1') }, as(id, 'direct'))).body);
      expect(again).toEqual({ ...first, replayed: true });
      expect((await getWallet(id, 'direct')).segments['direct']).toBe(7n);
      expect(await failure(wallet.buy({ body: buyBody(noAds, 'retry-1') }, as(id, 'direct')))).toEqual({
        code: Code.FailedPrecondition,
        errorCode: 'idempotency_key_reused',
      });
      const other = await funded(10n, 0n, 0n);
      expect(readPurchase((await wallet.buy({ body: buyBody(hints, 'retry-1') }, as(other, 'direct'))).body).replayed).toBe(false);
    });

    it('200 concurrent buys against chips for exactly 100: 100 succeed, balance 0, audit clean', async () => {
      const id = await funded(100n, 100n, 100n);
      const results = await Promise.allSettled(
        Array.from({ length: 200 }, () => wallet.buy({ body: buyBody(hints) }, as(id, 'direct;web'))),
      );
      const ok = results.filter((r) => r.status === 'fulfilled');
      const refused = results.flatMap((r) => (r.status === 'rejected' ? [errorOf(r.reason)] : []));
      expect(ok).toHaveLength(100);
      expect(refused).toHaveLength(100);
      expect(new Set(refused.map((r) => r.errorCode))).toEqual(new Set(['insufficient_chips']));
      expect((await getWallet(id, 'direct')).segments).toEqual({ direct: 0n, telegram: 0n, vk: 0n });
      const benefit = await h.database.db
        .selectFrom('benefits')
        .select(['origin', 'hints'])
        .where('account_id', '=', id)
        .orderBy('origin')
        .execute();
      expect(benefit.reduce((s, b) => s + b.hints, 0n)).toBe(300n);
      expect((await auditLedger(h.database.db)).problems).toEqual([]);
    });

    it('the same Idempotency-Key sent 20 times concurrently charges once', async () => {
      const id = await funded(30n, 0n, 0n);
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          wallet.buy({ body: buyBody(hints, 'double-click') }, as(id, 'direct')).then((r) => readPurchase(r.body)),
        ),
      );
      expect(results.filter((r) => !r.replayed)).toHaveLength(1);
      for (const r of results) expect({ ...r, replayed: false }).toEqual({ ...results[0], replayed: false });
      expect((await getWallet(id, 'direct')).segments['direct']).toBe(27n);
      const spends = await h.database.db
        .selectFrom('ledger_operations')
        .select('id')
        .where('account_id', '=', id)
        .where('kind', '=', 'spend')
        .execute();
      expect(spends).toHaveLength(1);
    });
  });

  describe('ledger', () => {
    it('is append-only in the database: UPDATE, DELETE and TRUNCATE are refused', async () => {
      const id = await funded(5n, 0n, 0n);
      const refused = /append-only/;
      await expect(sql`update ledger_operations set chips_delta = 500 where account_id = ${id}`.execute(h.database.db)).rejects.toThrow(
        refused,
      );
      await expect(sql`delete from ledger_operations where account_id = ${id}`.execute(h.database.db)).rejects.toThrow(refused);
      await expect(sql`truncate ledger_operations`.execute(h.database.db)).rejects.toThrow(refused);
      const ops = await h.database.db.selectFrom('ledger_operations').select('chips_delta').where('account_id', '=', id).execute();
      expect(ops).toEqual([{ chips_delta: 5n }]);
    });

    it('audit is clean after the wallet tests, via the function and the CLI, and catches a tampered balance', async () => {
      const report = await auditLedger(h.database.db);
      expect(report.problems).toEqual([]);
      expect(report.operations).toBeGreaterThan(100n);
      expect(report.segmentsChecked).toBeGreaterThan(10);
      expect(report.benefitsChecked).toBeGreaterThan(3);

      const cli = () =>
        spawnSync(
          process.execPath,
          [
            fileURLToPath(new URL('../../../node_modules/tsx/dist/cli.mjs', import.meta.url)),
            fileURLToPath(new URL('../src/ledger/audit-cli.ts', import.meta.url)),
          ],
          {
            env: { ...process.env, DATABASE_URL: h.database.url },
            encoding: 'utf8',
            timeout: 30_000,
          },
        );
      const clean = cli();
      expect(clean.status).toBe(0);
      expect(JSON.parse(clean.stdout)).toMatchObject({ clean: true, problems: [] });

      const id = await funded(5n, 0n, 0n);
      await h.database.db
        .updateTable('wallet_segments')
        .set({ balance: 6n })
        .where('account_id', '=', id)
        .where('segment', '=', 'direct')
        .execute();
      await h.database.db.updateTable('benefits').set({ hints: 999n }).where('origin', '=', 'telegram').execute();
      const dirty = await auditLedger(h.database.db);
      expect(dirty.problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(new RegExp(`account ${id} segment direct: balance 6 but ledger sums to 5`)),
          expect.stringMatching(/hints 999/),
        ]),
      );
      expect(cli().status).toBe(1);
    });
  });
});
