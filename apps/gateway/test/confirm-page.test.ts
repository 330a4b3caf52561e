import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { confirmByPage, confirmForm, confirmOutcome, TEST_SERVICE_TOKENS } from '@wordgame/testkit';
import { ConfirmPageTokens, PAGE_TOKEN_TTL_SECONDS } from '../src/wallet-page/confirm-token.js';
import { startChain, type Chain } from './support/chain.js';
import { call } from './support/edge.js';

/** A request with exactly the headers given (fetch always adds an Accept header; a scanner may send none). */
function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The e-mail confirmation link through the real HTTP edge, a real backend process and PostgreSQL:
 * whatever fetches the link (a mail scanner, a preview, a browser) only sees a page; only the
 * page's own form, posted with its page token, confirms.
 */
describe('the e-mail confirmation page at the mailed link', () => {
  let chain: Chain;
  let api: string;
  beforeAll(async () => {
    chain = await startChain();
    api = `${chain.edge.url}/api/v1`;
  }, 90_000);
  afterAll(async () => {
    await chain?.stop();
  });

  /** Signs a direct player up with `email` and answers the mailed link pointed at this edge. */
  async function signUp(email: string): Promise<{ link: string; token: string; sessionToken: string }> {
    const up = await call(`${api}/session/direct`, { method: 'POST', json: { email, password: 'confirm password 1', mode: 'signup' } });
    expect(up.status).toBe(200);
    const mail = readdirSync(chain.backend.mailDir)
      .map((f) => readFileSync(join(chain.backend.mailDir, f), 'utf8'))
      .find((m) => m.includes(`\r\nTo: ${email}\r\n`));
    const token = /confirm-email\?token=([A-Za-z0-9_-]+)/.exec(mail ?? '')?.[1] ?? '';
    expect(token).not.toBe('');
    return { link: `${api}/user/profile/confirm-email?token=${token}`, token, sessionToken: (up.body as { token: string }).token };
  }

  const state = async (email: string) =>
    (
      await chain.db.query<{ confirmed: boolean; used: boolean }>(
        `select a.email_confirmed_at is not null as confirmed, c.used_at is not null as used
           from accounts a join email_confirmations c on c.account_id = a.id where c.email = $1`,
        [email],
      )
    ).rows;

  it('a GET with Accept */*, with no Accept, with text/html or JSON, and a HEAD only show the page: the address stays unconfirmed', async () => {
    const unconfirmed = [{ confirmed: false, used: false }];
    const fetches: [string, string, Record<string, string>][] = [
      ['*/*', 'GET', { accept: '*/*' }],
      ['no-accept', 'GET', {}],
      ['html', 'GET', { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }],
      ['json', 'GET', { accept: 'application/json' }],
      ['head', 'HEAD', {}],
      ['head-html', 'HEAD', { accept: 'text/html' }],
    ];
    // One address per kind of fetch, so each is judged on its own: the addresses first, then the pages.
    const outcomes = [];
    const pages = [];
    for (const [name, method, headers] of fetches) {
      const email = `scanned-${name.replace(/\W/g, '')}@example.test`;
      const { link, token } = await signUp(email);
      const res = await rawRequest(link, method, headers);
      outcomes.push([name, await state(email)]);
      pages.push([
        name,
        res.status,
        res.headers['content-type'],
        res.headers['cache-control'],
        method === 'HEAD' ? res.body : confirmOutcome(res.body).outcome,
        method === 'HEAD' || confirmForm(res.body, link)?.fields['token'] === token,
      ]);
    }
    // Through a redirect-following fetch too (what most link checkers are).
    const followed = await signUp('scanned-followed@example.test');
    expect((await fetch(followed.link)).status).toBe(200);
    outcomes.push(['followed', await state('scanned-followed@example.test')]);
    expect(outcomes).toEqual([...fetches.map(([name]) => [name, unconfirmed]), ['followed', unconfirmed]]);
    // Each shows the page (HEAD: its headers only) with the button for the mailed token.
    const html: unknown = expect.stringMatching(/^text\/html/);
    expect(pages).toEqual(fetches.map(([name, method]) => [name, 200, html, 'no-store', method === 'HEAD' ? '' : 'ready', true]));
  });

  it('the page loads nothing and runs nothing: its CSP allows its own inline style by hash, forms to itself, no framing', async () => {
    const { link } = await signUp('csp@example.test');
    const res = await fetch(link);
    const csp = res.headers.get('content-security-policy') ?? '';
    const style = /<style>([\s\S]*?)<\/style>/.exec(await res.text())?.[1] ?? '';
    expect(csp.split('; ')).toEqual([
      "default-src 'none'",
      `style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`,
      "form-action 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ]);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("a POST from the page's form confirms once; the profile shows the address confirmed; a second press says the link is used", async () => {
    const email = 'pressed@example.test';
    const { link, sessionToken } = await signUp(email);
    const confirmed = await confirmByPage(link, { 'accept-language': 'en-US,en;q=0.9' });
    expect(confirmed).toMatchObject({ status: 200, outcome: 'confirmed', message: `${email} is confirmed.` });
    expect(await state(email)).toEqual([{ confirmed: true, used: true }]);
    const profile = await call(`${api}/user/profile`, { headers: { authorization: `Bearer ${sessionToken}` } });
    expect(profile).toMatchObject({ status: 200, body: { email, email_confirmed: true, pending_email: null } });
    const again = await confirmByPage(link, { 'accept-language': 'en' });
    expect(again).toMatchObject({ status: 400, outcome: 'error' });
    expect(again.message).toContain('already used');
    // Words follow the browser's language, Russian by default.
    expect((await confirmByPage(link)).message).toContain('уже использована');
  });

  it('a POST without a page token, with a forged, expired or another link’s page token, or as the old JSON call is refused and changes nothing', async () => {
    const email = 'forged@example.test';
    const { link, token } = await signUp(email);
    const other = await signUp('other-link@example.test');
    const post = (fields: Record<string, string>) =>
      fetch(`${api}/user/profile/confirm-email`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
        body: new URLSearchParams(fields).toString(),
      });
    const genuine = confirmForm(await (await fetch(`${other.link}`)).text(), other.link)?.fields['page_token'] ?? '';
    const [expiry, mac] = genuine.split('.');
    const expired = new ConfirmPageTokens(
      TEST_SERVICE_TOKENS.BACKEND_SERVICE_TOKEN,
      () => Date.now() - (PAGE_TOKEN_TTL_SECONDS + 60) * 1000,
    ).mint(token);
    const wrongKey = new ConfirmPageTokens('a-secret-that-is-not-the-gateways-own-0123456789', Date.now).mint(token);
    const attempts: Record<string, string>[] = [
      { token },
      { token, page_token: '' },
      { token, page_token: 'forged' },
      { token, page_token: `${Number(expiry) + 60}.${mac ?? ''}` },
      { token, page_token: genuine },
      { token, page_token: expired },
      { token, page_token: wrongKey },
    ];
    for (const fields of attempts) {
      const res = await post(fields);
      expect([fields['page_token'], res.status]).toEqual([fields['page_token'], 403]);
      const html = await res.text();
      expect(confirmOutcome(html)).toEqual({ outcome: 'refused', message: expect.stringContaining('nothing was confirmed') as string });
      // The refusal offers the button afresh (a page token of its own), so one more press confirms.
      expect(confirmForm(html, link)?.fields['page_token']).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/);
    }
    const json = await fetch(`${api}/user/profile/confirm-email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(json.status).toBe(400);
    const query = await fetch(`${link}`, { method: 'POST' });
    expect(query.status).toBe(400);
    expect(await state(email)).toEqual([{ confirmed: false, used: false }]);
    expect(await state('other-link@example.test')).toEqual([{ confirmed: false, used: false }]);
  });

  it('a link without a well-formed token shows no button and reflects nothing', async () => {
    for (const link of [
      `${api}/user/profile/confirm-email`,
      `${api}/user/profile/confirm-email?token=%3Cscript%3Ealert(1)%3C%2Fscript%3E`,
    ]) {
      const res = await fetch(link, { headers: { 'accept-language': 'en' } });
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(confirmOutcome(html)).toEqual({ outcome: 'missing', message: 'The link has no confirmation token.' });
      expect(confirmForm(html, link)).toBeUndefined();
      expect(html).not.toContain('<script');
    }
  });
});
