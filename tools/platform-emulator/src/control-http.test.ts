import { type PlatformEmulator, type StateSnapshot, type UserView } from './index.js';
import { callApi, controlApi, startCheckedEmulator } from './test-helpers.js';

let emu: PlatformEmulator;

beforeAll(async () => {
  emu = await startCheckedEmulator();
});
afterAll(() => emu.stop());
beforeEach(() => emu.control.reset());

describe('control API over HTTP', () => {
  it('presses a button under a bot message (POST /callback-queries), shows its answer, and lists the command menu (GET /commands)', async () => {
    await controlApi(emu, 'POST', '/users', { id: 7003, first_name: 'Cb', started: true, language_code: 'ru' });
    const sent = await callApi<{ message_id: number }>(
      emu,
      'sendMessage',
      { chat_id: 7003, text: 'Which one?', reply_markup: JSON.stringify({ inline_keyboard: [[{ text: 'A', callback_data: 'a' }]] }) },
      { encoding: 'form' },
    );
    const press = await controlApi<{ callbackQueryId: string; update: { queued: boolean } }>(emu, 'POST', '/callback-queries', {
      user_id: 7003,
      message_id: sent.body.result?.message_id,
      data: 'a',
    });
    expect(press.status).toBe(200);
    expect(press.body.update.queued).toBe(true);
    const [update] = (await callApi<{ callback_query: { id: string; data: string } }[]>(emu, 'getUpdates', {})).body.result ?? [];
    expect(update?.callback_query).toMatchObject({ id: press.body.callbackQueryId, data: 'a' });
    expect((await controlApi(emu, 'POST', '/callback-queries', { user_id: 7003, message_id: 999, data: 'a' })).status).toBe(404);
    expect((await controlApi(emu, 'POST', '/callback-queries', { user_id: 7003, message_id: 1, data: 'x'.repeat(65) })).status).toBe(400);

    const answered = await callApi(
      emu,
      'answerCallbackQuery',
      { callback_query_id: press.body.callbackQueryId, text: 'ok' },
      { encoding: 'form' },
    );
    expect(answered.body).toEqual({ ok: true, result: true });
    const seen = await controlApi<{ answer: unknown }>(emu, 'GET', `/callback-queries/${press.body.callbackQueryId}`);
    expect(seen.body.answer).toEqual({ text: 'ok', showAlert: false });
    expect((await controlApi(emu, 'GET', '/callback-queries/nope')).status).toBe(404);

    const commands = [{ command: 'start', description: 'Открыть игру' }];
    await callApi(emu, 'setMyCommands', { commands: JSON.stringify(commands), language_code: 'ru' }, { encoding: 'form' });
    const menu = await controlApi<{ commands: unknown[] }>(emu, 'GET', '/commands');
    expect(menu.body.commands).toEqual([{ scope: 'default', languageCode: 'ru', commands }]);
  });

  it("accepts the project's snake_case field names (user_id, first_name, chat_id) besides camelCase", async () => {
    const user = await controlApi<UserView>(emu, 'POST', '/users', { id: 7002, first_name: 'Sn', started: true });
    expect(user.body.user).toEqual({ id: 7002, is_bot: false, first_name: 'Sn' });
    const chat = await controlApi<{ id: number }>(emu, 'POST', '/chats', { type: 'supergroup', title: 'S' });
    const joined = await controlApi<{ member: { status: string } }>(emu, 'POST', '/join', { chat_id: chat.body.id, user_id: 7002 });
    expect(joined.body.member.status).toBe('member');
    expect((await controlApi(emu, 'POST', '/messages', { user_id: 7002, text: 'snake' })).status).toBe(200);
    const messages = await controlApi<unknown[]>(emu, 'GET', '/messages?chat_id=7002&direction=to_bot');
    expect(messages.body).toHaveLength(1);
    expect((await controlApi(emu, 'GET', '/star-refunds?user_id=7002')).status).toBe(200);
    expect((await controlApi(emu, 'GET', '/star-refunds?user_id=x')).status).toBe(400);
    const twice = await controlApi<{ error: string }>(emu, 'POST', '/messages', { user_id: 7002, userId: 7002, text: 'x' });
    expect(twice.status).toBe(400);
    expect(twice.body.error).toContain('userId is given twice');
  });

  it('support-refund refunds a charge outside the bot and delivers refunded_payment once; 404 unknown, 409 again', async () => {
    emu.control.createUser({ id: 7003, firstName: 'Re', started: true });
    const { telegramPaymentChargeId: charge } = emu.control.unforwardedCharge({ userId: 7003, amount: 25, payload: 'order-9' });
    const done = await controlApi<{ message: { chat: { id: number }; refunded_payment: unknown }; update: { queued: boolean } }>(
      emu,
      'POST',
      `/star-transactions/${charge}/support-refund`,
    );
    expect(done.status).toBe(200);
    expect(done.body.update.queued).toBe(true);
    expect(done.body.message.chat.id).toBe(7003);
    expect(done.body.message.refunded_payment).toEqual({
      currency: 'XTR',
      total_amount: 25,
      invoice_payload: 'order-9',
      telegram_payment_charge_id: charge,
      provider_payment_charge_id: '',
    });
    expect(emu.control.starRefunds({ userId: 7003 }).map((r) => r.telegramPaymentChargeId)).toEqual([charge]);
    expect((await controlApi(emu, 'POST', `/star-transactions/${charge}/support-refund`)).status).toBe(409);
    expect((await controlApi(emu, 'POST', '/star-transactions/nope/support-refund')).status).toBe(404);
    const pending = emu.control.state().bots[0]?.pendingUpdates.filter((u) => u.message?.refunded_payment !== undefined);
    expect(pending).toHaveLength(1);
  });

  it('creates users and chats, joins, injects updates and shows the state', async () => {
    const user = await controlApi<UserView>(emu, 'POST', '/users', { id: 7001, firstName: 'Cy', started: true });
    expect(user).toEqual({
      status: 200,
      body: { user: { id: 7001, is_bot: false, first_name: 'Cy' }, started: true, blocked: false },
    });
    const chat = await controlApi<{ id: number }>(emu, 'POST', '/chats', { type: 'supergroup', title: 'G' });
    expect(chat.body.id).toBeLessThan(-1_000_000_000_000);
    const joined = await controlApi<{ member: { status: string } }>(emu, 'POST', '/join', {
      chatId: chat.body.id,
      userId: 7001,
    });
    expect(joined.body.member.status).toBe('member');
    const injected = await controlApi<{ queued: boolean; update_id: number }>(emu, 'POST', '/updates', {
      message: { message_id: 1, text: 'raw' },
    });
    expect(injected.body.queued).toBe(true);
    const wrote = await controlApi(emu, 'POST', '/messages', { userId: 7001, text: 'hello bot' });
    expect(wrote.status).toBe(200);

    const state = await controlApi<StateSnapshot>(emu, 'GET', '/state');
    expect(state.body.users).toHaveLength(1);
    expect(state.body.chats[0]?.members).toEqual([{ status: 'member', user: { id: 7001, is_bot: false, first_name: 'Cy' } }]);
    expect(state.body.bots[0]?.pendingUpdates).toHaveLength(2);
    expect(JSON.stringify(state.body)).not.toContain('dev-bot-token');

    const messages = await controlApi<unknown[]>(emu, 'GET', `/messages?chatId=7001&direction=to_bot`);
    expect(messages.body).toHaveLength(1);
  });

  it('reads and clears the call log', async () => {
    await callApi(emu, 'getMe');
    const calls = await controlApi<{ method: string; status: number }[]>(emu, 'GET', '/calls?method=getMe');
    expect(calls.body.map((c) => [c.method, c.status])).toEqual([['getMe', 200]]);
    expect((await controlApi(emu, 'DELETE', '/calls')).status).toBe(200);
    expect((await controlApi<unknown[]>(emu, 'GET', '/calls')).body).toEqual([]);
  });

  it('resets everything', async () => {
    await controlApi(emu, 'POST', '/users', {});
    await controlApi(emu, 'POST', '/faults', { status: 500, times: 5 });
    expect((await controlApi(emu, 'POST', '/reset')).status).toBe(200);
    const state = await controlApi<StateSnapshot>(emu, 'GET', '/state');
    expect(state.body.users).toEqual([]);
    expect(state.body.faults).toEqual([]);
  });

  it('answers 400 for bad input, 404 for unknown routes and entities, 405 for a wrong verb', async () => {
    const bad = await controlApi<{ error: string }>(emu, 'POST', '/chats', { type: 'planet' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^type: /);
    expect((await controlApi(emu, 'POST', '/join', { chatId: -5, userId: 1 })).status).toBe(404);
    expect((await controlApi(emu, 'GET', '/nothing')).status).toBe(404);
    expect((await controlApi(emu, 'GET', '/reset')).status).toBe(405);
    const notJson = await fetch(`${emu.url}/_control/users`, { method: 'POST', body: '{' });
    expect(notJson.status).toBe(400);
  });
});
