import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, createPayment, nextKey, startEmulator } from './test-support.js';

describe('provider emulator state file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'provider-state-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps payments and refunds across a restart, so an earlier order can still be refunded', async () => {
    const file = join(dir, '.data/provider-emulator.json');
    const first = await startEmulator({ stateFile: file, autoNotify: false });
    const paymentId = await createPayment(first);
    await first.control.succeedPayment(paymentId);
    const partial = await client(first).post('/refunds', { payment_id: paymentId, amount: { value: '30.00', currency: 'RUB' } }, nextKey());
    expect(partial.status).toBe(200);
    const before = (await client(first).get(`/payments/${paymentId}`)).json;
    await first.stop();
    expect(existsSync(file)).toBe(true);

    const second = await startEmulator({ stateFile: file, autoNotify: false });
    try {
      expect((await client(second).get(`/payments/${paymentId}`)).json).toEqual(before);
      expect((await client(second).get(`/refunds/${String(partial.json.id)}`)).json).toEqual(partial.json);
      const rest = await client(second).post('/refunds', { payment_id: paymentId, amount: { value: '70.00', currency: 'RUB' } }, nextKey());
      expect(rest.status).toBe(200);
      expect((await client(second).get(`/payments/${paymentId}`)).json).toMatchObject({
        refunded_amount: { value: '100.00', currency: 'RUB' },
        refundable: false,
      });
    } finally {
      await second.stop();
    }
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ version: 1, payments: [{ refundedMinor: '10000' }] });
  });

  it('forgets everything without a state file (memory only)', async () => {
    const first = await startEmulator({ autoNotify: false });
    const paymentId = await createPayment(first);
    await first.stop();
    const second = await startEmulator({ autoNotify: false });
    try {
      expect((await client(second).get(`/payments/${paymentId}`)).status).toBe(404);
    } finally {
      await second.stop();
    }
  });
});
