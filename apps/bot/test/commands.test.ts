import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { botlink, connector } from '@wordgame/contracts';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { command, startBot, type RunningBot } from './support/bot.js';
import { tempCerts, testConfig } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { waitFor } from './support/wait.js';

const certs = tempCerts();
let emu: PlatformEmulator;
let gateway: TestGateway;
let bot: RunningBot;
let bare: RunningBot;
let channelId: number;
let chatId: number;

const { NotificationKind, PlatformKind } = connector;

function recipient(id: number, kind = PlatformKind.TELEGRAM) {
  return { kind, externalId: String(id) };
}

beforeAll(async () => {
  emu = await startPlatformEmulator();
  gateway = await TestGateway.start(certs);
  channelId = -1_001_000_000_001;
  chatId = -1_001_000_000_002;
  const urls = { botlink: gateway.url, platform: emu.apiRoot };
  bot = await startBot(
    testConfig(certs, urls, { BOT_GAME_CHANNEL_ID: String(channelId), BOT_DISCUSSION_CHAT_ID: String(chatId) }),
    gateway,
  );
  bare = await startBot(testConfig(certs, urls, { OWNS_UPDATES: 'false', BOT_INSTANCE_ID: 'bare' }), gateway);
});

afterAll(async () => {
  await bot.app.stop();
  await bare.app.stop();
  await gateway.close();
  await emu.stop();
  certs.cleanup();
});

beforeEach(() => {
  emu.control.reset();
  emu.control.createChat({ id: channelId, type: 'channel', title: 'Game news' });
  emu.control.createChat({ id: chatId, type: 'supergroup', title: 'Discussion' });
});

const sent = (chat: number) => emu.control.messages({ chatId: chat, direction: 'from_bot' }).map((m) => m.message.text);

describe('notify', () => {
  it('renders a payment outcome and sends it privately', async () => {
    const user = emu.control.createUser({ started: true }).user.id;
    const ack = await command(bot.session, {
      case: 'notify',
      value: {
        recipient: recipient(user),
        kind: NotificationKind.PAYMENT_CREDITED,
        params: { order_id: 'o-1', product_title: 'Pile of chips', chips: '500' },
      },
    });
    expect(ack).toMatchObject({ delivered: true, error: '', result: '' });
    expect(sent(user)).toEqual(['Payment received: Pile of chips. 500 chips were added to your wallet. Order o-1.']);
    for (const [kind, params] of [
      [NotificationKind.PAYMENT_FAILED, { order_id: 'o-2', reason: 'card declined' }],
      [NotificationKind.PAYMENT_REFUNDED, { order_id: 'o-3' }],
    ] as const) {
      expect(await command(bot.session, { case: 'notify', value: { recipient: recipient(user), kind, params } })).toMatchObject({
        delivered: true,
        error: '',
      });
    }
    expect(sent(user).slice(1)).toEqual([
      'Your payment for order o-2 did not go through: card declined.',
      'Your purchase (order o-3) was refunded.',
    ]);
  });

  it('writes in the language Telegram gave for the user (learned from their updates, kept in the bot file), the product title too; others get the default', async () => {
    const russian = emu.control.createUser({ started: true, languageCode: 'ru-RU' }).user.id;
    const german = emu.control.createUser({ started: true, languageCode: 'de' }).user.id;
    const updates = [russian, german].map((userId) => emu.control.sendUserMessage({ userId, text: 'hello' }).updates[0]);
    const last = Math.max(...updates.map((u) => (u?.queued ? u.update_id : 0)));
    await waitFor(
      () => emu.control.calls('getUpdates').some((c) => Number(c.params['offset'] ?? 0) > last),
      "the bot to confirm the users' messages",
    );
    const params = { order_id: 'o-9', product_title: 'Pile of chips', product_title_ru: 'Горка фишек', chips: '500' };
    for (const user of [russian, german]) {
      expect(
        await command(bot.session, {
          case: 'notify',
          value: { recipient: recipient(user), kind: NotificationKind.PAYMENT_CREDITED, params },
        }),
      ).toMatchObject({ delivered: true });
    }
    expect(sent(russian)).toEqual(['Оплата получена: Горка фишек. В кошелёк зачислено фишек: 500. Заказ o-9.']);
    expect(sent(german)).toEqual(['Payment received: Pile of chips. 500 chips were added to your wallet. Order o-9.']);
  });

  it.each([NotificationKind.YOUR_TURN, NotificationKind.FRIEND_REQUEST, NotificationKind.UNSPECIFIED])(
    'does not render kind %i out-of-app: delivered=false with no error, nothing sent',
    async (kind) => {
      const user = emu.control.createUser({ started: true }).user.id;
      const ack = await command(bot.session, {
        case: 'notify',
        value: { recipient: recipient(user), kind, params: { game_id: 'g', opponent_name: 'x', from_name: 'y' } },
      });
      expect(ack).toMatchObject({ delivered: false, error: '' });
      expect(emu.control.calls('sendMessage')).toHaveLength(0);
    },
  );

  it('acks a user who never started or blocked the bot as a clean not-delivered', async () => {
    const never = emu.control.createUser({ started: false }).user.id;
    const blocked = emu.control.createUser({ started: true, blocked: true }).user.id;
    for (const user of [never, blocked]) {
      const ack = await command(bot.session, {
        case: 'notify',
        value: { recipient: recipient(user), kind: NotificationKind.PAYMENT_REFUNDED, params: { order_id: 'o' } },
      });
      expect(ack).toMatchObject({ delivered: false, error: '' });
    }
    expect(emu.control.calls('sendMessage').map((c) => c.status)).toEqual([403, 403]);
  });

  it('sets error for a render failure (missing param) and for a recipient of another platform', async () => {
    const user = emu.control.createUser({ started: true }).user.id;
    const missing = await command(bot.session, {
      case: 'notify',
      value: { recipient: recipient(user), kind: NotificationKind.PAYMENT_CREDITED, params: { order_id: 'o' } },
    });
    expect(missing.delivered).toBe(false);
    expect(missing.error).toMatch(/needs param product_title/);
    const vk = await command(bot.session, {
      case: 'notify',
      value: { recipient: recipient(user, PlatformKind.VK), kind: NotificationKind.PAYMENT_REFUNDED, params: { order_id: 'o' } },
    });
    expect(vk.delivered).toBe(false);
    expect(vk.error).toMatch(/VK identity/);
    expect(emu.control.calls('sendMessage')).toHaveLength(0);
  });
});

describe('send_to_user', () => {
  it('sends the text privately', async () => {
    const user = emu.control.createUser({ started: true }).user.id;
    expect(await command(bot.session, { case: 'sendToUser', value: { recipient: recipient(user), text: 'Welcome back' } })).toMatchObject({
      delivered: true,
      error: '',
    });
    expect(sent(user)).toEqual(['Welcome back']);
  });

  it('is a clean not-delivered for a user who never started the bot', async () => {
    const user = emu.control.createUser({ started: false }).user.id;
    expect(await command(bot.session, { case: 'sendToUser', value: { recipient: recipient(user), text: 'hi' } })).toMatchObject({
      delivered: false,
      error: '',
    });
  });

  it.each([
    ['a 5xx', { status: 502 }, /sendMessage: 502/],
    ['a dropped connection', { drop: true }, /sendMessage: transport/],
    ['an unexpected 4xx', { status: 400, description: 'message is too long' }, /400 Bad Request: message is too long/],
  ] as const)('sets error for %s', async (_what, fault, error) => {
    const user = emu.control.createUser({ started: true }).user.id;
    emu.control.addFault({ method: 'sendMessage', ...fault });
    const ack = await command(bot.session, { case: 'sendToUser', value: { recipient: recipient(user), text: 'hi' } });
    expect(ack.delivered).toBe(false);
    expect(ack.error).toMatch(error);
    expect(ack.error).not.toContain('dev-bot-token');
  });

  it('sets error for an external_id that is not a platform user id', async () => {
    const ack = await command(bot.session, {
      case: 'sendToUser',
      value: { recipient: { kind: PlatformKind.TELEGRAM, externalId: 'alice' }, text: 'hi' },
    });
    expect(ack).toMatchObject({ delivered: false, error: 'recipient external_id is not a platform user id' });
  });

  it('waits out a 429 and delivers on the retry', async () => {
    const user = emu.control.createUser({ started: true }).user.id;
    emu.control.addFault({ method: 'sendMessage', status: 429, retryAfter: 1 });
    expect(await command(bot.session, { case: 'sendToUser', value: { recipient: recipient(user), text: 'patience' } })).toMatchObject({
      delivered: true,
      error: '',
    });
    expect(emu.control.calls('sendMessage').map((c) => c.status)).toEqual([429, 200]);
  });
});

describe('send_to_channel', () => {
  it('posts to the configured game channel', async () => {
    expect(await command(bot.session, { case: 'sendToChannel', value: { text: 'Season 2 starts today' } })).toMatchObject({
      delivered: true,
      error: '',
    });
    expect(sent(channelId)).toEqual(['Season 2 starts today']);
  });

  it('is a clean not-delivered when no channel is configured', async () => {
    expect(await command(bare.session, { case: 'sendToChannel', value: { text: 'x' } })).toMatchObject({ delivered: false, error: '' });
    expect(emu.control.calls('sendMessage')).toHaveLength(0);
  });

  it('sets error when the platform refuses the post (the bot is no admin of the channel)', async () => {
    emu.control.createChat({ id: channelId, type: 'channel', botStatus: 'member' });
    const ack = await command(bot.session, { case: 'sendToChannel', value: { text: 'x' } });
    expect(ack.delivered).toBe(false);
    expect(ack.error).toMatch(/need administrator rights/);
  });
});

describe('chat_gate', () => {
  const standing = (user: number) =>
    emu.control
      .state()
      .chats.find((c) => c.chat.id === chatId)
      ?.members.find((m) => m.user.id === user);

  it('checks membership first, then revokes and grants write access', async () => {
    const user = emu.control.createUser().user.id;
    emu.control.join({ chatId, userId: user });
    expect(await command(bot.session, { case: 'chatGate', value: { externalId: String(user), allow: false } })).toMatchObject({
      delivered: true,
      error: '',
    });
    expect(standing(user)).toMatchObject({ status: 'restricted', is_member: true, can_send_messages: false });
    expect(await command(bot.session, { case: 'chatGate', value: { externalId: String(user), allow: true } })).toMatchObject({
      delivered: true,
      error: '',
    });
    expect(standing(user)).toMatchObject({ status: 'member' });
    expect(
      emu.control
        .calls()
        .filter((c) => c.method !== 'getUpdates')
        .map((c) => c.method),
    ).toEqual(['getChatMember', 'restrictChatMember', 'getChatMember', 'restrictChatMember']);
  });

  it('is a no-op for a user not in the chat (never joined, left, or unknown), and for an admin', async () => {
    const never = emu.control.createUser().user.id;
    const left = emu.control.createUser().user.id;
    emu.control.join({ chatId, userId: left });
    emu.control.leave({ chatId, userId: left });
    const admin = emu.control.createUser().user.id;
    emu.control.setMember({ chatId, userId: admin, status: 'administrator' });
    for (const externalId of [String(never), String(left), '987654321', String(admin)]) {
      expect(await command(bot.session, { case: 'chatGate', value: { externalId, allow: false } })).toMatchObject({
        delivered: false,
        error: '',
      });
    }
    expect(emu.control.calls('restrictChatMember')).toHaveLength(0);
  });

  it('is a clean not-delivered when no discussion chat is configured', async () => {
    expect(await command(bare.session, { case: 'chatGate', value: { externalId: '42', allow: false } })).toMatchObject({
      delivered: false,
      error: '',
    });
    expect(emu.control.calls('getChatMember')).toHaveLength(0);
  });

  it('sets error when the bot lacks the right to restrict', async () => {
    emu.control.createChat({ id: chatId, type: 'supergroup', botRights: { can_restrict_members: false } });
    const user = emu.control.createUser().user.id;
    emu.control.join({ chatId, userId: user });
    const ack = await command(bot.session, { case: 'chatGate', value: { externalId: String(user), allow: false } });
    expect(ack.delivered).toBe(false);
    expect(ack.error).toMatch(/not enough rights/);
  });
});

describe('create_invoice', () => {
  it('mints an XTR link with one price, no provider token and the order id as payload, returned in Ack.result', async () => {
    const ack = await command(bot.session, {
      case: 'createInvoice',
      value: { title: '500 chips', description: 'A pile of chips', payload: '0b9f7c1e-2f4a-4d43-9a55-3d2b3c1a7e10', amount: 250n },
    });
    expect(ack).toMatchObject({ delivered: true, error: '' });
    expect(ack.result).toMatch(/^https:\/\/t\.me\/\$/);
    const [invoice] = emu.control.state().invoices;
    expect(invoice).toMatchObject({
      link: ack.result,
      currency: 'XTR',
      amount: 250,
      payload: '0b9f7c1e-2f4a-4d43-9a55-3d2b3c1a7e10',
      title: '500 chips',
    });
    expect(emu.control.calls('createInvoiceLink')[0]?.params).toMatchObject({
      provider_token: '',
      prices: [{ label: '500 chips', amount: 250 }],
    });
  });

  it('sets error for an amount that is no positive whole number of stars, and for the platform refusing the invoice', async () => {
    const zero = await command(bot.session, {
      case: 'createInvoice',
      value: { title: 't', description: 'd', payload: 'order', amount: 0n },
    });
    expect(zero).toMatchObject({ delivered: false, result: '' });
    expect(zero.error).toMatch(/positive/);
    const long = await command(bot.session, {
      case: 'createInvoice',
      value: { title: 't', description: 'd', payload: 'x'.repeat(129), amount: 5n },
    });
    expect(long).toMatchObject({ delivered: false, result: '' });
    expect(long.error).toMatch(/INVOICE_PAYLOAD_INVALID/);
  });
});

describe('a command kind this bot does not know', () => {
  /** ToBot{command: Command{command_id, <field> = an embedded message}} as a newer gateway would encode it. */
  function futureCommand(commandId: string, field: number): Uint8Array {
    const payload = new BinaryWriter().tag(1, WireType.Varint).int64(42n).tag(2, WireType.LengthDelimited).string('stx-future').finish();
    const cmd = new BinaryWriter()
      .tag(1, WireType.LengthDelimited)
      .string(commandId)
      .tag(field, WireType.LengthDelimited)
      .bytes(payload)
      .finish();
    return new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(cmd).finish();
  }

  it('acks it once with an unknown-kind error and keeps serving the Link', async () => {
    const raw = futureCommand('future-1', 99);
    // The test gateway re-encodes what it pushes: the unknown field must reach the wire unchanged.
    expect(Buffer.from(toBinary(botlink.ToBotSchema, fromBinary(botlink.ToBotSchema, raw))).equals(Buffer.from(raw))).toBe(true);
    const streams = gateway.sessions.length;
    bot.session.pushRaw(raw);
    await waitFor(() => bot.session.acks().some((a) => a.commandId === 'future-1'), 'ack of the unknown kind');
    const acks = bot.session.acks().filter((a) => a.commandId === 'future-1');
    expect(acks).toHaveLength(1);
    expect(acks[0]).toMatchObject({ delivered: false, result: '', error: 'unknown command kind (Command field 99)' });
    expect(bot.lines.some((l) => l.msg === 'command of a kind this bot does not know' && l['commandId'] === 'future-1')).toBe(true);

    const user = emu.control.createUser({ started: true }).user.id;
    expect(await command(bot.session, { case: 'sendToUser', value: { recipient: recipient(user), text: 'still here' } })).toMatchObject({
      delivered: true,
      error: '',
    });
    expect(sent(user)).toEqual(['still here']);
    expect(gateway.sessions).toHaveLength(streams);
    expect(bot.session.requestEnded).toBe(false);
  });

  it('acks a Command with no payload at all the same way', async () => {
    const ack = await command(bot.session, undefined);
    expect(ack).toMatchObject({ delivered: false, result: '', error: 'unknown command kind (no payload)' });
  });
});

describe('many commands at once', () => {
  it('answers each of 300 mixed commands with exactly one Ack', async () => {
    const user = emu.control.createUser({ started: true }).user.id;
    const ids: string[] = [];
    for (let i = 0; i < 300; i += 1) {
      const commandId = `bulk-${i}`;
      ids.push(commandId);
      bot.session.push({
        commandId,
        payload:
          i % 3 === 0
            ? { case: 'sendToUser', value: { recipient: recipient(user), text: `n${i}` } }
            : i % 3 === 1
              ? { case: 'notify', value: { recipient: recipient(user), kind: NotificationKind.YOUR_TURN, params: {} } }
              : { case: 'sendToChannel', value: { text: `c${i}` } },
      });
    }
    await waitFor(() => ids.every((id) => bot.session.acks().some((a) => a.commandId === id)), 'all bulk acks', 20_000);
    const acks = bot.session.acks().filter((a) => a.commandId.startsWith('bulk-'));
    expect(acks).toHaveLength(300);
    expect(acks.filter((a) => a.delivered)).toHaveLength(200);
    expect(acks.every((a) => a.error === '')).toBe(true);
  });
});
