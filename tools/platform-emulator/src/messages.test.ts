import { type PlatformEmulator, type TgMessage } from './index.js';
import { callApi, startCheckedEmulator } from './test-helpers.js';

let emu: PlatformEmulator;

beforeAll(async () => {
  emu = await startCheckedEmulator();
});
afterAll(() => emu.stop());
beforeEach(() => emu.control.reset());

const send = (params: Record<string, unknown>) => callApi<TgMessage>(emu, 'sendMessage', params);

describe('sendMessage', () => {
  it('answers chat not found for an unknown chat and chat_id is empty without one', async () => {
    expect((await send({ chat_id: 999, text: 'hi' })).body).toEqual({
      ok: false,
      error_code: 400,
      description: 'Bad Request: chat not found',
    });
    expect((await send({ text: 'hi' })).body.description).toBe('Bad Request: chat_id is empty');
  });

  it('answers 403 for a user who never started the bot, or blocked it', async () => {
    const user = emu.control.createUser({ id: 501 });
    const answer = await send({ chat_id: user.user.id, text: 'hi' });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({
      ok: false,
      error_code: 403,
      description: "Forbidden: bot can't initiate conversation with a user",
    });
    emu.control.createUser({ id: 501, started: true, blocked: true });
    expect((await send({ chat_id: 501, text: 'hi' })).body.description).toBe('Forbidden: bot was blocked by the user');
  });

  it('answers 400 for empty text', async () => {
    emu.control.createUser({ id: 502, started: true });
    for (const text of [undefined, '', '   ']) {
      expect((await send({ chat_id: 502, text })).body).toEqual({
        ok: false,
        error_code: 400,
        description: 'Bad Request: message text is empty',
      });
    }
    expect((await send({ chat_id: 502, text: 'x'.repeat(4097) })).body.description).toBe('Bad Request: message is too long');
  });

  it('returns the Message and records it, with an inline keyboard echoed', async () => {
    const user = emu.control.createUser({ id: 503, firstName: 'Ann', username: 'ann', started: true });
    const markup = { inline_keyboard: [[{ text: 'Play', callback_data: 'play' }]] };
    const answer = await send({ chat_id: 503, text: 'Welcome', reply_markup: markup, parse_mode: 'HTML' });
    expect(answer.status).toBe(200);
    expect(answer.body.result).toEqual({
      message_id: 1,
      from: { id: expect.any(Number) as number, is_bot: true, first_name: 'Emulated Bot', username: 'emulator_bot' },
      chat: { id: 503, type: 'private', first_name: 'Ann', username: 'ann' },
      date: expect.any(Number) as number,
      text: 'Welcome',
      reply_markup: markup,
    });
    expect((await send({ chat_id: '@ann', text: 'again' })).body.result?.message_id).toBe(2);
    const log = emu.control.messages({ chatId: user.user.id, direction: 'from_bot' });
    expect(log.map((m) => m.message.text)).toEqual(['Welcome', 'again']);
    expect(log[0]?.options).toMatchObject({ parse_mode: 'HTML', reply_markup: markup });
  });

  it('validates reply_markup like Telegram', async () => {
    emu.control.createUser({ id: 504, started: true });
    const cases: [unknown, string][] = [
      ['{oops', "Bad Request: can't parse reply keyboard markup JSON object"],
      [
        { inline_keyboard: [{ text: 'x' }] },
        'Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup should be an Array of Arrays',
      ],
      [
        { inline_keyboard: [[{ text: 'x' }]] },
        "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard",
      ],
      [{ inline_keyboard: [[{ text: 'x', callback_data: 'y'.repeat(65) }]] }, 'Bad Request: BUTTON_DATA_INVALID'],
    ];
    for (const [reply_markup, description] of cases) {
      expect((await send({ chat_id: 504, text: 'hi', reply_markup })).body.description).toBe(description);
    }
  });

  it('posts to a group the bot is in and refuses one it left', async () => {
    const group = emu.control.createChat({ type: 'supergroup', title: 'Words' });
    const answer = await send({ chat_id: group.id, text: 'Round 1' });
    expect(answer.body.result?.chat).toEqual({ id: group.id, type: 'supergroup', title: 'Words' });
    const gone = emu.control.createChat({ type: 'supergroup', botStatus: 'left' });
    expect((await send({ chat_id: gone.id, text: 'x' })).body).toEqual({
      ok: false,
      error_code: 403,
      description: 'Forbidden: bot is not a member of the supergroup chat',
    });
  });

  it('lets a user open the conversation by writing to the bot', async () => {
    const user = emu.control.createUser();
    const { message, updates } = emu.control.sendUserMessage({ userId: user.user.id, text: '/start' });
    expect(message.entities).toEqual([{ type: 'bot_command', offset: 0, length: 6 }]);
    expect(updates[0]?.queued).toBe(true);
    expect((await send({ chat_id: user.user.id, text: 'hello' })).status).toBe(200);
  });
});
