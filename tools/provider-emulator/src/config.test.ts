import { ConfigError } from '@wordgame/config';
import { loadConfig } from './config.js';

function problemsOf(source: Record<string, string>): string {
  try {
    loadConfig(source);
  } catch (err: unknown) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('has dev defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 8082,
      host: '127.0.0.1',
      shops: [{ shopId: 'dev-shop', secretKey: 'dev-secret', test: true }],
      webhookUrl: undefined,
      logLevel: 'info',
    });
  });

  it('parses several shops and a webhook URL', () => {
    const config = loadConfig({
      PROVIDER_EMULATOR_PORT: '0',
      PROVIDER_EMULATOR_SHOPS: 'a:key-a:test, b:key-b:live',
      PROVIDER_EMULATOR_WEBHOOK_URL: 'http://127.0.0.1:4000/webhooks/yookassa',
    });
    expect(config.port).toBe(0);
    expect(config.shops).toEqual([
      { shopId: 'a', secretKey: 'key-a', test: true },
      { shopId: 'b', secretKey: 'key-b', test: false },
    ]);
    expect(config.webhookUrl).toBe('http://127.0.0.1:4000/webhooks/yookassa');
  });

  it('names every bad variable together', () => {
    const message = problemsOf({ PROVIDER_EMULATOR_PORT: 'eighty', PROVIDER_EMULATOR_WEBHOOK_URL: 'nope', LOG_LEVEL: 'loud' });
    expect(message).toContain('PROVIDER_EMULATOR_PORT');
    expect(message).toContain('PROVIDER_EMULATOR_WEBHOOK_URL');
    expect(message).toContain('LOG_LEVEL');
  });

  it('rejects malformed shops without echoing their keys', () => {
    const message = problemsOf({ PROVIDER_EMULATOR_SHOPS: 'a:very-secret-key:prod,b:other-secret' });
    expect(message).toContain('PROVIDER_EMULATOR_SHOPS: entry 1');
    expect(message).toContain('PROVIDER_EMULATOR_SHOPS: entry 2');
    expect(message).not.toContain('very-secret-key');
    expect(message).not.toContain('other-secret');
    expect(problemsOf({ PROVIDER_EMULATOR_SHOPS: 'a:k1:test,a:k2:test' })).toContain('entry 2 repeats the shop id of an earlier entry');
  });
});
