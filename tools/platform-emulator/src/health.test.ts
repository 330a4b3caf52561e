import { startCheckedEmulator } from './test-helpers.js';
import { type PlatformEmulator } from './index.js';

describe('platform emulator health routes', () => {
  let emulator: PlatformEmulator;
  beforeAll(async () => {
    emulator = await startCheckedEmulator({ port: 0 });
  });
  afterAll(async () => {
    await emulator.stop();
  });

  it.each(['/livez', '/readyz'])('GET %s answers 200 ok (it has no dependencies)', async (path) => {
    const res = await fetch(`${emulator.url}${path}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});
