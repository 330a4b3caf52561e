import type { ApiResponse, ChatPermissions, LanguageCode, StarTransaction, Update } from '@grammyjs/types';
import { Bot, GrammyError } from 'grammy';
import { BotApiChecker, type Divergence } from '../src/conformance/index.js';
import { CONFLICT_DESCRIPTION, type PlatformEmulator } from '../src/index.js';
import { startCheckedEmulator } from '../src/test-helpers.js';
import { settlesWithin } from '@wordgame/testkit';

/**
 * The emulator against grammY 1.46.0, a Bot API client written by others, pointed at it with
 * `client.apiRoot`: every Bot API method the product uses, called the way grammY calls it, and
 * every answer held against the published types twice, as the emulator sent it
 * (startCheckedEmulator, failing the test in test/setup-conformance.ts) and as grammY received it
 * (an API transformer below), error envelopes included.
 */

const TOKEN = '123456:conformance';
const checker = new BotApiChecker();

let emu: PlatformEmulator;
let bot: Bot;
/** What grammY received that does not match the published types. */
let received: Divergence[];
/** Every method grammY called, in order. */
let methods: string[];

/** A grammY Bot on the emulator whose every answer, as grammY parsed it, is checked. */
function grammyBot(token = TOKEN): Bot {
  const b = new Bot(token, { client: { apiRoot: emu.apiRoot } });
  b.api.config.use(async (prev, method, payload, signal) => {
    const res = (await prev(method, payload, signal)) as ApiResponse<unknown>;
    methods.push(method);
    const status = res.ok ? 200 : res.error_code;
    received.push(...checker.check({ method, status, body: res, injectedUpdateIds: [] }));
    return res as never;
  });
  return b;
}

/** Every permission the Bot API defines, granted (a new permission in the types breaks the build). */
const ALL_GRANTED = {
  can_send_messages: true,
  can_send_audios: true,
  can_send_documents: true,
  can_send_photos: true,
  can_send_videos: true,
  can_send_video_notes: true,
  can_send_voice_notes: true,
  can_send_polls: true,
  can_send_other_messages: true,
  can_add_web_page_previews: true,
  can_react_to_messages: true,
  can_change_info: true,
  can_invite_users: true,
  can_edit_tag: true,
  can_pin_messages: true,
  can_manage_topics: true,
} satisfies Required<ChatPermissions>;

const ALL_REVOKED = Object.fromEntries(Object.keys(ALL_GRANTED).map((key) => [key, false])) as Record<keyof ChatPermissions, false>;

async function rejection(promise: Promise<unknown>): Promise<GrammyError> {
  try {
    await promise;
  } catch (err: unknown) {
    if (err instanceof GrammyError) return err;
    throw err;
  }
  throw new Error('expected a GrammyError');
}

beforeEach(async () => {
  emu = await startCheckedEmulator({ tokens: [TOKEN], preCheckoutTimeoutMs: 2_000 });
  received = [];
  methods = [];
  bot = grammyBot();
});

afterEach(async () => {
  if (bot.isRunning()) await bot.stop();
  await emu.stop();
  expect(received).toEqual([]);
});

describe('grammY against the platform emulator', () => {
  it('getMe answers the published UserFromGetMe', async () => {
    const me = await bot.api.getMe();
    expect(me).toMatchObject({ id: 123456, is_bot: true, username: 'emulator_bot' });
    expect(checker.checkResult('getMe', me)).toEqual([]);
  });

  it('getUpdates long-polls for its timeout, answers early when an update arrives, and confirms by offset', async () => {
    const started = Date.now();
    expect(await bot.api.getUpdates({ timeout: 1 })).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);

    const user = emu.control.createUser({ firstName: 'Ann' }).user;
    const waiting = bot.api.getUpdates({ timeout: 10 });
    setTimeout(() => emu.control.sendUserMessage({ userId: user.id, text: '/start' }), 100);
    // Early: before the 10 s long poll would have ended on its own.
    const [update, ...rest] = await settlesWithin(waiting, 10_000, 'the long poll, answered by the update');
    expect(rest).toEqual([]);
    expect(update?.message).toMatchObject({
      text: '/start',
      from: { id: user.id },
      entities: [{ type: 'bot_command', offset: 0, length: 6 }],
    });
    expect(checker.checkUpdate(update)).toEqual([]);

    expect(await bot.api.getUpdates({ timeout: 0 })).toHaveLength(1);
    expect(await bot.api.getUpdates({ offset: (update?.update_id ?? 0) + 1, timeout: 0 })).toEqual([]);
  });

  it('allowed_updates: chat_member only when asked for, never by default', async () => {
    const chat = emu.control.createChat({ type: 'supergroup', title: 'Discussion' });
    const ann = emu.control.createUser({ firstName: 'Ann' }).user;
    const bob = emu.control.createUser({ firstName: 'Bob' }).user;

    emu.control.join({ chatId: chat.id, userId: ann.id });
    expect(await bot.api.getUpdates({ timeout: 0 })).toEqual([]);

    await bot.api.getUpdates({ timeout: 0, allowed_updates: ['message'] });
    emu.control.join({ chatId: chat.id, userId: bob.id });
    emu.control.sendUserMessage({ userId: bob.id, chatId: chat.id, text: 'hello' });
    const onlyMessages = await bot.api.getUpdates({ timeout: 0 });
    expect(onlyMessages.map(kindOf)).toEqual(['message']);

    await bot.api.getUpdates({ offset: -1, timeout: 0, allowed_updates: ['chat_member'] });
    emu.control.leave({ chatId: chat.id, userId: bob.id });
    emu.control.sendUserMessage({ userId: ann.id, chatId: chat.id, text: 'bye' });
    const changes = (await bot.api.getUpdates({ timeout: 0 })).filter((u) => u.update_id > (onlyMessages[0]?.update_id ?? 0));
    expect(changes.map(kindOf)).toEqual(['chat_member']);
    expect(changes[0]?.chat_member).toMatchObject({
      chat: { id: chat.id, type: 'supergroup', title: 'Discussion' },
      old_chat_member: { status: 'member', user: { id: bob.id } },
      new_chat_member: { status: 'left', user: { id: bob.id } },
    });
  });

  it('delivers no update Telegram would not: chat_member only to an administrator, group chatter not to a bot in privacy mode or outside the chat', async () => {
    const ann = emu.control.createUser({ firstName: 'Ann' }).user;
    await bot.api.getUpdates({ timeout: 0, allowed_updates: ['message', 'chat_member'] });

    const plain = emu.control.createChat({ type: 'supergroup', title: 'Bot is a plain member', botStatus: 'member' });
    expect(emu.control.join({ chatId: plain.id, userId: ann.id }).updates).toEqual([
      { queued: false, reason: expect.any(String) as string },
    ]);
    emu.control.sendUserMessage({ userId: ann.id, chatId: plain.id, text: 'hello everyone' });
    emu.control.sendUserMessage({ userId: ann.id, chatId: plain.id, text: '/help' });

    const gone = emu.control.createChat({ type: 'supergroup', title: 'Bot was removed', botStatus: 'kicked' });
    emu.control.sendUserMessage({ userId: ann.id, chatId: gone.id, text: '/help' });

    const delivered = await bot.api.getUpdates({ timeout: 0 });
    expect(delivered.map((u) => [kindOf(u), u.message?.chat.id, u.message?.text])).toEqual([['message', plain.id, '/help']]);
  });

  it('a second concurrent poller terminates the first with 409 Conflict', async () => {
    const first = bot.api.getUpdates({ timeout: 10 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = grammyBot().api.getUpdates({ timeout: 1 });
    const err = await rejection(first);
    expect(err).toMatchObject({ error_code: 409, description: CONFLICT_DESCRIPTION, method: 'getUpdates' });
    expect(await second).toEqual([]);
  });

  it('sendMessage answers a TextMessage, and 403 when the user never started the bot', async () => {
    const ann = emu.control.createUser({ firstName: 'Ann', started: true }).user;
    const sent = await bot.api.sendMessage(ann.id, 'Your order is paid', {
      reply_markup: { inline_keyboard: [[{ text: 'Open', url: 'https://example.org/o/1' }]] },
    });
    expect(sent).toMatchObject({ text: 'Your order is paid', chat: { id: ann.id, type: 'private' }, from: { id: 123456, is_bot: true } });
    expect(checker.checkResult('sendMessage', sent)).toEqual([]);

    const stranger = emu.control.createUser({ firstName: 'Bob' }).user;
    const err = await rejection(bot.api.sendMessage(stranger.id, 'hi'));
    expect(err).toMatchObject({ error_code: 403, description: "Forbidden: bot can't initiate conversation with a user" });
  });

  it('a Stars payment end to end: createInvoiceLink (XTR), pre_checkout_query answered by a polling grammY bot, refundStarPayment, getStarTransactions', async () => {
    const ann = emu.control.createUser({ firstName: 'Ann' }).user;
    const link = await bot.api.createInvoiceLink('10 stars', 'An order', 'order-1', '', 'XTR', [{ label: 'Order', amount: 10 }]);
    expect(link).toMatch(/^https:\/\/t\.me\/\$/);

    const paid = new Promise<Update>((resolve) => {
      bot.on('pre_checkout_query', (ctx) => ctx.answerPreCheckoutQuery(true));
      bot.on('message:successful_payment', (ctx) => resolve(ctx.update));
    });
    const polling = bot.start({ timeout: 1, allowed_updates: ['message', 'pre_checkout_query'] });
    const { preCheckoutQueryId } = emu.control.pay({ link, userId: ann.id });
    const update = await paid;
    await bot.stop();
    await polling;

    const payment = update.message?.successful_payment;
    expect(payment).toMatchObject({ currency: 'XTR', total_amount: 10, invoice_payload: 'order-1' });
    expect(emu.control.preCheckout(preCheckoutQueryId)?.status).toBe('approved');
    const chargeId = payment?.telegram_payment_charge_id ?? '';

    expect(await bot.api.refundStarPayment(ann.id, chargeId)).toBe(true);
    const again = await rejection(bot.api.refundStarPayment(ann.id, chargeId));
    expect(again).toMatchObject({ error_code: 400, description: 'Bad Request: CHARGE_ALREADY_REFUNDED' });

    const { transactions } = await bot.api.getStarTransactions({ offset: 0, limit: 100 });
    const byDirection = (t: StarTransaction): string => (t.source ? 'in' : 'out');
    expect(transactions.map(byDirection).sort()).toEqual(['in', 'out']);
    for (const t of transactions) {
      expect(t).toMatchObject({ id: chargeId, amount: 10 });
      expect(t.source ?? t.receiver).toMatchObject({ type: 'user', transaction_type: 'invoice_payment', user: { id: ann.id } });
    }
    expect(methods).toEqual(expect.arrayContaining(['getMe', 'deleteWebhook', 'getUpdates', 'answerPreCheckoutQuery']));
  });

  it('a Stars subscription: createInvoiceLink with subscription_period, the first and a renewed successful_payment, editUserStarSubscription, getStarTransactions', async () => {
    const ann = emu.control.createUser({ firstName: 'Ann' }).user;
    const link = await bot.api.createInvoiceLink('Pass', 'A monthly pass', 'order-sub', '', 'XTR', [{ label: 'Pass', amount: 30 }], {
      subscription_period: 2_592_000,
    });
    const payments: Update[] = [];
    const twoPaid = new Promise<void>((resolve) => {
      bot.on('pre_checkout_query', (ctx) => ctx.answerPreCheckoutQuery(true));
      bot.on('message:successful_payment', (ctx) => {
        payments.push(ctx.update);
        if (payments.length === 1) emu.control.advanceClock(2_592_000);
        if (payments.length === 2) resolve();
      });
    });
    const polling = bot.start({ timeout: 1, allowed_updates: ['message', 'pre_checkout_query'] });
    emu.control.pay({ link, userId: ann.id });
    await twoPaid;
    await bot.stop();
    await polling;

    for (const update of payments) expect(checker.checkUpdate(update)).toEqual([]);
    const [first, renewal] = payments.map((u) => u.message?.successful_payment);
    expect(first).toMatchObject({ is_recurring: true, is_first_recurring: true, invoice_payload: 'order-sub' });
    expect(renewal).toMatchObject({ is_recurring: true, invoice_payload: 'order-sub' });
    expect(renewal?.is_first_recurring).toBeUndefined();
    expect(renewal?.subscription_expiration_date).toBe((first?.subscription_expiration_date ?? 0) + 2_592_000);
    const chargeId = renewal?.telegram_payment_charge_id ?? '';
    expect(await bot.api.editUserStarSubscription(ann.id, chargeId, true)).toBe(true);
    expect(await bot.api.editUserStarSubscription(ann.id, chargeId, false)).toBe(true);
    const unknown = await rejection(bot.api.editUserStarSubscription(ann.id, 'stx-unknown', true));
    expect(unknown).toMatchObject({ error_code: 400, description: 'Bad Request: CHARGE_NOT_FOUND' });
    const { transactions } = await bot.api.getStarTransactions({ offset: 0, limit: 100 });
    expect(transactions.map((t) => t.source)).toEqual([
      expect.objectContaining({ subscription_period: 2_592_000 }),
      expect.objectContaining({ subscription_period: 2_592_000 }),
    ]);
  });

  it("a refund made outside the bot: a polling grammY bot reads refunded_payment in the payer's chat, and getStarTransactions lists the refund", async () => {
    const ann = emu.control.createUser({ firstName: 'Ann' }).user;
    const link = await bot.api.createInvoiceLink('10 stars', 'An order', 'order-2', '', 'XTR', [{ label: 'Order', amount: 10 }]);
    const paid = new Promise<string>((resolve) => {
      bot.on('pre_checkout_query', (ctx) => ctx.answerPreCheckoutQuery(true));
      bot.on('message:successful_payment', (ctx) => resolve(ctx.message.successful_payment.telegram_payment_charge_id));
    });
    const refunded = new Promise<Update>((resolve) => bot.on('message:refunded_payment', (ctx) => resolve(ctx.update)));
    const polling = bot.start({ timeout: 1, allowed_updates: ['message', 'pre_checkout_query'] });
    emu.control.pay({ link, userId: ann.id });
    const chargeId = await paid;
    emu.control.supportRefund(chargeId);
    const update = await refunded;
    await bot.stop();
    await polling;

    expect(checker.checkUpdate(update)).toEqual([]);
    expect(update.message).toMatchObject({
      chat: { id: ann.id, type: 'private' },
      from: { id: ann.id },
      refunded_payment: { currency: 'XTR', total_amount: 10, invoice_payload: 'order-2', telegram_payment_charge_id: chargeId },
    });
    const { transactions } = await bot.api.getStarTransactions({ offset: 0, limit: 100 });
    expect(transactions.filter((t) => t.receiver !== undefined)).toEqual([
      expect.objectContaining({ id: chargeId, amount: 10, receiver: expect.objectContaining({ user: ann }) as unknown }),
    ]);
    const again = await rejection(bot.api.refundStarPayment(ann.id, chargeId));
    expect(again).toMatchObject({ error_code: 400, description: 'Bad Request: CHARGE_ALREADY_REFUNDED' });
    expect(() => emu.control.supportRefund(chargeId)).toThrow(/refunded already/);
  });

  it('join requests: a polling grammY bot gets chat_join_request, approveChatJoinRequest makes a member, declineChatJoinRequest keeps one out', async () => {
    const chat = emu.control.createChat({ type: 'supergroup', title: 'Moderated', joinByRequest: true });
    const ann = emu.control.createUser({ firstName: 'Ann' }).user;
    const bob = emu.control.createUser({ firstName: 'Bob' }).user;
    const answered: number[] = [];
    const done = new Promise<void>((resolve) => {
      bot.on('chat_join_request', async (ctx) => {
        expect(checker.checkUpdate(ctx.update)).toEqual([]);
        expect(ctx.chatJoinRequest).toMatchObject({ chat: { id: chat.id, type: 'supergroup' }, user_chat_id: ctx.from.id });
        if (ctx.from.id === ann.id) await ctx.approveChatJoinRequest(ctx.from.id);
        else await ctx.declineChatJoinRequest(ctx.from.id);
        answered.push(ctx.from.id);
        if (answered.length === 2) resolve();
      });
    });
    const polling = bot.start({ timeout: 1, allowed_updates: ['chat_join_request', 'chat_member'] });
    expect(emu.control.join({ chatId: chat.id, userId: ann.id })).toMatchObject({ joinRequested: true, member: { status: 'left' } });
    expect(await bot.api.getChatMember(chat.id, ann.id)).toMatchObject({ status: 'left' });
    emu.control.join({ chatId: chat.id, userId: bob.id });
    await done;
    await bot.stop();
    await polling;

    expect(await bot.api.getChatMember(chat.id, ann.id)).toMatchObject({ status: 'member' });
    expect(await bot.api.getChatMember(chat.id, bob.id)).toMatchObject({ status: 'left' });
    expect(emu.control.joinRequests(chat.id)).toEqual([]);
    const approved = (await bot.api.getUpdates({ timeout: 0 })).find((u) => u.chat_member?.new_chat_member.user.id === ann.id);
    expect(approved?.chat_member).toMatchObject({ via_join_request: true, new_chat_member: { status: 'member' } });
    const none = await rejection(bot.api.approveChatJoinRequest(chat.id, bob.id));
    expect(none).toMatchObject({ error_code: 400, description: 'Bad Request: HIDE_REQUESTER_MISSING' });
    const again = await rejection(bot.api.declineChatJoinRequest(chat.id, ann.id));
    expect(again).toMatchObject({ error_code: 400, description: 'Bad Request: HIDE_REQUESTER_MISSING' });
    const plain = emu.control.createChat({
      type: 'supergroup',
      title: 'Bot without invite rights',
      botRights: { can_invite_users: false },
      joinByRequest: true,
    });
    expect(emu.control.join({ chatId: plain.id, userId: bob.id }).updates).toEqual([
      { queued: false, reason: expect.any(String) as string },
    ]);
    const rights = await rejection(bot.api.approveChatJoinRequest(plain.id, bob.id));
    expect(rights).toMatchObject({ error_code: 400, description: 'Bad Request: CHAT_ADMIN_REQUIRED' });
    expect(methods).toEqual(expect.arrayContaining(['approveChatJoinRequest', 'declineChatJoinRequest']));
  });

  it('restrictChatMember by Telegram rule: any permission false stays restricted with exactly those permissions, every one true lifts it', async () => {
    const chat = emu.control.createChat({ type: 'supergroup', title: 'Discussion' });
    const ann = emu.control.createUser({ firstName: 'Ann' }).user;
    emu.control.join({ chatId: chat.id, userId: ann.id });
    expect(await bot.api.getChatMember(chat.id, ann.id)).toMatchObject({ status: 'member' });

    expect(await bot.api.restrictChatMember(chat.id, ann.id, ALL_REVOKED)).toBe(true);
    expect(await bot.api.getChatMember(chat.id, ann.id)).toEqual({
      status: 'restricted',
      user: ann,
      is_member: true,
      ...ALL_REVOKED,
      until_date: 0,
    });

    await bot.api.restrictChatMember(chat.id, ann.id, { ...ALL_GRANTED, can_react_to_messages: false });
    expect(await bot.api.getChatMember(chat.id, ann.id)).toEqual({
      status: 'restricted',
      user: ann,
      is_member: true,
      ...ALL_GRANTED,
      can_react_to_messages: false,
      until_date: 0,
    });

    // Omitted permissions are false, except those the Bot API defaults to another's value.
    await bot.api.restrictChatMember(chat.id, ann.id, { can_send_messages: true }, { use_independent_chat_permissions: true });
    expect(await bot.api.getChatMember(chat.id, ann.id)).toEqual({
      status: 'restricted',
      user: ann,
      is_member: true,
      ...ALL_REVOKED,
      can_send_messages: true,
      can_react_to_messages: true,
      until_date: 0,
    });

    await bot.api.restrictChatMember(chat.id, ann.id, ALL_GRANTED);
    expect(await bot.api.getChatMember(chat.id, ann.id)).toEqual({ status: 'member', user: ann });
  });

  it('error envelopes: 429 with parameters.retry_after, 400, 401 and 404 as the Bot API words them', async () => {
    emu.control.addFault({ method: 'sendMessage', status: 429, retryAfter: 7 });
    const ann = emu.control.createUser({ firstName: 'Ann', started: true }).user;
    const limited = await rejection(bot.api.sendMessage(ann.id, 'hi'));
    expect(limited).toMatchObject({ error_code: 429, description: 'Too Many Requests: retry after 7', parameters: { retry_after: 7 } });

    const group = emu.control.createChat({ type: 'group', title: 'Old group' });
    const notSupergroup = await rejection(bot.api.restrictChatMember(group.id, ann.id, ALL_REVOKED));
    expect(notSupergroup).toMatchObject({ error_code: 400, description: 'Bad Request: method is available only for supergroups' });

    const stranger = await rejection(grammyBot('999:not-a-token').api.getMe());
    expect(stranger).toMatchObject({ error_code: 401, description: 'Unauthorized' });

    const raw = bot.api.raw as unknown as Record<string, (args: object) => Promise<unknown>>;
    const unknownMethod = await rejection(raw['getSomethingElse']?.({}) ?? Promise.resolve());
    expect(unknownMethod).toMatchObject({ error_code: 404, description: 'Not Found' });
  });

  it('setMyCommands / getMyCommands / deleteMyCommands per scope and language_code, with the Bot API limits', async () => {
    const en = [
      { command: 'start', description: 'Open the game' },
      { command: 'paysupport', description: 'Help with a payment' },
    ];
    const ru = [{ command: 'start', description: 'Открыть игру' }];
    expect(await bot.api.setMyCommands(en)).toBe(true);
    expect(await bot.api.setMyCommands(ru, { language_code: 'ru' })).toBe(true);
    const ann = emu.control.createUser({ firstName: 'Ann', started: true }).user;
    const only = [{ command: 'terms', description: 'Terms' }];
    expect(await bot.api.setMyCommands(only, { scope: { type: 'chat', chat_id: ann.id } })).toBe(true);

    const defaults = await bot.api.getMyCommands();
    expect(defaults).toEqual(en);
    expect(checker.checkResult('getMyCommands', defaults)).toEqual([]);
    expect(await bot.api.getMyCommands({ language_code: 'ru' })).toEqual(ru);
    expect(await bot.api.getMyCommands({ language_code: 'de' })).toEqual([]);
    expect(await bot.api.getMyCommands({ scope: { type: 'chat', chat_id: ann.id } })).toEqual(only);
    expect(await bot.api.getMyCommands({ scope: { type: 'all_private_chats' } })).toEqual([]);

    expect(await bot.api.deleteMyCommands({ language_code: 'ru' })).toBe(true);
    expect(await bot.api.getMyCommands({ language_code: 'ru' })).toEqual([]);
    expect(await bot.api.getMyCommands()).toEqual(en);

    const refusals = [
      bot.api.setMyCommands([{ command: 'Start', description: 'upper case' }]),
      bot.api.setMyCommands([{ command: 'x'.repeat(33), description: 'too long a name' }]),
      bot.api.setMyCommands([{ command: 'pay-support', description: 'a dash' }]),
      bot.api.setMyCommands([{ command: 'start', description: '' }]),
      bot.api.setMyCommands([{ command: 'start', description: 'd'.repeat(257) }]),
      bot.api.setMyCommands(Array.from({ length: 101 }, (_v, i) => ({ command: `c${i}`, description: 'one of too many' }))),
      bot.api.setMyCommands(en, { language_code: 'english' as LanguageCode }),
    ];
    const errors = await Promise.all(refusals.map(rejection));
    expect(errors.map((e) => [e.error_code, e.description])).toEqual([
      [400, 'Bad Request: BOT_COMMAND_INVALID'],
      [400, 'Bad Request: BOT_COMMAND_INVALID'],
      [400, 'Bad Request: BOT_COMMAND_INVALID'],
      [400, 'Bad Request: BOT_COMMAND_DESCRIPTION_INVALID'],
      [400, 'Bad Request: BOT_COMMAND_DESCRIPTION_INVALID'],
      [400, 'Bad Request: BOT_COMMANDS_TOO_MUCH'],
      [400, 'Bad Request: invalid language code specified'],
    ]);
    expect(await bot.api.getMyCommands()).toEqual(en);
    expect(emu.control.commandMenu().commands).toEqual(expect.arrayContaining([{ scope: 'default', languageCode: '', commands: en }]));
  });

  it('setChatMenuButton / getChatMenuButton: MenuButtonWebApp (https only), MenuButtonCommands, MenuButtonDefault', async () => {
    expect(await bot.api.getChatMenuButton()).toEqual({ type: 'default' });
    const webApp = { type: 'web_app' as const, text: 'Open the game', web_app: { url: 'https://wallet.example/app' } };
    expect(await bot.api.setChatMenuButton({ menu_button: webApp })).toBe(true);
    const got = await bot.api.getChatMenuButton();
    expect(got).toEqual(webApp);
    expect(checker.checkResult('getChatMenuButton', got)).toEqual([]);

    const ann = emu.control.createUser({ firstName: 'Ann', started: true }).user;
    expect(await bot.api.getChatMenuButton({ chat_id: ann.id })).toEqual(webApp);
    await bot.api.setChatMenuButton({ chat_id: ann.id, menu_button: { type: 'commands' } });
    expect(await bot.api.getChatMenuButton({ chat_id: ann.id })).toEqual({ type: 'commands' });
    expect(await bot.api.getChatMenuButton()).toEqual(webApp);

    const http = await rejection(
      bot.api.setChatMenuButton({ menu_button: { type: 'web_app', text: 'Open', web_app: { url: 'http://wallet.example/app' } } }),
    );
    expect(http).toMatchObject({ error_code: 400 });
    expect(http.description).toMatch(/Only HTTPS links are allowed/);

    await bot.api.setChatMenuButton({ menu_button: { type: 'default' } });
    expect(await bot.api.getChatMenuButton()).toEqual({ type: 'default' });
  });

  it('a command in a message carries its bot_command entity; an inline button press is a callback_query answered once with answerCallbackQuery', async () => {
    const ann = emu.control.createUser({ firstName: 'Ann' }).user;
    emu.control.sendUserMessage({ userId: ann.id, text: '/paysupport@emulator_bot please' });
    const [command] = await bot.api.getUpdates({ timeout: 0 });
    expect(command?.message?.entities).toEqual([{ type: 'bot_command', offset: 0, length: '/paysupport@emulator_bot'.length }]);
    // Every command in the text is marked, as Telegram's clients mark them: Latin letters, digits and
    // underscores (1-32), an optional @username, at the start or after whitespace, offsets in UTF-16 units.
    const text = '/start, then 🎲 /terms@emulator_bot or /privacy; not a/b nor /стоп';
    emu.control.sendUserMessage({ userId: ann.id, text });
    const [several] = await bot.api.getUpdates({ offset: command!.update_id + 1, timeout: 0 });
    expect(several?.message?.entities).toEqual([
      { type: 'bot_command', offset: 0, length: '/start'.length },
      { type: 'bot_command', offset: text.indexOf('/terms'), length: '/terms@emulator_bot'.length },
      { type: 'bot_command', offset: text.indexOf('/privacy'), length: '/privacy'.length },
    ]);
    emu.control.sendUserMessage({ userId: ann.id, text: 'no command here' });
    const [plain] = await bot.api.getUpdates({ offset: several!.update_id + 1, timeout: 0 });
    expect(plain?.message?.entities).toBeUndefined();
    await bot.api.getUpdates({ offset: plain!.update_id + 1, timeout: 0 });

    const sent = await bot.api.sendMessage(ann.id, 'Which one?', {
      reply_markup: {
        inline_keyboard: [
          [{ text: 'About this one', callback_data: 'ps:1' }],
          [{ text: 'Open', web_app: { url: 'https://wallet.example/app' } }],
        ],
      },
    });
    expect(sent.reply_markup?.inline_keyboard[0]?.[0]).toEqual({ text: 'About this one', callback_data: 'ps:1' });
    const tooLong = await rejection(
      bot.api.sendMessage(ann.id, 'x', { reply_markup: { inline_keyboard: [[{ text: 'Data', callback_data: 'd'.repeat(65) }]] } }),
    );
    expect(tooLong).toMatchObject({ error_code: 400, description: 'Bad Request: BUTTON_DATA_INVALID' });
    const httpApp = await rejection(
      bot.api.sendMessage(ann.id, 'x', { reply_markup: { inline_keyboard: [[{ text: 'App', web_app: { url: 'http://a.example' } }]] } }),
    );
    expect(httpApp.description).toMatch(/Only HTTPS links are allowed/);

    const { callbackQueryId } = emu.control.pressButton({ userId: ann.id, messageId: sent.message_id, data: 'ps:1' });
    const pressed = new Promise<Update>((resolve) => {
      bot.on('callback_query:data', async (ctx) => {
        await ctx.answerCallbackQuery({ text: 'Noted' });
        resolve(ctx.update);
      });
    });
    const polling = bot.start({ timeout: 1, allowed_updates: ['callback_query'] });
    const update = await pressed;
    await bot.stop();
    await polling;
    expect(update.callback_query).toMatchObject({
      id: callbackQueryId,
      from: { id: ann.id },
      data: 'ps:1',
      message: { message_id: sent.message_id },
    });
    expect(checker.checkUpdate(update)).toEqual([]);
    expect(emu.control.callbackQuery(callbackQueryId)?.answer).toEqual({ text: 'Noted', showAlert: false });

    const twice = await rejection(bot.api.answerCallbackQuery(callbackQueryId));
    expect(twice).toMatchObject({
      error_code: 400,
      description: 'Bad Request: query is too old and response timeout expired or query ID is invalid',
    });
    expect(methods).toEqual(expect.arrayContaining(['answerCallbackQuery']));
  });
});

function kindOf(update: Update): string {
  return Object.keys(update).find((key) => key !== 'update_id') ?? '';
}
