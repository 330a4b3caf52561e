import { Code } from '@connectrpc/connect';
import fc from 'fast-check';
import { backendApi } from '@wordgame/contracts';
import { upsertOperator } from '../src/operators/operators.store.js';
import { signIn } from '../src/operators/sessions.js';
import { auditLedger } from '../src/ledger/audit.js';
import { codeHash, promoKey } from '../src/promos/index.js';
import { as, errorOf, failure, startHarness, type Harness } from './support/harness.js';
import { codeDetail, createCode, listCodes, redeem, reverse, type PromoClient } from './support/promos.js';
import { buyBody, createProduct, newAccount } from './support/wallet.js';
import { TEST_SERVICE_TOKENS } from '@wordgame/testkit';

/** Property runs on real servers take what a loaded machine gives them; the deadline only catches a hang. */
const PROPERTY_DEADLINE_MS = 600_000;

const NOT_REDEEMABLE = { code: Code.FailedPrecondition, errorCode: 'code_not_redeemable' };

/**
 * Promo codes through the PromoService on a real backend and PostgreSQL: what operators create,
 * what one redemption grants and where, the one-per-player and total limits, the window and the
 * hosts, the last use under concurrency, reversal (with the debt a spent grant leaves) and the
 * attempt limits. The ledger audit stays clean throughout.
 */
describe('promo codes (PostgreSQL)', () => {
  let h: Harness;
  let promos: PromoClient;
  const db = () => h.database.db;
  const segments = async (id: bigint) =>
    Object.fromEntries(
      (await db().selectFrom('wallet_segments').select(['segment', 'balance']).where('account_id', '=', id).execute()).map((r) => [
        r.segment,
        r.balance,
      ]),
    );
  const clean = async () => expect((await auditLedger(db())).problems).toEqual([]);

  beforeAll(async () => {
    h = await startHarness();
    promos = h.client(backendApi.PromoService);
  });
  afterAll(() => h.stop());

  it('generates a 16-character code of the unambiguous alphabet and stores only its keyed hash and prefix', async () => {
    const made = await createCode(promos, { chips: 50n });
    expect(made.code).toMatch(/^[2-9A-HJ-NP-Z]{16}$/);
    expect(made.prefix).toBe(made.code.slice(0, 4));
    const row = await db().selectFrom('promo_codes').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow();
    expect(row.code_hash.equals(codeHash(promoKey(undefined, TEST_SERVICE_TOKENS.BACKEND_SERVICE_TOKEN), made.code))).toBe(true);
    expect(JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(made.code);
    const audited = await db().selectFrom('operator_audit').selectAll().where('action', '=', 'code_create').execute();
    expect(audited.map((a) => a.target)).toContain(`code ${made.id}`);
  });

  it('refuses a short or malformed typed code, a duplicate, an empty grant and a window in the past', async () => {
    const invalid = { code: Code.InvalidArgument, errorCode: 'invalid_promo_code' };
    expect(await failure(createCode(promos, { code: 'SHORT1' }))).toEqual(invalid);
    expect(await failure(createCode(promos, { code: 'NOT/ALLOWED!' }))).toEqual(invalid);
    expect(await failure(createCode(promos, { chips: 0n }))).toEqual(invalid);
    expect(await failure(createCode(promos, { hosts: ['ios'] }))).toEqual(invalid);
    expect(await failure(createCode(promos, { until: new Date(Date.now() - 1000), from: new Date(Date.now() - 5000) }))).toEqual(invalid);
    await createCode(promos, { code: 'SPRING-SALE-2031' });
    expect(await failure(createCode(promos, { code: 'spring sale 2031' }))).toEqual({
      code: Code.AlreadyExists,
      errorCode: 'promo_code_taken',
    });
  });

  it('needs catalog_editor to create, refunder to reverse, viewer to read', async () => {
    await upsertOperator(db(), 'promo-viewer', 'promo viewer password', ['viewer']);
    const { token } = await signIn(db(), 'promo-viewer', 'promo viewer password', 24, new Date());
    const viewer = { headers: { 'x-operator-session': token } };
    const forbidden = { code: Code.PermissionDenied, errorCode: 'operator_forbidden' };
    expect(await failure(createCode(promos, {}, viewer))).toEqual(forbidden);
    expect(await failure(promos.reverseRedemption({ body: new Uint8Array() }, viewer))).toEqual(forbidden);
    expect((await listCodes(promos, viewer)).codes.length).toBeGreaterThan(0);
  });

  it('grants once per player into the segment of the context, in the ledger and the history', async () => {
    const made = await createCode(promos, { code: 'WELCOME-TG-0001', chips: 40n, hints: 2n, noAdsDays: 3n });
    const player = await newAccount(db());
    const got = await redeem(promos, ' welcome tg 0001 ', as(player, 'telegram'));
    expect(got).toEqual({ segment: 'telegram', chips: 40n, hints: 2n, noAdsDays: 3n, balance: 40n });
    expect(await failure(redeem(promos, 'WELCOME-TG-0001', as(player, 'telegram')))).toEqual({
      code: Code.FailedPrecondition,
      errorCode: 'code_already_redeemed',
    });
    expect(await failure(redeem(promos, 'WELCOME-TG-0001', as(player, 'direct;web')))).toMatchObject({
      errorCode: 'code_already_redeemed',
    });
    expect(await segments(player)).toMatchObject({ telegram: 40n, direct: 0n });
    const benefit = await db().selectFrom('benefits').selectAll().where('account_id', '=', player).executeTakeFirstOrThrow();
    expect(benefit).toMatchObject({ origin: 'telegram', hints: 2n });
    expect(benefit.no_ads_until).not.toBeNull();
    const rows = await db().selectFrom('ledger_operations').selectAll().where('account_id', '=', player).execute();
    expect(rows).toEqual([
      expect.objectContaining({ kind: 'code_grant', segment: 'telegram', chips_delta: 40n, hints_delta: 2n, no_ads_days: 3n, rail: null }),
    ]);
    expect((await codeDetail(promos, made.id)).redeemed).toBe(1);
    await clean();
  });

  it('answers unknown, used-up, outside-the-window and wrong-host codes alike', async () => {
    const [a, b, c] = await Promise.all([newAccount(db()), newAccount(db()), newAccount(db())]);
    await createCode(promos, { code: 'ONLYONCE-0001', max: 1 });
    await redeem(promos, 'ONLYONCE-0001', as(a, 'direct;web'));
    expect(await failure(redeem(promos, 'ONLYONCE-0001', as(b, 'direct;web')))).toEqual(NOT_REDEEMABLE);
    expect(await failure(redeem(promos, 'NOSUCHCODE-0001', as(b, 'direct;web')))).toEqual(NOT_REDEEMABLE);
    expect(await failure(redeem(promos, 'x', as(b, 'direct;web')))).toEqual(NOT_REDEEMABLE);
    await createCode(promos, { code: 'LATER-OPENS-01', from: new Date(Date.now() + 3_600_000), until: new Date(Date.now() + 7_200_000) });
    expect(await failure(redeem(promos, 'LATER-OPENS-01', as(b, 'direct;web')))).toEqual(NOT_REDEEMABLE);
    const ended = await createCode(promos, { code: 'ALREADY-ENDED-01' });
    await db()
      .updateTable('promo_codes')
      .set({ valid_from: new Date(Date.now() - 7_200_000), valid_until: new Date(Date.now() - 3_600_000) } as never)
      .where('id', '=', ended.id)
      .execute();
    expect(await failure(redeem(promos, 'ALREADY-ENDED-01', as(b, 'direct;web')))).toEqual(NOT_REDEEMABLE);
    await createCode(promos, { code: 'TELEGRAM-ONLY-01', hosts: ['telegram'] });
    expect(await failure(redeem(promos, 'TELEGRAM-ONLY-01', as(b, 'direct;web')))).toEqual(NOT_REDEEMABLE);
    expect(await failure(redeem(promos, 'TELEGRAM-ONLY-01', as(b, 'vk;android')))).toEqual(NOT_REDEEMABLE);
    expect((await redeem(promos, 'TELEGRAM-ONLY-01', as(b, 'telegram'))).segment).toBe('telegram');
    await createCode(promos, { code: 'VK-CODE-000001', hosts: ['vk'] });
    expect((await redeem(promos, 'VK-CODE-000001', as(c, 'vk;android'))).segment).toBe('vk');
    await clean();
  });

  it('refuses an untrusted session, a frozen context and a suspended account', async () => {
    await createCode(promos, { code: 'CONTEXTS-0001' });
    const p = await newAccount(db());
    expect(await failure(redeem(promos, 'CONTEXTS-0001', as(p, 'none')))).toEqual({
      code: Code.PermissionDenied,
      errorCode: 'untrusted_session',
    });
    expect(await failure(redeem(promos, 'CONTEXTS-0001', as(p, 'vk;ios')))).toEqual({
      code: Code.PermissionDenied,
      errorCode: 'purchase_forbidden',
    });
    expect(await failure(redeem(promos, 'CONTEXTS-0001', as(p, 'vk')))).toMatchObject({ errorCode: 'purchase_forbidden' });
    await db().updateTable('accounts').set({ status: 'suspended' }).where('id', '=', p).execute();
    expect(await failure(redeem(promos, 'CONTEXTS-0001', as(p, 'direct;web')))).toMatchObject({ errorCode: 'account_suspended' });
    expect(await segments(p)).toMatchObject({ direct: 0n, telegram: 0n, vk: 0n });
  });

  it(
    'grants the last uses exactly once however many players race for them',
    async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 2, max: 6 }), async (max, racers) => {
          n += 1;
          const code = `RACE${String(n).padStart(6, '0')}X`;
          const made = await createCode(promos, { code, max, chips: 7n });
          const players = await Promise.all(Array.from({ length: racers }, () => newAccount(db())));
          const outcomes = await Promise.allSettled(players.map((p) => redeem(promos, code, as(p, 'direct;web'))));
          const granted = outcomes.filter((o) => o.status === 'fulfilled').length;
          expect(granted).toBe(Math.min(max, racers));
          for (const o of outcomes) if (o.status === 'rejected') expect(errorOf(o.reason)).toEqual(NOT_REDEEMABLE);
          const detail = await codeDetail(promos, made.id);
          expect(detail.redeemed).toBe(granted);
          expect(detail.redemptions).toHaveLength(granted);
          const rows = await db()
            .selectFrom('ledger_operations')
            .select('id')
            .where('kind', '=', 'code_grant')
            .where('account_id', 'in', players)
            .execute();
          expect(rows).toHaveLength(granted);
        }),
        { numRuns: 8 },
      );
      await clean();
    },
    PROPERTY_DEADLINE_MS,
  );

  it('reverses a grant in full once: a spent grant leaves a debt, shown in the ledger note and the audit', async () => {
    const admin = h.client(backendApi.CatalogAdminService);
    const wallet = h.client(backendApi.WalletService);
    const product = await createProduct(admin, { title: 'Promo spend', atoms: [['hints', 1n]], prices: [['chips', 80n]] });
    const made = await createCode(promos, { code: 'REVERSE-ME-0001', chips: 100n, hints: 1n });
    const p = await newAccount(db());
    await redeem(promos, 'REVERSE-ME-0001', as(p, 'direct;web'));
    await wallet.buy({ body: buyBody(product) }, as(p, 'direct;web'));
    const [redemption] = (await codeDetail(promos, made.id)).redemptions;
    if (!redemption) throw new Error('no redemption');
    const done = await reverse(promos, redemption.id, 'shared on a forum');
    expect(done.balance).toBe(-80n);
    expect(done.debts).toEqual(['direct chips -80']);
    expect(await segments(p)).toMatchObject({ direct: -80n });
    const reversal = await db()
      .selectFrom('ledger_operations')
      .selectAll()
      .where('account_id', '=', p)
      .where('kind', '=', 'reversal')
      .executeTakeFirstOrThrow();
    expect(reversal).toMatchObject({ chips_delta: -100n, hints_delta: -1n, segment: 'direct' });
    expect(reversal.note).toContain('left a debt: direct chips -80');
    expect(await failure(reverse(promos, redemption.id))).toEqual({ code: Code.FailedPrecondition, errorCode: 'redemption_reversed' });
    expect(await failure(reverse(promos, 999_999_999n))).toEqual({ code: Code.NotFound, errorCode: 'unknown_redemption' });
    expect(await failure(reverse(promos, redemption.id, ' '))).toMatchObject({ errorCode: 'invalid_reason' });
    const detail = await codeDetail(promos, made.id);
    expect(detail).toMatchObject({ redeemed: 1, reversed: 1 });
    expect(detail.redemptions[0]?.reversedUnix).toBeGreaterThan(0n);
    const audited = await db()
      .selectFrom('operator_audit')
      .selectAll()
      .where('action', '=', 'code_reverse')
      .where('outcome', '<>', 'forbidden')
      .execute();
    expect(audited).toEqual([expect.objectContaining({ target: `redemption ${redemption.id}`, outcome: 'reversed_with_debt' })]);
    // The player cannot redeem the same code again after the reversal: one per player, ever.
    expect(await failure(redeem(promos, 'REVERSE-ME-0001', as(p, 'direct;web')))).toMatchObject({ errorCode: 'code_already_redeemed' });
    await clean();
  });

  it('reverses once when two operators press at the same time; spent hints become a hint debt', async () => {
    const made = await createCode(promos, { code: 'HINTS-ONLY-0001', chips: 0n, hints: 2n, noAdsDays: 5n });
    const p = await newAccount(db());
    await redeem(promos, 'HINTS-ONLY-0001', as(p, 'vk;web'));
    await db().updateTable('benefits').set({ hints: 0n }).where('account_id', '=', p).where('origin', '=', 'vk').execute();
    await db()
      .insertInto('ledger_operations')
      .values({ account_id: p, kind: 'spend', benefit_origin: 'vk', hints_delta: -2n, note: 'two hints used' })
      .execute();
    const [redemption] = (await codeDetail(promos, made.id)).redemptions;
    if (!redemption) throw new Error('no redemption');
    const outcomes = await Promise.allSettled([reverse(promos, redemption.id, 'first'), reverse(promos, redemption.id, 'second')]);
    const done = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(done).toEqual([{ balance: 0n, debts: ['vk hints -2'] }]);
    for (const o of outcomes) if (o.status === 'rejected') expect(errorOf(o.reason)).toMatchObject({ errorCode: 'redemption_reversed' });
    const benefit = await db()
      .selectFrom('benefits')
      .selectAll()
      .where('account_id', '=', p)
      .where('origin', '=', 'vk')
      .executeTakeFirstOrThrow();
    expect(benefit.hints).toBe(-2n);
    const reversals = await db()
      .selectFrom('ledger_operations')
      .selectAll()
      .where('account_id', '=', p)
      .where('kind', '=', 'reversal')
      .execute();
    expect(reversals).toEqual([expect.objectContaining({ hints_delta: -2n, no_ads_days: 5n, benefit_origin: 'vk' })]);
    await clean();
  });

  it('lists the codes with their usage and the redemptions per day', async () => {
    const list = await listCodes(promos);
    const reversed = list.codes.find((c) => c.prefix === 'REVE');
    expect(reversed).toMatchObject({
      redeemed: 1,
      reversed: 1,
      maxRedemptions: 100,
      hosts: ['web', 'telegram', 'vk'],
      createdBy: 'harness-operator',
    });
    const today = new Date().toISOString().slice(0, 10);
    const day = list.days.find((d) => d.day === today);
    expect(day?.redemptions).toBeGreaterThanOrEqual(5n);
    expect(day?.reversals).toBe(2n);
  });
});

describe('promo code attempt limits (PostgreSQL)', () => {
  let h: Harness;
  let promos: PromoClient;
  beforeAll(async () => {
    h = await startHarness({ CODE_REDEEM_MAX: '3', CODE_REDEEM_ADDRESS_MAX: '5' });
    promos = h.client(backendApi.PromoService);
  });
  afterAll(() => h.stop());

  const at = (id: bigint, address: string) => ({ headers: { ...as(id, 'direct;web').headers, 'x-client-address': address } });

  it('counts every attempt per account, then per address across accounts, before looking at the code', async () => {
    const { code } = await createCode(promos, { max: 10 });
    const a = await newAccount(h.database.db);
    for (let i = 0; i < 3; i++) expect(await failure(redeem(promos, `WRONG-GUESS-${i}A`, at(a, '198.51.100.7')))).toEqual(NOT_REDEEMABLE);
    expect(await failure(redeem(promos, code, at(a, '198.51.100.8')))).toEqual({ code: Code.ResourceExhausted, errorCode: 'rate_limited' });
    const others = await Promise.all([newAccount(h.database.db), newAccount(h.database.db), newAccount(h.database.db)]);
    expect(await failure(redeem(promos, 'WRONG-GUESS-9A', at(others[0] ?? 0n, '198.51.100.7')))).toEqual(NOT_REDEEMABLE);
    expect(await failure(redeem(promos, 'WRONG-GUESS-9B', at(others[1] ?? 0n, '198.51.100.7')))).toEqual(NOT_REDEEMABLE);
    expect(await failure(redeem(promos, code, at(others[2] ?? 0n, '198.51.100.7')))).toEqual({
      code: Code.ResourceExhausted,
      errorCode: 'rate_limited',
    });
    expect((await redeem(promos, code, at(others[2] ?? 0n, '203.0.113.9'))).chips).toBe(100n);
    const metrics = await (await fetch(h.metricsUrl)).text();
    expect(metrics).toMatch(/backend_code_redemptions_total\{outcome="rate_limited"\} 2/);
    expect(metrics).toMatch(/backend_code_redemptions_total\{outcome="granted"\} 1/);
  });
});
