import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@wordgame/logging';
import { ensureDevCerts } from '@wordgame/testkit';
import { buildGateway, type GatewayApp } from '../src/app.js';
import { startStatusBackend } from './support/fake-backend.js';
import { testGatewayConfig } from './support/gateway-config.js';

const logger = createLogger('gateway-test', 'silent');

describe('gateway HTTP edge', () => {
  let dir: string;
  let backendStatus: 'ok' | 'degraded' = 'ok';
  let backend: Awaited<ReturnType<typeof startStatusBackend>>;
  let gateway: GatewayApp;
  let base: string;
  let metricsUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-'));
    const certs = ensureDevCerts(dir);
    backend = await startStatusBackend(() => backendStatus);
    gateway = buildGateway(
      testGatewayConfig(certs, {
        BACKEND_URL: backend.url,
      }),
      logger,
    );
    ({ httpUrl: base, metricsUrl } = await gateway.start());
  });
  afterAll(async () => {
    await gateway.stop();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('/health is 200 when the backend answers ok, 503 when it is degraded', async () => {
    backendStatus = 'ok';
    const ok = await fetch(`${base}/health`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ status: 'ok', backend: { status: 'ok', database: 'postgres' } });
    backendStatus = 'degraded';
    expect((await fetch(`${base}/health`)).status).toBe(503);
    backendStatus = 'ok';
  });

  it('/metrics serves Prometheus text on its own listener only; the public port answers 404', async () => {
    expect(new URL(metricsUrl).port).not.toBe(new URL(base).port);
    const hidden = await fetch(`${base}/metrics`);
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toEqual({ error: { code: 'not_found', message: 'no such route' } });
    expect((await fetch(new URL('/other', metricsUrl))).status).toBe(404);
    const res = await fetch(metricsUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    expect(await res.text()).toMatch(/^# HELP gateway_process_cpu_user_seconds_total/m);
  });

  it('answers unknown routes and malformed JSON with the error body', async () => {
    const missing = await fetch(`${base}/api/v1/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'not_found', message: 'no such route' } });
    const bad = await fetch(`${base}/api/v1/nope`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { code: 'malformed_json', message: 'request body is not valid JSON' } });
  });
});

describe('gateway without a backend', () => {
  it('/health is 503 when the backend is unreachable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-'));
    const certs = ensureDevCerts(dir);
    const gateway = buildGateway(testGatewayConfig(certs), logger);
    const { httpUrl } = await gateway.start();
    try {
      const res = await fetch(`${httpUrl}/health`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'degraded', backend: { status: 'unreachable' } });
    } finally {
      await gateway.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
