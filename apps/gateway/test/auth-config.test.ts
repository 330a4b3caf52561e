import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@wordgame/config';
import { createLogger } from '@wordgame/logging';
import { ensureDevCerts } from '@wordgame/testkit';
import { buildGateway } from '../src/app.js';
import { inflightGraceMs, loadGatewayConfig } from '../src/config.js';
import { call } from './support/edge.js';
import { startRecordingBackend } from './support/recording-backend.js';
import { REQUIRED_TEST_ENV, testGatewayConfig, testGatewayConfigEnv } from './support/gateway-config.js';

describe('operator API and session cache configuration', () => {
  it('refuses a bad GATEWAY_SESSION_CACHE_MS naming it; no static operator token exists any more', () => {
    let problems: readonly string[] = [];
    try {
      loadGatewayConfig({ ...REQUIRED_TEST_ENV, GATEWAY_SESSION_CACHE_MS: '-1' });
    } catch (err: unknown) {
      if (err instanceof ConfigError) problems = err.problems;
    }
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['GATEWAY_SESSION_CACHE_MS']);
    expect(loadGatewayConfig(REQUIRED_TEST_ENV)).toMatchObject({ GATEWAY_SESSION_CACHE_MS: 5000 });
    expect(Object.keys(loadGatewayConfig(REQUIRED_TEST_ENV))).not.toContain('GATEWAY_OPERATOR_TOKEN');
  });

  it('refuses a drain delay that leaves the stop grace no room for in-flight requests and NATS; derives the in-flight grace', () => {
    const config = (env: Record<string, string>) => loadGatewayConfig({ ...REQUIRED_TEST_ENV, ...env });
    const problems = (env: Record<string, string>) => {
      try {
        config(env);
      } catch (err: unknown) {
        if (err instanceof ConfigError) return err.problems.join('\n');
        throw err;
      }
      return '';
    };
    expect(problems({ GATEWAY_DRAIN_DELAY_MS: '7501' })).toMatch(
      /GATEWAY_DRAIN_DELAY_MS: must leave at least 2500 ms of GATEWAY_STOP_GRACE_MS/,
    );
    expect(problems({ GATEWAY_DRAIN_DELAY_MS: '7500' })).toBe('');
    expect(problems({ GATEWAY_DRAIN_DELAY_MS: '20000', GATEWAY_STOP_GRACE_MS: '25000' })).toBe('');
    // Default grace 10 s: drain 3 s (compose's rolling deploy) leaves the full 5 s; drain 5 s leaves 3.5 s.
    expect(inflightGraceMs(config({ GATEWAY_DRAIN_DELAY_MS: '3000' }))).toBe(5_000);
    expect(inflightGraceMs(config({ GATEWAY_DRAIN_DELAY_MS: '5000' }))).toBe(3_500);
    expect(inflightGraceMs(config({ GATEWAY_DRAIN_DELAY_MS: '7500' }))).toBe(1_000);
    expect(config({}).GATEWAY_STOP_GRACE_MS).toBe(10_000);
  });

  it('needs both service tokens (32+ characters, one per direction) and a valid BOTLINK_ALLOWED_CLIENTS, never echoing a token', () => {
    const problemsOf = (env: Record<string, string>) => {
      try {
        loadGatewayConfig(env);
      } catch (err: unknown) {
        if (err instanceof ConfigError) return err.problems.join('\n');
        throw err;
      }
      return '';
    };
    expect(problemsOf({})).toMatch(
      /BACKEND_SERVICE_TOKEN: .*\(missing\)[\s\S]*GATEWAY_INTERNAL_TOKEN: .*\(missing\)[\s\S]*BOTLINK_ALLOWED_CLIENTS: .*\(missing\)/,
    );
    const short = problemsOf({ ...REQUIRED_TEST_ENV, GATEWAY_INTERNAL_TOKEN: 'too-short-internal' });
    expect(short).toMatch(/GATEWAY_INTERNAL_TOKEN: must be at least 32 characters/);
    expect(short).not.toContain('too-short-internal');
    const same = REQUIRED_TEST_ENV['BACKEND_SERVICE_TOKEN'] ?? '';
    expect(problemsOf({ ...REQUIRED_TEST_ENV, GATEWAY_INTERNAL_TOKEN: same })).toMatch(/GATEWAY_INTERNAL_TOKEN: must differ/);
    expect(problemsOf({ ...REQUIRED_TEST_ENV, BOTLINK_ALLOWED_CLIENTS: 'bot,,x' })).toMatch(
      /BOTLINK_ALLOWED_CLIENTS: must be comma-separated/,
    );
    expect(loadGatewayConfig({ ...REQUIRED_TEST_ENV, BOTLINK_ALLOWED_CLIENTS: 'bot-1, bot-2.example' }).BOTLINK_ALLOWED_CLIENTS).toEqual([
      'bot-1',
      'bot-2.example',
    ]);
  });

  it('needs the policy links PRIVACY_POLICY_URL and TERMS_OF_SERVICE_URL, https only, with no default: a missing one fails start naming it', () => {
    const problemsOf = (env: Record<string, string>) => {
      try {
        loadGatewayConfig(env);
      } catch (err: unknown) {
        if (err instanceof ConfigError) return err.problems.join('\n');
        throw err;
      }
      return '';
    };
    const { PRIVACY_POLICY_URL: _privacy, TERMS_OF_SERVICE_URL: _terms, ...withoutLinks } = REQUIRED_TEST_ENV;
    expect(problemsOf(withoutLinks)).toMatch(/PRIVACY_POLICY_URL: .*\(missing\)[\s\S]*TERMS_OF_SERVICE_URL: .*\(missing\)/);
    expect(problemsOf({ ...withoutLinks, PRIVACY_POLICY_URL: 'https://example.org/privacy' })).toMatch(/^TERMS_OF_SERVICE_URL: /);
    expect(problemsOf({ ...REQUIRED_TEST_ENV, TERMS_OF_SERVICE_URL: 'http://example.org/terms' })).toMatch(
      /TERMS_OF_SERVICE_URL: must be a URL \(https:\)/,
    );
    expect(problemsOf({ ...REQUIRED_TEST_ENV, PRIVACY_POLICY_URL: 'privacy.html' })).toMatch(/PRIVACY_POLICY_URL: must be a URL/);
    const config = loadGatewayConfig({
      ...REQUIRED_TEST_ENV,
      PRIVACY_POLICY_URL: 'https://example.org/p',
      TERMS_OF_SERVICE_URL: 'https://example.org/t',
    });
    expect([config.PRIVACY_POLICY_URL, config.TERMS_OF_SERVICE_URL]).toEqual(['https://example.org/p', 'https://example.org/t']);
  });

  it('marks console cookies Secure unless configured otherwise', async () => {
    expect(loadGatewayConfig(REQUIRED_TEST_ENV).GATEWAY_CONSOLE_SECURE_COOKIE).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'gw-cookie-'));
    const certs = ensureDevCerts(dir);
    const backend = await startRecordingBackend();
    const secureByDefault = loadGatewayConfig({ ...testGatewayConfigEnv(certs), BACKEND_URL: backend.url });
    const gateway = buildGateway(secureByDefault, createLogger('gateway-test', 'silent'));
    try {
      const { httpUrl } = await gateway.start();
      const res = await fetch(`${httpUrl}/_gm/login`);
      expect(res.headers.getSetCookie().length).toBeGreaterThan(0);
      for (const cookie of res.headers.getSetCookie()) expect(cookie).toMatch(/; Secure(;|$)/);
    } finally {
      await gateway.stop();
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the built gateway passes the operator session token to the backend, which judges it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-op-'));
    const certs = ensureDevCerts(dir);
    const backend = await startRecordingBackend();
    const gateway = buildGateway(
      testGatewayConfig(certs, {
        BACKEND_URL: backend.url,
      }),
      createLogger('gateway-test', 'silent'),
    );
    try {
      const { httpUrl } = await gateway.start();
      const none = await call(`${httpUrl}/_gm/api/catalog/products`);
      expect(none).toMatchObject({ status: 401, body: { error: { code: 'operator_unauthenticated' } } });
      const named = await call(`${httpUrl}/_gm/api/catalog/products`, { headers: { authorization: 'Bearer an-operator-session' } });
      expect(named).toMatchObject({ status: 200, body: { products: [] } });
      expect(backend.callsTo('ListProducts').map((c) => c.headers['x-operator-session'])).toEqual(['an-operator-session']);
    } finally {
      await gateway.stop();
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
