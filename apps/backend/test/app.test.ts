import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import { buildBackend, type BackendApp } from '../src/app.js';
import { ConfigError } from '@wordgame/config';
import { inflightGraceMs, loadBackendConfig } from '../src/config/index.js';
import { freshDatabase, natsUserKeys, TEST_SERVICE_TOKENS, type FreshDatabase } from '@wordgame/testkit';
import { backendTransport } from './support/harness.js';

const logger = createLogger('backend-test', 'silent');
/** A database URL for the config-only checks below (nothing connects to it). */
const A_DATABASE = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/unused' };

describe('backend service', () => {
  let app: BackendApp;
  let url: string;
  let database: FreshDatabase;

  beforeAll(async () => {
    database = await freshDatabase('app');
    app = buildBackend(
      loadBackendConfig({ ...TEST_SERVICE_TOKENS, BACKEND_PORT: '0', BACKEND_METRICS_PORT: '0', DATABASE_URL: database.url }),
      logger,
    );
    ({ url } = await app.start());
  });
  afterAll(async () => {
    await app.stop();
    await database.drop();
  });

  it('answers SystemService.Check over Connect on h2c with a FlatBuffers body', async () => {
    const client = createClient(backendApi.SystemService, backendTransport(url));
    const res = await client.check({ body: encodeTable((b) => fb.CheckRequest.createCheckRequest(b)) });
    const status = decodeTable(
      res.body,
      (bb) => fb.CheckResponse.getRootAsCheckResponse(bb),
      (t) => ({
        status: t.status(),
        database: t.database(),
        latency: t.databaseLatencyUs(),
      }),
    );
    expect(status.status).toBe('ok');
    expect(status.database).toBe('postgres');
    expect(status.latency).toBeGreaterThanOrEqual(0n);
  });

  it('refuses a malformed FlatBuffers body with InvalidArgument', async () => {
    const client = createClient(backendApi.SystemService, backendTransport(url, '1.1'));
    await expect(client.check({ body: new Uint8Array([1, 2, 3]) })).rejects.toMatchObject({ code: 3 });
    await expect(client.check({ body: new Uint8Array([255, 255, 255, 127, 0, 0, 0, 0, 0]) })).rejects.toMatchObject({ code: 3 });
  });

  it('serves GET /health over HTTP/1.1 without a token, and a JSON 404 elsewhere to the gateway', async () => {
    const res = await fetch(`${url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', database: 'postgres' });
    expect((await fetch(`${url}/nope`)).status).toBe(401);
    const missing = await fetch(`${url}/nope`, { headers: { authorization: `Bearer ${TEST_SERVICE_TOKENS.BACKEND_SERVICE_TOKEN}` } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'not_found', message: 'no such route' } });
  });
});

describe('backend main', () => {
  const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
  const tsx = fileURLToPath(new URL('../../../node_modules/tsx/dist/cli.mjs', import.meta.url));

  it('exits non-zero naming a bad variable', () => {
    const run = spawnSync(process.execPath, [tsx, main], {
      env: { ...process.env, BACKEND_PORT: 'abc', DATABASE_URL: 'mysql://x' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/BACKEND_PORT: must be a port number/);
    expect(run.stderr).toMatch(/DATABASE_URL: must be a URL/);
  });

  it('refuses to start without DATABASE_URL: PostgreSQL is the one database', () => {
    expect(() => loadBackendConfig({ ...TEST_SERVICE_TOKENS })).toThrow(/DATABASE_URL: .*\(missing\)/);
  });

  it('refuses to start without both service tokens, with a short one, or with one token for both directions; never echoing them', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadBackendConfig({ ...A_DATABASE, ...env });
      } catch (err: unknown) {
        if (err instanceof ConfigError) return err.problems.join('\n');
        throw err;
      }
      return '';
    };
    expect(problems({})).toMatch(/BACKEND_SERVICE_TOKEN: .*\(missing\)[\s\S]*GATEWAY_INTERNAL_TOKEN: .*\(missing\)/);
    const short = problems({ ...TEST_SERVICE_TOKENS, BACKEND_SERVICE_TOKEN: 'short-secret-value' });
    expect(short).toMatch(/BACKEND_SERVICE_TOKEN: must be at least 32 characters/);
    expect(short).not.toContain('short-secret-value');
    const same = TEST_SERVICE_TOKENS.BACKEND_SERVICE_TOKEN;
    expect(problems({ BACKEND_SERVICE_TOKEN: same, GATEWAY_INTERNAL_TOKEN: same })).toMatch(
      /GATEWAY_INTERNAL_TOKEN: must differ from BACKEND_SERVICE_TOKEN/,
    );
    expect(problems({ ...TEST_SERVICE_TOKENS })).toBe('');
  });

  it('refuses NATS without an NKEY seed, with credentials in the URL, with mixed schemes or a CA for plain nats://; never echoing the seed', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadBackendConfig({ ...A_DATABASE, ...TEST_SERVICE_TOKENS, ...env });
      } catch (err: unknown) {
        if (err instanceof ConfigError) return err.problems.join('\n');
        throw err;
      }
      return '';
    };
    const seed = natsUserKeys().seed;
    expect(problems({ NATS_URL: 'nats://nats:4222' })).toMatch(/NATS_NKEY_SEED: required when NATS_URL is set/);
    expect(problems({ NATS_URL: 'nats://nats:4222', NATS_NKEY_SEED: `${seed}x` })).toMatch(
      /NATS_NKEY_SEED: must be an NKEY user seed .*<redacted>/,
    );
    const inUrl = problems({ NATS_URL: 'nats://backend:hunter2-secret@nats:4222', NATS_NKEY_SEED: seed });
    expect(inUrl).toMatch(/NATS_URL: must not carry credentials/);
    expect(inUrl).not.toContain('hunter2-secret');
    expect(problems({ NATS_URL: 'nats://a:4222,tls://b:4222', NATS_NKEY_SEED: seed })).toMatch(
      /NATS_URL: must be all nats:\/\/ or all tls:\/\//,
    );
    expect(problems({ NATS_URL: 'nats://a:4222', NATS_NKEY_SEED: seed, NATS_TLS_CA: '/ca.crt' })).toMatch(
      /NATS_TLS_CA: needs tls:\/\/ URLs/,
    );
    expect(problems({ NATS_URL: 'tls://a:4222,tls://b:4222', NATS_NKEY_SEED: seed, NATS_TLS_CA: '/ca.crt' })).toBe('');
    expect(problems({ NATS_NKEY_SEED: seed })).toBe('');
  });

  it('refuses a drain delay that leaves the stop grace no room for in-flight calls and closing; derives the in-flight grace', () => {
    const config = (env: Record<string, string>) => loadBackendConfig({ ...A_DATABASE, ...TEST_SERVICE_TOKENS, ...env });
    const problems = (env: Record<string, string>) => {
      try {
        config(env);
      } catch (err: unknown) {
        if (err instanceof ConfigError) return err.problems.join('\n');
        throw err;
      }
      return '';
    };
    expect(problems({ BACKEND_DRAIN_DELAY_MS: '8001' })).toMatch(
      /BACKEND_DRAIN_DELAY_MS: must leave at least 2000 ms of BACKEND_STOP_GRACE_MS/,
    );
    expect(problems({ BACKEND_DRAIN_DELAY_MS: '8000' })).toBe('');
    expect(problems({ BACKEND_DRAIN_DELAY_MS: '20000', BACKEND_STOP_GRACE_MS: '25000' })).toBe('');
    // Default grace 10 s: drain 2 s leaves the full 5 s; drain 5 s leaves 4 s; drain 8 s the 1 s floor.
    expect(inflightGraceMs(config({ BACKEND_DRAIN_DELAY_MS: '2000' }))).toBe(5_000);
    expect(inflightGraceMs(config({ BACKEND_DRAIN_DELAY_MS: '5000' }))).toBe(4_000);
    expect(inflightGraceMs(config({ BACKEND_DRAIN_DELAY_MS: '8000' }))).toBe(1_000);
    expect(config({}).BACKEND_STOP_GRACE_MS).toBe(10_000);
  });
});

describe('card shops (BACKEND_YOOKASSA_SHOPS)', () => {
  const shops = (value: string) =>
    loadBackendConfig({ ...A_DATABASE, ...TEST_SERVICE_TOKENS, BACKEND_YOOKASSA_SHOPS: value }).BACKEND_YOOKASSA_SHOPS;

  it('reads the currency each shop settles in, RUB unless named', () => {
    expect(shops('direct:s1:key-one:test,vk:s2:key-two:live:KZT')).toEqual({
      direct: { id: 's1', secretKey: 'key-one', test: true, currency: 'RUB' },
      vk: { id: 's2', secretKey: 'key-two', test: false, currency: 'KZT' },
    });
  });

  it.each(['GBP', 'rub', 'XTR', ''])('refuses a shop currency %p the card rail cannot settle, never echoing the key', (currency) => {
    let message = '';
    try {
      shops(`direct:s1:very-secret-key:live:${currency}`);
    } catch (err: unknown) {
      if (!(err instanceof ConfigError)) throw err;
      message = err.problems.join('\n');
    }
    expect(message).toMatch(/BACKEND_YOOKASSA_SHOPS: the currency of channel direct must be one of RUB, USD, EUR, KZT, BYN/);
    expect(message).not.toContain('very-secret-key');
  });
});

describe('backend probes', () => {
  it('answers /livez while the process serves and /readyz only while the database answers, both without a token', async () => {
    const database = await freshDatabase('probes');
    const app = buildBackend(
      loadBackendConfig({
        ...TEST_SERVICE_TOKENS,
        BACKEND_PORT: '0',
        BACKEND_METRICS_PORT: '0',
        DATABASE_URL: database.url,
        REAPER_INTERVAL_MS: '0',
        MODERATION_LAPSE_INTERVAL_MS: '0',
        STAR_REFUND_INTERVAL_MS: '0',
      }),
      logger,
    );
    const { url, db } = await app.start();
    try {
      expect((await fetch(`${url}/livez`)).status).toBe(200);
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ok', database: 'postgres' });
      await db.destroy();
      const notReady = await fetch(`${url}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toMatchObject({ status: 'degraded' });
      expect((await fetch(`${url}/livez`)).status).toBe(200);
    } finally {
      await app.stop().catch(() => undefined);
      await database.drop();
    }
  });
});
