import { readFileSync } from 'node:fs';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { botlink, codedConnectError } from '@wordgame/contracts';
import { freshDatabase, startBackendProcess, type BackendProcess, type FreshDatabase } from './support/backend-process.js';
import { sample, startTestGateway, type TestGateway } from './support/botlink-gateway.js';
import { startIntakeBackend } from './support/intake-backend.js';

function botClient(gw: TestGateway): Client<typeof botlink.BotLink> {
  return createClient(
    botlink.BotLink,
    createGrpcTransport({
      baseUrl: gw.urls.botlinkUrl,
      nodeOptions: { ca: readFileSync(gw.certs.ca.cert), cert: readFileSync(gw.certs.bot.cert), key: readFileSync(gw.certs.bot.key) },
    }),
  );
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (err: unknown) => ConnectError.from(err),
  );

const calls = (text: string, rpc: string, outcome: string) =>
  sample(text, `botlink_support_calls_total{rpc="${rpc}",outcome="${outcome}"}`) ?? 0;

/** User 429 is over the backend's per-user limit; user 430 has too many open cases. */
const refusals = (userId: bigint) =>
  userId === 429n
    ? codedConnectError('rate_limited', 'too many attempts; try again in 60 seconds', { 'x-retry-after': '60' })
    : userId === 430n
      ? codedConnectError('support_case_limit', 'at most 3 open support cases per user; wait for an answer')
      : undefined;

describe('BotLink support RPCs (ListStarCharges, OpenSupportCase) proxied to the backend intake over mTLS', () => {
  let backend: Awaited<ReturnType<typeof startIntakeBackend>>;
  let gw: TestGateway;
  let client: Client<typeof botlink.BotLink>;

  beforeAll(async () => {
    backend = await startIntakeBackend({ refuseUser: refusals });
    gw = await startTestGateway({ BACKEND_URL: backend.url });
    client = botClient(gw);
  });
  afterAll(async () => {
    await gw.stop();
    await backend.close();
  });

  it('ListStarCharges asks for the Telegram user with limit and language and returns the charges', async () => {
    const res = await client.listStarCharges({ platformUserId: 9_007_199_254_740_993n, limit: 3, language: 'ru' });
    expect(res.charges).toEqual([
      expect.objectContaining({
        orderId: 'order-1',
        platformPaymentChargeId: 'charge-9007199254740993',
        productTitle: '500 фишек',
        amount: 250n,
        paidUnix: 1_700_000_000n,
        state: 'credited',
      }),
    ]);
    expect(backend.seen.charges.at(-1)).toEqual({ platform: 'telegram', userId: 9_007_199_254_740_993n, limit: 3, language: 'ru' });
    // The contract: any language but ru reads en.
    await client.listStarCharges({ platformUserId: 5n, limit: 0, language: 'de' });
    expect(backend.seen.charges.at(-1)).toEqual({ platform: 'telegram', userId: 5n, limit: 0, language: 'en' });
  });

  it('OpenSupportCase passes the charge, the trimmed text as given and the language, and returns the case id', async () => {
    const text = '  <script>alert("x")</script> & "quotes"\nsecond line  ';
    expect(
      await client.openSupportCase({ platformUserId: 7n, platformPaymentChargeId: 'stxAbC-123_:x', text, language: 'ru' }),
    ).toMatchObject({
      caseId: 'C-TEST01',
    });
    expect(backend.seen.cases.at(-1)).toEqual({
      platform: 'telegram',
      userId: 7n,
      chargeId: 'stxAbC-123_:x',
      text: text.trim(),
      language: 'ru',
    });
    await client.openSupportCase({ platformUserId: 7n, text: 'in general' });
    expect(backend.seen.cases.at(-1)).toMatchObject({ chargeId: '', language: 'en' });
  });

  it.each<[string, Parameters<Client<typeof botlink.BotLink>['openSupportCase']>[0], string]>([
    ['a zero user id', { platformUserId: 0n, text: 'hi' }, 'platform_user_id must be a positive platform user id'],
    ['a negative user id', { platformUserId: -5n, text: 'hi' }, 'platform_user_id must be a positive platform user id'],
    ['an empty text', { platformUserId: 7n, text: '  \n ' }, 'text is required'],
    ['a text over 1000 characters', { platformUserId: 7n, text: 'ж'.repeat(1001) }, 'text must be at most 1000 characters'],
    ['a control character', { platformUserId: 7n, text: 'nul\u0000' }, 'text must not contain control characters other than newlines'],
    ['an escape sequence', { platformUserId: 7n, text: '\u001b[31mred' }, 'text must not contain control characters other than newlines'],
    [
      'a charge id with a space',
      { platformUserId: 7n, platformPaymentChargeId: 'a b', text: 'hi' },
      'platform_payment_charge_id must be 1-256 printable characters without spaces',
    ],
    [
      'a charge id over 256 characters',
      { platformUserId: 7n, platformPaymentChargeId: 'c'.repeat(257), text: 'hi' },
      'platform_payment_charge_id must be 1-256 printable characters without spaces',
    ],
    ['a language other than en or ru', { platformUserId: 7n, text: 'hi', language: 'de' }, 'language must be en or ru'],
  ])('OpenSupportCase refuses %s as InvalidArgument without asking the backend', async (_label, req, message) => {
    const asked = backend.seen.cases.length;
    const err = await failure(client.openSupportCase(req));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toBe(message);
    expect(backend.seen.cases.length).toBe(asked);
  });

  it('ListStarCharges refuses a bad user id or a limit beyond 10 as InvalidArgument without asking the backend', async () => {
    const asked = backend.seen.charges.length;
    expect((await failure(client.listStarCharges({ platformUserId: 0n }))).code).toBe(Code.InvalidArgument);
    const limit = await failure(client.listStarCharges({ platformUserId: 5n, limit: 11 }));
    expect([limit.code, limit.rawMessage]).toEqual([Code.InvalidArgument, 'limit must be 0-10']);
    expect((await failure(client.listStarCharges({ platformUserId: 5n, limit: -1 }))).code).toBe(Code.InvalidArgument);
    expect(backend.seen.charges.length).toBe(asked);
  });

  it("passes the backend's per-user limit through as ResourceExhausted naming it, and its other refusals", async () => {
    const limited = await failure(client.openSupportCase({ platformUserId: 429n, text: 'again' }));
    expect([limited.code, limited.rawMessage, limited.metadata.get('x-error-code')]).toEqual([
      Code.ResourceExhausted,
      'too many attempts; try again in 60 seconds',
      'rate_limited',
    ]);
    const listed = await failure(client.listStarCharges({ platformUserId: 429n }));
    expect([listed.code, listed.metadata.get('x-error-code')]).toEqual([Code.ResourceExhausted, 'rate_limited']);
    const capped = await failure(client.openSupportCase({ platformUserId: 430n, text: 'fourth case' }));
    expect([capped.code, capped.metadata.get('x-error-code')]).toEqual([Code.FailedPrecondition, 'support_case_limit']);
  });

  it('counts every call by rpc and outcome', async () => {
    const text = await gw.metrics();
    expect(calls(text, 'list_star_charges', 'ok')).toBe(2);
    expect(calls(text, 'list_star_charges', 'invalid_argument')).toBe(3);
    expect(calls(text, 'list_star_charges', 'rate_limited')).toBe(1);
    expect(calls(text, 'open_support_case', 'ok')).toBe(2);
    expect(calls(text, 'open_support_case', 'invalid_argument')).toBe(9);
    expect(calls(text, 'open_support_case', 'rate_limited')).toBe(1);
    expect(calls(text, 'open_support_case', 'case_limit')).toBe(1);
    expect(calls(text, 'open_support_case', 'unavailable')).toBe(0);
  });
});

describe('BotLink support RPCs when the backend refuses or is away', () => {
  it('passes a backend InvalidArgument through (a charge not the user’s own) and answers Unavailable when unreachable, counted', async () => {
    const picky = await startIntakeBackend({
      failWith: codedConnectError('invalid_support_case', 'the charge is not one of this user’s charges'),
    });
    const gwPicky = await startTestGateway({ BACKEND_URL: picky.url });
    const gwAway = await startTestGateway({ BACKEND_URL: 'http://127.0.0.1:1' });
    try {
      const err = await failure(
        botClient(gwPicky).openSupportCase({ platformUserId: 7n, platformPaymentChargeId: 'someone-else', text: 'mine?' }),
      );
      expect([err.code, err.rawMessage, err.metadata.get('x-error-code')]).toEqual([
        Code.InvalidArgument,
        'the charge is not one of this user’s charges',
        'invalid_support_case',
      ]);
      const away = await failure(botClient(gwAway).listStarCharges({ platformUserId: 7n }));
      expect([away.code, away.rawMessage]).toEqual([Code.Unavailable, 'the backend is unavailable']);
      expect(calls(await gwAway.metrics(), 'list_star_charges', 'unavailable')).toBe(1);
      expect(calls(await gwPicky.metrics(), 'open_support_case', 'invalid_argument')).toBe(1);
    } finally {
      await gwPicky.stop();
      await gwAway.stop();
      await picky.close();
    }
  });
});

describe('BotLink support RPCs through the real backend on PostgreSQL: the per-user limits', () => {
  let db: FreshDatabase;
  let backend: BackendProcess;
  let gw: TestGateway;
  let client: Client<typeof botlink.BotLink>;

  beforeAll(async () => {
    db = await freshDatabase();
    backend = await startBackendProcess(db.url, { STAR_CHARGES_LIST_MAX: '2', SUPPORT_CASE_OPEN_MAX: '2', REAPER_INTERVAL_MS: '0' });
    gw = await startTestGateway({ BACKEND_URL: backend.url });
    client = botClient(gw);
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await backend?.stop();
    await db?.drop();
  });

  it('ListStarCharges twice a minute per user, then ResourceExhausted (rate_limited); another user still gets an answer', async () => {
    expect((await client.listStarCharges({ platformUserId: 801n })).charges).toEqual([]);
    expect((await client.listStarCharges({ platformUserId: 801n })).charges).toEqual([]);
    const err = await failure(client.listStarCharges({ platformUserId: 801n }));
    expect([err.code, err.metadata.get('x-error-code')]).toEqual([Code.ResourceExhausted, 'rate_limited']);
    expect(err.rawMessage).toMatch(/^too many attempts; try again in \d+ seconds$/);
    expect((await client.listStarCharges({ platformUserId: 802n })).charges).toEqual([]);
    expect(calls(await gw.metrics(), 'list_star_charges', 'rate_limited')).toBe(1);
  });

  it('OpenSupportCase twice an hour per user, then ResourceExhausted; the cases opened have short ids', async () => {
    const first = await client.openSupportCase({ platformUserId: 901n, text: 'where are my chips?' });
    expect(first.caseId).toMatch(/^C-[0-9A-Z]{6}$/);
    // A backend refusal (an unknown charge) still counts against the limit.
    const unknown = await failure(client.openSupportCase({ platformUserId: 901n, platformPaymentChargeId: 'nope', text: 'this one' }));
    expect([unknown.code, unknown.metadata.get('x-error-code')]).toEqual([Code.InvalidArgument, 'invalid_support_case']);
    const limited = await failure(client.openSupportCase({ platformUserId: 901n, text: 'third' }));
    expect([limited.code, limited.metadata.get('x-error-code')]).toEqual([Code.ResourceExhausted, 'rate_limited']);
    expect((await client.openSupportCase({ platformUserId: 902n, text: 'another user' })).caseId).toMatch(/^C-/);
  });
});
