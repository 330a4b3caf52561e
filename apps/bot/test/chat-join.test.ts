import { Code, ConnectError } from '@connectrpc/connect';
import type { botlink } from '@wordgame/contracts';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { startBot, type RunningBot } from './support/bot.js';
import { tempCerts, testConfig } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { waitFor } from './support/wait.js';

const certs = tempCerts();
const chatId = -1_001_000_000_077;
let emu: PlatformEmulator;
let gateway: TestGateway;
let bot: RunningBot;
let asked: string[];
let eligible: Set<string>;

beforeAll(async () => {
  emu = await startPlatformEmulator();
  gateway = await TestGateway.start(certs);
  bot = await startBot(
    testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot }, { BOT_DISCUSSION_CHAT_ID: String(chatId) }),
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
  // reset() forgets allowed_updates; chat_member updates exist only once the bot's next poll names them again.
  await waitFor(() => emu.control.state().bots[0]?.allowedUpdates !== null, 'allowed_updates set by the next poll');
  emu.control.createChat({ id: chatId, type: 'supergroup', title: 'Discussion' });
  asked = [];
  eligible = new Set();
  gateway.handlers = {
    resolveChatEligibility: (req: botlink.ChatEligibilityRequest) => {
      asked.push(req.externalId);
      return Promise.resolve({ registered: true, eligible: eligible.has(req.externalId) });
    },
  };
});

const member = (user: number) =>
  emu.control
    .state()
    .chats.find((c) => c.chat.id === chatId)
    ?.members.find((m) => m.user.id === user);

describe('a user joining the discussion chat', () => {
  it('is made read-only when not eligible', async () => {
    const user = emu.control.createUser().user.id;
    emu.control.join({ chatId, userId: user });
    await waitFor(() => member(user)?.status === 'restricted', 'restricted');
    expect(asked).toEqual([String(user)]);
    expect(member(user)).toMatchObject({ is_member: true, can_send_messages: false });
  });

  it('is left as a plain member when eligible (no restriction call)', async () => {
    const user = emu.control.createUser().user.id;
    eligible.add(String(user));
    emu.control.join({ chatId, userId: user });
    await waitFor(() => asked.length === 1, 'eligibility asked');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(emu.control.calls('restrictChatMember')).toHaveLength(0);
    expect(member(user)?.status).toBe('member');
  });

  it('gets write access back when an earlier restriction is still on them and they are eligible now', async () => {
    const user = emu.control.createUser().user.id;
    emu.control.setMember({ chatId, userId: user, status: 'restricted', isMember: false, permissions: {} });
    eligible.add(String(user));
    emu.control.join({ chatId, userId: user });
    await waitFor(() => member(user)?.status === 'member', 'restriction lifted');
    expect(asked).toEqual([String(user)]);
  });

  it('is gated from a new_chat_members service message too, skipping bots', async () => {
    const user = emu.control.createUser().user.id;
    const chat = emu.control.state().chats.find((c) => c.chat.id === chatId)!.chat;
    emu.control.setMember({ chatId, userId: user, status: 'member' });
    emu.control.injectUpdate({
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        chat,
        new_chat_members: [
          { id: user, is_bot: false, first_name: 'New' },
          { id: 5, is_bot: true, first_name: 'Other bot' },
        ],
      },
    });
    await waitFor(() => member(user)?.status === 'restricted', 'restricted');
    expect(asked).toEqual([String(user)]);
  });

  it('ignores joins elsewhere and leaves', async () => {
    const other = emu.control.createChat({ type: 'supergroup', title: 'Elsewhere' }).id;
    const user = emu.control.createUser().user.id;
    emu.control.join({ chatId: other, userId: user });
    emu.control.join({ chatId, userId: user });
    await waitFor(() => asked.length === 1, 'one eligibility question');
    emu.control.leave({ chatId, userId: user });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(asked).toHaveLength(1);
  });

  it('leaves the standing alone and keeps running when eligibility cannot be resolved', async () => {
    gateway.handlers = { resolveChatEligibility: () => Promise.reject(new ConnectError('backend down', Code.Unavailable)) };
    const user = emu.control.createUser().user.id;
    emu.control.join({ chatId, userId: user });
    await waitFor(() => bot.lines.some((l) => l.msg === 'chat eligibility unresolved; standing left as it is'), 'failure logged');
    expect(member(user)?.status).toBe('member');
    gateway.handlers = { resolveChatEligibility: () => Promise.resolve({ registered: false, eligible: false }) };
    const next = emu.control.createUser().user.id;
    emu.control.join({ chatId, userId: next });
    await waitFor(() => member(next)?.status === 'restricted', 'the next joiner gated');
  });
});
