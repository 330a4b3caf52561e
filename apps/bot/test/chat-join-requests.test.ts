import { Code, ConnectError } from '@connectrpc/connect';
import type { botlink } from '@wordgame/contracts';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { ALLOWED_UPDATES } from '../src/updates/poller.js';
import { startBot, type RunningBot } from './support/bot.js';
import { tempCerts, testConfig } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { waitFor } from './support/wait.js';

/**
 * The discussion chat's door where the chat takes join requests (issue #37 part 4): the bot answers
 * each chat_join_request from ResolveChatEligibility, so an ineligible user never enters, and
 * declines when the eligibility cannot be resolved (fail-closed).
 */
const certs = tempCerts();
const chatId = -1_001_000_000_078;
let emu: PlatformEmulator;
let gateway: TestGateway;
let bot: RunningBot;
let asked: string[];
/** How each lookup is answered: eligible, registered only, or a failure. */
let answer: (externalId: string) => Promise<{ registered: boolean; eligible: boolean }>;

beforeAll(async () => {
  emu = await startPlatformEmulator();
  gateway = await TestGateway.start(certs);
  gateway.handlers = {
    resolveChatEligibility: (req: botlink.ChatEligibilityRequest) => {
      asked.push(req.externalId);
      return answer(req.externalId);
    },
  };
  bot = await startBot(
    testConfig(
      certs,
      { botlink: gateway.url, platform: emu.apiRoot },
      { BOT_DISCUSSION_CHAT_ID: String(chatId), BOT_HEALTH_PORT: '0', BOTLINK_RPC_TIMEOUT_MS: '300' },
    ),
    gateway,
  );
});

afterAll(async () => {
  await bot.app.stop();
  await gateway.close();
  await emu.stop();
  certs.cleanup();
});

beforeEach(async () => {
  emu.control.reset();
  await waitFor(() => emu.control.state().bots[0]?.allowedUpdates !== null, 'allowed_updates set by the next poll');
  emu.control.createChat({ id: chatId, type: 'supergroup', title: 'Discussion', joinByRequest: true });
  asked = [];
  answer = () => Promise.resolve({ registered: true, eligible: false });
});

const status = (user: number) =>
  emu.control
    .state()
    .chats.find((c) => c.chat.id === chatId)
    ?.members.find((m) => m.user.id === user)?.status ?? 'left';
const answered = (method: string, user: number) => emu.control.calls(method).filter((c) => c.params['user_id'] === user);
const health = async (): Promise<Record<string, unknown>> => {
  const res = await fetch(`${bot.healthUrl ?? ''}/health`);
  return (await res.json()) as Record<string, unknown>;
};

const unresolved = async (): Promise<number> => ((await health())['chatJoinRequests'] as { declinedUnresolved: number }).declinedUnresolved;

describe('join requests to the discussion chat', () => {
  it('asks for chat_join_request in allowed_updates', () => {
    expect(ALLOWED_UPDATES).toContain('chat_join_request');
    expect(emu.control.state().bots[0]?.allowedUpdates).toContain('chat_join_request');
  });

  it('approves an eligible user, who becomes a member without any restriction call', async () => {
    const user = emu.control.createUser().user.id;
    answer = () => Promise.resolve({ registered: true, eligible: true });
    expect(emu.control.join({ chatId, userId: user })).toMatchObject({ joinRequested: true });
    await waitFor(() => status(user) === 'member', 'approved and a member');
    expect(asked).toEqual([String(user)]);
    expect(answered('approveChatJoinRequest', user)).toHaveLength(1);
    expect(answered('declineChatJoinRequest', user)).toHaveLength(0);
    expect(emu.control.joinRequests(chatId)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(emu.control.calls('restrictChatMember')).toEqual([]);
    expect(asked).toEqual([String(user)]);
  });

  it.each([
    ['not eligible', { registered: true, eligible: false }],
    ['not registered', { registered: false, eligible: false }],
  ])('declines a user who is %s; they never become a member', async (_what, verdict) => {
    const user = emu.control.createUser().user.id;
    answer = () => Promise.resolve(verdict);
    emu.control.join({ chatId, userId: user });
    await waitFor(() => answered('declineChatJoinRequest', user).length === 1, 'declined');
    expect(emu.control.joinRequests(chatId)).toEqual([]);
    expect(status(user)).toBe('left');
    expect(answered('approveChatJoinRequest', user)).toHaveLength(0);
  });

  it.each([
    ['the backend unavailable', () => Promise.reject(new ConnectError('backend down', Code.Unavailable))],
    ['no answer within the deadline', () => new Promise<never>(() => undefined)],
    ['an internal error', () => Promise.reject(new ConnectError('boom', Code.Internal))],
  ])('declines (fail-closed) with %s, and counts it', async (_what, failing) => {
    const before = await unresolved();
    const user = emu.control.createUser().user.id;
    answer = failing;
    emu.control.join({ chatId, userId: user });
    await waitFor(() => answered('declineChatJoinRequest', user).length === 1, 'declined');
    expect(status(user)).toBe('left');
    expect(answered('approveChatJoinRequest', user)).toHaveLength(0);
    for (let tries = 0; (await unresolved()) !== before + 1; tries += 1) {
      if (tries > 500) throw new Error('the unresolved decline was not counted');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it('ignores join requests to other chats', async () => {
    const other = emu.control.createChat({ type: 'supergroup', title: 'Elsewhere', joinByRequest: true });
    const user = emu.control.createUser().user.id;
    emu.control.join({ chatId: other.id, userId: user });
    await waitFor(() => emu.control.state().bots[0]?.pendingUpdates.length === 0, 'update confirmed');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(asked).toEqual([]);
    expect(emu.control.joinRequests(other.id)).toEqual([user]);
  });

  it('keeps restricting after the join in a chat without join requests', async () => {
    emu.control.setJoinByRequest(chatId, false);
    const user = emu.control.createUser().user.id;
    await bot.app.stop().then(() => undefined);
    bot = await startBot(
      testConfig(
        certs,
        { botlink: gateway.url, platform: emu.apiRoot },
        { BOT_DISCUSSION_CHAT_ID: String(chatId), BOT_HEALTH_PORT: '0', BOTLINK_RPC_TIMEOUT_MS: '300' },
      ),
      gateway,
    );
    await waitFor(() => emu.control.state().bots[0]?.allowedUpdates !== null, 'polling');
    emu.control.join({ chatId, userId: user });
    await waitFor(() => status(user) === 'restricted', 'restricted after the join');
    expect(emu.control.calls('declineChatJoinRequest')).toEqual([]);
  });
});
