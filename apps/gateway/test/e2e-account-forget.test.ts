import { createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { connector, gatewayApi } from '@wordgame/contracts';
import { withServiceToken } from '@wordgame/h2-unary';
import type { PlatformEmulator } from '@wordgame/platform-emulator';
import { TEST_SERVICE_TOKENS } from '@wordgame/testkit';
import { eventually } from './support/botlink-gateway.js';
import { call } from './support/edge.js';
import { bearer, startPaymentsStack, telegramCustomer, waitForBot, type PaymentsStack } from './support/payments-stack.js';

const PLAYER = 8301;

/**
 * A deleted account's platform user is forgotten by the real bot process even when the bot is down
 * at deletion time: the backend keeps the forget queued and sends it until the bot, back on its
 * Link, acks it. What the bot forgot is seen from outside: a notice to the user is rendered in the
 * language the bot had learned from the user's messages before, and in the default after.
 */
describe('e2e: the bot forgets a deleted user, also when it was down at deletion time', () => {
  let stack: PaymentsStack;
  let platform: PlatformEmulator;
  let internal: Client<typeof gatewayApi.BotCommandService>;

  beforeAll(async () => {
    stack = await startPaymentsStack({ bot: true, backendEnv: { USER_FORGET_INTERVAL_MS: '100', USER_FORGET_RETRY_MAX_MS: '200' } });
    if (!stack.platform) throw new Error('no platform emulator');
    platform = stack.platform;
    internal = createClient(
      gatewayApi.BotCommandService,
      createConnectTransport({
        baseUrl: stack.urls.internalUrl,
        httpVersion: '2',
        interceptors: [withServiceToken(TEST_SERVICE_TOKENS.GATEWAY_INTERNAL_TOKEN)],
      }),
    );
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  /** Has the bot send the refund notice of `orderId` to the player, and answers the text the platform received. */
  async function refundNotice(orderId: string): Promise<string> {
    const res = await internal.send({
      command: {
        payload: {
          case: 'notify',
          value: {
            recipient: { kind: connector.PlatformKind.TELEGRAM, externalId: String(PLAYER) },
            kind: connector.NotificationKind.PAYMENT_REFUNDED,
            params: { order_id: orderId },
          },
        },
      },
      timeoutMs: 5_000,
    });
    expect(res.outcome).toBe(gatewayApi.Outcome.DELIVERED);
    const sent = platform.control
      .messages({ chatId: PLAYER })
      .find((m) => m.direction === 'from_bot' && (m.message.text ?? '').includes(orderId));
    return sent?.message.text ?? '';
  }

  const queued = async () =>
    (
      await stack.db.query<{ attempts: number; last_error: string | null }>(
        'select attempts, last_error from bot_forgets where user_id = $1',
        [PLAYER],
      )
    ).rows;

  it('learns the language, is down when the account is deleted, forgets once it is back; the backend then keeps nothing of the user', async () => {
    platform.control.createUser({ id: PLAYER, firstName: 'Forgetful', started: true, languageCode: 'ru' });
    const player = await telegramCustomer(stack.api, PLAYER);
    platform.control.sendUserMessage({ userId: PLAYER, text: 'привет' });
    let seq = 0;
    await eventually(async () => (await refundNotice(`before-${++seq}`)).startsWith('Покупка'), 20_000);

    const bot = stack.bot;
    if (!bot) throw new Error('no bot');
    await bot.stop();
    await eventually(() => stack.gateway.hub.connected === 0, 20_000);

    expect((await call(`${stack.api}/user/account`, { method: 'DELETE', headers: bearer(player) })).status).toBe(204);
    await eventually(async () => (await queued()).some((r) => r.attempts >= 2 && r.last_error === 'no_bot'), 20_000);

    bot.start();
    await waitForBot(stack.gateway);
    await eventually(async () => (await queued()).length === 0, 20_000);
    expect(bot.logs.find((l) => l['msg'] === 'user forgotten')).toMatchObject({ languages: 1 });
    expect(await refundNotice('after')).toBe('Your purchase (order after) was refunded.');

    const left = await stack.db.query<{ n: string }>(
      `select (select count(*) from platform_identities where external_id = $1)
            + (select count(*) from orders where platform_user_id = $2)
            + (select count(*) from bot_forgets where user_id = $2) as n`,
      [String(PLAYER), PLAYER],
    );
    expect(left.rows[0]?.n).toBe('0');
    const back = await telegramCustomer(stack.api, PLAYER);
    expect(back.accountId).not.toBe(player.accountId);
  });
});
