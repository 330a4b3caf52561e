import { startProviderEmulator, type ProviderEmulator } from './index.js';

describe('provider emulator health routes', () => {
  let emulator: ProviderEmulator;
  beforeAll(async () => {
    emulator = await startProviderEmulator({ port: 0 });
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
