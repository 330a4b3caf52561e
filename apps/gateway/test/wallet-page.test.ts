import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@wordgame/logging';
import { ensureDevCerts } from '@wordgame/testkit';
import { buildGateway, type GatewayApp } from '../src/app.js';
import { startStatusBackend } from './support/fake-backend.js';
import { testGatewayConfig } from './support/gateway-config.js';

const INDEX =
  '<!doctype html><html lang="ru"><title>wallet</title><script type="module" src="/wallet/assets/index-abc.js"></script></html>';
/** The page as served: the operator's policy links (the test config's) as escaped data attributes of `<html>`. */
const SERVED = INDEX.replace(
  '<html lang="ru">',
  '<html data-privacy-policy-url="https://wordgame.example/legal/privacy?lang=all&amp;v=2" data-terms-of-service-url="https://wordgame.example/legal/terms" lang="ru">',
);

describe('the wallet page at /wallet', () => {
  let dir: string;
  let backend: Awaited<ReturnType<typeof startStatusBackend>>;
  let gateway: GatewayApp;
  let unbuilt: GatewayApp;
  let base: string;
  let unbuiltBase: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-wallet-'));
    const certs = ensureDevCerts(dir);
    const site = join(dir, 'site');
    mkdirSync(join(site, 'assets'), { recursive: true });
    writeFileSync(join(site, 'index.html'), INDEX);
    writeFileSync(join(site, 'assets/index-abc.js'), 'console.log(1);');
    writeFileSync(join(dir, 'secret.txt'), 'outside the site');
    backend = await startStatusBackend(() => 'ok');
    gateway = buildGateway(testGatewayConfig(certs, { BACKEND_URL: backend.url, GATEWAY_WALLET_DIR: site }), createLogger('gw', 'silent'));
    unbuilt = buildGateway(
      testGatewayConfig(certs, { BACKEND_URL: backend.url, GATEWAY_WALLET_DIR: join(dir, 'missing') }),
      createLogger('gw', 'silent'),
    );
    base = (await gateway.start()).httpUrl;
    unbuiltBase = (await unbuilt.start()).httpUrl;
  });
  afterAll(async () => {
    await gateway.stop();
    await unbuilt.stop();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['/wallet', '/wallet/', '/wallet/return?order=1'])('serves the page at %s with the strict CSP, uncached', async (path) => {
    const res = await fetch(`${base}${path}`, { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toBe(SERVED);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp.split('; ')).toEqual(
      expect.arrayContaining(["default-src 'self'", "script-src 'self'", "style-src 'self'", "object-src 'none'", "base-uri 'none'"]),
    );
    expect(csp).toContain("frame-ancestors 'self' https://web.telegram.org https://vk.com https://*.vk.com https://vk.ru https://*.vk.ru");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*(?!\.vk)/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it("declares the language the page will show: the browser's first known one, else Russian (the page's default)", async () => {
    const langOf = async (accept: string | undefined) => {
      const res = await fetch(`${base}/wallet`, { headers: accept === undefined ? {} : { 'accept-language': accept } });
      return /<html\b[^>]*\blang="([a-z]+)">/.exec(await res.text())?.[1];
    };
    expect(await langOf('en-US,en;q=0.9')).toBe('en');
    expect(await langOf('fr-FR, en;q=0.5')).toBe('en');
    expect(await langOf('ru-RU')).toBe('ru');
    expect(await langOf('de-DE')).toBe('ru');
  });

  it('serves hashed assets for a year, and nothing outside the build or unknown', async () => {
    const asset = await fetch(`${base}/wallet/assets/index-abc.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-security-policy')).toContain("default-src 'self'");
    for (const path of ['/wallet/assets/nope.js', '/wallet/assets/..%2F..%2Fsecret.txt', '/wallet/other', '/wallet/index.html/x']) {
      const res = await fetch(`${base}${path}`);
      expect([path, res.status]).toEqual([path, 404]);
    }
  });

  it('leaves the mailed confirmation link to the confirmation page: no redirect into the wallet, and /wallet/confirm is gone', async () => {
    const link = await fetch(`${base}/api/v1/user/profile/confirm-email?token=tok_en-1`, {
      redirect: 'manual',
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(link.status).toBe(200);
    expect(link.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await link.text()).toContain('name="token" value="tok_en-1"');
    expect((await fetch(`${base}/wallet/confirm?token=tok_en-1`)).status).toBe(404);
  });

  it('is not mounted when the page is not built: /wallet is the JSON 404', async () => {
    const res = await fetch(`${unbuiltBase}/wallet`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'no such route' } });
  });
});
