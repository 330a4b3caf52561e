import { createHmac } from 'node:crypto';
import { createOperator, OPERATOR_PASSWORD, startConsoleStack, type ConsoleStack } from './console-support.js';
import { runLedgerAudit } from './support/backend-process.js';

/** A console HTTP client: fetch without following redirects, with an optional session cookie. */
async function call(url: string, init: { method?: string; cookie?: string; form?: Record<string, string | string[]> } = {}) {
  const headers: Record<string, string> = {};
  if (init.cookie) headers['cookie'] = init.cookie;
  let body: string | undefined;
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(init.form)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
    body = params.toString();
  }
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body, redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), setCookie: res.headers.getSetCookie(), text: await res.text() };
}

const minute = (d: Date) => d.toISOString().slice(0, 16);

/**
 * The console's /_gm/codes through the real gateway, backend process and PostgreSQL: a catalog
 * editor creates a code (shown once, stored hashed), a player redeems it over REST, a refunder
 * reverses the redemption (a spent grant leaves a debt), each POST with the session's CSRF token and
 * audited; a viewer reads the list, the usage and the redemptions per day but cannot act.
 */
describe('console /_gm/codes: create, usage, per-day redemptions, reverse (CSRF, roles, audit)', () => {
  let stack: ConsoleStack;
  const sessions: Record<string, string> = {};
  const url = (path: string) => `${stack.urls.httpUrl}${path}`;
  const csrf = (cookie: string) =>
    createHmac('sha256', cookie.replace(/^gm_session=/, ''))
      .update('wordgame-console-csrf-v1')
      .digest('base64url');

  async function signIn(login: string): Promise<string> {
    const form = await call(url('/_gm/login'));
    const nonceCookie = form.setCookie.find((c) => c.startsWith('gm_login='))?.split(';')[0] ?? '';
    const nonce = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? '';
    const res = await call(url('/_gm/login'), {
      method: 'POST',
      cookie: nonceCookie,
      form: { _csrf: nonce, login, password: OPERATOR_PASSWORD },
    });
    expect(res.status).toBe(303);
    return res.setCookie.find((c) => c.startsWith('gm_session='))?.split(';')[0] ?? '';
  }

  const createForm = (cookie: string, extra: Record<string, string | string[]> = {}) => ({
    _csrf: csrf(cookie),
    code: '',
    label: 'launch <week>',
    chips: '100',
    hints: '',
    no_ads_days: '',
    max_redemptions: '2',
    valid_from: minute(new Date(Date.now() - 3_600_000)),
    valid_until: minute(new Date(Date.now() + 86_400_000)),
    hosts: ['web', 'telegram'],
    ...extra,
  });

  beforeAll(async () => {
    stack = await startConsoleStack();
    for (const [login, roles] of [
      ['viewer@codes.test', 'viewer'],
      ['editor@codes.test', 'viewer,catalog_editor'],
      ['refunder@codes.test', 'viewer,refunder'],
    ] as const) {
      expect(createOperator(stack.db.url, login, roles).status).toBe(0);
      sessions[login.split('@')[0] ?? ''] = await signIn(login);
    }
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  let codeId = '';
  let code = '';

  it('refuses a create without the CSRF token or the catalog_editor role', async () => {
    const editor = sessions['editor'] ?? '';
    const viewer = sessions['viewer'] ?? '';
    expect(
      (await call(url('/_gm/codes'), { method: 'POST', cookie: editor, form: { ...createForm(editor), _csrf: 'wrong' } })).status,
    ).toBe(403);
    expect((await call(url('/_gm/codes'), { method: 'POST', cookie: viewer, form: createForm(viewer) })).status).toBe(403);
    expect((await call(url('/_gm/codes/new'), { cookie: viewer })).status).toBe(403);
    expect((await stack.db.query('select 1 from promo_codes')).rowCount).toBe(0);
  });

  it('a catalog editor creates a generated code: shown once in full, stored as a hash and a prefix, audited', async () => {
    const editor = sessions['editor'] ?? '';
    expect((await call(url('/_gm/codes/new'), { cookie: editor })).text).toContain('id="code-form"');
    const form = createForm(editor);
    const res = await call(url('/_gm/codes'), { method: 'POST', cookie: editor, form });
    expect(res.status).toBe(201);
    // What the form said is what the code grants, how often, when and where (empty amounts grant none).
    const stored = await stack.db.query<Record<string, string>>(
      `select chips::text, hints::text, no_ads_days::text, max_redemptions::text, array_to_string(hosts, ',') as hosts,
              to_char(valid_from at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI') as valid_from,
              to_char(valid_until at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI') as valid_until
       from promo_codes`,
    );
    expect(stored.rows).toEqual([
      {
        chips: '100',
        hints: '0',
        no_ads_days: '0',
        max_redemptions: '2',
        hosts: 'web,telegram',
        valid_from: form.valid_from,
        valid_until: form.valid_until,
      },
    ]);
    code = /id="created-code" data-code="([^"]+)"/.exec(res.text)?.[1] ?? '';
    expect(code).toMatch(/^[2-9A-HJ-NP-Z]{16}$/);
    const rows = await stack.db.query<{ id: string; prefix: string; label: string }>('select id, prefix, label from promo_codes');
    expect(rows.rows.map((r) => ({ prefix: r.prefix, label: r.label }))).toEqual([{ prefix: code.slice(0, 4), label: 'launch <week>' }]);
    codeId = rows.rows[0]?.id ?? '';
    expect(codeId).toMatch(/^[1-9]\d*$/);
    const dump = JSON.stringify((await stack.db.query('select * from promo_codes')).rows);
    expect(dump).not.toContain(code);
    const audit = await stack.db.query<{ target: string }>(
      `select target from operator_audit where action = 'code_create' and outcome = 'created'`,
    );
    expect(audit.rows).toEqual([{ target: `code ${codeId}` }]);
    const list = await call(url('/_gm/codes'), { cookie: sessions['viewer'] });
    expect(list.text).toContain(`${code.slice(0, 4)}…`);
    expect(list.text).toContain('launch &lt;week&gt;');
    expect(list.text).not.toContain('id="new-code"');
  });

  it('answers a too-short typed code with the reason on the form', async () => {
    const editor = sessions['editor'] ?? '';
    const res = await call(url('/_gm/codes'), { method: 'POST', cookie: editor, form: createForm(editor, { code: 'abc' }) });
    expect(res.status).toBe(400);
    expect(res.text).toContain('8..32 letters');
  });

  it('a player redeems and spends it, a refunder reverses it: the debt is shown, the ledger stays exact, the figures count it', async () => {
    const signup = await fetch(url('/api/v1/session/direct'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'redeemer@codes.test', password: 'codes password 1', mode: 'signup', subtype: 'web' }),
    });
    const { token, account_id: accountId } = (await signup.json()) as { token: string; account_id: string };
    const redeemed = await fetch(url('/api/v1/user/codes/redeem'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ code: code.toLowerCase() }),
    });
    expect(redeemed.status).toBe(200);
    // Spend 60 of the 100 chips (a direct ledger spend stands in for a purchase).
    await stack.db.query(`update wallet_segments set balance = balance - 60 where account_id = $1 and segment = 'direct'`, [accountId]);
    await stack.db.query(`insert into ledger_operations (account_id, kind, segment, chips_delta) values ($1, 'spend', 'direct', -60)`, [
      accountId,
    ]);

    const page = await call(url(`/_gm/codes/${codeId}`), { cookie: sessions['refunder'] });
    expect(page.text).toContain('id="used">1 / 2');
    const redemption = /data-redemption="(\d+)"/.exec(page.text)?.[1] ?? '';
    expect(redemption).not.toBe('');
    expect((await call(url(`/_gm/codes/${codeId}`), { cookie: sessions['viewer'] })).text).not.toContain('class="reverse"');

    const refunder = sessions['refunder'] ?? '';
    const noCsrf = await call(url(`/_gm/codes/${codeId}/reverse`), { method: 'POST', cookie: refunder, form: { redemption, reason: 'x' } });
    expect(noCsrf.status).toBe(403);
    const byViewer = await call(url(`/_gm/codes/${codeId}/reverse`), {
      method: 'POST',
      cookie: sessions['viewer'],
      form: { _csrf: csrf(sessions['viewer'] ?? ''), redemption, reason: 'x' },
    });
    expect(byViewer.status).toBe(403);

    const done = await call(url(`/_gm/codes/${codeId}/reverse`), {
      method: 'POST',
      cookie: refunder,
      form: { _csrf: csrf(refunder), redemption, reason: 'code leaked on a forum' },
    });
    expect(done.status).toBe(200);
    expect(done.text).toContain('left a debt (direct chips -60)');
    const balance = await stack.db.query<{ balance: string }>(
      `select balance from wallet_segments where account_id = $1 and segment = 'direct'`,
      [accountId],
    );
    expect(balance.rows[0]?.balance).toBe('-60');
    const again = await call(url(`/_gm/codes/${codeId}/reverse`), {
      method: 'POST',
      cookie: refunder,
      form: { _csrf: csrf(refunder), redemption, reason: 'twice' },
    });
    expect(again.status).toBe(409);
    const audit = await stack.db.query<{ target: string; outcome: string }>(
      `select target, outcome from operator_audit where action = 'code_reverse'`,
    );
    expect(audit.rows).toEqual([{ target: `redemption ${redemption}`, outcome: 'reversed_with_debt' }]);
    expect(runLedgerAudit(stack.db.url).status).toBe(0);

    const list = await call(url('/_gm/codes'), { cookie: sessions['viewer'] });
    const today = new Date().toISOString().slice(0, 10);
    expect(list.text).toMatch(
      new RegExp(`<tr data-day="${today}"><td>${today}</td><td class="num">1</td><td class="num">1</td><td class="num">100</td></tr>`),
    );
  });
});
