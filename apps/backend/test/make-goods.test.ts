import { randomBytes } from 'node:crypto';
import { Code, type Client } from '@connectrpc/connect';
import fc from 'fast-check';
import { createLogger } from '@wordgame/logging';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { auditLedger } from '../src/ledger/audit.js';
import { upsertOperator } from '../src/operators/operators.store.js';
import { signIn } from '../src/operators/sessions.js';
import type { OperatorRole } from '../src/operators/operators.table.js';
import { as, errorOf, failure, startHarness, type Harness } from './support/harness.js';
import { fullRefund, orderProduct, paidOrder } from './support/orders.js';
import { buyBody, createProduct, newAccount } from './support/wallet.js';

/** Property runs on real servers take what a loaded machine gives them; the deadline only catches a hang. */
const PROPERTY_DEADLINE_MS = 600_000;

const CHIPS_CAP = 1_000n;
const HINTS_CAP = 10n;
const NO_ADS_CAP = 5n;

interface Grant {
  account: bigint;
  segment?: string;
  chips?: bigint;
  hints?: bigint;
  noAdsDays?: bigint;
  reason?: string;
  supportCase?: string;
  token?: string;
}

const token = () => randomBytes(18).toString('base64url');

function grantBody(g: Grant): Uint8Array {
  return encodeTable((b) =>
    fb.MakeGoodRequest.createMakeGoodRequest(
      b,
      g.account,
      b.createString(g.segment ?? 'direct'),
      g.chips ?? 0n,
      g.hints ?? 0n,
      g.noAdsDays ?? 0n,
      b.createString(g.reason ?? 'lost a game to a server fault'),
      b.createString(g.supportCase ?? ''),
      b.createString(g.token ?? token()),
    ),
  );
}

function readResult(body: Uint8Array) {
  return decodeTable(
    body,
    (bb) => fb.MakeGoodResult.getRootAsMakeGoodResult(bb),
    (t) => ({
      id: t.makeGoodId(),
      replayed: t.replayed(),
      chips: t.chips(),
      balance: t.balance(),
      caps: Array.from({ length: t.capsLength() }, (_, i) => [t.caps(i)?.kind() ?? '', t.caps(i)?.used() ?? 0n, t.caps(i)?.cap() ?? 0n]),
    }),
  );
}

const op = (sessionToken: string) => ({ headers: { 'x-operator-session': sessionToken } });

/**
 * Make-goods through the backend's MakeGoodService on PostgreSQL: the granter role, a mandatory
 * reason, the per-operator daily caps under concurrency, once per form token, a debt paid off, the
 * player's history and the ledger audit.
 */
describe('make-goods by operators (MakeGoodService, PostgreSQL)', () => {
  let h: Harness;
  let makeGoods: Client<typeof backendApi.MakeGoodService>;
  let operators = 0;

  const operator = async (roles: OperatorRole[] = ['granter']): Promise<{ id: bigint; token: string }> => {
    operators += 1;
    const login = `granter-${operators}`;
    await upsertOperator(h.database.db, login, 'granter password long enough', roles);
    const { token: t, session } = await signIn(h.database.db, login, 'granter password long enough', 1, new Date());
    return { id: session.id, token: t };
  };
  const grant = (who: { token: string }, g: Grant) => makeGoods.grantMakeGood({ body: grantBody(g) }, op(who.token));
  const balance = async (account: bigint, segment: 'direct' | 'telegram' | 'vk') =>
    (
      await h.database.db
        .selectFrom('wallet_segments')
        .select('balance')
        .where('account_id', '=', account)
        .where('segment', '=', segment)
        .executeTakeFirst()
    )?.balance ?? 0n;
  const makeGoodRows = (account: bigint) =>
    h.database.db.selectFrom('ledger_operations').selectAll().where('account_id', '=', account).where('kind', '=', 'make_good').execute();
  const audits = (operatorId: bigint) =>
    h.database.db
      .selectFrom('operator_audit')
      .selectAll()
      .where('operator_id', '=', operatorId)
      .where('action', '=', 'make_good')
      .orderBy('id')
      .execute();

  beforeAll(async () => {
    h = await startHarness({
      BACKEND_MAKE_GOOD_DAILY_CHIPS_CAP: String(CHIPS_CAP),
      BACKEND_MAKE_GOOD_DAILY_HINTS_CAP: String(HINTS_CAP),
      BACKEND_MAKE_GOOD_DAILY_NO_ADS_DAYS_CAP: String(NO_ADS_CAP),
      REAPER_INTERVAL_MS: '0',
      STAR_REFUND_INTERVAL_MS: '0',
    });
    makeGoods = h.client(backendApi.MakeGoodService);
  });
  afterAll(() => h.stop());
  afterEach(async () => expect((await auditLedger(h.database.db)).problems).toEqual([]));

  it('needs the granter role: the harness operator (every other role) is refused, audited, and nothing moves', async () => {
    const account = await newAccount(h.database.db);
    expect(await failure(makeGoods.grantMakeGood({ body: grantBody({ account, chips: 10n }) }))).toEqual({
      code: Code.PermissionDenied,
      errorCode: 'operator_forbidden',
    });
    expect(await failure(h.bareClient(backendApi.MakeGoodService).grantMakeGood({ body: grantBody({ account, chips: 10n }) }))).toEqual({
      code: Code.Unauthenticated,
      errorCode: 'operator_session_invalid',
    });
    expect(await makeGoodRows(account)).toEqual([]);
    const forbidden = await h.database.db
      .selectFrom('operator_audit')
      .select(['outcome', 'detail'])
      .where('action', '=', 'make_good')
      .execute();
    expect(forbidden).toContainEqual({ outcome: 'forbidden', detail: 'needs granter' });
  });

  it('needs a reason, a segment, whole amounts and a form token; a refusal grants nothing and is audited', async () => {
    const g = await operator();
    const account = await newAccount(h.database.db);
    for (const bad of [
      { account, chips: 10n, reason: '   ' },
      { account, chips: 10n, reason: 'x'.repeat(501) },
      { account, chips: 10n, reason: 'two\nlines' },
      { account, chips: 10n, segment: 'steam' },
      { account, chips: -1n },
      { account },
      { account, chips: 10n, token: 'short' },
      { account, chips: 10n, supportCase: 'not-a-case' },
    ])
      expect(await failure(grant(g, bad))).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_make_good' });
    expect(await failure(grant(g, { account: 9_999_999n, chips: 10n }))).toEqual({ code: Code.NotFound, errorCode: 'unknown_account' });
    expect(await failure(grant(g, { account, chips: 10n, supportCase: 'C-AAAAAA' }))).toEqual({
      code: Code.NotFound,
      errorCode: 'unknown_support_case',
    });
    expect(await makeGoodRows(account)).toEqual([]);
    expect((await audits(g.id)).map((a) => [a.outcome, a.detail])).toEqual([
      ...Array.from({ length: 8 }, () => ['refused', 'invalid_make_good']),
      ['refused', 'unknown_account'],
      ['refused', 'unknown_support_case'],
    ]);
  });

  it("grants chips, hints and no-ads days as one make_good row, audited, shown in the player's history without the reason", async () => {
    const g = await operator();
    const account = await newAccount(h.database.db);
    const r = readResult(
      (await grant(g, { account, segment: 'telegram', chips: 120n, hints: 2n, noAdsDays: 3n, reason: 'case 17: lost hints' })).body,
    );
    expect(r).toMatchObject({ replayed: false, chips: 120n, balance: 120n });
    expect(r.caps).toEqual([
      ['chips', 120n, CHIPS_CAP],
      ['hints', 2n, HINTS_CAP],
      ['no_ads_days', 3n, NO_ADS_CAP],
    ]);
    const rows = await makeGoodRows(account);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      segment: 'telegram',
      benefit_origin: 'telegram',
      chips_delta: 120n,
      hints_delta: 2n,
      no_ads_days: 3n,
      rail: null,
      money_minor: null,
      note: `make-good ${r.id}: case 17: lost hints`,
    });
    const benefits = await h.database.db.selectFrom('benefits').selectAll().where('account_id', '=', account).executeTakeFirstOrThrow();
    expect(benefits).toMatchObject({ origin: 'telegram', hints: 2n });
    expect(benefits.no_ads_until).not.toBeNull();
    expect((await audits(g.id)).map((a) => [a.target, a.outcome])).toEqual([[`account:${account}`, 'granted']]);

    const history = await h
      .client(backendApi.WalletService)
      .getHistory(
        { body: encodeTable((b) => fb.WalletHistoryQuery.createWalletHistoryQuery(b, b.createString(''), 20, b.createString('en'))) },
        as(account, 'direct'),
      );
    const entries = decodeTable(
      history.body,
      (bb) => fb.WalletHistory.getRootAsWalletHistory(bb),
      (t) =>
        Array.from({ length: t.entriesLength() }, (_, i) => ({
          kind: t.entries(i)?.kind(),
          chips: t.entries(i)?.chips(),
          hints: t.entries(i)?.hints(),
          noAdsDays: t.entries(i)?.noAdsDays(),
          segment: t.entries(i)?.segment(),
          title: t.entries(i)?.title(),
        })),
    );
    expect(entries).toEqual([{ kind: 'make_good', chips: 120n, hints: 2n, noAdsDays: 3n, segment: 'telegram', title: '' }]);
  });

  it('grants once per form token: a double submit (even concurrent) answers the first grant, replayed', async () => {
    const g = await operator();
    const account = await newAccount(h.database.db);
    const t = token();
    const [a, b] = await Promise.all([grant(g, { account, chips: 50n, token: t }), grant(g, { account, chips: 50n, token: t })]);
    const results = [readResult(a.body), readResult(b.body)];
    expect(results.map((r) => r.replayed).sort()).toEqual([false, true]);
    expect(results[0]?.id).toBe(results[1]?.id);
    expect(readResult((await grant(g, { account, chips: 70n, token: t })).body)).toMatchObject({ replayed: true, chips: 50n });
    expect(await balance(account, 'direct')).toBe(50n);
    expect(await makeGoodRows(account)).toHaveLength(1);
    expect((await audits(g.id)).map((a) => a.outcome)).toEqual(['granted', 'replayed', 'replayed']);
  });

  it('enforces the daily caps per operator and kind: a grant past a cap is make_good_cap_reached, another operator has its own', async () => {
    const g = await operator();
    const account = await newAccount(h.database.db);
    await grant(g, { account, chips: 600n });
    expect(await failure(grant(g, { account, chips: 401n }))).toEqual({
      code: Code.FailedPrecondition,
      errorCode: 'make_good_cap_reached',
    });
    expect(readResult((await grant(g, { account, chips: 400n })).body).caps[0]).toEqual(['chips', CHIPS_CAP, CHIPS_CAP]);
    expect(await failure(grant(g, { account, chips: 1n }))).toMatchObject({ errorCode: 'make_good_cap_reached' });
    await grant(g, { account, hints: HINTS_CAP });
    expect(await failure(grant(g, { account, hints: 1n }))).toMatchObject({ errorCode: 'make_good_cap_reached' });
    expect(await failure(grant(g, { account, noAdsDays: NO_ADS_CAP + 1n }))).toMatchObject({ errorCode: 'make_good_cap_reached' });
    await grant(await operator(), { account, chips: CHIPS_CAP });
    expect(await balance(account, 'direct')).toBe(2n * CHIPS_CAP);
    const target = await makeGoods.getMakeGoodTarget(
      { body: encodeTable((b) => fb.MakeGoodTargetQuery.createMakeGoodTargetQuery(b, account)) },
      op(g.token),
    );
    const caps = decodeTable(
      target.body,
      (bb) => fb.MakeGoodTarget.getRootAsMakeGoodTarget(bb),
      (t) => Array.from({ length: t.capsLength() }, (_, i) => [t.caps(i)?.kind(), t.caps(i)?.used()]),
    );
    expect(caps).toEqual([
      ['chips', CHIPS_CAP],
      ['hints', HINTS_CAP],
      ['no_ads_days', 0n],
    ]);
  });

  it(
    'concurrent grants at the cap never grant more than the cap in all (property, real PostgreSQL)',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.bigInt({ min: 1n, max: 600n }), { minLength: 2, maxLength: 8 }), async (amounts) => {
          const g = await operator();
          const account = await newAccount(h.database.db);
          const settled = await Promise.allSettled(amounts.map((chips) => grant(g, { account, chips })));
          const granted = settled.flatMap((s, i) => (s.status === 'fulfilled' ? [amounts[i] ?? 0n] : []));
          const total = granted.reduce((a, b) => a + b, 0n);
          expect(total).toBeLessThanOrEqual(CHIPS_CAP);
          for (const s of settled)
            if (s.status === 'rejected') expect(errorOf(s.reason)).toMatchObject({ errorCode: 'make_good_cap_reached' });
          // A refusal saw at most the final total granted (grants only add up), so each refused amount passes the cap on top of it.
          const refused = settled.flatMap((s, i) => (s.status === 'rejected' ? [amounts[i] ?? 0n] : []));
          for (const r of refused) expect(total + r).toBeGreaterThan(CHIPS_CAP);
          expect(await balance(account, 'direct')).toBe(total);
          expect((await makeGoodRows(account)).reduce((a, r) => a + r.chips_delta, 0n)).toBe(total);
        }),
        { numRuns: 12 },
      );
    },
    PROPERTY_DEADLINE_MS,
  );

  it('pays off a debt a refund left: chips granted into the negative segment bring it back up', async () => {
    const g = await operator();
    const account = await newAccount(h.database.db);
    const pack = await orderProduct(h.database.db);
    const order = await paidOrder(h.database.db, pack, account, 'direct', { chips: 1_000n });
    const spend = await createProduct(h.client(backendApi.CatalogAdminService), {
      title: 'Big hint',
      atoms: [['hints', 1n]],
      prices: [['chips', 700n]],
    });
    await h.client(backendApi.WalletService).buy({ body: buyBody(spend) }, as(account, 'direct'));
    await fullRefund(h.database.db, createLogger('make-goods-test', 'silent'), order.id);
    expect(await balance(account, 'direct')).toBe(-700n);
    const r = readResult((await grant(g, { account, chips: 700n, reason: 'settle the debt of a refunded order' })).body);
    expect(r.balance).toBe(0n);
    expect(await balance(account, 'direct')).toBe(0n);
  });
});
