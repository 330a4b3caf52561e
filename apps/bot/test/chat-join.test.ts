import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Code, ConnectError } from '@connectrpc/connect';
import type { botlink } from '@wordgame/contracts';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { openBotDb } from '../src/store/db.js';
import { ChatGateRetries } from '../src/store/chat-gate-retries.js';
import { startBot, type RunningBot } from './support/bot.js';
import { POLICY_LINKS, tempCerts, testConfig } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { waitFor } from './support/wait.js';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const certs = tempCerts();
const chatId = -1_001_000_000_077;
/** The joiners' lookup retry schedule in these tests (the defaults are 2 s and 60 s). */
const RETRY = { BOT_CHAT_GATE_RETRY_INITIAL_MS: '100', BOT_CHAT_GATE_RETRY_MAX_MS: '300' };
let emu: PlatformEmulator;
let gateway: TestGateway;
let asked: string[];
let eligible: Set<string>;

beforeAll(async () => {
  emu = await startPlatformEmulator();
  gateway = await TestGateway.start(certs);
});

afterAll(async () => {
  await gateway.close();
  await emu.stop();
  certs.cleanup();
});

/** Resets the emulator, waits for the polling bot to name its update kinds again, and answers every lookup from `eligible`. */
async function freshChat(): Promise<void> {
  emu.control.reset();
  // reset() forgets allowed_updates; chat_member updates exist only once the bot's next poll names them again.
  await waitFor(() => emu.control.state().bots[0]?.allowedUpdates !== null, 'allowed_updates set by the next poll');
  emu.control.createChat({ id: chatId, type: 'supergroup', title: 'Discussion' });
  asked = [];
  eligible = new Set();
  lookupsRecover();
}

/** Every lookup fails as with the backend down (and is recorded in `asked`). */
function lookupsFail(): void {
  gateway.handlers = {
    resolveChatEligibility: (req: botlink.ChatEligibilityRequest) => {
      asked.push(req.externalId);
      return Promise.reject(new ConnectError('backend down', Code.Unavailable));
    },
  };
}

/** Lookups answer again, from `eligible`. */
function lookupsRecover(): void {
  gateway.handlers = {
    resolveChatEligibility: (req: botlink.ChatEligibilityRequest) => {
      asked.push(req.externalId);
      return Promise.resolve({ registered: true, eligible: eligible.has(req.externalId) });
    },
  };
}

const member = (user: number) =>
  emu.control
    .state()
    .chats.find((c) => c.chat.id === chatId)
    ?.members.find((m) => m.user.id === user);

describe('a user joining the discussion chat', () => {
  let bot: RunningBot;
  beforeAll(async () => {
    bot = await startBot(
      testConfig(
        certs,
        { botlink: gateway.url, platform: emu.apiRoot },
        { BOT_DISCUSSION_CHAT_ID: String(chatId), BOT_HEALTH_PORT: '0', ...RETRY },
      ),
      gateway,
    );
  });
  afterAll(async () => {
    await bot.app.stop();
  });
  beforeEach(freshChat);
  const heldInHealth = async (): Promise<unknown> => {
    const res = await fetch(`${bot.healthUrl ?? ''}/health`);
    return ((await res.json()) as Record<string, unknown>)['chatJoinersHeld'];
  };

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

  it('is held read-only while eligibility cannot be resolved, retried on a bounded backoff, and gets write access once a retry finds them eligible', async () => {
    lookupsFail();
    const user = emu.control.createUser().user.id;
    emu.control.join({ chatId, userId: user });
    await waitFor(() => member(user)?.status === 'restricted', 'restricted although the lookup failed (fail-closed)');
    expect(member(user)).toMatchObject({ is_member: true, can_send_messages: false });
    const held = () =>
      bot.lines.filter((l) => l.msg === 'chat eligibility unresolved; joiner held read-only until it resolves (fail-closed)');
    await waitFor(() => held().length >= 5, 'five failed lookups');
    expect(member(user)?.status).toBe('restricted');
    const failures = held().map((l) => [l['platformUserId'], l['failures'], l['restricted']]);
    expect(failures.slice(0, 5)).toEqual([1, 2, 3, 4, 5].map((n) => [user, n, true]));
    // 100 ms x1.6 per failure, capped at 300 ms, ±20 %.
    for (const line of held()) expect(line['retryInMs']).toBeLessThanOrEqual(360);
    expect(held()[0]?.['pending']).toBe(1);
    expect(await heldInHealth()).toBe(1);

    eligible.add(String(user));
    lookupsRecover();
    await waitFor(() => member(user)?.status === 'member', 'write access granted after the retry');
    // The line is logged once restrictChatMember has answered, so it may trail the platform's state.
    await waitFor(
      () => bot.lines.some((l) => l.msg === 'chat eligibility resolved after a retry; write access set' && l['eligible'] === true),
      'the resolution logged',
    );
    // Resolved: no more lookups.
    const lookups = asked.length;
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(asked).toHaveLength(lookups);
    expect(member(user)?.status).toBe('member');
    expect(await heldInHealth()).toBe(0);
  });

  it('stays read-only when the retry finds them not eligible, and the next joiners are gated as usual', async () => {
    lookupsFail();
    const user = emu.control.createUser().user.id;
    emu.control.join({ chatId, userId: user });
    await waitFor(() => member(user)?.status === 'restricted', 'restricted (fail-closed)');
    await waitFor(() => asked.length >= 2, 'retried');
    lookupsRecover();
    await waitFor(
      () => bot.lines.some((l) => l.msg === 'chat eligibility resolved after a retry; write access set' && l['platformUserId'] === user),
      'resolved',
    );
    expect(member(user)).toMatchObject({ status: 'restricted', can_send_messages: false });
    const next = emu.control.createUser().user.id;
    eligible.add(String(next));
    emu.control.join({ chatId, userId: next });
    await waitFor(() => asked.includes(String(next)), 'the next joiner asked about');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(member(next)?.status).toBe('member');
  });
});

describe('a joiner held read-only when the bot is killed', () => {
  it('gets write access from the next bot process once the lookup answers (the pending lookup is durable)', async () => {
    const outboxPath = join(certs.dir, 'chat-gate-killed.sqlite');
    const child = spawn(process.execPath, ['--import', 'tsx', main], {
      env: {
        ...process.env,
        BOTLINK_URL: gateway.url,
        BOTLINK_TLS_CA: certs.ca.cert,
        BOTLINK_TLS_CERT: certs.bot.cert,
        BOTLINK_TLS_KEY: certs.bot.key,
        PLATFORM_API_ROOT: emu.apiRoot,
        PLATFORM_BOT_TOKEN: 'dev-bot-token',
        ...POLICY_LINKS,
        BOT_OUTBOX_PATH: outboxPath,
        BOT_DISCUSSION_CHAT_ID: String(chatId),
        BOT_CHAT_GATE_RETRY_INITIAL_MS: '600000',
        BOT_CHAT_GATE_RETRY_MAX_MS: '600000',
        BOT_POLL_TIMEOUT_S: '1',
        LOG_LEVEL: 'silent',
      },
      stdio: 'ignore',
    });
    let user = 0;
    try {
      await waitFor(() => emu.control.state().bots[0]?.allowedUpdates != null, 'the bot process polls', 20_000);
      await freshChat();
      lookupsFail();
      user = emu.control.createUser().user.id;
      emu.control.join({ chatId, userId: user });
      await waitFor(() => member(user)?.status === 'restricted', 'restricted (fail-closed)', 15_000);
      await waitFor(() => emu.control.state().bots[0]?.pendingUpdates.length === 0, 'join update confirmed', 15_000);
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    const db = openBotDb(outboxPath);
    try {
      expect(new ChatGateRetries(db).get(user)).toMatchObject({ failures: 1, restricted: true });
    } finally {
      db.close();
    }

    eligible.add(String(user));
    lookupsRecover();
    const next = await startBot(
      testConfig(
        certs,
        { botlink: gateway.url, platform: emu.apiRoot },
        { BOT_DISCUSSION_CHAT_ID: String(chatId), BOT_OUTBOX_PATH: outboxPath, ...RETRY },
      ),
      gateway,
    );
    try {
      await waitFor(() => member(user)?.status === 'member', 'write access granted by the next process');
      expect(asked).toContain(String(user));
      // The line follows the platform call that set the member state: under load it trails it.
      await waitFor(
        () => next.lines.some((l) => l.msg === 'chat eligibility resolved after a retry; write access set'),
        'the resolution logged by the next process',
      );
    } finally {
      await next.app.stop();
    }
  }, 60_000);
});
