import { readFileSync } from 'node:fs';
import { createClient, type Client } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { botlink } from '@wordgame/contracts';
import { freshDatabase, startBackendProcess, type BackendProcess, type FreshDatabase } from './support/backend-process.js';
import { startTestGateway, type TestGateway } from './support/botlink-gateway.js';
import { TELEGRAM_BOT_TOKEN } from './support/chain.js';
import { call } from './support/edge.js';
import { nowSeconds, telegramInitData } from './support/launch-data.js';

/**
 * Chat eligibility end to end: a bot-link client over mutual TLS (the dev bot certificate) calls
 * BotLink.ResolveChatEligibility on the real gateway (buildGateway), which asks the real backend
 * process, which reads PostgreSQL.
 */
describe('ResolveChatEligibility through a real bot-link call: bot (mTLS) -> gateway -> backend -> PostgreSQL', () => {
  let db: FreshDatabase;
  let backend: BackendProcess;
  let gw: TestGateway;
  let bot: Client<typeof botlink.BotLink>;

  /** Signs in a Telegram user through the gateway (creating the account and its identity); answers the account id and token. */
  const telegramUser = async (id: number) => {
    const res = await call(`${gw.urls.httpUrl}/api/v1/session/telegram`, {
      method: 'POST',
      json: { init_data: telegramInitData(TELEGRAM_BOT_TOKEN, { id, first_name: `user ${id}` }, nowSeconds()) },
    });
    expect(res.status).toBe(200);
    const body = res.body as { account_id: string; token: string };
    return { accountId: body.account_id, token: body.token };
  };
  const eligibility = (externalId: number) => bot.resolveChatEligibility({ externalId: String(externalId) });

  beforeAll(async () => {
    db = await freshDatabase();
    backend = await startBackendProcess(db.url, { BACKEND_TELEGRAM_BOT_TOKEN: TELEGRAM_BOT_TOKEN, MODERATION_LAPSE_INTERVAL_MS: '0' });
    gw = await startTestGateway({ BACKEND_URL: backend.url });
    bot = createClient(
      botlink.BotLink,
      createGrpcTransport({
        baseUrl: gw.urls.botlinkUrl,
        nodeOptions: { ca: readFileSync(gw.certs.ca.cert), cert: readFileSync(gw.certs.bot.cert), key: readFileSync(gw.certs.bot.key) },
      }),
    );
  }, 90_000);
  afterAll(async () => {
    await gw?.stop();
    await backend?.stop();
    await db?.drop();
  });

  it('unknown user: not registered, not eligible', async () => {
    expect(await eligibility(700_000_001)).toMatchObject({ registered: false, eligible: false });
  });

  it('active user: registered and eligible', async () => {
    await telegramUser(700_000_002);
    expect(await eligibility(700_000_002)).toMatchObject({ registered: true, eligible: true });
  });

  it('admin-suspended user: registered, not eligible (indefinitely or until a future time); a lapsed temporary block is eligible again', async () => {
    const forever = await telegramUser(700_000_003);
    await db.query(`update accounts set status = 'suspended', suspended_until = null where id = $1`, [forever.accountId]);
    expect(await eligibility(700_000_003)).toMatchObject({ registered: true, eligible: false });

    const temporary = await telegramUser(700_000_004);
    await db.query(`update accounts set status = 'suspended', suspended_until = now() + interval '1 day' where id = $1`, [
      temporary.accountId,
    ]);
    expect(await eligibility(700_000_004)).toMatchObject({ registered: true, eligible: false });
    await db.query(`update accounts set suspended_until = now() - interval '1 minute' where id = $1`, [temporary.accountId]);
    expect(await eligibility(700_000_004)).toMatchObject({ registered: true, eligible: true });
  });

  it('chat-muted user: registered, not eligible; unmuted: eligible', async () => {
    const muted = await telegramUser(700_000_005);
    await db.query(`update accounts set chat_muted = true where id = $1`, [muted.accountId]);
    expect(await eligibility(700_000_005)).toMatchObject({ registered: true, eligible: false });
    await db.query(`update accounts set chat_muted = false where id = $1`, [muted.accountId]);
    expect(await eligibility(700_000_005)).toMatchObject({ registered: true, eligible: true });
  });

  it('a user who deleted the account (DELETE /api/v1/user/account): the identity link is erased, so not registered and not eligible', async () => {
    const leaving = await telegramUser(700_000_006);
    const res = await call(`${gw.urls.httpUrl}/api/v1/user/account`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${leaving.token}` },
    });
    expect(res.status).toBe(204);
    expect(await eligibility(700_000_006)).toMatchObject({ registered: false, eligible: false });
  });
});
