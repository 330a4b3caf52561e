import { randomUUID } from 'node:crypto';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb, gatewayApi } from '@wordgame/contracts';
import { startProviderEmulator, type ProviderEmulator } from '@wordgame/provider-emulator';
import fc from 'fast-check';
import { sql } from 'kysely';
import { setOperatorDisabled } from '../src/operators/operators.store.js';
import {
  asOperator,
  ledgerQuery,
  operatorToken,
  paidCardOrder,
  PASSWORD,
  readPage,
  seedLedger,
  writeFilter,
  type FilterSpec,
  type SeedRow,
} from './console-support.js';
import { errorOf, failure, startHarness, type Harness } from './support/harness.js';
import { startBotCommandServer, type BotCommandServer } from './payments-support.js';
import { createProduct, draftBody, newAccount } from './support/wallet.js';

/** Property runs on real servers take what a loaded machine gives them; the deadline only catches a hang. */
const PROPERTY_DEADLINE_MS = 600_000;

const DAY = 86_400_000;
const SHOP = { shopId: 'console-shop', secretKey: 'console-secret', test: true };

describe('console service (operators, ledger, refunds, catalog, moderation)', () => {
  let h: Harness;
  let bot: BotCommandServer;
  let emulator: ProviderEmulator;
  let svc: Client<typeof backendApi.ConsoleService>;
  let all: string;
  let viewer: string;

  beforeAll(async () => {
    bot = await startBotCommandServer();
    emulator = await startProviderEmulator({ shops: [SHOP], autoNotify: false });
    h = await startHarness({
      GATEWAY_INTERNAL_URL: bot.url,
      BACKEND_YOOKASSA_API_URL: emulator.apiUrl,
      BACKEND_YOOKASSA_SHOPS: `direct:${SHOP.shopId}:${SHOP.secretKey}:test`,
      REAPER_INTERVAL_MS: '0',
      MODERATION_LAPSE_INTERVAL_MS: '200',
    });
    svc = h.bareClient(backendApi.ConsoleService);
    all = await operatorToken(h.database.db, svc, 'root@ops.test', ['viewer', 'refunder', 'catalog_editor', 'moderator']);
    viewer = await operatorToken(h.database.db, svc, 'viewer@ops.test', ['viewer']);
  });
  afterAll(async () => {
    await h.stop();
    await emulator.stop();
    await bot.stop();
  });

  const signIn = (login: string, password: string) =>
    svc.signIn({ body: encodeTable((b) => fb.OperatorSignIn.createOperatorSignIn(b, b.createString(login), b.createString(password))) });
  const resolve = async (token: string) =>
    decodeTable(
      (await svc.resolveOperator({ body: encodeTable((b) => fb.OperatorLookup.createOperatorLookup(b)) }, asOperator(token))).body,
      (bb) => fb.OperatorInfo.getRootAsOperatorInfo(bb),
      (t) => ({
        login: t.login(),
        roles: Array.from({ length: t.rolesLength() }, (_, i) => t.roles(i)),
      }),
    );
  const lookup = () => encodeTable((b) => fb.OperatorLookup.createOperatorLookup(b));
  const auditRows = async (action: string) =>
    (
      await sql<{
        operator_id: bigint | null;
        outcome: string;
        target: string;
        detail: string;
      }>`select operator_id, outcome, target, detail from operator_audit where action = ${action} order by id`.execute(h.database.db)
    ).rows;

  describe('operators and sessions', () => {
    it('signs in with login and password; the token resolves to the operator and roles', async () => {
      expect(await resolve(all)).toEqual({ login: 'root@ops.test', roles: ['viewer', 'refunder', 'catalog_editor', 'moderator'] });
      expect(await resolve(viewer)).toEqual({ login: 'viewer@ops.test', roles: ['viewer'] });
      const token = decodeTable(
        (await signIn('  ROOT@ops.test ', PASSWORD)).body,
        (bb) => fb.OperatorGrant.getRootAsOperatorGrant(bb),
        (t) => t.token() ?? '',
      );
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const stored = await h.database.db.selectFrom('operator_sessions').select('token_hash').execute();
      expect(stored.map((s) => s.token_hash)).not.toContain(token);
    });

    it('refuses an unknown login, a wrong password and a disabled operator alike, and audits each', async () => {
      await operatorToken(h.database.db, svc, 'gone@ops.test', ['viewer']);
      await setOperatorDisabled(h.database.db, 'gone@ops.test', true);
      for (const [login, password] of [
        ['nobody@ops.test', PASSWORD],
        ['root@ops.test', 'wrong password!'],
        ['gone@ops.test', PASSWORD],
      ] as const) {
        expect(await failure(signIn(login, password))).toEqual({ code: Code.Unauthenticated, errorCode: 'invalid_credentials' });
      }
      const refused = (await auditRows('sign_in')).filter((r) => r.outcome === 'refused');
      expect(refused.map((r) => [r.target, r.detail])).toEqual([
        ['nobody@ops.test', 'unknown login'],
        ['root@ops.test', 'wrong password'],
        ['gone@ops.test', 'disabled'],
      ]);
    });

    it('refuses a login with NUL or other control characters as wrong credentials, without a database error', async () => {
      for (const login of ['\u0000', 'root@ops.test\u0000', 'a\nb', 'x'.repeat(300)]) {
        expect(await failure(signIn(login, '\u0000'))).toEqual({ code: Code.Unauthenticated, errorCode: 'invalid_credentials' });
      }
      const malformed = (await auditRows('sign_in')).filter((r) => r.detail === 'malformed login');
      expect(malformed.map((r) => r.target)).toEqual(['\ufffd', 'root@ops.test\ufffd', 'a\ufffdb']);
    });

    it('a closed, expired or disabled operator session no longer resolves', async () => {
      const closed = await operatorToken(h.database.db, svc, 'closer@ops.test', ['viewer']);
      await svc.signOut({ body: lookup() }, asOperator(closed));
      expect(await failure(resolve(closed))).toEqual({ code: Code.Unauthenticated, errorCode: 'operator_session_invalid' });

      const expired = await operatorToken(h.database.db, svc, 'expiry@ops.test', ['viewer']);
      await sql`update operator_sessions set expires_at = now() - interval '1 second' where operator_id = (select id from operators where login = 'expiry@ops.test')`.execute(
        h.database.db,
      );
      expect(await failure(resolve(expired))).toEqual({ code: Code.Unauthenticated, errorCode: 'operator_session_invalid' });

      const disabled = await operatorToken(h.database.db, svc, 'later@ops.test', ['viewer']);
      await setOperatorDisabled(h.database.db, 'later@ops.test', true);
      expect(await failure(resolve(disabled))).toEqual({ code: Code.Unauthenticated, errorCode: 'operator_session_invalid' });
      expect(await failure(resolve('not-a-token'))).toEqual({ code: Code.Unauthenticated, errorCode: 'operator_session_invalid' });
    });

    it('keeps the operator audit append-only', async () => {
      await expect(sql`update operator_audit set outcome = 'ok'`.execute(h.database.db)).rejects.toThrow(/append-only/);
      await expect(sql`delete from operator_audit`.execute(h.database.db)).rejects.toThrow(/append-only/);
      await expect(sql`truncate operator_audit`.execute(h.database.db)).rejects.toThrow(/append-only/);
    });

    it('every method answers only a signed-in operator holding its role', async () => {
      const calls: Array<[string, string, (o: { headers: Record<string, string> }) => Promise<unknown>]> = [
        ['QueryLedger', 'viewer', (o) => svc.queryLedger({ body: ledgerQuery({}, null, 10, true) }, o)],
        [
          'ExportLedger',
          'viewer',
          async (o) => {
            for await (const chunk of svc.exportLedger(
              { body: encodeTable((b) => fb.LedgerExport.createLedgerExport(b, writeFilter(b, {}), 10)) },
              o,
            ))
              void chunk;
          },
        ],
        [
          'ConsoleRefund',
          'refunder',
          (o) =>
            svc.consoleRefund(
              { body: encodeTable((b) => fb.ConsoleRefund.createConsoleRefund(b, b.createString('00000000-0000-4000-8000-000000000000'))) },
              o,
            ),
        ],
        [
          'GetRefundOrder',
          'refunder',
          (o) =>
            svc.getRefundOrder(
              {
                body: encodeTable((b) =>
                  fb.RefundOrderLookup.createRefundOrderLookup(b, b.createString('00000000-0000-4000-8000-000000000000')),
                ),
              },
              o,
            ),
        ],
        [
          'ConsoleListProducts',
          'catalog_editor',
          (o) => svc.consoleListProducts({ body: encodeTable((b) => fb.ConsoleProductQuery.createConsoleProductQuery(b)) }, o),
        ],
        [
          'ConsoleUpsertProduct',
          'catalog_editor',
          (o) => svc.consoleUpsertProduct({ body: draftBody({ title: 'X', atoms: [['hints', 1n]], prices: [['chips', 1n]] }) }, o),
        ],
        [
          'FindAccounts',
          'moderator',
          (o) => svc.findAccounts({ body: encodeTable((b) => fb.AccountSearch.createAccountSearch(b, b.createString('1'))) }, o),
        ],
        [
          'Moderate',
          'moderator',
          (o) =>
            svc.moderate({ body: encodeTable((b) => fb.ModerationAction.createModerationAction(b, 1n, b.createString('mute'), 0n, 0)) }, o),
        ],
      ];
      const roles = ['viewer', 'refunder', 'catalog_editor', 'moderator'] as const;
      const tokens = Object.fromEntries(
        await Promise.all(
          roles.map(async (r) => [r, await operatorToken(h.database.db, svc, `only-${r.replace('_', '-')}@ops.test`, [r])] as const),
        ),
      );
      for (const [name, role, call] of calls) {
        expect([name, await failure(call({ headers: {} }))]).toEqual([
          name,
          { code: Code.Unauthenticated, errorCode: 'operator_session_invalid' },
        ]);
        expect([name, await failure(call(asOperator('forged-token')))]).toEqual([
          name,
          { code: Code.Unauthenticated, errorCode: 'operator_session_invalid' },
        ]);
        for (const other of roles.filter((r) => r !== role)) {
          expect([name, other, await failure(call(asOperator(tokens[other] ?? '')))]).toEqual([
            name,
            other,
            { code: Code.PermissionDenied, errorCode: 'operator_forbidden' },
          ]);
        }
      }
      expect((await auditRows('moderate')).filter((r) => r.outcome === 'forbidden')).toHaveLength(3);
    });
  });

  describe('ledger', () => {
    const now = new Date();
    const ago = (days: number, ms = 0) => new Date(now.getTime() - days * DAY - ms);
    let a1: bigint;
    let a2: bigint;
    let seed: SeedRow[];

    beforeAll(async () => {
      await sql`alter table ledger_operations disable trigger ledger_operations_no_truncate`.execute(h.database.db);
      await sql`truncate ledger_operations cascade`.execute(h.database.db);
      await sql`alter table ledger_operations enable trigger ledger_operations_no_truncate`.execute(h.database.db);
      a1 = await newAccount(h.database.db);
      a2 = await newAccount(h.database.db);
      const same = ago(1);
      seed = [
        { account: a1, kind: 'grant', at: ago(0, 1000), segment: 'direct', chips: 100n },
        { account: a1, kind: 'spend', at: ago(0, 2000), segment: 'telegram', chips: -40n },
        {
          account: a1,
          kind: 'purchase',
          at: ago(2),
          segment: 'telegram',
          origin: 'telegram',
          rail: 'telegram_stars',
          chips: 500n,
          money: 250n,
          currency: 'XTR',
          hints: 5n,
        },
        { account: a2, kind: 'purchase', at: ago(3), segment: 'vk', rail: 'yookassa', chips: 1000n, money: 49_900n, currency: 'RUB' },
        { account: a2, kind: 'refund', at: ago(4), segment: 'vk', rail: 'yookassa', chips: -1000n, money: -49_900n, currency: 'RUB' },
        {
          account: a2,
          kind: 'purchase',
          at: ago(5),
          segment: null,
          origin: 'vk',
          rail: 'yookassa',
          money: 9_900n,
          currency: 'RUB',
          hints: 10n,
        },
        { account: a2, kind: 'purchase', at: ago(6), segment: 'direct', rail: 'yookassa', chips: 300n, money: 19_900n, currency: 'RUB' },
        // Rows sharing one timestamp: keyset paging must neither skip nor repeat them.
        ...Array.from(
          { length: 25 },
          (_, i): SeedRow => ({
            account: i % 2 ? a1 : a2,
            kind: 'grant',
            at: same,
            segment: i % 3 === 0 ? 'vk' : 'direct',
            chips: BigInt(i + 1),
          }),
        ),
        { account: a1, kind: 'grant', at: ago(31), segment: 'direct', chips: 7n },
        { account: a1, kind: 'grant', at: ago(400), segment: 'direct', chips: 9n },
      ];
      await seedLedger(h.database.db, seed);
    });

    const query = async (f: FilterSpec, limit = 200, withTotals = true, cursor: { createdUs: bigint; id: bigint } | null = null) =>
      readPage((await svc.queryLedger({ body: ledgerQuery(f, cursor, limit, withTotals) }, asOperator(viewer))).body);
    const reference = async (where: ReturnType<typeof sql>) =>
      (
        await sql<{ id: bigint }>`select id from ledger_operations where ${where} order by created_at desc, id desc`.execute(h.database.db)
      ).rows.map((r) => r.id);
    const range = sql`created_at >= date_trunc('day', now(), 'UTC') - interval '29 days'`;

    it('lists the last 30 UTC days newest first by default, with totals per currency from the snapshots', async () => {
      const page = await query({});
      expect(page.rows.map((r) => r.id)).toEqual(await reference(range));
      expect(page.matched).toBe(BigInt(page.rows.length));
      const sums = (
        await sql<{ chips: bigint; xtr: bigint; rub: bigint }>`select sum(chips_delta)::bigint as chips,
          sum(money_minor) filter (where currency = 'XTR')::bigint as xtr, sum(money_minor) filter (where currency = 'RUB')::bigint as rub
          from ledger_operations where ${range}`.execute(h.database.db)
      ).rows[0];
      expect(page.totals.map((t) => [t.currency, t.amount])).toEqual([
        ['CHIPS', sums?.chips],
        ['RUB', sums?.rub],
        ['XTR', sums?.xtr],
      ]);
      for (const t of page.totals)
        expect(page.daily.filter((d) => d.currency === t.currency).reduce((s, d) => s + d.amount, 0n)).toBe(t.amount);
    });

    it('wallet matches the segment or the benefit origin; rail the settling provider, and a chip spend drops out', async () => {
      expect((await query({ wallet: 'vk' })).rows.map((r) => r.id)).toEqual(
        await reference(sql`${range} and (segment = 'vk' or benefit_origin = 'vk')`),
      );
      expect((await query({ wallet: 'telegram' })).rows.map((r) => r.kind)).toEqual(['spend', 'purchase']);
      expect((await query({ wallet: 'telegram', rail: 'telegram_stars' })).rows.map((r) => r.kind)).toEqual(['purchase']);
      const yookassa = await query({ rail: 'yookassa' });
      expect(yookassa.rows.map((r) => r.kind)).toEqual(['purchase', 'refund', 'purchase', 'purchase']);
      expect(yookassa.totals.map((t) => [t.currency, t.amount, t.operations])).toEqual([
        ['CHIPS', 300n, 3n],
        ['RUB', 29_800n, 4n],
      ]);
      expect((await query({ kind: 'refund', account: a2 })).rows).toHaveLength(1);
      expect((await query({ account: a1, kind: 'purchase' })).totals.map((t) => t.currency)).toEqual(['CHIPS', 'XTR']);
      expect((await query({ from: ago(500), to: ago(30) })).rows).toHaveLength(2);
    });

    it(
      'keyset pages cover the filter exactly once, newest first, whatever the page size (property)',
      async () => {
        const filters: FilterSpec[] = [
          {},
          { wallet: 'direct' },
          { wallet: 'vk' },
          { kind: 'grant' },
          { account: a1 },
          { rail: 'yookassa' },
          { from: ago(500), to: new Date(now.getTime() + DAY) },
        ];
        await fc.assert(
          fc.asyncProperty(fc.constantFrom(...filters), fc.integer({ min: 1, max: 12 }), async (f, size) => {
            const whole = (await query(f, 200, false)).rows.map((r) => r.id);
            const seen: bigint[] = [];
            let cursor: { createdUs: bigint; id: bigint } | null = null;
            for (let i = 0; i < 100; i += 1) {
              const page = await query(f, size, false, cursor);
              expect(page.rows.length).toBeLessThanOrEqual(size);
              seen.push(...page.rows.map((r) => r.id));
              if (!page.next) break;
              cursor = page.next;
            }
            expect(seen).toEqual(whole);
          }),
          { numRuns: 25 },
        );
      },
      PROPERTY_DEADLINE_MS,
    );

    it('refuses a malformed filter or cursor instead of widening it', async () => {
      for (const f of [
        { wallet: 'gold' },
        { kind: 'gift' },
        { rail: 'Robert"); drop' },
        { from: ago(1), to: ago(2) },
        { from: ago(4000), to: ago(0) },
      ]) {
        expect(await failure(query(f))).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_filter' });
      }
      expect(await failure(query({}, 10, false, { createdUs: 0n, id: 5n }))).toEqual({
        code: Code.InvalidArgument,
        errorCode: 'invalid_cursor',
      });
      // Beyond what a timestamp holds (int64 max microseconds, or past year 9999): refused, never an internal error.
      for (const createdUs of [2n ** 63n - 1n, 253_402_300_800_000_000n]) {
        expect(await failure(query({}, 10, false, { createdUs, id: 1n }))).toEqual({
          code: Code.InvalidArgument,
          errorCode: 'invalid_cursor',
        });
      }
    });

    it('streams the export newest first in batches, capped at max_rows, and audits it', async () => {
      const exportRows = async (f: FilterSpec, max: number) => {
        const ids: bigint[] = [];
        for await (const chunk of svc.exportLedger(
          { body: encodeTable((b) => fb.LedgerExport.createLedgerExport(b, writeFilter(b, f), max)) },
          asOperator(viewer),
        )) {
          decodeTable(
            chunk.body,
            (bb) => fb.LedgerChunk.getRootAsLedgerChunk(bb),
            (t) => {
              for (let i = 0; i < t.rowsLength(); i += 1) ids.push(t.rows(i)?.id() ?? 0n);
            },
          );
        }
        return ids;
      };
      expect(await exportRows({}, 1_000)).toEqual(await reference(range));
      expect(await exportRows({ wallet: 'direct' }, 7)).toEqual(
        (await reference(sql`${range} and (segment = 'direct' or benefit_origin = 'direct')`)).slice(0, 7),
      );
      expect((await auditRows('ledger_export')).length).toBeGreaterThanOrEqual(2);
    });
  });

  describe('refunds', () => {
    let account: bigint;
    let product: bigint;
    const provider = () => ({
      apiUrl: emulator.apiUrl,
      shopId: SHOP.shopId,
      secretKey: SHOP.secretKey,
      succeed: (id: string) => emulator.control.succeedPayment(id),
    });
    const refund = async (orderId: string, token = all) =>
      decodeTable(
        (
          await svc.consoleRefund(
            { body: encodeTable((b) => fb.ConsoleRefund.createConsoleRefund(b, b.createString(orderId))) },
            asOperator(token),
          )
        ).body,
        (bb) => fb.ConsoleRefundResult.getRootAsConsoleRefundResult(bb),
        (t) => ({
          status: t.status(),
          refundId: t.refundId(),
          amount: t.amount(),
        }),
      );
    const refundRows = async (orderId: string) =>
      (
        await sql<{
          n: bigint;
        }>`select count(*)::bigint as n from ledger_operations where order_id = ${orderId} and kind = 'refund'`.execute(h.database.db)
      ).rows[0]?.n;

    beforeAll(async () => {
      account = await newAccount(h.database.db, { address: 'payer@example.com', confirmed: true });
      product = await createProduct(h.client(backendApi.CatalogAdminService), {
        title: 'Pack',
        atoms: [['chips', 100n]],
        prices: [['provider', 9_900n, 'RUB']],
      });
    });

    it('refunds a paid card order provider first, records it once, and the ledger shows the row refunded', async () => {
      const orderId = await paidCardOrder(h.database.db, provider(), account, product, 9_900n, 100n);
      const first = await refund(orderId);
      expect(first).toMatchObject({ status: 'succeeded', amount: 9_900n });
      expect(await refund(orderId)).toEqual(first);
      expect(await refundRows(orderId)).toBe(1n);
      const page = readPage(
        (await svc.queryLedger({ body: ledgerQuery({ kind: 'purchase', account }, null, 10, false) }, asOperator(viewer))).body,
      );
      expect(page.rows.find((r) => r.orderId === orderId)?.refunded).toBe(true);
      expect((await auditRows('refund')).filter((r) => r.target === `order:${orderId}`).map((r) => r.outcome)).toEqual([
        'succeeded',
        'succeeded',
      ]);
    });

    it('six presses at once, on two replicas, make one provider refund call; the others are told it is in progress or done', async () => {
      const orderId = await paidCardOrder(h.database.db, provider(), account, product, 9_900n, 100n);
      emulator.control.addFault({ method: 'POST', pathPrefix: '/v3/refunds', status: 'timeout', delayMs: 150, times: 6 });
      const replica = await h.replica();
      try {
        const other = replica.client(backendApi.ConsoleService);
        const press = (i: number) =>
          (i % 2 === 0 ? svc : other)
            .consoleRefund({ body: encodeTable((b) => fb.ConsoleRefund.createConsoleRefund(b, b.createString(orderId))) }, asOperator(all))
            .then(
              (res) =>
                decodeTable(
                  res.body,
                  (bb) => fb.ConsoleRefundResult.getRootAsConsoleRefundResult(bb),
                  (t) => ({ status: t.status(), refundId: t.refundId() }),
                ),
              (err: unknown) => ({ ...errorOf(err), message: ConnectError.from(err).rawMessage }),
            );
        const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => press(i)));
        const calls = emulator.control
          .requests()
          .filter((r) => r.method === 'POST' && r.path === '/v3/refunds' && r.idempotenceKey === `refund-${orderId}`);
        expect(calls).toHaveLength(1);
        const paid = await h.database.db
          .selectFrom('orders')
          .select('provider_payment_id')
          .where('id', '=', orderId)
          .executeTakeFirstOrThrow();
        const made = emulator.control.payment(paid.provider_payment_id ?? '').refunds;
        expect(made).toHaveLength(1);
        const refundId = made[0]?.id;
        for (const answer of answers) {
          if ('status' in answer) {
            expect(answer).toEqual({ status: 'succeeded', refundId });
          } else {
            expect(answer).toMatchObject({ code: Code.Aborted, errorCode: 'refund_in_progress' });
            expect(answer.message).toMatch(/^a refund of this order by root@ops\.test is in progress since .* UTC; press again/);
          }
        }
        expect(await refundRows(orderId)).toBe(1n);
        expect(await refund(orderId)).toEqual({ status: 'succeeded', refundId, amount: 9_900n });
        expect(
          emulator.control
            .requests()
            .filter((r) => r.method === 'POST' && r.path === '/v3/refunds' && r.idempotenceKey === `refund-${orderId}`),
        ).toHaveLength(1);
        expect(
          (await auditRows('refund'))
            .filter((r) => r.target === `order:${orderId}`)
            .map((r) => r.outcome)
            .sort(),
        ).toEqual(
          answers
            .map((a) => ('status' in a ? 'succeeded' : 'failed'))
            .concat('succeeded')
            .sort(),
        );
      } finally {
        await replica.stop();
      }
    });

    it("reads an order's refund facts (amount, currency, rail, player, state, chips) without moving anything, on both rails", async () => {
      const facts = async (orderId: string, token = all) =>
        decodeTable(
          (
            await svc.getRefundOrder(
              { body: encodeTable((b) => fb.RefundOrderLookup.createRefundOrderLookup(b, b.createString(orderId))) },
              asOperator(token),
            )
          ).body,
          (bb) => fb.RefundOrderFacts.getRootAsRefundOrderFacts(bb),
          (t) => ({
            orderId: t.orderId(),
            state: t.state(),
            rail: t.rail(),
            provider: t.provider(),
            amount: t.amount(),
            currency: t.currency(),
            accountId: t.accountId(),
            payer: t.payerUserId(),
            chips: t.chips(),
            refundId: t.refundId(),
            inFlight: t.refundInFlight(),
          }),
        );
      const card = await paidCardOrder(h.database.db, provider(), account, product, 9_900n, 100n);
      const refundsBefore = emulator.control.payments().flatMap((p) => p.refunds).length;
      expect(await facts(card)).toEqual({
        orderId: card,
        state: 'paid',
        rail: 'card',
        provider: 'yookassa',
        amount: 9_900n,
        currency: 'RUB',
        accountId: account,
        payer: 0n,
        chips: 100n,
        refundId: '',
        inFlight: false,
      });
      expect(emulator.control.payments().flatMap((p) => p.refunds)).toHaveLength(refundsBefore);
      expect(await refundRows(card)).toBe(0n);
      await refund(card);
      expect(await facts(card)).toMatchObject({ state: 'paid', refundId: expect.stringMatching(/.+/) as string, inFlight: false });

      // Stars: the payer recorded on the order, else the account's telegram identity, else none known.
      const starsAccount = await newAccount(h.database.db);
      const starsOrder = async (payer: bigint | null) => {
        const id = randomUUID();
        const at = new Date();
        await h.database.db
          .insertInto('orders')
          .values({
            id,
            account_id: starsAccount,
            product_id: product,
            title: 'Star pack',
            rail: 'stars',
            provider: 'telegram_stars',
            segment: 'telegram',
            amount: 50n,
            currency: 'XTR',
            chips: 70n,
            state: 'paid',
            created_at: at,
            expires_at: new Date(at.getTime() + 1_800_000),
            paid_at: at,
            platform_charge_id: `charge-${id}`,
            platform_user_id: payer,
          })
          .execute();
        return id;
      };
      const recorded = await starsOrder(7_001n);
      expect(await facts(recorded)).toMatchObject({
        rail: 'stars',
        provider: 'telegram_stars',
        amount: 50n,
        currency: 'XTR',
        payer: 7_001n,
        chips: 70n,
      });
      const unknownPayer = await starsOrder(null);
      expect((await facts(unknownPayer)).payer).toBe(0n);
      await h.database.db
        .insertInto('platform_identities')
        .values({ account_id: starsAccount, kind: 'telegram', external_id: '7002' })
        .execute();
      expect(await facts(unknownPayer)).toMatchObject({ accountId: starsAccount, payer: 7_002n, state: 'paid', refundId: '' });

      expect(await failure(facts('00000000-0000-4000-8000-000000000000'))).toEqual({ code: Code.NotFound, errorCode: 'unknown_order' });
      expect(await failure(facts('not-an-order'))).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_order_id' });
      expect(await failure(facts(card.toUpperCase()))).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_order_id' });
      expect(await failure(facts(card, viewer))).toEqual({ code: Code.PermissionDenied, errorCode: 'operator_forbidden' });
    });

    it('a pending provider refund records nothing (press again); a refused order id is audited as failed', async () => {
      const orderId = await paidCardOrder(h.database.db, provider(), account, product, 9_900n, 100n);
      emulator.control.setRefundOutcome('pending', { times: 1 });
      expect((await refund(orderId)).status).toBe('pending');
      expect(await refundRows(orderId)).toBe(0n);
      expect(await failure(refund('00000000-0000-4000-8000-000000000000'))).toEqual({ code: Code.NotFound, errorCode: 'unknown_order' });
      expect((await auditRows('refund')).at(-1)).toMatchObject({ outcome: 'failed', detail: 'unknown_order' });
    });
  });

  describe('catalog', () => {
    it('lists inactive products too, saves a product and refuses a bad title with invalid_title (audited)', async () => {
      const upsert = (title: string) =>
        svc.consoleUpsertProduct(
          { body: draftBody({ title, active: false, atoms: [['hints', 3n]], prices: [['chips', 30n]] }) },
          asOperator(all),
        );
      const saved = decodeTable(
        (await upsert('Hint pack')).body,
        (bb) => fb.ProductRecord.getRootAsProductRecord(bb),
        (t) => t.productId(),
      );
      const listed = decodeTable(
        (await svc.consoleListProducts({ body: encodeTable((b) => fb.ConsoleProductQuery.createConsoleProductQuery(b)) }, asOperator(all)))
          .body,
        (bb) => fb.ProductList.getRootAsProductList(bb),
        (t) => Array.from({ length: t.productsLength() }, (_, i) => t.products(i)?.productId()),
      );
      expect(listed).toContain(saved);
      expect(await failure(upsert('Tom & Jerry'))).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_title' });
      expect((await auditRows('catalog_upsert')).map((r) => [r.outcome, r.detail]).slice(-2)).toEqual([
        ['ok', 'created'],
        ['refused', 'invalid_title'],
      ]);
    });
  });

  describe('moderation', () => {
    let account: bigint;
    const act = async (action: string, untilUnix = 0n, id = account) =>
      decodeTable(
        (
          await svc.moderate(
            {
              body: encodeTable((b) =>
                fb.ModerationAction.createModerationAction(b, id, b.createString(action), untilUnix, b.createString('test')),
              ),
            },
            asOperator(all),
          )
        ).body,
        (bb) => fb.ModerationResult.getRootAsModerationResult(bb),
        (t) => ({
          status: t.account()?.status(),
          eligible: t.account()?.chatEligible(),
          gate: Array.from({ length: t.chatGateLength() }, (_, i) => t.chatGate(i)),
        }),
      );
    const gates = () =>
      bot.commands
        .filter((c) => c.payload.case === 'chatGate')
        .map((c) => (c.payload.case === 'chatGate' ? [c.payload.value.externalId, c.payload.value.allow] : []));

    beforeAll(async () => {
      account = await newAccount(h.database.db, { address: 'Player@Example.com'.toLowerCase(), confirmed: true });
      await h.database.db
        .insertInto('platform_identities')
        .values([
          { account_id: account, kind: 'telegram', external_id: '777001' },
          { account_id: account, kind: 'vk', external_id: '555001' },
        ])
        .execute();
      bot.respond = () => ({ outcome: gatewayApi.Outcome.DELIVERED });
    });
    beforeEach(() => {
      bot.commands.length = 0;
    });

    it('finds an account by id, e-mail or platform identity', async () => {
      const find = async (q: string) =>
        decodeTable(
          (
            await svc.findAccounts(
              { body: encodeTable((b) => fb.AccountSearch.createAccountSearch(b, b.createString(q))) },
              asOperator(all),
            )
          ).body,
          (bb) => fb.AccountList.getRootAsAccountList(bb),
          (t) => Array.from({ length: t.accountsLength() }, (_, i) => t.accounts(i)?.accountId()),
        );
      for (const q of [String(account), 'PLAYER@example.com', 'telegram:777001', '555001', 'vk:555001'])
        expect([q, await find(q)]).toEqual([q, [account]]);
      expect(await find('telegram:555001')).toEqual([]);
      expect(await failure(find(' '))).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_query' });
    });

    it('a summary carries the balances per segment, a debt as a negative amount', async () => {
      const debtor = await newAccount(h.database.db);
      await h.database.db
        .updateTable('wallet_segments')
        .set({ balance: -70n })
        .where('account_id', '=', debtor)
        .where('segment', '=', 'telegram')
        .execute();
      await h.database.db.insertInto('benefits').values({ account_id: debtor, origin: 'telegram', hints: -2n }).execute();
      await h.database.db
        .insertInto('ledger_operations')
        .values({
          account_id: debtor,
          kind: 'refund',
          segment: 'telegram',
          chips_delta: -70n,
          benefit_origin: 'telegram',
          hints_delta: -2n,
          note: 'test debt',
        })
        .execute();
      const balances = decodeTable(
        (
          await svc.findAccounts(
            { body: encodeTable((b) => fb.AccountSearch.createAccountSearch(b, b.createString(String(debtor)))) },
            asOperator(all),
          )
        ).body,
        (bb) => fb.AccountList.getRootAsAccountList(bb),
        (t) =>
          Array.from({ length: t.accounts(0)?.balancesLength() ?? 0 }, (_, i) => {
            const x = t.accounts(0)?.balances(i);
            return [x?.segment(), x?.chips(), x?.hints()];
          }),
      );
      expect(balances).toEqual([
        ['direct', 0n, 0n],
        ['telegram', -70n, -2n],
        ['vk', 0n, 0n],
      ]);
    });

    it('block, unblock, mute and unmute each push the new eligibility to the telegram identity', async () => {
      expect(await act('block')).toEqual({ status: 'suspended', eligible: false, gate: ['777001:deny:delivered'] });
      expect(await act('mute')).toMatchObject({ eligible: false, gate: ['777001:deny:delivered'] });
      expect(await act('unblock')).toMatchObject({ status: 'active', eligible: false });
      expect(await act('unmute')).toMatchObject({ eligible: true, gate: ['777001:allow:delivered'] });
      expect(gates()).toEqual([
        ['777001', false],
        ['777001', false],
        ['777001', false],
        ['777001', true],
      ]);
      expect((await auditRows('block')).at(-1)).toMatchObject({ target: `account:${account}`, outcome: 'ok' });
    });

    it('a temporary block lapses by itself and then emits the new eligibility once', async () => {
      const until = BigInt(Math.floor(Date.now() / 1000) + 1);
      expect(await act('temp_block', until)).toMatchObject({ status: 'suspended', eligible: false, gate: ['777001:deny:delivered'] });
      const deadline = Date.now() + 10_000;
      while (gates().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(gates()).toEqual([
        ['777001', false],
        ['777001', true],
      ]);
      const row = await h.database.db
        .selectFrom('accounts')
        .select(['status', 'suspended_until'])
        .where('id', '=', account)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'active', suspended_until: null });
      await new Promise((r) => setTimeout(r, 600));
      expect(gates()).toHaveLength(2);
      expect((await auditRows('block_lapsed')).at(-1)).toMatchObject({ operator_id: null, target: `account:${account}` });
    });

    it('refuses a past or missing temporary-block end, an unknown action or account, and a deleted account', async () => {
      const e = async (p: Promise<unknown>) =>
        errorOf(
          await p.then(
            () => null,
            (err: unknown) => err,
          ),
        );
      expect(await e(act('temp_block', BigInt(Math.floor(Date.now() / 1000) - 10)))).toEqual({
        code: Code.InvalidArgument,
        errorCode: 'invalid_until',
      });
      expect(await e(act('temp_block'))).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_until' });
      expect(await e(act('ban'))).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_action' });
      expect(await e(act('block', 0n, 9_999_999n))).toEqual({ code: Code.NotFound, errorCode: 'unknown_account' });
      const gone = await newAccount(h.database.db);
      await h.database.db.updateTable('accounts').set({ status: 'deleted' }).where('id', '=', gone).execute();
      expect(await e(act('block', 0n, gone))).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_action' });
      expect(gates()).toEqual([]);
    });
  });
});
