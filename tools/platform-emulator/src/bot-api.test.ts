import { type PlatformEmulator, type TgBotUser } from './index.js';
import { callApi, startCheckedEmulator } from './test-helpers.js';

const TOKEN = '123456:test-token';
let emu: PlatformEmulator;

beforeAll(async () => {
  emu = await startCheckedEmulator({ tokens: [TOKEN, 'second-token'] });
});
afterAll(() => emu.stop());
beforeEach(() => emu.control.reset());

describe('Bot API envelope', () => {
  it('answers 401 Unauthorized for an unknown token', async () => {
    const answer = await callApi(emu, 'getMe', {}, { token: 'nope' });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
  });

  it('answers 404 Not Found for an unknown method or path', async () => {
    const answer = await callApi(emu, 'sendTelepathy');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ ok: false, error_code: 404, description: 'Not Found' });
    const res = await fetch(`${emu.apiRoot}/somewhere`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ ok: false, error_code: 404, description: 'Not Found' });
  });

  it('serves getMe with the id from the token, method names case-insensitively', async () => {
    const answer = await callApi<TgBotUser>(emu, 'GETME');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.body.ok).toBe(true);
    expect(answer.body.result).toMatchObject({ id: 123456, is_bot: true, username: 'emulator_bot' });
  });

  it('gives each token its own bot', async () => {
    const second = await callApi<TgBotUser>(emu, 'getMe', {}, { token: 'second-token' });
    expect(second.body.result?.username).toBe('emulator_2_bot');
    expect(second.body.result?.id).not.toBe(123456);
  });

  it('reads parameters from JSON, urlencoded forms and query strings alike', async () => {
    emu.control.createUser({ id: 42, started: true });
    for (const encoding of ['json', 'form', 'query'] as const) {
      const answer = await callApi(emu, 'sendMessage', { chat_id: 42, text: `via ${encoding}` }, { encoding });
      expect(answer.body).toMatchObject({ ok: true, result: { text: `via ${encoding}`, chat: { id: 42 } } });
    }
  });

  it('answers 400 for a JSON body that does not parse', async () => {
    const res = await fetch(`${emu.apiRoot}/bot${TOKEN}/getMe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{nope',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ ok: false, error_code: 400, description: "Bad Request: can't parse JSON object" });
  });

  it('answers deleteWebhook and getWebhookInfo as a bot without a webhook', async () => {
    emu.control.injectUpdate({ message: { text: 'x' } });
    expect((await callApi(emu, 'getWebhookInfo')).body.result).toEqual({
      url: '',
      has_custom_certificate: false,
      pending_update_count: 1,
    });
    expect((await callApi(emu, 'deleteWebhook', { drop_pending_updates: true })).body).toEqual({ ok: true, result: true });
    expect((await callApi(emu, 'getUpdates')).body.result).toEqual([]);
  });
});

describe('call log', () => {
  it('records every call with method, params, status and outcome, and can be cleared', async () => {
    await callApi(emu, 'getMe');
    await callApi(emu, 'sendMessage', { chat_id: 1, text: 'hi' });
    await callApi(emu, 'getMe', {}, { token: 'bad' });
    const calls = emu.control.calls();
    expect(calls.map((c) => [c.method, c.status, c.ok])).toEqual([
      ['getMe', 200, true],
      ['sendMessage', 400, false],
      ['getMe', 401, false],
    ]);
    expect(calls[1]).toMatchObject({
      params: { chat_id: 1, text: 'hi' },
      description: 'Bad Request: chat not found',
      outcome: 'answered',
      botId: 123456,
    });
    expect(calls[2]?.botId).toBeNull();
    expect(emu.control.calls('sendmessage')).toHaveLength(1);
    emu.control.clearCalls();
    expect(emu.control.calls()).toEqual([]);
  });
});
