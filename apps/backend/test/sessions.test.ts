import { Code, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { formatPlatformHeader, isPlatformKind, isPlatformSubtype } from '../src/gate/context.js';
import { grantChips } from '../src/ledger/postings/append.js';
import { as, failure, startHarness, TELEGRAM_BOT_TOKEN, VK_APP_SECRET, type Harness } from './support/harness.js';
import { signTelegramInitData, telegramInitData, vkLaunchParams } from './support/launch-data.js';
import { buyBody, createProduct, readWallet } from './support/wallet.js';

const grantOf = (body: Uint8Array) =>
  decodeTable(
    body,
    (bb) => fb.SessionGrant.getRootAsSessionGrant(bb),
    (t) => ({
      token: t.token() ?? '',
      accountId: t.accountId(),
      kind: t.platformKind(),
      subtype: t.platformSubtype(),
      expires: t.expiresAtUnix(),
      created: t.accountCreated(),
    }),
  );

const telegramBody = (initData: string) =>
  encodeTable((b) => fb.TelegramSessionOpen.createTelegramSessionOpen(b, b.createString(initData), b.createString('ios')));
const vkBody = (params: string) => encodeTable((b) => fb.VkSessionOpen.createVkSessionOpen(b, b.createString(params)));
const directBody = (email: string, password: string, mode: string, hint = '') =>
  encodeTable((b) =>
    fb.DirectSessionOpen.createDirectSessionOpen(
      b,
      b.createString(email),
      b.createString(password),
      b.createString(mode),
      b.createString(hint),
    ),
  );
const lookup = (token: string) => encodeTable((b) => fb.SessionLookup.createSessionLookup(b, b.createString(token)));

describe('sessions over Connect on PostgreSQL', () => {
  let h: Harness;
  let accounts: Client<typeof backendApi.AccountService>;
  const warnings: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    h = await startHarness({}, warnings);
    accounts = h.client(backendApi.AccountService);
  });
  afterAll(() => h.stop());

  const resolve = async (token: string) =>
    decodeTable(
      (await accounts.resolveSession({ body: lookup(token) })).body,
      (bb) => fb.SessionInfo.getRootAsSessionInfo(bb),
      (t) => ({
        accountId: t.accountId(),
        kind: t.platformKind(),
        subtype: t.platformSubtype(),
      }),
    );

  describe('telegram', () => {
    it('opens a session from valid init data, creating the account once; kind telegram, no subtype', async () => {
      const first = grantOf((await accounts.openTelegramSession({ body: telegramBody(telegramInitData(TELEGRAM_BOT_TOKEN, 7001)) })).body);
      expect(first).toMatchObject({ kind: 'telegram', subtype: '', created: true });
      expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Number(first.expires) - Date.now() / 1000).toBeGreaterThan(719 * 3600);
      const again = grantOf((await accounts.openTelegramSession({ body: telegramBody(telegramInitData(TELEGRAM_BOT_TOKEN, 7001)) })).body);
      expect(again.accountId).toBe(first.accountId);
      expect(again.created).toBe(false);
      expect(again.token).not.toBe(first.token);
      expect(await resolve(first.token)).toEqual({ accountId: first.accountId, kind: 'telegram', subtype: '' });
      const stored = await h.database.db.selectFrom('sessions').select('token_hash').execute();
      expect(stored.map((s) => s.token_hash)).not.toContain(first.token);
    });

    it('refuses tampered init data as launch_data_invalid', async () => {
      const good = telegramInitData(TELEGRAM_BOT_TOKEN, 7002);
      const tampered = good.replace(encodeURIComponent('"id":7002'), encodeURIComponent('"id":7003'));
      expect(tampered).not.toBe(good);
      const forgedWithOtherToken = telegramInitData('999:another-bot', 7002);
      const noHash = good.replace(/&?hash=[0-9a-f]+/, '');
      for (const initData of [tampered, forgedWithOtherToken, noHash, '', 'garbage', `${good}&hash=${'0'.repeat(64)}`]) {
        expect(await failure(accounts.openTelegramSession({ body: telegramBody(initData) }))).toEqual({
          code: Code.Unauthenticated,
          errorCode: 'launch_data_invalid',
        });
      }
    });

    it('refuses stale (and far-future) init data as launch_data_stale', async () => {
      for (const age of [86_401, 10 * 86_400, -3_600]) {
        expect(
          await failure(accounts.openTelegramSession({ body: telegramBody(telegramInitData(TELEGRAM_BOT_TOKEN, 7004, age)) })),
        ).toEqual({
          code: Code.Unauthenticated,
          errorCode: 'launch_data_stale',
        });
      }
      expect(
        grantOf((await accounts.openTelegramSession({ body: telegramBody(telegramInitData(TELEGRAM_BOT_TOKEN, 7004, 86_000)) })).body).kind,
      ).toBe('telegram');
    });

    it('refuses signed data without a usable user', async () => {
      const auth_date = String(Math.floor(Date.now() / 1000));
      for (const user of ['{"id":-5}', 'not json', '{"first_name":"x"}']) {
        const initData = signTelegramInitData(TELEGRAM_BOT_TOKEN, { auth_date, user });
        expect((await failure(accounts.openTelegramSession({ body: telegramBody(initData) }))).errorCode).toBe('launch_data_invalid');
      }
    });
  });

  describe('vk', () => {
    it.each([
      ['mobile_iphone', 'ios'],
      ['mobile_ipad', 'ios'],
      ['iphone_external', 'ios'],
      ['mobile_android', 'android'],
      ['android_external', 'android'],
      ['desktop_web', 'web'],
      ['mobile_web', 'web'],
      ['web_external', 'web'],
      ['some_new_platform', ''],
    ])('takes the subtype from the signed vk_platform %s -> %p', async (platform, subtype) => {
      const grant = grantOf((await accounts.openVkSession({ body: vkBody(vkLaunchParams(VK_APP_SECRET, 8001, platform)) })).body);
      expect(grant).toMatchObject({ kind: 'vk', subtype });
      expect(await resolve(grant.token)).toMatchObject({ kind: 'vk', subtype });
    });

    it('refuses tampered params (a changed vk_platform, another secret, no sign) as launch_data_invalid', async () => {
      const good = vkLaunchParams(VK_APP_SECRET, 8002, 'mobile_android');
      const cases = [
        good.replace('vk_platform=mobile_android', 'vk_platform=desktop_web'),
        good.replace('vk_user_id=8002', 'vk_user_id=8003'),
        vkLaunchParams('wrong-secret', 8002, 'mobile_android'),
        good.replace(/&sign=.*$/, ''),
        `${good}&vk_platform=desktop_web`,
      ];
      for (const params of cases) {
        expect(await failure(accounts.openVkSession({ body: vkBody(params) }))).toEqual({
          code: Code.Unauthenticated,
          errorCode: 'launch_data_invalid',
        });
      }
    });

    describe('fails closed: every iOS value, a missing and an unknown vk_platform get a frozen wallet', () => {
      let wallet: Client<typeof backendApi.WalletService>;
      let payments: Client<typeof backendApi.PaymentsService>;
      let hints: bigint;
      let pack: bigint;
      let nextUser = 8100;

      beforeAll(async () => {
        wallet = h.client(backendApi.WalletService);
        payments = h.client(backendApi.PaymentsService);
        const admin = h.client(backendApi.CatalogAdminService);
        hints = await createProduct(admin, { title: 'Hints x3', atoms: [['hints', 3n]], prices: [['chips', 3n]] });
        pack = await createProduct(admin, { title: '100 chips', atoms: [['chips', 100n]], prices: [['provider', 9_900n, 'RUB']] });
      });

      /** Opens a vk session from signed params, funds its vk segment, and answers the caller headers the gateway would send. */
      const vkCaller = async (platform: string | null) => {
        const grant = grantOf((await accounts.openVkSession({ body: vkBody(vkLaunchParams(VK_APP_SECRET, nextUser++, platform)) })).body);
        const info = await resolve(grant.token);
        const kind = info.kind ?? '';
        const subtype = info.subtype ?? '';
        if (!isPlatformKind(kind)) throw new Error(`session has no kind: ${kind}`);
        const header = formatPlatformHeader({ kind, subtype: isPlatformSubtype(subtype) ? subtype : null });
        await grantChips(h.database.db, grant.accountId, 'vk', 50n, 'test');
        return { accountId: grant.accountId, header };
      };

      const walletOf = async (id: bigint, header: string) =>
        decodeTable(
          (await wallet.getWallet({ body: encodeTable((b) => fb.WalletQuery.createWalletQuery(b)) }, as(id, header))).body,
          (bb) => fb.WalletView.getRootAsWalletView(bb),
          readWallet,
        );
      const orderCreate = (id: bigint, header: string) =>
        payments.createOrder(
          { body: encodeTable((b) => fb.OrderCreate.createOrderCreate(b, pack, b.createString('card'), 0)) },
          as(id, header),
        );
      const writes = async (id: bigint) => ({
        ledger: (await h.database.db.selectFrom('ledger_operations').select('id').where('account_id', '=', id).execute()).length,
        orders: (await h.database.db.selectFrom('orders').select('id').where('account_id', '=', id).execute()).length,
      });

      it.each([
        ['mobile_iphone', 'vk;ios'],
        ['mobile_iphone_messenger', 'vk;ios'],
        ['mobile_ipad', 'vk;ios'],
        ['iphone_external', 'vk;ios'],
        ['ipad_external', 'vk;ios'],
        [null, 'vk'],
        ['vision_pro_external', 'vk'],
      ])(
        'vk_platform %p -> X-Platform %s: balances shown, buy and order create refused, nothing written',
        async (platform, expectedHeader) => {
          const { accountId, header } = await vkCaller(platform);
          expect(header).toBe(expectedHeader);
          const before = await writes(accountId);
          expect(await walletOf(accountId, header)).toEqual({
            segments: { vk: 50n },
            benefits: [],
            spendOrder: [],
            canSpend: false,
            frozen: true,
            trusted: true,
          });
          expect(await failure(wallet.buy({ body: buyBody(hints) }, as(accountId, header)))).toEqual({
            code: Code.PermissionDenied,
            errorCode: 'purchase_forbidden',
          });
          expect(await failure(orderCreate(accountId, header))).toEqual({ code: Code.PermissionDenied, errorCode: 'purchase_forbidden' });
          expect(await writes(accountId)).toEqual(before);
          expect((await walletOf(accountId, header)).segments).toEqual({ vk: 50n });
        },
      );

      it('a known android value is not frozen: the same calls pass the gate', async () => {
        const { accountId, header } = await vkCaller('mobile_android_messenger');
        expect(header).toBe('vk;android');
        expect(await walletOf(accountId, header)).toMatchObject({ segments: { vk: 50n }, canSpend: true, frozen: false });
        await wallet.buy({ body: buyBody(hints) }, as(accountId, header));
        expect((await walletOf(accountId, header)).segments).toEqual({ vk: 47n });
        expect((await failure(orderCreate(accountId, header))).errorCode).toBe('email_required');
      });

      it('logs a missing or unknown value as a warning, truncated', async () => {
        const long = `x_${'a'.repeat(500)}`;
        const { accountId } = await vkCaller(long);
        await vkCaller(null);
        const lines = warnings.filter((w) => w['msg'] === 'vk_platform missing or unknown: the vk session is frozen');
        expect(lines).toContainEqual(expect.objectContaining({ level: 40, accountId: String(accountId), vkPlatform: long.slice(0, 40) }));
        expect(lines).toContainEqual(expect.objectContaining({ level: 40, vkPlatform: null }));
        expect(JSON.stringify(warnings)).not.toContain(long.slice(0, 41));
      });
    });

    it('refuses stale params as launch_data_stale', async () => {
      expect(
        await failure(accounts.openVkSession({ body: vkBody(vkLaunchParams(VK_APP_SECRET, 8004, 'desktop_web', 2 * 86_400)) })),
      ).toEqual({
        code: Code.Unauthenticated,
        errorCode: 'launch_data_stale',
      });
    });
  });

  describe('direct', () => {
    it('signs up, then signs in; the subtype is a best-effort hint; wrong passwords and unknown e-mails look alike', async () => {
      const up = grantOf(
        (await accounts.openDirectSession({ body: directBody('Player@Example.com', 'correct horse', 'signup', 'android') })).body,
      );
      expect(up).toMatchObject({ kind: 'direct', subtype: 'android', created: true });
      const signin = grantOf(
        (await accounts.openDirectSession({ body: directBody('player@example.com', 'correct horse', 'signin', 'desktop') })).body,
      );
      expect(signin).toMatchObject({ kind: 'direct', subtype: '', created: false, accountId: up.accountId });

      const wrong = await failure(accounts.openDirectSession({ body: directBody('player@example.com', 'wrong horse', 'signin') }));
      const unknown = await failure(accounts.openDirectSession({ body: directBody('nobody@example.com', 'correct horse', 'signin') }));
      expect(wrong).toEqual({ code: Code.Unauthenticated, errorCode: 'invalid_credentials' });
      expect(unknown).toEqual(wrong);
      const stored = await h.database.db
        .selectFrom('accounts')
        .select('password_hash')
        .where('id', '=', up.accountId)
        .executeTakeFirstOrThrow();
      expect(stored.password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
      expect(stored.password_hash).not.toContain('correct horse');
    });

    it('refuses a taken e-mail, a short password, a bad address and an unknown mode', async () => {
      await accounts.openDirectSession({ body: directBody('taken@example.com', 'long enough', 'signup') });
      expect(await failure(accounts.openDirectSession({ body: directBody('TAKEN@example.com', 'long enough', 'signup') }))).toEqual({
        code: Code.AlreadyExists,
        errorCode: 'email_taken',
      });
      expect((await failure(accounts.openDirectSession({ body: directBody('a@example.com', 'short', 'signup') }))).errorCode).toBe(
        'invalid_password',
      );
      expect((await failure(accounts.openDirectSession({ body: directBody('not-an-email', 'long enough', 'signup') }))).errorCode).toBe(
        'invalid_email',
      );
      expect((await failure(accounts.openDirectSession({ body: directBody('a@example.com', 'long enough', 'register') }))).errorCode).toBe(
        'invalid_mode',
      );
    });
  });

  it('closes a session; the token then resolves to session_invalid, as do unknown and expired tokens', async () => {
    const grant = grantOf((await accounts.openTelegramSession({ body: telegramBody(telegramInitData(TELEGRAM_BOT_TOKEN, 7100)) })).body);
    const close = (token: string) =>
      accounts.closeSession({ body: encodeTable((b) => fb.SessionClose.createSessionClose(b, b.createString(token))) }).then((r) =>
        decodeTable(
          r.body,
          (bb) => fb.SessionClosed.getRootAsSessionClosed(bb),
          (t) => t.closed(),
        ),
      );
    expect(await close(grant.token)).toBe(true);
    expect(await close(grant.token)).toBe(false);
    expect(await failure(accounts.resolveSession({ body: lookup(grant.token) }))).toEqual({
      code: Code.Unauthenticated,
      errorCode: 'session_invalid',
    });
    expect((await failure(accounts.resolveSession({ body: lookup('no-such-token') }))).errorCode).toBe('session_invalid');

    const other = grantOf((await accounts.openTelegramSession({ body: telegramBody(telegramInitData(TELEGRAM_BOT_TOKEN, 7101)) })).body);
    await h.database.db
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('account_id', '=', other.accountId)
      .execute();
    expect((await failure(accounts.resolveSession({ body: lookup(other.token) }))).errorCode).toBe('session_invalid');
  });

  it('refuses sessions for a suspended account until the suspension lapses', async () => {
    const grant = grantOf((await accounts.openTelegramSession({ body: telegramBody(telegramInitData(TELEGRAM_BOT_TOKEN, 7200)) })).body);
    const suspend = (until: Date | null) =>
      h.database.db
        .updateTable('accounts')
        .set({ status: 'suspended', suspended_until: until })
        .where('id', '=', grant.accountId)
        .execute();
    await suspend(new Date(Date.now() + 3_600_000));
    expect(await failure(accounts.resolveSession({ body: lookup(grant.token) }))).toEqual({
      code: Code.PermissionDenied,
      errorCode: 'account_suspended',
    });
    expect(
      (await failure(accounts.openTelegramSession({ body: telegramBody(telegramInitData(TELEGRAM_BOT_TOKEN, 7200)) }))).errorCode,
    ).toBe('account_suspended');
    await suspend(new Date(Date.now() - 1000));
    expect((await resolve(grant.token)).accountId).toBe(grant.accountId);
  });

  it('reports an unconfigured platform as platform_not_configured', async () => {
    const bare = await startHarness({ BACKEND_TELEGRAM_BOT_TOKEN: '', BACKEND_VK_APP_SECRET: '' });
    try {
      const client = bare.client(backendApi.AccountService);
      expect(await failure(client.openTelegramSession({ body: telegramBody(telegramInitData(TELEGRAM_BOT_TOKEN, 1)) }))).toEqual({
        code: Code.FailedPrecondition,
        errorCode: 'platform_not_configured',
      });
      expect((await failure(client.openVkSession({ body: vkBody(vkLaunchParams(VK_APP_SECRET, 1, 'desktop_web')) }))).errorCode).toBe(
        'platform_not_configured',
      );
    } finally {
      await bare.stop();
    }
  });

  it('answers a malformed body with InvalidArgument malformed_body, never Internal', async () => {
    expect(await failure(accounts.openTelegramSession({ body: new Uint8Array([1, 2, 3]) }))).toEqual({
      code: Code.InvalidArgument,
      errorCode: 'malformed_body',
    });
    expect((await failure(accounts.resolveSession({ body: new Uint8Array([255, 255, 255, 127, 0, 0, 0, 0, 0]) }))).code).toBe(
      Code.InvalidArgument,
    );
  });
});
