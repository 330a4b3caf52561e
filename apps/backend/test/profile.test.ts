import { Code, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { as, failure, mailbox, startHarness, TELEGRAM_BOT_TOKEN, type Harness } from './support/harness.js';
import { telegramInitData } from './support/launch-data.js';

const readProfile = (body: Uint8Array) =>
  decodeTable(
    body,
    (bb) => fb.Profile.getRootAsProfile(bb),
    (t) => ({
      displayName: t.displayName(),
      email: t.email(),
      emailConfirmed: t.emailConfirmed(),
      pendingEmail: t.pendingEmail(),
      kind: t.platformKind(),
      providers: Array.from({ length: t.signInProvidersLength() }, (_, i) => t.signInProviders(i)),
      linked: Array.from({ length: t.linkedPlatformsLength() }, (_, i) => t.linkedPlatforms(i)),
    }),
  );

const query = encodeTable((b) => fb.ProfileQuery.createProfileQuery(b));
const update = (change: { displayName?: string; email?: string }) =>
  encodeTable((b) => {
    const name = change.displayName === undefined ? 0 : b.createString(change.displayName);
    const email = change.email === undefined ? 0 : b.createString(change.email);
    fb.ProfileUpdate.startProfileUpdate(b);
    if (name) fb.ProfileUpdate.addDisplayName(b, name);
    if (email) fb.ProfileUpdate.addEmail(b, email);
    return fb.ProfileUpdate.endProfileUpdate(b);
  });
const confirmation = (token: string) => encodeTable((b) => fb.EmailConfirmation.createEmailConfirmation(b, b.createString(token)));

describe('profile and e-mail confirmation', () => {
  let h: Harness;
  let accounts: Client<typeof backendApi.AccountService>;

  beforeAll(async () => {
    h = await startHarness();
    accounts = h.client(backendApi.AccountService);
  });
  afterAll(() => h.stop());

  const telegramAccount = async (userId: number) => {
    const res = await accounts.openTelegramSession({
      body: encodeTable((b) =>
        fb.TelegramSessionOpen.createTelegramSessionOpen(b, b.createString(telegramInitData(TELEGRAM_BOT_TOKEN, userId)), 0),
      ),
    });
    return decodeTable(
      res.body,
      (bb) => fb.SessionGrant.getRootAsSessionGrant(bb),
      (t) => t.accountId(),
    );
  };

  const linkFrom = async (to: string): Promise<string> => {
    const mails = (await mailbox(h.mailDir)).filter((m) => m.includes(`To: ${to}\r\n`));
    const last = mails.at(-1);
    const match = last?.match(/https:\/\/game\.example\/api\/v1\/user\/profile\/confirm-email\?token=([A-Za-z0-9_-]+)/);
    if (!match?.[1]) throw new Error(`no confirmation link mailed to ${to}`);
    return match[1];
  };

  it('inside a host offers only e-mail linking; on direct every provider', async () => {
    const id = await telegramAccount(9001);
    const inHost = readProfile((await accounts.getProfile({ body: query }, as(id, 'telegram'))).body);
    expect(inHost).toMatchObject({
      displayName: 'Ada L',
      email: '',
      emailConfirmed: false,
      kind: 'telegram',
      providers: ['email'],
      linked: ['telegram'],
    });
    expect(readProfile((await accounts.getProfile({ body: query }, as(id, 'vk;android'))).body).providers).toEqual(['email']);
    expect(readProfile((await accounts.getProfile({ body: query }, as(id, 'direct;web'))).body).providers).toEqual([
      'email',
      'telegram',
      'vk',
    ]);
  });

  it('links an e-mail through a link written to the dev mailbox, and confirms it once', async () => {
    const id = await telegramAccount(9002);
    const pending = readProfile(
      (await accounts.updateProfile({ body: update({ displayName: '  Grace  ', email: 'Grace@Example.org' }) }, as(id, 'telegram'))).body,
    );
    expect(pending).toMatchObject({ displayName: 'Grace', email: '', emailConfirmed: false, pendingEmail: 'grace@example.org' });

    const token = await linkFrom('grace@example.org');
    const confirmed = await accounts.confirmEmail({ body: confirmation(token) });
    expect(
      decodeTable(
        confirmed.body,
        (bb) => fb.EmailConfirmed.getRootAsEmailConfirmed(bb),
        (t) => [t.accountId(), t.email()],
      ),
    ).toEqual([id, 'grace@example.org']);
    expect(readProfile((await accounts.getProfile({ body: query }, as(id, 'telegram'))).body)).toMatchObject({
      email: 'grace@example.org',
      emailConfirmed: true,
      pendingEmail: '',
    });
    expect(await failure(accounts.confirmEmail({ body: confirmation(token) }))).toEqual({
      code: Code.NotFound,
      errorCode: 'confirmation_invalid',
    });
    expect((await failure(accounts.confirmEmail({ body: confirmation('made-up') }))).errorCode).toBe('confirmation_invalid');
    const stored = await h.database.db.selectFrom('email_confirmations').select('token_hash').where('account_id', '=', id).execute();
    expect(stored.map((r) => r.token_hash)).not.toContain(token);
  });

  it('confirms a direct sign-up address from its sign-up mail; another account cannot take it', async () => {
    const signup = await accounts.openDirectSession({
      body: encodeTable((b) =>
        fb.DirectSessionOpen.createDirectSessionOpen(
          b,
          b.createString('owner@example.net'),
          b.createString('password123'),
          b.createString('signup'),
          0,
        ),
      ),
    });
    const owner = decodeTable(
      signup.body,
      (bb) => fb.SessionGrant.getRootAsSessionGrant(bb),
      (t) => t.accountId(),
    );
    expect(readProfile((await accounts.getProfile({ body: query }, as(owner, 'direct'))).body)).toMatchObject({
      email: 'owner@example.net',
      emailConfirmed: false,
    });
    await accounts.confirmEmail({ body: confirmation(await linkFrom('owner@example.net')) });
    expect(readProfile((await accounts.getProfile({ body: query }, as(owner, 'direct'))).body).emailConfirmed).toBe(true);

    const other = await telegramAccount(9003);
    expect(await failure(accounts.updateProfile({ body: update({ email: 'owner@example.net' }) }, as(other, 'telegram')))).toEqual({
      code: Code.AlreadyExists,
      errorCode: 'email_in_use',
    });
  });

  it('an untrusted session (X-Platform none) reads the profile but every change is PermissionDenied untrusted_session, writing nothing', async () => {
    const id = await telegramAccount(9005);
    const snapshot = async () => ({
      account: await h.database.db
        .selectFrom('accounts')
        .select(['display_name', 'email', 'email_confirmed_at', 'status'])
        .where('id', '=', id)
        .execute(),
      confirmations: await h.database.db.selectFrom('email_confirmations').select('email').where('account_id', '=', id).execute(),
      mails: (await mailbox(h.mailDir)).filter((m) => m.includes('mallory@example.org')).length,
    });
    const before = await snapshot();
    expect(readProfile((await accounts.getProfile({ body: query }, as(id, 'none'))).body)).toMatchObject({
      displayName: 'Ada L',
      kind: '',
    });
    for (const change of [
      { displayName: 'Mallory' },
      { email: 'mallory@example.org' },
      { displayName: 'Mallory', email: 'mallory@example.org' },
    ]) {
      expect(await failure(accounts.updateProfile({ body: update(change) }, as(id, 'none')))).toEqual({
        code: Code.PermissionDenied,
        errorCode: 'untrusted_session',
      });
    }
    expect(await snapshot()).toEqual(before);
    expect(readProfile((await accounts.updateProfile({ body: update({ displayName: 'Ada' }) }, as(id, 'telegram'))).body).displayName).toBe(
      'Ada',
    );
  });

  it('refuses bad profile input and a missing caller', async () => {
    const id = await telegramAccount(9004);
    for (const displayName of ['', '   ', 'x'.repeat(65), 'tab\there']) {
      expect(await failure(accounts.updateProfile({ body: update({ displayName }) }, as(id, 'telegram')))).toEqual({
        code: Code.InvalidArgument,
        errorCode: 'invalid_display_name',
      });
    }
    expect((await failure(accounts.updateProfile({ body: update({ email: 'nope' }) }, as(id, 'telegram')))).errorCode).toBe(
      'invalid_email',
    );
    expect(await failure(accounts.getProfile({ body: query }))).toEqual({ code: Code.Unauthenticated, errorCode: 'caller_required' });
    expect((await failure(accounts.getProfile({ body: query }, as(id, 'telegram;mac')))).errorCode).toBe('caller_required');
    expect(
      (await failure(accounts.getProfile({ body: query }, { headers: { 'x-account-id': '-1', 'x-platform': 'telegram' } }))).errorCode,
    ).toBe('caller_required');
    expect((await failure(accounts.getProfile({ body: query }, as(999_999n, 'telegram')))).errorCode).toBe('caller_required');
  });
});
