import { type PlatformEmulator } from './index.js';
import { callApi, controlApi, startCheckedEmulator } from './test-helpers.js';

let emu: PlatformEmulator;
const token = 'fault-token';

beforeAll(async () => {
  emu = await startCheckedEmulator({ tokens: [token] });
});
afterAll(() => emu.stop());
beforeEach(() => emu.control.reset());

const rawGetMe = () => fetch(`${emu.apiRoot}/bot${token}/getMe`, { method: 'POST' });

describe('fault injection', () => {
  it('answers 429 with retry_after and a Retry-After header, for the next N calls only', async () => {
    emu.control.addFault({ method: 'getMe', status: 429, retryAfter: 7, times: 2 });
    for (let i = 0; i < 2; i += 1) {
      const answer = await callApi(emu, 'getMe');
      expect(answer.status).toBe(429);
      expect(answer.headers.get('retry-after')).toBe('7');
      expect(answer.body).toEqual({
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 7',
        parameters: { retry_after: 7 },
      });
    }
    expect((await callApi(emu, 'getMe')).status).toBe(200);
    expect(emu.control.faults()).toEqual([]);
  });

  it.each([500, 502])('answers %i with an HTML body', async (status) => {
    emu.control.addFault({ status });
    const res = await rawGetMe();
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('text/html');
    const text = await res.text();
    expect(text).toMatch(/^<html><body><h1>5\d\d [A-Za-z ]+<\/h1><\/body><\/html>$/);
    if (status === 502) expect(text).toBe('<html><body><h1>502 Bad Gateway</h1></body></html>');
    expect(emu.control.calls()[0]).toMatchObject({ status, faultId: expect.any(Number) as number });
  });

  it('answers 400 with the given description, prefixed as Telegram does', async () => {
    emu.control.addFault({ method: 'getMe', status: 400, description: 'chat not found' });
    emu.control.addFault({ method: 'getMe', status: 403, description: 'Forbidden: bot was blocked by the user' });
    expect((await callApi(emu, 'getMe')).body).toEqual({
      ok: false,
      error_code: 400,
      description: 'Bad Request: chat not found',
    });
    expect((await callApi(emu, 'getMe')).body).toEqual({
      ok: false,
      error_code: 403,
      description: 'Forbidden: bot was blocked by the user',
    });
  });

  it('drops the connection without an answer', async () => {
    emu.control.addFault({ method: 'getMe', drop: true });
    await expect(rawGetMe()).rejects.toThrow();
    expect((await callApi(emu, 'getMe')).status).toBe(200);
    expect(emu.control.calls()[0]).toMatchObject({ method: 'getMe', status: 0, outcome: 'dropped' });
  });

  it('delays a call that then proceeds normally', async () => {
    emu.control.addFault({ method: 'getMe', delayMs: 50 });
    const answer = await callApi(emu, 'getMe');
    expect(answer.body.ok).toBe(true);
    expect(emu.control.calls()[0]?.faultId).toBeDefined();
  });

  it('applies only to the named method; without a method to any', async () => {
    emu.control.addFault({ method: 'sendMessage', status: 502 });
    expect((await callApi(emu, 'getMe')).status).toBe(200);
    emu.control.clearFaults();
    emu.control.addFault({ status: 500 });
    expect((await rawGetMe()).status).toBe(500);
  });

  it('is registered over HTTP too, and a useless spec is refused', async () => {
    const added = await controlApi<{ id: number; remaining: number }>(emu, 'POST', '/faults', {
      method: 'getMe',
      status: 429,
      retryAfter: 1,
      times: 3,
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ remaining: 3 });
    expect((await controlApi<unknown[]>(emu, 'GET', '/faults')).body).toHaveLength(1);
    expect((await callApi(emu, 'getMe')).status).toBe(429);
    expect((await controlApi(emu, 'DELETE', '/faults')).status).toBe(200);
    expect((await callApi(emu, 'getMe')).status).toBe(200);
    const useless = await controlApi<{ error: string }>(emu, 'POST', '/faults', { method: 'getMe' });
    expect(useless.status).toBe(400);
    expect(useless.body.error).toMatch(/status, body, delayMs or drop/);
    const typo = await controlApi<{ error: string }>(emu, 'POST', '/faults', { stauts: 500 });
    expect(typo.status).toBe(400);
  });

  it.each([
    ['an HTML page', '<html><body>OK</body></html>', 'text/html'],
    ['an empty object', '{}', undefined],
    ['an empty body', '', undefined],
    ['a result of the wrong shape', '{"ok":true,"result":"abc"}', undefined],
  ])('answers 2xx with %s exactly as given, instead of the method', async (_name, body, contentType) => {
    emu.control.addFault({ method: 'getMe', body, ...(contentType ? { contentType } : {}) });
    const res = await rawGetMe();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(contentType ?? 'application/json');
    expect(await res.text()).toBe(body);
    expect(emu.control.calls('getMe')[0]).toMatchObject({ status: 200, outcome: 'answered', faultId: expect.any(Number) as number });
    expect((await callApi(emu, 'getMe')).body.ok).toBe(true);
  });

  it('answers a body fault with the 2xx status given, and refuses a body with an error status', async () => {
    emu.control.addFault({ method: 'getMe', body: 'accepted', status: 202, contentType: 'text/plain' });
    const res = await rawGetMe();
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('accepted');
    expect(() => emu.control.addFault({ body: '{}', status: 500 })).toThrow(/status must be 200-299/);
    expect(() => emu.control.addFault({ status: 200 })).toThrow(/a 2xx needs a body/);
    const overHttp = await controlApi<{ remaining: number }>(emu, 'POST', '/faults', {
      method: 'getUpdates',
      body: '<html></html>',
      status: 200,
    });
    expect(overHttp.status).toBe(200);
    expect(emu.control.faults()[0]).toMatchObject({ method: 'getUpdates', body: '<html></html>', status: 200 });
  });
});
