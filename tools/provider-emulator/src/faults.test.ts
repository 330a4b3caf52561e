import type { ProviderEmulator } from './index.js';
import { client, control, nextKey, paymentBody, SHOP_A, startEmulator } from './test-support.js';

let emulator: ProviderEmulator;

beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.stop());
beforeEach(() => emulator.control.reset());

/** Waits (without timing anything) until the emulator has seen `count` /v3 requests. */
async function seenRequests(target: ProviderEmulator, count: number): Promise<void> {
  while (target.control.requests().length < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('fault injection', () => {
  it('answers 500 for the next matching request only', async () => {
    const fault = await control(emulator, '/faults', { pathPrefix: '/v3/payments', method: 'POST', status: 500, times: 1 });
    expect(fault.json).toMatchObject({ id: expect.any(String) as unknown, remaining: 1 });
    const failed = await client(emulator).post('/payments', paymentBody());
    expect(failed.status).toBe(500);
    expect(failed.json).toMatchObject({ type: 'error', code: 'internal_server_error' });
    expect(emulator.control.payments()).toHaveLength(0);
    expect((await client(emulator).post('/payments', paymentBody())).status).toBe(200);
    expect((await control(emulator, '/faults', undefined, 'GET')).json).toEqual([]);
  });

  it('matches by method and path prefix', async () => {
    emulator.control.addFault({ method: 'GET', status: 429 });
    const created = await client(emulator).post('/payments', paymentBody());
    expect(created.status).toBe(200);
    const read = await client(emulator).get(`/payments/${String(created.json.id)}`);
    expect(read).toMatchObject({ status: 429, json: { code: 'too_many_requests' } });
    emulator.control.clearFaults();
    emulator.control.addFault({ pathPrefix: '/v3/refunds', status: 403 });
    expect((await client(emulator).get(`/payments/${String(created.json.id)}`)).status).toBe(200);
    expect((await client(emulator).get('/refunds/x')).json).toMatchObject({ code: 'forbidden' });
    expect((await control(emulator, '/faults', undefined, 'DELETE')).status).toBe(200);
    expect(emulator.control.faults()).toEqual([]);
  });

  it('can apply the operation behind a 500, so a retry with the same key gets the result', async () => {
    emulator.control.addFault({ status: 500, applied: true, times: 1 });
    const key = nextKey();
    const failed = await client(emulator).post('/payments', paymentBody(), key);
    expect(failed.status).toBe(500);
    const [stored] = emulator.control.payments();
    const retried = await client(emulator).post('/payments', paymentBody(), key);
    expect(retried).toMatchObject({ status: 200, json: { id: stored?.payment.id } });
    expect(emulator.control.requests().map((r) => [r.status, r.fault, r.replayed])).toEqual([
      [500, 'error', false],
      [200, null, true],
    ]);
  });

  it('holds a request for delayMs, then answers it', async () => {
    emulator.control.addFault({ status: 'timeout', delayMs: 20, times: 1 });
    const answer = await client(emulator).post('/payments', paymentBody());
    expect(answer.status).toBe(200);
    expect(emulator.control.requests()[0]).toMatchObject({ status: 200, fault: 'timeout' });
  });

  it('holds a request until released, then drops the connection unanswered', async () => {
    await control(emulator, '/faults', { status: 'timeout', applied: true, times: 1 });
    const key = nextKey();
    const held = client(emulator).post('/payments', paymentBody(), key);
    await seenRequests(emulator, 1);
    expect(emulator.control.requests()[0]).toMatchObject({ status: null, fault: 'timeout' });
    expect((await control(emulator, '/faults/release')).json).toEqual({ released: 1 });
    await expect(held).rejects.toThrow();
    // applied: the payment exists, and retrying with the key returns it
    const retried = await client(emulator).post('/payments', paymentBody(), key);
    expect(retried.json.id).toBe(emulator.control.payments()[0]?.payment.id);
  });

  it('releases held requests when the emulator stops', async () => {
    const own = await startEmulator();
    own.control.addFault({ status: 'timeout' });
    const held = [client(own).post('/payments', paymentBody()), client(own).get('/payments/x')];
    await seenRequests(own, 2);
    await own.stop();
    for (const request of held) await expect(request).rejects.toThrow();
    expect(own.control.requests().map((r) => r.status)).toEqual([null, null]);
    expect(own.control.payments()).toHaveLength(0);
  });

  it('validates fault specs', async () => {
    expect((await control(emulator, '/faults', { status: 418 })).status).toBe(400);
    expect((await control(emulator, '/faults', { status: 500, times: 0 })).status).toBe(400);
    expect(() => emulator.control.addFault({ status: 'timeout', delayMs: -1 })).toThrow('delayMs');
  });
});

describe('request log', () => {
  it('records method, path, shop, key, status and replays, but no secrets', async () => {
    const key = nextKey();
    await client(emulator).post('/payments', paymentBody(), key);
    await client(emulator).post('/payments', paymentBody(), key);
    await fetch(`${emulator.apiUrl}/payments/x`);
    const log = await control(emulator, '/requests', undefined, 'GET');
    expect(log.json).toEqual([
      {
        seq: 1,
        at: expect.any(String) as unknown,
        method: 'POST',
        path: '/v3/payments',
        shopId: 'shop-a',
        idempotenceKey: key,
        status: 200,
        replayed: false,
        fault: null,
      },
      {
        seq: 2,
        at: expect.any(String) as unknown,
        method: 'POST',
        path: '/v3/payments',
        shopId: 'shop-a',
        idempotenceKey: key,
        status: 200,
        replayed: true,
        fault: null,
      },
      {
        seq: 3,
        at: expect.any(String) as unknown,
        method: 'GET',
        path: '/v3/payments/x',
        shopId: null,
        idempotenceKey: null,
        status: 401,
        replayed: false,
        fault: null,
      },
    ]);
    const text = JSON.stringify(log.json);
    expect(text).not.toContain(SHOP_A.secretKey);
    expect(text).not.toContain('Basic');

    expect((await control(emulator, '/requests', undefined, 'DELETE')).status).toBe(200);
    expect(emulator.control.requests()).toEqual([]);
  });

  it('does not log control calls', async () => {
    await control(emulator, '/payments', undefined, 'GET');
    expect(emulator.control.requests()).toEqual([]);
  });
});
