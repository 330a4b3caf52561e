import { Code, type Client } from '@connectrpc/connect';
import { sql } from 'kysely';
import { backendApi, decodeTable, encodeTable, fb, gatewayApi } from '@wordgame/contracts';
import { as, failure, startHarness, type Harness } from './support/harness.js';
import { createProduct } from './support/wallet.js';
import {
  createOrder,
  deliverInvoices,
  forward,
  preCheckout,
  refund,
  startBotCommandServer,
  telegramAccount,
  type BotCommandServer,
} from './payments-support.js';

const charges = async (intake: Client<typeof backendApi.BotIntakeService>, userId: bigint, limit = 0, language = 'en') => {
  const res = await intake.listStarCharges({
    body: encodeTable((b) =>
      fb.StarChargesQuery.createStarChargesQuery(b, b.createString('telegram'), userId, limit, b.createString(language)),
    ),
  });
  return decodeTable(
    res.body,
    (bb) => fb.StarChargeList.getRootAsStarChargeList(bb),
    (t) =>
      Array.from({ length: t.chargesLength() }, (_, i) => {
        const c = t.charges(i);
        return {
          orderId: c?.orderId() ?? '',
          chargeId: c?.platformPaymentChargeId() ?? '',
          title: c?.productTitle() ?? '',
          amount: c?.amount() ?? -1n,
          paidUnix: c?.paidUnix() ?? 0n,
          state: c?.state() ?? '',
        };
      }),
  );
};

const openCase = async (
  intake: Client<typeof backendApi.BotIntakeService>,
  userId: bigint,
  chargeId: string,
  text: string,
  language = 'en',
) => {
  const res = await intake.openSupportCase({
    body: encodeTable((b) =>
      fb.SupportCaseOpening.createSupportCaseOpening(
        b,
        b.createString('telegram'),
        userId,
        b.createString(chargeId),
        b.createString(text),
        b.createString(language),
      ),
    ),
  });
  return decodeTable(
    res.body,
    (bb) => fb.SupportCaseOpened.getRootAsSupportCaseOpened(bb),
    (t) => t.caseId() ?? '',
  );
};

/** A stars order of `pack` paid by `userId` with `chargeId`; answers the order id. */
async function paidStarsOrder(
  h: Harness,
  intake: Client<typeof backendApi.BotIntakeService>,
  accountId: bigint,
  pack: bigint,
  chargeId: string,
  userId: bigint,
): Promise<string> {
  const order = await createOrder(h.client(backendApi.PaymentsService), accountId, 'telegram', pack, 'stars');
  expect(await preCheckout(intake, order.orderId, 250n, 'XTR')).toEqual({ ok: true, reason: '' });
  expect(await forward(intake, order.orderId, chargeId, 250n, userId)).toBe(true);
  return order.orderId;
}

describe('support cases: the bot intake (ListStarCharges, OpenSupportCase) on PostgreSQL', () => {
  let bot: BotCommandServer;
  let h: Harness;
  let intake: Client<typeof backendApi.BotIntakeService>;
  let pack: bigint;

  beforeAll(async () => {
    bot = await startBotCommandServer();
    h = await startHarness({
      GATEWAY_INTERNAL_URL: bot.url,
      REAPER_INTERVAL_MS: '0',
      STAR_REFUND_INTERVAL_MS: '0',
      SUPPORT_CASE_OPEN_CAP: '2',
    });
    intake = h.client(backendApi.BotIntakeService);
    pack = await createProduct(h.client(backendApi.CatalogAdminService), {
      title: '500 chips',
      atoms: [['chips', 500n]],
      prices: [['xtr', 250n]],
    });
    await h.database.db
      .updateTable('catalog_product_texts')
      .set({ title: '500 фишек' })
      .where('product_id', '=', pack)
      .where('locale', '=', 'ru')
      .execute();
  });
  afterAll(async () => {
    await h.stop();
    await bot.stop();
  });
  beforeEach(() => {
    bot.respond = deliverInvoices;
  });

  it("lists the user's own charges newest first: credited, refunded, and an unmatched payment being checked, titles in the language", async () => {
    const account = await telegramAccount(h.database.db, '5001');
    const first = await paidStarsOrder(h, intake, account, pack, 'charge-5001-a', 5001n);
    const second = await paidStarsOrder(h, intake, account, pack, 'charge-5001-b', 5001n);
    expect((await refund(h.client(backendApi.RefundService), first)).status).toBe('succeeded');
    // A payment naming no order of ours: recorded as unmatched, its return not yet made.
    expect(await forward(intake, 'not-an-order', 'charge-5001-c', 30n, 5001n)).toBe(false);
    // Another user's charge is never listed.
    const other = await telegramAccount(h.database.db, '5002');
    await paidStarsOrder(h, intake, other, pack, 'charge-5002-a', 5002n);

    const list = await charges(intake, 5001n);
    expect(list.map((c) => [c.chargeId, c.state])).toEqual([
      ['charge-5001-c', 'checking'],
      ['charge-5001-b', 'credited'],
      ['charge-5001-a', 'refunded'],
    ]);
    expect(list[1]).toMatchObject({ orderId: second, title: '500 chips', amount: 250n });
    expect(list[1]?.paidUnix).toBeGreaterThan(0n);
    expect((await charges(intake, 5001n, 1, 'ru')).map((c) => [c.chargeId, c.title])).toEqual([['charge-5001-c', '']]);
    expect((await charges(intake, 5001n, 3, 'ru'))[1]?.title).toBe('500 фишек');
    expect(await charges(intake, 5003n)).toEqual([]);
  });

  it('refuses a bad query as InvalidArgument', async () => {
    expect(await failure(charges(intake, 0n))).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_support_case' });
    expect(await failure(charges(intake, 5001n, 11))).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_support_case' });
  });

  it("opens a case about the user's own charge and stores the text as given; another user's or an unknown charge is InvalidArgument", async () => {
    const account = await telegramAccount(h.database.db, '5101');
    const orderId = await paidStarsOrder(h, intake, account, pack, 'charge-5101-a', 5101n);
    await telegramAccount(h.database.db, '5102');
    const text = '  I paid <script>alert("x")</script> & got nothing\nplease check  ';
    const code = await openCase(intake, 5101n, 'charge-5101-a', text, 'ru');
    expect(code).toMatch(/^C-[0-9A-Z]{6}$/);
    const row = await h.database.db.selectFrom('support_cases').selectAll().where('code', '=', code).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      platform: 'telegram',
      platform_user_id: 5101n,
      account_id: account,
      platform_charge_id: 'charge-5101-a',
      order_id: orderId,
      language: 'ru',
      text: text.trim(),
      state: 'open',
    });
    const mine = await failure(openCase(intake, 5102n, 'charge-5101-a', 'not mine'));
    expect(mine).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_support_case' });
    expect(await failure(openCase(intake, 5101n, 'charge-nobody', 'unknown'))).toEqual({
      code: Code.InvalidArgument,
      errorCode: 'invalid_support_case',
    });
    // A case in general needs no charge nor even an account.
    expect(await openCase(intake, 5199n, '', 'a question')).toMatch(/^C-/);
  });

  it.each([
    ['empty after trimming', ' \n '],
    ['too long', 'x'.repeat(1001)],
    ['a control character', 'bell\u0007'],
    ['a carriage return', 'line\r\nline'],
  ])('refuses a text that is %s', async (_label, text) => {
    expect(await failure(openCase(intake, 5201n, '', text))).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_support_case' });
  });

  it('takes 1000 characters (not bytes) and refuses a language other than en or ru', async () => {
    expect(await openCase(intake, 5301n, '', 'я'.repeat(1000))).toMatch(/^C-/);
    expect(await failure(openCase(intake, 5302n, '', 'hello', 'de'))).toEqual({
      code: Code.InvalidArgument,
      errorCode: 'invalid_support_case',
    });
  });

  it('caps the open cases of one user (SUPPORT_CASE_OPEN_CAP=2), also when openings race', async () => {
    const results = await Promise.allSettled([1, 2, 3, 4].map((i) => openCase(intake, 5401n, '', `race ${i}`)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    expect(await failure(openCase(intake, 5401n, '', 'one more'))).toEqual({
      code: Code.FailedPrecondition,
      errorCode: 'support_case_limit',
    });
    const open = await h.database.db.selectFrom('support_cases').select('id').where('platform_user_id', '=', 5401n).execute();
    expect(open).toHaveLength(2);
  });

  it("erases the case texts and replies with the account's deletion, keeping the case, its history and the audit", async () => {
    const account = await telegramAccount(h.database.db, '5501');
    const code = await openCase(intake, 5501n, '', 'my e-mail is someone@example.com');
    const kept = await openCase(intake, 5502n, '', 'another user');
    const helpdesk = h.client(backendApi.HelpdeskService);
    bot.respond = () => ({ outcome: gatewayApi.Outcome.DELIVERED });
    await helpdesk.actOnSupportCase({
      body: encodeTable((b) =>
        fb.SupportCaseAction.createSupportCaseAction(
          b,
          b.createString(code),
          b.createString('reply'),
          b.createString('Dear someone@example.com'),
        ),
      ),
    });
    const social = h.client(backendApi.SocialService);
    await social.deleteAccount({ body: encodeTable((b) => fb.AccountDeletion.createAccountDeletion(b)) }, as(account, 'direct;web'));
    const erased = await h.database.db.selectFrom('support_cases').selectAll().where('code', '=', code).executeTakeFirstOrThrow();
    expect(erased.text).toBe('');
    expect(erased.erased_at).not.toBeNull();
    const events = await h.database.db
      .selectFrom('support_case_events')
      .select(['kind', 'text'])
      .where('case_id', '=', erased.id)
      .orderBy('id')
      .execute();
    expect(events).toEqual([
      { kind: 'opened', text: '' },
      { kind: 'reply', text: '' },
      { kind: 'erased', text: '' },
    ]);
    const audit = await h.database.db.selectFrom('operator_audit').select(['action', 'outcome']).where('target', '=', code).execute();
    expect(audit).toEqual([{ action: 'support_reply', outcome: 'delivered' }]);
    const other = await h.database.db.selectFrom('support_cases').select('text').where('code', '=', kept).executeTakeFirstOrThrow();
    expect(other.text).toBe('another user');
  });
});

describe('support cases: per-user rate limits of the bot intake', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      REAPER_INTERVAL_MS: '0',
      STAR_CHARGES_LIST_MAX: '3',
      SUPPORT_CASE_OPEN_MAX: '2',
      SUPPORT_CASE_OPEN_CAP: '10',
    });
  });
  afterAll(() => h.stop());

  it('ListStarCharges: 3 a minute per user, then ResourceExhausted (rate_limited); another user is not limited', async () => {
    const intake = h.client(backendApi.BotIntakeService);
    for (let i = 0; i < 3; i++) expect(await charges(intake, 6001n)).toEqual([]);
    expect(await failure(charges(intake, 6001n))).toEqual({ code: Code.ResourceExhausted, errorCode: 'rate_limited' });
    expect(await charges(intake, 6002n)).toEqual([]);
  });

  it('OpenSupportCase: 2 an hour per user, refused ones counted, then rate_limited', async () => {
    const intake = h.client(backendApi.BotIntakeService);
    expect(await openCase(intake, 6101n, '', 'first')).toMatch(/^C-/);
    expect(await failure(openCase(intake, 6101n, 'charge-unknown', 'second, refused'))).toMatchObject({ code: Code.InvalidArgument });
    expect(await failure(openCase(intake, 6101n, '', 'third'))).toEqual({ code: Code.ResourceExhausted, errorCode: 'rate_limited' });
    expect(await openCase(intake, 6102n, '', 'someone else')).toMatch(/^C-/);
  });
});

const helpdeskList = async (helpdesk: Client<typeof backendApi.HelpdeskService>, headers?: Record<string, string>) => {
  const res = await helpdesk.listSupportCases(
    { body: encodeTable((b) => fb.SupportCaseQuery.createSupportCaseQuery(b, 0)) },
    headers ? { headers } : {},
  );
  return decodeTable(
    res.body,
    (bb) => fb.SupportCaseList.getRootAsSupportCaseList(bb),
    (t) => ({
      total: t.openTotal(),
      cases: Array.from({ length: t.casesLength() }, (_, i) => ({
        code: t.cases(i)?.caseId() ?? '',
        age: t.cases(i)?.ageSeconds() ?? -1n,
      })),
    }),
  );
};

const helpdeskCase = async (helpdesk: Client<typeof backendApi.HelpdeskService>, code: string) => {
  const res = await helpdesk.getSupportCase({
    body: encodeTable((b) => fb.SupportCaseLookup.createSupportCaseLookup(b, b.createString(code))),
  });
  return decodeTable(
    res.body,
    (bb) => fb.SupportCaseDetail.getRootAsSupportCaseDetail(bb),
    (t) => ({
      state: t.summary()?.state() ?? '',
      text: t.summary()?.text() ?? '',
      refundOrderId: t.refundOrderId() ?? '',
      audit: Array.from({ length: t.auditLength() }, (_, i) => ({
        action: t.audit(i)?.kind() ?? '',
        login: t.audit(i)?.operatorLogin() ?? '',
        target: t.audit(i)?.text() ?? '',
        outcome: t.audit(i)?.outcome() ?? '',
      })),
      evidence: Array.from({ length: t.evidenceLength() }, (_, i) => ({
        kind: t.evidence(i)?.kind() ?? '',
        summary: t.evidence(i)?.summary() ?? '',
      })),
      history: Array.from({ length: t.historyLength() }, (_, i) => ({
        kind: t.history(i)?.kind() ?? '',
        login: t.history(i)?.operatorLogin() ?? '',
        text: t.history(i)?.text() ?? '',
        outcome: t.history(i)?.outcome() ?? '',
      })),
    }),
  );
};

const act = (
  helpdesk: Client<typeof backendApi.HelpdeskService>,
  code: string,
  action: string,
  text = '',
  headers?: Record<string, string>,
) =>
  helpdesk
    .actOnSupportCase(
      {
        body: encodeTable((b) =>
          fb.SupportCaseAction.createSupportCaseAction(b, b.createString(code), b.createString(action), b.createString(text)),
        ),
      },
      headers ? { headers } : {},
    )
    .then((res) =>
      decodeTable(
        res.body,
        (bb) => fb.SupportCaseActionResult.getRootAsSupportCaseActionResult(bb),
        (t) => ({ state: t.state() ?? '', outcome: t.outcome() ?? '' }),
      ),
    );

describe('support cases: the console desk (HelpdeskService) and its metrics', () => {
  let bot: BotCommandServer;
  let h: Harness;
  let intake: Client<typeof backendApi.BotIntakeService>;
  let helpdesk: Client<typeof backendApi.HelpdeskService>;
  let pack: bigint;
  let viewerToken: string;

  beforeAll(async () => {
    bot = await startBotCommandServer();
    h = await startHarness({ GATEWAY_INTERNAL_URL: bot.url, REAPER_INTERVAL_MS: '0', SUPPORT_CASE_MAX_WAIT_SECONDS: '3600' });
    intake = h.client(backendApi.BotIntakeService);
    helpdesk = h.client(backendApi.HelpdeskService);
    pack = await createProduct(h.client(backendApi.CatalogAdminService), {
      title: '500 chips',
      atoms: [['chips', 500n]],
      prices: [['xtr', 250n]],
    });
    const { upsertOperator } = await import('../src/operators/operators.store.js');
    const { signIn } = await import('../src/operators/sessions.js');
    await upsertOperator(h.database.db, 'desk-viewer', 'desk viewer password', ['viewer']);
    viewerToken = (await signIn(h.database.db, 'desk-viewer', 'desk viewer password', 24, new Date())).token;
  });
  afterAll(async () => {
    await h.stop();
    await bot.stop();
  });

  it('lists open cases oldest first with their age, and shows a case with the evidence of its charge and order', async () => {
    const account = await telegramAccount(h.database.db, '7001');
    const orderId = await paidStarsOrder(h, intake, account, pack, 'charge-7001-a', 7001n);
    const run = await h.database.db
      .insertInto('reconciliation_runs')
      .values({
        trigger: 'cli',
        window_from: new Date(0),
        window_to: new Date(),
        started_at: new Date(),
        finished_at: new Date(),
        outcome: 'mismatches',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await h.database.db
      .insertInto('reconciliation_mismatches')
      .values({
        run_id: run.id,
        kind: 'amount_mismatch',
        rail: 'stars',
        provider: 'telegram_stars',
        order_id: orderId,
        payment_ref: 'charge-7001-a',
      })
      .execute();
    const newer = await openCase(intake, 7001n, 'charge-7001-a', 'no chips <b>at all</b>');
    const older = await openCase(intake, 7002n, '', 'general question');
    await sql`update support_cases set opened_at = now() - interval '2 hours' where code = ${older}`.execute(h.database.db);

    const list = await helpdeskList(helpdesk);
    expect(list.cases.map((c) => c.code)).toEqual([older, newer]);
    expect(list.total).toBe(2n);
    expect(list.cases[0]?.age).toBeGreaterThanOrEqual(7_200n);

    const detail = await helpdeskCase(helpdesk, newer);
    expect(detail).toMatchObject({ state: 'open', text: 'no chips <b>at all</b>', refundOrderId: orderId });
    const kinds = detail.evidence.map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['order', 'order_event', 'ledger', 'charge', 'reconciliation']));
    expect(detail.evidence.find((e) => e.kind === 'order')?.summary).toContain('state=paid');
    expect(detail.evidence.find((e) => e.kind === 'ledger')?.summary).toContain('chips=500');
    expect(detail.evidence.find((e) => e.kind === 'reconciliation')?.summary).toContain('finding=amount_mismatch');
    expect(detail.history).toEqual([{ kind: 'opened', login: '', text: '', outcome: '' }]);
  });

  it('exports open cases by age bucket and the overdue count (older than SUPPORT_CASE_MAX_WAIT_SECONDS)', async () => {
    const text = await (await fetch(h.metricsUrl)).text();
    expect(text).toMatch(/^backend_support_cases_open\{age="lt_1h"\} 1$/m);
    expect(text).toMatch(/^backend_support_cases_open\{age="1h_6h"\} 1$/m);
    expect(text).toMatch(/^backend_support_cases_open\{age="ge_3d"\} 0$/m);
    expect(text).toMatch(/^backend_support_cases_overdue 1$/m);
  });

  it('replies through the bot (send_to_user, headed by the case id), stores the reply on the case and audits it without the text', async () => {
    const { cases } = await helpdeskList(helpdesk);
    const code = cases[1]?.code ?? '';
    bot.respond = () => ({ outcome: gatewayApi.Outcome.DELIVERED });
    expect(await act(helpdesk, code, 'reply', '  We are checking your payment.  ')).toEqual({ state: 'open', outcome: 'delivered' });
    const sent = bot.commands.at(-1);
    expect(sent?.payload.case).toBe('sendToUser');
    if (sent?.payload.case !== 'sendToUser') throw new Error('unreachable');
    expect(sent.payload.value.recipient?.externalId).toBe('7001');
    expect(sent.payload.value.text).toBe(`Support case ${code}:\nWe are checking your payment.`);
    bot.respond = () => ({ outcome: gatewayApi.Outcome.NO_BOT });
    expect(await act(helpdesk, code, 'reply', 'Second try')).toEqual({ state: 'open', outcome: 'not_delivered' });
    const detail = await helpdeskCase(helpdesk, code);
    expect(detail.history.slice(1)).toEqual([
      { kind: 'reply', login: 'harness-operator', text: 'We are checking your payment.', outcome: 'delivered' },
      { kind: 'reply', login: 'harness-operator', text: 'Second try', outcome: 'not_delivered' },
    ]);
    const audit = await h.database.db
      .selectFrom('operator_audit')
      .select(['action', 'outcome', 'detail'])
      .where('target', '=', code)
      .orderBy('id')
      .execute();
    expect(audit).toEqual([
      { action: 'support_reply', outcome: 'delivered', detail: '' },
      { action: 'support_reply', outcome: 'not_delivered', detail: '' },
    ]);
    expect(await failure(act(helpdesk, code, 'reply', 'ctl\u0000'))).toEqual({
      code: Code.InvalidArgument,
      errorCode: 'invalid_support_reply',
    });
  });

  it('resolves once (audited); a resolved case takes no reply and leaves the open list', async () => {
    const { cases } = await helpdeskList(helpdesk);
    const code = cases[0]?.code ?? '';
    expect(await act(helpdesk, code, 'resolve')).toEqual({ state: 'resolved', outcome: '' });
    expect(await failure(act(helpdesk, code, 'resolve'))).toEqual({ code: Code.FailedPrecondition, errorCode: 'support_case_closed' });
    expect(await failure(act(helpdesk, code, 'reply', 'late'))).toEqual({
      code: Code.FailedPrecondition,
      errorCode: 'support_case_closed',
    });
    expect((await helpdeskList(helpdesk)).cases.map((c) => c.code)).not.toContain(code);
    expect((await helpdeskCase(helpdesk, code)).history.map((e) => e.kind)).toEqual(['opened', 'resolved']);
    const audit = await h.database.db.selectFrom('operator_audit').select(['action', 'outcome']).where('target', '=', code).execute();
    expect(audit).toEqual([{ action: 'support_resolve', outcome: 'resolved' }]);
    expect(await failure(helpdeskCase(helpdesk, 'C-ZZZZZZ'))).toEqual({ code: Code.NotFound, errorCode: 'unknown_support_case' });
  });

  it("shows the operator audit of the case and of its order: a refund made through the console's refund flow appears with the replies", async () => {
    const { cases } = await helpdeskList(helpdesk);
    const code = cases.find((c) => c.code !== '')?.code ?? '';
    const before = await helpdeskCase(helpdesk, code);
    expect(before.audit.map((a) => a.action)).toEqual(['support_reply', 'support_reply']);
    bot.respond = deliverInvoices;
    await h.client(backendApi.ConsoleService).consoleRefund({
      body: encodeTable((b) => fb.ConsoleRefund.createConsoleRefund(b, b.createString(before.refundOrderId))),
    });
    const after = await helpdeskCase(helpdesk, code);
    expect(after.audit.at(-1)).toMatchObject({ action: 'refund', login: 'harness-operator', target: `order:${before.refundOrderId}` });
    expect(after.evidence.filter((e) => e.kind === 'ledger').map((e) => /kind=(\w+)/.exec(e.summary)?.[1])).toEqual(['purchase', 'refund']);
  });

  it('a viewer sees cases but may not reply or resolve (operator_forbidden, audited); no session is refused', async () => {
    const viewer = { 'x-operator-session': viewerToken };
    const { cases } = await helpdeskList(helpdesk, viewer);
    const code = cases[0]?.code ?? '';
    expect(await failure(act(helpdesk, code, 'resolve', '', viewer))).toEqual({
      code: Code.PermissionDenied,
      errorCode: 'operator_forbidden',
    });
    expect(await failure(h.bareClient(backendApi.HelpdeskService).listSupportCases({ body: new Uint8Array() }))).toMatchObject({
      code: Code.Unauthenticated,
    });
  });
});
