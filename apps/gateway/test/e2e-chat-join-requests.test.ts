import type { PlatformEmulator } from '@wordgame/platform-emulator';
import { TELEGRAM_BOT_TOKEN } from './support/chain.js';
import { call } from './support/edge.js';
import { nowSeconds, telegramInitData } from './support/launch-data.js';
import { DISCUSSION_CHAT, startConsoleStack, type ConsoleStack } from './console-support.js';

/**
 * Join requests to the discussion chat across real processes: the platform emulator's chat takes
 * join requests; the real bot process answers each chat_join_request from ResolveChatEligibility,
 * asked through the real gateway of the real backend process on PostgreSQL. An eligible player
 * becomes a member, a chat-muted player and a stranger never enter (the restrict-after-join gate of
 * a chat without join requests is console-browser.test.ts's).
 */
describe('e2e: join requests to the discussion chat answered from chat eligibility (platform -> bot -> gateway -> backend -> PostgreSQL)', () => {
  let stack: ConsoleStack;
  let platform: PlatformEmulator;

  beforeAll(async () => {
    stack = await startConsoleStack({ bot: true, backendEnv: { BACKEND_TELEGRAM_BOT_TOKEN: TELEGRAM_BOT_TOKEN } });
    if (!stack.platform) throw new Error('no platform emulator');
    platform = stack.platform;
    platform.control.setJoinByRequest(DISCUSSION_CHAT, true);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  /** Signs a Telegram user in through the gateway (creating the account and its identity); the account id. */
  async function player(id: number): Promise<string> {
    platform.control.createUser({ id, firstName: `player ${id}`, started: true });
    const res = await call(`${stack.urls.httpUrl}/api/v1/session/telegram`, {
      method: 'POST',
      json: { init_data: telegramInitData(TELEGRAM_BOT_TOKEN, { id, first_name: `player ${id}` }, nowSeconds()) },
    });
    expect(res.status).toBe(200);
    return (res.body as { account_id: string }).account_id;
  }

  const standing = (user: number) =>
    platform.control
      .state()
      .chats.find((c) => c.chat.id === DISCUSSION_CHAT)
      ?.members.find((m) => m.user.id === user)?.status ?? 'left';
  const answers = (user: number) =>
    ['approveChatJoinRequest', 'declineChatJoinRequest'].flatMap((method) =>
      platform.control
        .calls(method)
        .filter((c) => c.params['user_id'] === user && c.status === 200)
        .map(() => method),
    );

  async function until(check: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('approves an eligible player, who becomes a member', async () => {
    const user = 760_000_001;
    await player(user);
    expect(platform.control.join({ chatId: DISCUSSION_CHAT, userId: user })).toMatchObject({ joinRequested: true });
    await until(() => answers(user).length === 1, 'the request answered');
    expect(answers(user)).toEqual(['approveChatJoinRequest']);
    expect(standing(user)).toBe('member');
    expect(platform.control.joinRequests(DISCUSSION_CHAT)).not.toContain(user);
  });

  it('declines a chat-muted player and a stranger with no account: neither ever becomes a member', async () => {
    const muted = 760_000_002;
    const account = await player(muted);
    await stack.db.query(`update accounts set chat_muted = true where id = $1`, [account]);
    const stranger = 760_000_003;
    platform.control.createUser({ id: stranger, firstName: 'stranger', started: true });
    for (const user of [muted, stranger]) platform.control.join({ chatId: DISCUSSION_CHAT, userId: user });
    await until(() => answers(muted).length === 1 && answers(stranger).length === 1, 'both requests answered');
    expect([answers(muted), answers(stranger)]).toEqual([['declineChatJoinRequest'], ['declineChatJoinRequest']]);
    expect([standing(muted), standing(stranger)]).toEqual(['left', 'left']);
    expect(platform.control.joinRequests(DISCUSSION_CHAT)).toEqual([]);
  });
});
