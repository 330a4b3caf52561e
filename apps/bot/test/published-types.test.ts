import { createLogger } from '@wordgame/logging';
import { startPlatformEmulator, type BotApiAnswer, type PlatformEmulator } from '@wordgame/platform-emulator';
import { BotApiChecker, type EmulatedMethod } from '@wordgame/platform-emulator/conformance';
import { GRANT_ALL, REVOKE_ALL, setWriteAccess, standingIn } from '../src/chat/write-access.js';
import { PlatformClient } from '../src/platform/client.js';
import { HealthCounters } from '../src/platform/health-counters.js';
import { RESULT_SHAPES } from '../src/platform/shapes.js';
import type { BotMethod } from '../src/platform/types.js';
import { parseUpdate } from '../src/platform/update-shapes.js';

/**
 * The bot's runtime validators agree with the published Bot API types (the schema generated from
 * @grammyjs/types, through the emulator's BotApiChecker): every answer the bot gets from the
 * emulator for each method it calls is published-valid and accepted, and a field the bot reads,
 * broken the way a hostile platform might break it, is refused by both. The type-level half of
 * the agreement is in src/platform/types.ts and shapes.ts (the build fails when they drift).
 */

const TOKEN = '4242:published-types';
const checker = new BotApiChecker();
let emu: PlatformEmulator;
let answers: BotApiAnswer[];
let platform: PlatformClient;

beforeAll(async () => {
  emu = await startPlatformEmulator({ tokens: [TOKEN], onAnswer: (a) => answers.push(a) });
});
afterAll(() => emu.stop());
beforeEach(() => {
  emu.control.reset();
  answers = [];
  platform = new PlatformClient({
    apiRoot: emu.apiRoot,
    token: TOKEN,
    counters: new HealthCounters(),
    logger: createLogger('test', 'silent'),
  });
});

/** Answers the bot got, as the emulator sent them, that differ from the published types. */
function divergences(): string[] {
  return answers.flatMap((a) => checker.check(a)).map((d) => `${d.method} ${d.part}: ${d.problems.join('; ')}`);
}

/** The result of the last successful answer to `method`. */
function lastResult(method: string): unknown {
  const answer = answers.filter((a) => a.method === method && a.status === 200).at(-1);
  return (answer?.body as { result?: unknown } | undefined)?.result;
}

describe("the bot's validators and the published Bot API types", () => {
  it('every method the bot calls answers published-valid results that the bot accepts', async () => {
    const ann = emu.control.createUser({ firstName: 'Ann', started: true }).user;
    const chat = emu.control.createChat({ type: 'supergroup', title: 'Discussion' });
    emu.control.join({ chatId: chat.id, userId: ann.id });

    await platform.call('getMe');
    await platform.call('getUpdates', {
      timeout: 0,
      allowed_updates: ['message', 'chat_member', 'pre_checkout_query', 'callback_query'],
    });
    emu.control.sendUserMessage({ userId: ann.id, text: '/start' });
    const [update] = await platform.call('getUpdates', { timeout: 0 });
    expect(update && parseUpdate(update).kind).toBe('handled');
    await platform.call('sendMessage', { chat_id: ann.id, text: 'hello' });
    const link = await platform.call('createInvoiceLink', {
      title: 'Order',
      description: 'An order',
      payload: 'order-1',
      provider_token: '',
      currency: 'XTR',
      prices: [{ label: 'Order', amount: 5 }],
    });
    const { preCheckoutQueryId } = emu.control.pay({ link, userId: ann.id });
    await platform.call('answerPreCheckoutQuery', { pre_checkout_query_id: preCheckoutQueryId, ok: true });
    const paid = await platform.call('getUpdates', { timeout: 0 });
    expect(paid.map((u) => parseUpdate(u).kind)).toEqual(['handled', 'handled', 'handled']);
    const platformChargeId = emu.control.preCheckout(preCheckoutQueryId)?.payment?.telegramPaymentChargeId ?? '';
    await platform.call('refundStarPayment', { user_id: ann.id, telegram_payment_charge_id: platformChargeId });
    expect((await platform.call('getStarTransactions', { offset: 0, limit: 100 })).transactions).toHaveLength(2);
    const pass = await platform.call('createInvoiceLink', {
      title: 'Pass',
      description: 'A monthly pass',
      payload: 'order-pass',
      provider_token: '',
      currency: 'XTR',
      prices: [{ label: 'Pass', amount: 30 }],
      subscription_period: 2_592_000,
    });
    const subscribed = emu.control.pay({ link: pass, userId: ann.id });
    await platform.call('answerPreCheckoutQuery', { pre_checkout_query_id: subscribed.preCheckoutQueryId, ok: true });
    emu.control.advanceClock(2_592_000);
    const recurring = (await platform.call('getUpdates', { timeout: 0 })).map(parseUpdate).slice(-2);
    expect(recurring.map((u) => (u.kind === 'handled' ? u.update.message?.successful_payment?.is_recurring : u.kind))).toEqual([
      true,
      true,
    ]);
    const subscriptionCharge = emu.control.preCheckout(subscribed.preCheckoutQueryId)?.payment?.telegramPaymentChargeId ?? '';
    await platform.call('editUserStarSubscription', { user_id: ann.id, telegram_payment_charge_id: subscriptionCharge, is_canceled: true });
    const withPeriods = (await platform.call('getStarTransactions', { offset: 0, limit: 100 })).transactions;
    expect(withPeriods.map((t) => t.source?.subscription_period)).toEqual([undefined, undefined, 2_592_000, 2_592_000]);
    await platform.call('setMyCommands', { commands: [{ command: 'start', description: 'Open the game' }], language_code: 'en' });
    await platform.call('setChatMenuButton', {
      menu_button: { type: 'web_app', text: 'Open the game', web_app: { url: 'https://wallet.example/app' } },
    });
    const offer = await platform.call('sendMessage', {
      chat_id: ann.id,
      text: 'Which one?',
      reply_markup: { inline_keyboard: [[{ text: 'Something else', callback_data: 'ps:0badf00d:g' }]] },
    });
    const { callbackQueryId } = emu.control.pressButton({ userId: ann.id, messageId: offer.message_id, data: 'ps:0badf00d:g' });
    const press = (await platform.call('getUpdates', { timeout: 0 })).at(-1);
    expect(press && parseUpdate(press)).toMatchObject({ kind: 'handled', update: { callback_query: { id: callbackQueryId } } });
    await platform.call('answerCallbackQuery', { callback_query_id: callbackQueryId });
    await setWriteAccess(platform, String(chat.id), ann.id, false);
    expect(await standingIn(platform, String(chat.id), ann.id)).toBe('member');
    const moderated = emu.control.createChat({ type: 'supergroup', title: 'Moderated', joinByRequest: true });
    const bob = emu.control.createUser({ firstName: 'Bob' }).user;
    await platform.call('getUpdates', { timeout: 0, offset: -1, allowed_updates: ['chat_join_request'] });
    emu.control.join({ chatId: moderated.id, userId: ann.id });
    emu.control.join({ chatId: moderated.id, userId: bob.id });
    const requests = await platform.call('getUpdates', { timeout: 0 });
    expect(requests.filter((u) => u['chat_join_request'] !== undefined).map((u) => parseUpdate(u).kind)).toEqual(['handled', 'handled']);
    expect(await platform.call('approveChatJoinRequest', { chat_id: moderated.id, user_id: ann.id })).toBe(true);
    expect(await platform.call('declineChatJoinRequest', { chat_id: moderated.id, user_id: bob.id })).toBe(true);

    const called = new Set(answers.map((a) => a.method));
    const methods: BotMethod[] = Object.keys(RESULT_SHAPES) as BotMethod[];
    expect(methods.filter((m) => !called.has(m))).toEqual([]);
    expect(divergences()).toEqual([]);
  });

  it('a field the bot reads, broken, is refused by the published types and by the bot alike', async () => {
    const ann = emu.control.createUser({ firstName: 'Ann', started: true }).user;
    const chat = emu.control.createChat({ type: 'supergroup', title: 'Discussion' });
    emu.control.join({ chatId: chat.id, userId: ann.id });
    await setWriteAccess(platform, String(chat.id), ann.id, false);
    await platform.call('getChatMember', { chat_id: chat.id, user_id: ann.id });
    await platform.call('getMe');
    await platform.call('sendMessage', { chat_id: ann.id, text: 'hello' });

    const breakages: [EmulatedMethod & BotMethod, (r: Record<string, unknown>) => void][] = [
      ['getMe', (r) => (r['id'] = '42')],
      ['sendMessage', (r) => (r['message_id'] = '1')],
      ['sendMessage', (r) => delete r['message_id']],
      ['getChatMember', (r) => delete r['is_member']],
      ['getChatMember', (r) => (r['status'] = 'banned')],
      ['getChatMember', (r) => ((r['user'] as Record<string, unknown>)['first_name'] = 7)],
      ['getChatMember', (r) => delete (r['user'] as Record<string, unknown>)['first_name']],
      ['getChatMember', (r) => ((r['user'] as Record<string, unknown>)['is_bot'] = 'no')],
    ];
    for (const [method, breakIt] of breakages) {
      const result = structuredClone(lastResult(method)) as Record<string, unknown>;
      expect(checker.checkResult(method, result)).toEqual([]);
      expect(RESULT_SHAPES[method].safeParse(result).success).toBe(true);
      breakIt(result);
      expect({ method, published: checker.checkResult(method, result).length > 0 }).toEqual({ method, published: true });
      expect({ method, bot: RESULT_SHAPES[method].safeParse(result).success }).toEqual({ method, bot: false });
    }
  });

  it('chat gate: revoking leaves the member restricted with every published permission false; granting lifts it to member', async () => {
    const ann = emu.control.createUser({ firstName: 'Ann' }).user;
    const chat = emu.control.createChat({ type: 'supergroup', title: 'Discussion' });
    emu.control.join({ chatId: chat.id, userId: ann.id });

    await setWriteAccess(platform, String(chat.id), ann.id, false);
    const revoked = await platform.call('getChatMember', { chat_id: chat.id, user_id: ann.id });
    expect(revoked).toEqual({ status: 'restricted', user: ann, is_member: true, ...REVOKE_ALL, until_date: 0 });
    expect(await standingIn(platform, String(chat.id), ann.id)).toBe('member');

    await setWriteAccess(platform, String(chat.id), ann.id, true);
    expect(await platform.call('getChatMember', { chat_id: chat.id, user_id: ann.id })).toEqual({ status: 'member', user: ann });
    expect(emu.control.calls('restrictChatMember').at(-1)?.params['permissions']).toEqual(GRANT_ALL);
    expect(divergences()).toEqual([]);
  });
});
