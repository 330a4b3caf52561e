import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@wordgame/logging';
import { ensureDevCerts } from '@wordgame/testkit';
import { buildGateway, type GatewayApp } from '../src/app.js';
import { freshDatabase, startBackendProcess, type BackendProcess, type FreshDatabase } from './support/backend-process.js';
import { call } from './support/edge.js';
import { testGatewayConfig } from './support/gateway-config.js';
import { createOperator, OPERATOR_PASSWORD } from './support/operator-api.js';

/** Small limits: the test proves each one through the real HTTP edge on real PostgreSQL. */
const LIMITS = {
  SIGNIN_MAX_FAILURES: '10',
  SIGNIN_ADDRESS_MAX_FAILURES: '15',
  ORDER_CREATE_MAX: '3',
  ORDER_CREATE_ADDRESS_MAX: '1000',
  CONFIRMATION_MAIL_MAX: '2',
  CONFIRMATION_MAIL_ADDRESS_MAX: '1000',
  CONFIRMATION_MAIL_RECIPIENT_MAX: '3',
};
const PASSWORD = 'right password 1';

describe('rate limits: sign-in, console sign-in, orders, confirmation mails per account and per recipient (two replicas on one database)', () => {
  let dir: string;
  let db: FreshDatabase;
  const backends: BackendProcess[] = [];
  const gateways: GatewayApp[] = [];
  /** a → backend 1 and b → backend 2 trust a loopback proxy (X-Forwarded-For picks the address); plain → backend 1 trusts none. */
  const url = { a: '', b: '', plain: '' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-limits-'));
    const certs = ensureDevCerts(dir);
    db = await freshDatabase();
    backends.push(await startBackendProcess(db.url, { ...LIMITS, REAPER_INTERVAL_MS: '0' }));
    backends.push(await startBackendProcess(db.url, { ...LIMITS, REAPER_INTERVAL_MS: '0' }));
    const start = async (backend: BackendProcess, env: Record<string, string>) => {
      const gw = buildGateway(
        testGatewayConfig(certs, { BACKEND_URL: backend.url, ...env }),
        createLogger('gateway-limits-test', 'silent'),
      );
      gateways.push(gw);
      return (await gw.start()).httpUrl;
    };
    const [one, two] = backends as [BackendProcess, BackendProcess];
    url.a = await start(one, { GATEWAY_TRUST_PROXY: 'loopback' });
    url.b = await start(two, { GATEWAY_TRUST_PROXY: 'loopback' });
    url.plain = await start(one, {});
  }, 120_000);
  afterAll(async () => {
    for (const gw of gateways) await gw.stop();
    for (const b of backends) await b.stop();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const from = (address: string, extra: Record<string, string> = {}) => ({ 'x-forwarded-for': address, ...extra });
  const direct = (base: string, headers: Record<string, string>, email: string, password: string, mode = 'signin') =>
    call(`${base}/api/v1/session/direct`, { method: 'POST', headers, json: { email, password, mode } });
  const expectLimited = (res: Awaited<ReturnType<typeof call>>) => {
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.body).toMatchObject({ error: { code: 'rate_limited' } });
    expect(JSON.stringify(res.body)).not.toMatch(/token/);
  };

  it('10 wrong direct passwords, then the right one: 429 with Retry-After and no session, on either replica and from any address', async () => {
    expect((await direct(url.a, from('10.1.0.1'), 'victim@limits.test', PASSWORD, 'signup')).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await direct(url.a, from('10.1.0.1'), 'victim@limits.test', `wrong guess ${i}`)).status).toBe(401);
    expectLimited(await direct(url.a, from('10.1.0.1'), 'victim@limits.test', PASSWORD));
    // The other replica shares the count; another address does not lift the per-login limit.
    expectLimited(await direct(url.b, from('10.1.0.1'), 'victim@limits.test', PASSWORD));
    expectLimited(await direct(url.b, from('10.1.0.2'), 'VICTIM@limits.test', PASSWORD));
    // Another login from the same address is still fine (the address has 13 of its 15 failures).
    expect((await direct(url.a, from('10.1.0.1'), 'other@limits.test', PASSWORD, 'signup')).status).toBe(200);
    expect((await direct(url.a, from('10.1.0.1'), 'other@limits.test', PASSWORD)).status).toBe(200);
  });

  it('one address guessing many logins is stopped per address across replicas; another address is not', async () => {
    expect((await direct(url.a, from('10.2.0.9'), 'owner@limits.test', PASSWORD, 'signup')).status).toBe(200);
    for (let i = 0; i < 15; i++) {
      const base = i % 2 === 0 ? url.a : url.b;
      expect((await direct(base, from('10.2.0.1'), `guess${i}@limits.test`, 'not the password')).status).toBe(401);
    }
    expectLimited(await direct(url.b, from('10.2.0.1'), 'owner@limits.test', PASSWORD));
    // A successful sign-in elsewhere does not unlock the address.
    expect((await direct(url.a, from('10.2.0.2'), 'owner@limits.test', PASSWORD)).status).toBe(200);
    expectLimited(await direct(url.a, from('10.2.0.1'), 'owner@limits.test', PASSWORD));
  });

  it('a client-sent x-client-address (or X-Forwarded-For without a trusted proxy) is ignored', async () => {
    expect((await direct(url.plain, {}, 'spoof-target@limits.test', PASSWORD, 'signup')).status).toBe(200);
    for (let i = 0; i < 15; i++) {
      const spoof = { 'x-client-address': `192.0.2.${i}`, 'x-forwarded-for': `198.51.100.${i}` };
      expect((await direct(url.plain, spoof, `spoof${i}@limits.test`, 'not the password')).status).toBe(401);
    }
    // Every guess counted against the socket address (127.0.0.1), whatever the headers said.
    expectLimited(await direct(url.plain, { 'x-client-address': '192.0.2.200' }, 'spoof-target@limits.test', PASSWORD));
    // Through a gateway that trusts the loopback proxy, the stated address is the forwarded one, never x-client-address.
    expectLimited(await direct(url.a, from('127.0.0.1', { 'x-client-address': '192.0.2.201' }), 'spoof-target@limits.test', PASSWORD));
  });

  it('console sign-in: 10 wrong passwords, then the right one is 429 "Too many attempts"; the lock-out is audited', async () => {
    expect(createOperator(db.url, 'locked@ops.test', 'viewer').status).toBe(0);
    const attempt = async (password: string) => {
      const form = await fetch(`${url.a}/_gm/login`, { headers: from('10.3.0.1') });
      const nonceCookie =
        form.headers
          .getSetCookie()
          .find((c) => c.startsWith('gm_login='))
          ?.split(';')[0] ?? '';
      const nonce = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
      return fetch(`${url.a}/_gm/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...from('10.3.0.1'), cookie: nonceCookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: nonce, login: 'locked@ops.test', password }).toString(),
      });
    };
    for (let i = 0; i < 10; i++) expect((await attempt(`wrong ${i}`)).status).toBe(401);
    const res = await attempt(OPERATOR_PASSWORD);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('gm_session='))).toBe(false);
    expect(await res.text()).toMatch(/Too many attempts; try again in \d+ minutes/);
    // The operator API shares the same limit (same backend method).
    const api = await call(`${url.b}/_gm/api/session`, {
      method: 'POST',
      headers: from('10.3.0.2'),
      json: { login: 'locked@ops.test', password: OPERATOR_PASSWORD },
    });
    expectLimited(api);
    const rows = await db.query<{ target: string; outcome: string }>(
      `select target, outcome from operator_audit where action = 'sign_in_locked'`,
    );
    expect(rows.rows).toEqual([{ target: 'locked@ops.test', outcome: 'locked' }]);
  });

  it('order creation is limited per account across replicas', async () => {
    const up = await direct(url.a, from('10.4.0.1'), 'buyer@limits.test', PASSWORD, 'signup');
    const token = (up.body as { token: string }).token;
    const order = (base: string) =>
      call(`${base}/api/v1/user/wallet/orders`, {
        method: 'POST',
        headers: { ...from('10.4.0.1'), authorization: `Bearer ${token}` },
        json: { product_id: '999999', rail: 'card' },
      });
    for (const base of [url.a, url.b, url.a]) expect((await order(base)).status).not.toBe(429);
    expectLimited(await order(url.b));
  });

  it('confirmation mails from e-mail changes are limited per account; a refused change sends nothing', async () => {
    const up = await direct(url.a, from('10.5.0.1'), 'mailer@limits.test', PASSWORD, 'signup');
    const token = (up.body as { token: string }).token;
    const change = (base: string, email: string) =>
      call(`${base}/api/v1/user/profile`, {
        method: 'PATCH',
        headers: { ...from('10.5.0.1'), authorization: `Bearer ${token}` },
        json: { email },
      });
    expect((await change(url.a, 'new1@limits.test')).status).toBe(200);
    expect((await change(url.b, 'new2@limits.test')).status).toBe(200);
    expectLimited(await change(url.a, 'new3@limits.test'));
    const mails = backends.flatMap((b) => readdirSync(b.mailDir).map((f) => readFileSync(join(b.mailDir, f), 'utf8')));
    expect(mails.filter((m) => m.includes('new3@limits.test'))).toHaveLength(0);
    expect(mails.filter((m) => /new[12]@limits\.test/.test(m))).toHaveLength(2);
  });

  it('confirmation mails per recipient: sign-up/delete rounds to one address stop mailing after the limit (429, no account); another address is not limited', async () => {
    const mailsTo = (email: string) =>
      backends
        .flatMap((b) => readdirSync(b.mailDir).map((f) => readFileSync(join(b.mailDir, f), 'utf8')))
        .filter((m) => m.includes(`\r\nTo: ${email}\r\n`)).length;
    const accountsWith = async (email: string) =>
      (await db.query<{ n: number }>('select count(*)::int as n from accounts where email = $1', [email])).rows[0]?.n;
    // Each round from another client address and alternating replicas: only the recipient's counter can stop it.
    const round = (i: number) => direct(i % 2 === 0 ? url.a : url.b, from(`10.6.0.${i}`), 'looped@limits.test', PASSWORD, 'signup');
    for (let i = 0; i < 3; i++) {
      const up = await round(i);
      expect(up.status).toBe(200);
      const token = (up.body as { token: string }).token;
      const deleted = await call(`${url.b}/api/v1/user/account`, {
        method: 'DELETE',
        headers: { ...from(`10.6.0.${i}`), authorization: `Bearer ${token}` },
      });
      expect(deleted.status).toBe(204);
    }
    // A deletion erases the dev mailbox's copies of the account's mail, so what is left is counted as a baseline.
    const kept = mailsTo('looped@limits.test');
    for (let i = 3; i < 6; i++) expectLimited(await round(i));
    // Refused before the account exists: no account holds the address, no fourth mail.
    expect(await accountsWith('looped@limits.test')).toBe(0);
    expect(mailsTo('looped@limits.test')).toBe(kept);

    // An e-mail change to the address counts against the same recipient's allowance.
    const other = await direct(url.a, from('10.6.1.1'), 'changer@limits.test', PASSWORD, 'signup');
    const change = await call(`${url.a}/api/v1/user/profile`, {
      method: 'PATCH',
      headers: { ...from('10.6.1.1'), authorization: `Bearer ${(other.body as { token: string }).token}` },
      json: { email: 'LOOPED@limits.test' },
    });
    expectLimited(change);
    expect(mailsTo('looped@limits.test')).toBe(kept);

    // Another address, from the same client addresses, is mailed as usual.
    expect((await direct(url.a, from('10.6.0.1'), 'bystander@limits.test', PASSWORD, 'signup')).status).toBe(200);
    expect(mailsTo('bystander@limits.test')).toBe(1);
  });
});
