import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Code, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb, gatewayApi } from '@wordgame/contracts';
import { sql } from 'kysely';
import { upsertOperator } from '../src/operators/operators.store.js';
import { OPERATOR_SESSION_HEADER, signIn } from '../src/operators/sessions.js';
import { creditOrder } from '../src/payments/orders/credit.js';
import { insertOrder } from '../src/payments/orders/orders.store.js';
import { deliverInvoices, eventually, startBotCommandServer, type BotCommandServer } from './payments-support.js';
import { as, failure, mailbox, startHarness, TELEGRAM_BOT_TOKEN, type Harness } from './support/harness.js';
import { telegramInitData } from './support/launch-data.js';
import { orderProduct, paidOrder } from './support/orders.js';
import { PERSONAL_DATA, PERSONAL_NAME } from './support/personal-data.js';

/** Markers of one player's personal data: each must be gone from every table after the deletion. */
const TELEGRAM_ID = 7318829941;
const NAME = 'Zanzibar Quillfeather';
const EMAIL = 'zanzibar.quill@example.com';
const PASSWORD_HASH = 'scrypt$privacy-test-hash-marker';
/** The address the account had confirmed before it asked to change to `email` (kept on `accounts.email`). */
const confirmedOf = (email: string) => `old.${email}`;
/** The columns the register says the deletion empties, and the tables whose account rows it deletes. */
const ERASED = Object.entries(PERSONAL_DATA)
  .filter(([, d]) => d === 'erased')
  .map(([c]) => c);
const NULLED = Object.entries(PERSONAL_DATA)
  .filter(([, d]) => d === 'nulled')
  .map(([c]) => c);
const ROW_TABLES = [
  ...new Set(
    Object.entries(PERSONAL_DATA)
      .filter(([, d]) => d === 'row')
      .map(([c]) => c.split('.')[0] ?? ''),
  ),
];

const telegramBody = (initData: string) =>
  encodeTable((b) => fb.TelegramSessionOpen.createTelegramSessionOpen(b, b.createString(initData), b.createString('ios')));
const grantOf = (body: Uint8Array) =>
  decodeTable(
    body,
    (bb) => fb.SessionGrant.getRootAsSessionGrant(bb),
    (t) => ({ token: t.token() ?? '', accountId: t.accountId(), created: t.accountCreated() }),
  );
const exportOf = (body: Uint8Array) =>
  decodeTable(
    body,
    (bb) => fb.AccountExport.getRootAsAccountExport(bb),
    (t) => ({ accountId: t.accountId(), document: JSON.parse(t.document() ?? 'null') as Record<string, unknown> }),
  );
const deletionFor = (accountId: bigint, reason: string) =>
  encodeTable((b) => fb.AccountDeletionFor.createAccountDeletionFor(b, accountId, b.createString(reason)));
const exportFor = (accountId: bigint) => encodeTable((b) => fb.AccountExportFor.createAccountExportFor(b, accountId));
const exportQuery = () => encodeTable((b) => fb.AccountExportQuery.createAccountExportQuery(b));
const deletion = () => encodeTable((b) => fb.AccountDeletion.createAccountDeletion(b));

describe('players’ data: deletion erases it everywhere, export returns it (PostgreSQL)', () => {
  let h: Harness;
  let bot: BotCommandServer;
  let accounts: Client<typeof backendApi.AccountService>;
  let social: Client<typeof backendApi.SocialService>;
  let privacy: Client<typeof backendApi.PrivacyService>;
  let intake: Client<typeof backendApi.BotIntakeService>;
  let botDown = true;

  beforeAll(async () => {
    bot = await startBotCommandServer();
    bot.respond = (c) => (c.payload.case === 'forgetUser' && botDown ? { outcome: gatewayApi.Outcome.NO_BOT } : deliverInvoices(c));
    h = await startHarness({
      GATEWAY_INTERNAL_URL: bot.url,
      USER_FORGET_INTERVAL_MS: '50',
      USER_FORGET_RETRY_MAX_MS: '100',
      DATA_EXPORT_MAX: '4',
    });
    accounts = h.client(backendApi.AccountService);
    social = h.client(backendApi.SocialService);
    privacy = h.client(backendApi.PrivacyService);
    intake = h.client(backendApi.BotIntakeService);
  });
  afterAll(async () => {
    await h.stop();
    await bot.stop();
  });

  const db = () => h.database.db;
  /** Opens a support case in general from the bot for `userId`, with `text`. */
  const openCase = async (userId: number, text: string) => {
    const res = await intake.openSupportCase({
      body: encodeTable((b) =>
        fb.SupportCaseOpening.createSupportCaseOpening(
          b,
          b.createString('telegram'),
          BigInt(userId),
          b.createString(''),
          b.createString(text),
          b.createString('en'),
        ),
      ),
    });
    return decodeTable(
      res.body,
      (bb) => fb.SupportCaseOpened.getRootAsSupportCaseOpened(bb),
      (t) => t.caseId() ?? '',
    );
  };
  /** An operator's reply to the case through the console desk (its text is kept on the case's history). */
  const replyToCase = async (code: string, text: string) =>
    h.client(backendApi.HelpdeskService).actOnSupportCase({
      body: encodeTable((b) =>
        fb.SupportCaseAction.createSupportCaseAction(b, b.createString(code), b.createString('reply'), b.createString(text)),
      ),
    });
  const openTelegram = async (userId: number) =>
    grantOf((await accounts.openTelegramSession({ body: telegramBody(telegramInitData(TELEGRAM_BOT_TOKEN, userId)) })).body);

  /** A telegram player with a name, an e-mail (mailed a confirmation link), a password hash and money on two rails. */
  async function fullPlayer(userId: number, name: string, email: string) {
    const { accountId } = await openTelegram(userId);
    const me = as(accountId, 'telegram;ios');
    await accounts.updateProfile(
      { body: encodeTable((b) => fb.ProfileUpdate.createProfileUpdate(b, b.createString(name), b.createString(email))) },
      me,
    );
    await db()
      .updateTable('accounts')
      .set({ password_hash: PASSWORD_HASH, email: confirmedOf(email), email_confirmed_at: new Date() })
      .where('id', '=', accountId)
      .execute();
    const productId = await orderProduct(db());
    const card = await paidOrder(db(), productId, accountId, 'telegram', { chips: 70n, hints: 2n });
    const starsId = randomUUID();
    const at = new Date();
    await insertOrder(db(), {
      id: starsId,
      account_id: accountId,
      product_id: productId,
      title: 'Star pack',
      rail: 'stars',
      provider: 'telegram_stars',
      shop: null,
      segment: 'telegram',
      amount: 25n,
      currency: 'XTR',
      chips: 30n,
      hints: 0n,
      no_ads_days: 0n,
      no_ads_forever: false,
      created_at: at,
      expires_at: new Date(at.getTime() + 30 * 60_000),
    });
    const stars = await creditOrder(db(), starsId, { platformChargeId: `charge-${starsId}`, platformUserId: BigInt(userId) }, at);
    if (!stars) throw new Error('the stars order was not credited');
    await sql`insert into unmatched_payments (provider, platform_charge_id, order_ref, order_id, amount, platform_user_id, reason, refund_status, refunded_at)
      values ('telegram_stars', ${`stray-${starsId}`}, ${starsId}, ${starsId}, 5, ${userId}, 'duplicate', 'refunded', now())`.execute(db());
    await sql`insert into star_subscriptions (account_id, product_id, first_order_id, segment, platform_user_id, amount, currency, paid_until, last_charge_id)
      values (${accountId}, ${productId}, ${starsId}, 'telegram', ${userId}, 25, 'XTR', now(), ${`charge-${starsId}`})`.execute(db());
    const run = await sql<{
      id: bigint;
    }>`insert into reconciliation_runs (trigger, window_from, window_to, started_at, finished_at, outcome)
      values ('cli', now(), now(), now(), now(), 'mismatches') returning id`.execute(db());
    await sql`insert into reconciliation_mismatches (run_id, kind, rail, provider, order_id, payment_ref, payer_ref)
      values (${run.rows[0]?.id}, 'credited_not_taken', 'stars', 'telegram_stars', ${starsId}, ${`charge-${starsId}`}, ${String(userId)})`.execute(
      db(),
    );
    return { accountId, me, orders: [card.id, starsId] };
  }

  /** Rows (as text, every column) of every public table that contain `marker`. */
  async function rowsHolding(marker: string): Promise<string[]> {
    const tables = await sql<{ name: string }>`select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'kysely_%' order by 1`.execute(db());
    const found: string[] = [];
    for (const { name } of tables.rows) {
      const hits = await sql<{ row: string }>`select t::text as row from ${sql.table(name)} t where t::text ilike ${`%${marker}%`}`.execute(
        db(),
      );
      for (const hit of hits.rows) found.push(`${name}: ${hit.row}`);
    }
    return found;
  }

  /**
   * The register's `erased` columns that hold one of `markers` somewhere, its `nulled` columns set on
   * `accountId`'s row and its `row` tables that hold rows of `accountId`: everything the deletion must
   * empty that is still there.
   */
  async function personalLeft(accountId: bigint, markers: readonly string[]): Promise<string[]> {
    const patterns = markers.map((m) => `%${m}%`);
    const left: string[] = [];
    for (const column of ERASED) {
      const [table = '', name = ''] = column.split('.');
      const hits = await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}
        where ${sql.ref(name)}::text ilike any(${patterns}::text[])`.execute(db());
      if (Number(hits.rows[0]?.n ?? 0) > 0) left.push(column);
    }
    for (const column of NULLED) {
      const [table = '', name = ''] = column.split('.');
      const owner = table === 'accounts' ? 'id' : 'account_id';
      const set = await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}
        where ${sql.ref(owner)} = ${accountId} and ${sql.ref(name)} is not null`.execute(db());
      if (Number(set.rows[0]?.n ?? 0) > 0) left.push(column);
    }
    for (const table of ROW_TABLES) {
      const rows = await sql<{ n: string }>`select count(*) as n from ${sql.table(table)} where account_id = ${accountId}`.execute(db());
      if (Number(rows.rows[0]?.n ?? 0) > 0) left.push(`${table} rows`);
    }
    return left;
  }

  /** The money tables the deletion keeps, every row as it is, less the columns the register says it empties. */
  const MONEY_TABLES = [
    'orders',
    'payment_events',
    'wallet_segments',
    'benefits',
    'star_subscriptions',
    'unmatched_payments',
    'reconciliation_mismatches',
  ];
  async function moneyRows(): Promise<Record<string, unknown[]>> {
    const emptied = new Set([...ERASED, ...NULLED]);
    const out: Record<string, unknown[]> = {};
    for (const table of MONEY_TABLES) {
      const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)} order by 1, 2`.execute(db());
      out[table] = rows.map((r) => Object.fromEntries(Object.entries(r).filter(([c]) => !emptied.has(`${table}.${c}`))));
    }
    return out;
  }

  const scrape = async () => (await fetch(h.metricsUrl)).text();
  const mailsTo = async (address: string) => (await mailbox(h.mailDir)).filter((m) => m.includes(address));

  it('a deletion leaves no name, e-mail, password hash or platform id in any table or the mailbox; money rows stay under the account id; the bot is told once it is back', async () => {
    // A case the Telegram user opened through the bot before they had an account (found through the identity).
    const EARLY_CASE_TEXT = 'before I ever played: Quillfeather here';
    await openCase(TELEGRAM_ID, EARLY_CASE_TEXT);
    expect(await db().selectFrom('support_cases').select('account_id').execute()).toEqual([{ account_id: null }]);
    const player = await fullPlayer(TELEGRAM_ID, NAME, EMAIL);
    const CASE_TEXT = 'my stars went missing, Zanzibar speaking';
    const code = await openCase(TELEGRAM_ID, CASE_TEXT);
    await replyToCase(code, `Dear ${NAME}, we are checking your stars`);
    const MARKERS = [NAME, EMAIL, confirmedOf(EMAIL), PASSWORD_HASH, String(TELEGRAM_ID), CASE_TEXT, EARLY_CASE_TEXT];
    for (const marker of MARKERS) expect(await rowsHolding(marker)).not.toEqual([]);
    // The fixture fills every column the deletion must empty: a new one in the register needs a marker here.
    expect(await personalLeft(player.accountId, MARKERS)).toEqual([...ERASED, ...NULLED, ...ROW_TABLES.map((t) => `${t} rows`)]);
    expect(await mailsTo(EMAIL)).toHaveLength(1);
    const ledgerBefore = await db()
      .selectFrom('ledger_operations')
      .selectAll()
      .where('account_id', '=', player.accountId)
      .orderBy('id')
      .execute();
    expect(ledgerBefore).toHaveLength(2);
    const moneyBefore = await moneyRows();
    for (const table of MONEY_TABLES) expect([table, moneyBefore[table]?.length]).not.toEqual([table, 0]);

    await social.deleteAccount({ body: deletion() }, player.me);

    // The bot is down: the forget is tried and stays queued.
    await eventually(() => bot.commands.some((c) => c.payload.case === 'forgetUser' && c.payload.value.userId === BigInt(TELEGRAM_ID)));
    await eventually(async () => {
      const row = await db()
        .selectFrom('bot_forgets')
        .select(['attempts', 'last_error'])
        .where('user_id', '=', BigInt(TELEGRAM_ID))
        .executeTakeFirst();
      return row !== undefined && row.attempts >= 2 && row.last_error === 'no_bot';
    });
    expect(await rowsHolding(String(TELEGRAM_ID))).toEqual([expect.stringMatching(/^bot_forgets: /)]);
    expect(await scrape()).toMatch(/^backend_bot_forgets_pending 1$/m);
    expect(Number(/^backend_bot_forget_oldest_seconds (\S+)$/m.exec(await scrape())?.[1])).toBeGreaterThanOrEqual(0);

    // The bot comes back: the forget is delivered and its row goes.
    botDown = false;
    await eventually(async () => (await db().selectFrom('bot_forgets').select('id').execute()).length === 0);

    for (const marker of MARKERS) expect(await rowsHolding(marker)).toEqual([]);
    expect(await personalLeft(player.accountId, MARKERS)).toEqual([]);
    expect(await db().selectFrom('support_cases').select(['text', 'platform_user_id']).orderBy('id').execute()).toEqual([
      { text: '', platform_user_id: 0n },
      { text: '', platform_user_id: 0n },
    ]);
    expect(await mailsTo(EMAIL)).toEqual([]);
    const metrics = await scrape();
    expect(metrics).toMatch(/^backend_bot_forgets_pending 0$/m);
    expect(metrics).toMatch(/^backend_bot_forget_oldest_seconds 0$/m);

    const account = await db().selectFrom('accounts').selectAll().where('id', '=', player.accountId).executeTakeFirstOrThrow();
    expect(account).toMatchObject({ status: 'deleted', display_name: '', email: null, email_confirmed_at: null, password_hash: null });
    const orders = await db()
      .selectFrom('orders')
      .select(['id', 'account_id', 'state', 'amount', 'platform_charge_id'])
      .where('id', 'in', player.orders)
      .execute();
    expect(orders).toHaveLength(2);
    for (const o of orders) expect(o).toMatchObject({ account_id: player.accountId, state: 'paid' });
    expect(
      await db().selectFrom('ledger_operations').selectAll().where('account_id', '=', player.accountId).orderBy('id').execute(),
    ).toEqual(ledgerBefore);
    const unmatched = await db().selectFrom('unmatched_payments').select(['amount', 'platform_user_id']).executeTakeFirstOrThrow();
    expect(unmatched).toEqual({ amount: 5n, platform_user_id: 0n });
    // Every money row stays exactly as it was but for the personal columns the deletion empties.
    expect(await moneyRows()).toEqual(moneyBefore);
  });

  it('every column that could hold personal data is in the register, and privacy.md names every table that keeps any', async () => {
    const columns = await sql<{ t: string; c: string; type: string }>`select table_name as t, column_name as c, data_type as type
      from information_schema.columns c join information_schema.tables using (table_schema, table_name)
      where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'kysely_%'
      order by 1, 2`.execute(db());
    const TEXTUAL = new Set(['text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'bytea', 'USER-DEFINED', 'inet', 'cidr']);
    const live = columns.rows.filter((r) => TEXTUAL.has(r.type) || PERSONAL_NAME.test(r.c)).map((r) => `${r.t}.${r.c}`);
    expect(live.filter((c) => !(c in PERSONAL_DATA))).toEqual([]);
    expect(Object.keys(PERSONAL_DATA).filter((c) => !live.includes(c))).toEqual([]);

    const doc = await readFile(new URL('../../../docs/operating/privacy.md', import.meta.url), 'utf8');
    const personalTables = new Set(
      Object.entries(PERSONAL_DATA)
        .filter(([, d]) => d !== 'none')
        .map(([c]) => c.split('.')[0] ?? ''),
    );
    expect([...personalTables].filter((t) => !doc.includes(`\`${t}\``) && !doc.includes(`\`${t}.`))).toEqual([]);
  });

  it('a Telegram user who returns after the deletion is a new account with an empty wallet', async () => {
    const userId = 7318829942;
    const first = await openTelegram(userId);
    const productId = await orderProduct(db());
    await paidOrder(db(), productId, first.accountId, 'telegram', { chips: 40n });
    await social.deleteAccount({ body: deletion() }, as(first.accountId, 'telegram;ios'));

    const back = await openTelegram(userId);
    expect(back.accountId).not.toBe(first.accountId);
    expect(back.created).toBe(true);
    const wallet = await db()
      .selectFrom('wallet_segments')
      .select(['segment', 'balance'])
      .where('account_id', '=', back.accountId)
      .execute();
    expect(wallet.length).toBeGreaterThan(0);
    for (const s of wallet) expect(s.balance).toBe(0n);
    const identities = await db()
      .selectFrom('platform_identities')
      .select('account_id')
      .where('external_id', '=', String(userId))
      .execute();
    expect(identities).toEqual([{ account_id: back.accountId }]);
  });

  it('the export holds every section (money as integer strings) and is rate-limited per account', async () => {
    const userId = 7318829943;
    await openCase(userId, 'asked before I signed up');
    const player = await fullPlayer(userId, 'Export Person', 'export.person@example.com');
    await openCase(userId, 'where are my <b>chips</b>?');
    const { accountId, document } = exportOf((await privacy.exportAccount({ body: exportQuery() }, player.me)).body);
    expect(accountId).toBe(player.accountId);
    expect(Object.keys(document)).toEqual([
      'format',
      'exported_at',
      'profile',
      'identities',
      'sessions',
      'wallet',
      'orders',
      'ledger',
      'support_cases',
      'subscriptions',
    ]);
    expect(document['profile']).toMatchObject({
      account_id: String(player.accountId),
      status: 'active',
      display_name: 'Export Person',
      pending_emails: [expect.objectContaining({ email: 'export.person@example.com' })],
    });
    expect(JSON.stringify(document)).not.toContain(PASSWORD_HASH);
    expect(document['identities']).toEqual([expect.objectContaining({ kind: 'telegram', external_id: String(userId) })]);
    expect(document['sessions']).toEqual([expect.objectContaining({ platform: 'telegram' })]);
    const wallet = document['wallet'] as { segments: unknown[]; benefits: unknown[] };
    expect(wallet.segments).toContainEqual({ segment: 'telegram', chips: '100' });
    expect(wallet.benefits).toContainEqual(expect.objectContaining({ origin: 'telegram', hints: '2' }));
    const orders = document['orders'] as Array<Record<string, unknown>>;
    expect(orders.map((o) => [o['rail'], o['amount'], o['currency'], o['state']])).toEqual([
      ['card', '100', 'RUB', 'paid'],
      ['stars', '25', 'XTR', 'paid'],
    ]);
    expect(orders[1]).toMatchObject({ events: [expect.objectContaining({ kind: 'paid' })] });
    const ledger = document['ledger'] as Array<Record<string, unknown>>;
    expect(ledger.map((l) => [l['kind'], l['chips_delta'], l['money_minor']])).toEqual([
      ['purchase', '70', '100'],
      ['purchase', '30', '25'],
    ]);
    expect(document['support_cases']).toEqual([
      expect.objectContaining({ platform: 'telegram', text: 'asked before I signed up', state: 'open' }),
      expect.objectContaining({
        platform: 'telegram',
        text: 'where are my <b>chips</b>?',
        state: 'open',
        events: [expect.objectContaining({ kind: 'opened' })],
      }),
    ]);
    expect(document['subscriptions']).toEqual([
      expect.objectContaining({ first_order_id: player.orders[1], amount: '25', currency: 'XTR', cancelled_at: null, periods: [] }),
    ]);

    for (let i = 1; i < 4; i += 1) await privacy.exportAccount({ body: exportQuery() }, player.me);
    expect(await failure(privacy.exportAccount({ body: exportQuery() }, player.me))).toEqual({
      code: Code.ResourceExhausted,
      errorCode: 'rate_limited',
    });
  });

  it('a moderator exports and deletes an account on request, each audited with the operator; other roles are refused', async () => {
    const userId = 7318829944;
    const player = await fullPlayer(userId, 'Asked To Go', 'asked.to.go@example.com');
    const operator = await db().selectFrom('operators').select('id').where('login', '=', 'harness-operator').executeTakeFirstOrThrow();

    const exported = exportOf((await privacy.exportAccountFor({ body: exportFor(player.accountId) })).body);
    expect(exported.document['profile']).toMatchObject({ display_name: 'Asked To Go' });

    expect(await failure(privacy.deleteAccountFor({ body: deletionFor(player.accountId, '  ') }))).toEqual({
      code: Code.InvalidArgument,
      errorCode: 'invalid_reason',
    });
    await upsertOperator(db(), 'viewer-only', 'viewer only password', ['viewer']);
    const viewer = await signIn(db(), 'viewer-only', 'viewer only password', 24, new Date());
    const asViewer = { headers: { [OPERATOR_SESSION_HEADER]: viewer.token } };
    expect(await failure(privacy.deleteAccountFor({ body: deletionFor(player.accountId, 'ticket 17') }, asViewer))).toEqual({
      code: Code.PermissionDenied,
      errorCode: 'operator_forbidden',
    });
    expect(await failure(privacy.exportAccountFor({ body: exportFor(player.accountId) }, asViewer))).toEqual({
      code: Code.PermissionDenied,
      errorCode: 'operator_forbidden',
    });

    const done = decodeTable(
      (await privacy.deleteAccountFor({ body: deletionFor(player.accountId, 'player asked by mail, ticket 17') })).body,
      (bb) => fb.AccountDeletedFor.getRootAsAccountDeletedFor(bb),
      (t) => ({ accountId: t.accountId(), sessions: t.sessionsRevoked(), identities: t.identitiesUnlinked() }),
    );
    expect(done).toEqual({ accountId: player.accountId, sessions: 1, identities: 1 });
    expect(await failure(privacy.deleteAccountFor({ body: deletionFor(player.accountId, 'again') }))).toEqual({
      code: Code.FailedPrecondition,
      errorCode: 'account_deleted',
    });
    expect(await failure(privacy.deleteAccountFor({ body: deletionFor(987654321n, 'nobody') }))).toEqual({
      code: Code.NotFound,
      errorCode: 'unknown_account',
    });

    const audit = await db()
      .selectFrom('operator_audit')
      .select(['operator_id', 'action', 'target', 'outcome', 'detail'])
      .where('action', 'in', ['account_export', 'account_delete'])
      .orderBy('id')
      .execute();
    expect(audit).toEqual([
      { operator_id: operator.id, action: 'account_export', target: `account:${player.accountId}`, outcome: 'ok', detail: '' },
      expect.objectContaining({ action: 'account_delete', outcome: 'forbidden', detail: 'needs moderator' }),
      expect.objectContaining({ action: 'account_export', outcome: 'forbidden', detail: 'needs moderator' }),
      {
        operator_id: operator.id,
        action: 'account_delete',
        target: `account:${player.accountId}`,
        outcome: 'ok',
        detail: 'player asked by mail, ticket 17',
      },
      expect.objectContaining({ operator_id: operator.id, action: 'account_delete', outcome: 'account_deleted', detail: 'again' }),
      expect.objectContaining({ operator_id: operator.id, action: 'account_delete', outcome: 'unknown_account', detail: 'nobody' }),
    ]);
    expect(await rowsHolding('asked.to.go@example.com')).toEqual([]);
    expect(await mailsTo('asked.to.go@example.com')).toEqual([]);
  });
});
