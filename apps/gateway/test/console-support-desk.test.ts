import { createHmac, randomUUID } from 'node:crypto';
import { createOperator, OPERATOR_PASSWORD, startConsoleStack, type ConsoleStack } from './console-support.js';

/** A console HTTP client: fetch without following redirects, with an optional session cookie. */
async function call(url: string, init: { method?: string; cookie?: string; form?: Record<string, string> } = {}) {
  const headers: Record<string, string> = {};
  if (init.cookie) headers['cookie'] = init.cookie;
  let body: string | undefined;
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body, redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), setCookie: res.headers.getSetCookie(), text: await res.text() };
}

const USER = 7301;
const HOSTILE = `<script>alert("x")</script> & 'quotes' <img src=x onerror=alert(1)>\nsecond line`;

describe('console /_gm/support: open cases, evidence, reply through the bot, refund link, resolve (real bot and platform emulator)', () => {
  let stack: ConsoleStack;
  const sessions: Record<string, string> = {};
  let orderId: string;
  let caseCode: string;
  let olderCode: string;
  const csrf = (cookie: string) =>
    createHmac('sha256', cookie.replace(/^gm_session=/, ''))
      .update('wordgame-console-csrf-v1')
      .digest('base64url');
  const url = (path: string) => `${stack.urls.httpUrl}${path}`;

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

  const caseRow = async (code: string) =>
    (await stack.db.query<{ state: string; text: string }>(`select state, text from support_cases where code = $1`, [code])).rows[0];
  const events = async (code: string) =>
    (
      await stack.db.query<{ kind: string; text: string; outcome: string }>(
        `select e.kind, e.text, e.outcome from support_case_events e join support_cases c on c.id = e.case_id where c.code = $1 order by e.id`,
        [code],
      )
    ).rows;
  const sentToUser = () => stack.platform?.control.messages({ chatId: USER, direction: 'from_bot' }) ?? [];

  beforeAll(async () => {
    stack = await startConsoleStack({ bot: true });
    stack.platform?.control.createUser({ id: USER, firstName: 'Payer', started: true });
    for (const [login, roles] of [
      ['viewer@ops.test', 'viewer'],
      ['moderator@ops.test', 'viewer,moderator'],
      ['all@ops.test', 'viewer,refunder,moderator'],
    ] as const) {
      expect(createOperator(stack.db.url, login, roles).status).toBe(0);
      sessions[login.split('@')[0] ?? ''] = await signIn(login);
    }
    const account =
      (await stack.db.query<{ id: string }>(`insert into accounts (display_name) values ('payer') returning id`)).rows[0]?.id ?? '';
    await stack.db.query(`insert into platform_identities (account_id, kind, external_id) values ($1, 'telegram', $2)`, [
      account,
      String(USER),
    ]);
    const product =
      (await stack.db.query<{ id: string }>(`insert into catalog_products (title) values ('Star pack') returning id`)).rows[0]?.id ?? '';
    orderId = randomUUID();
    await stack.db.query(
      `insert into orders (id, account_id, product_id, title, rail, provider, segment, amount, currency, chips, state, created_at, expires_at, paid_at, platform_charge_id, platform_user_id)
       values ($1, $2, $3, 'Star pack', 'stars', 'telegram_stars', 'telegram', 250, 'XTR', 500, 'paid', now(), now() + interval '30 minutes', now(), 'charge-7301', $4)`,
      [orderId, account, product, USER],
    );
    await stack.db.query(`insert into payment_events (order_id, kind, detail) values ($1, 'paid', 'charge-7301')`, [orderId]);
    await stack.db.query(
      `insert into wallet_segments (account_id, segment, balance) values ($1, 'telegram', 500) on conflict (account_id, segment) do update set balance = 500`,
      [account],
    );
    await stack.db.query(
      `insert into ledger_operations (account_id, kind, segment, rail, provider, product_id, order_id, chips_delta, money_minor, currency)
       values ($1, 'purchase', 'telegram', 'stars', 'telegram_stars', $2, $3, 500, 250, 'XTR')`,
      [account, product, orderId],
    );
    const run =
      (
        await stack.db.query<{ id: string }>(
          `insert into reconciliation_runs (trigger, window_from, window_to, started_at, finished_at, outcome) values ('cli', now() - interval '1 day', now(), now(), now(), 'mismatches') returning id`,
        )
      ).rows[0]?.id ?? '';
    await stack.db.query(
      `insert into reconciliation_mismatches (run_id, kind, rail, provider, order_id, payment_ref, ledger_amount, ledger_currency, provider_amount, provider_currency)
       values ($1, 'amount_mismatch', 'stars', 'telegram_stars', $2, 'charge-7301', 250, 'XTR', 200, 'XTR')`,
      [run, orderId],
    );
    caseCode = 'C-7301AB';
    olderCode = 'C-7302AB';
    const opened = await stack.db.query<{ id: string }>(
      `insert into support_cases (code, platform, platform_user_id, account_id, platform_charge_id, order_id, language, text, opened_at)
       values ($1, 'telegram', $2, $3, 'charge-7301', $4, 'en', $5, now() - interval '5 minutes'),
              ($6, 'telegram', 7302, null, null, null, 'ru', 'Общий вопрос', now() - interval '2 days 3 hours')
       returning id`,
      [caseCode, USER, account, orderId, HOSTILE, olderCode],
    );
    for (const row of opened.rows)
      await stack.db.query(`insert into support_case_events (case_id, kind, at) values ($1, 'opened', now())`, [row.id]);
  }, 180_000);
  afterAll(() => stack?.stop());

  it('lists the open cases oldest first with their age, the user text escaped, and is linked from the navigation', async () => {
    const list = await call(url('/_gm/support'), { cookie: sessions['viewer'] });
    expect(list.status).toBe(200);
    expect(list.text).toContain('<a href="/_gm/support">Support</a>');
    const order = [...list.text.matchAll(/data-case="(C-[0-9A-Z]{6})"/g)].map((m) => m[1]);
    expect(order).toEqual([olderCode, caseCode]);
    expect(list.text).toMatch(/<td class="age">2 d 3 h<\/td>/);
    expect(list.text).toMatch(/<td class="age">5 min<\/td>/);
    expect(list.text).not.toContain('<script>');
    expect(list.text).not.toContain('<img src=x');
    expect(list.text).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39; &lt;img src=x onerror=alert(1)&gt;',
    );
    expect((await call(url('/_gm/support'))).status).toBe(303);
  });

  it("shows a case with the user's words escaped and its evidence: the order, its events, ledger rows, the platform charge and the reconciliation finding", async () => {
    const page = await call(url(`/_gm/support/${caseCode}`), { cookie: sessions['viewer'] });
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      '<pre class="case-text" id="case-text">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39; &lt;img src=x onerror=alert(1)&gt;\nsecond line</pre>',
    );
    expect(page.text).not.toContain('<script>');
    for (const kind of ['order', 'order_event', 'ledger', 'charge', 'reconciliation'])
      expect(page.text).toContain(`<tr data-kind="${kind}">`);
    expect(page.text).toMatch(/finding=amount_mismatch/);
    expect(page.text).toMatch(/state=paid/);
    // A viewer sees neither the actions nor the refund.
    expect(page.text).not.toContain('id="reply"');
    expect(page.text).not.toContain('id="refund"');
    expect((await call(url('/_gm/support/C-NOPE00'), { cookie: sessions['viewer'] })).status).toBe(404);
    expect((await call(url('/_gm/support/%3Cscript%3E'), { cookie: sessions['viewer'] })).status).toBe(404);
  });

  it("links the refund to the console's own refund confirmation (the one refund path), returning to the case", async () => {
    const page = await call(url(`/_gm/support/${caseCode}`), { cookie: sessions['all'] });
    const href = /<a id="refund" href="([^"]+)"/.exec(page.text)?.[1]?.replace(/&amp;/g, '&') ?? '';
    expect(href).toBe(`/_gm/ledger/refund?order=${orderId}&return=%2F_gm%2Fsupport%2F${caseCode}`);
    const confirm = await call(url(href), { cookie: sessions['all'] });
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain(orderId);
    expect(confirm.text).toContain(`name="return" value="/_gm/support/${caseCode}"`);
  });

  it('refuses a reply without the CSRF token or without the moderator role: nothing is sent or recorded', async () => {
    const before = sentToUser().length;
    for (const action of ['reply', 'resolve'])
      expect((await call(url(`/_gm/support/${caseCode}/${action}`), { method: 'POST', form: { _csrf: 'x', text: 'hi' } })).status).toBe(
        401,
      );
    expect((await call(url(`/_gm/support/${caseCode}`))).status).toBe(303);
    const noToken = await call(url(`/_gm/support/${caseCode}/reply`), {
      method: 'POST',
      cookie: sessions['moderator'],
      form: { text: 'hi' },
    });
    expect(noToken.status).toBe(403);
    const wrongToken = await call(url(`/_gm/support/${caseCode}/reply`), {
      method: 'POST',
      cookie: sessions['moderator'],
      form: { _csrf: csrf(sessions['viewer'] ?? ''), text: 'hi' },
    });
    expect(wrongToken.status).toBe(403);
    const viewer = await call(url(`/_gm/support/${caseCode}/reply`), {
      method: 'POST',
      cookie: sessions['viewer'],
      form: { _csrf: csrf(sessions['viewer'] ?? ''), text: 'hi' },
    });
    expect(viewer.status).toBe(403);
    const resolve = await call(url(`/_gm/support/${caseCode}/resolve`), { method: 'POST', cookie: sessions['moderator'], form: {} });
    expect(resolve.status).toBe(403);
    expect(sentToUser().length).toBe(before);
    expect((await events(caseCode)).map((e) => e.kind)).toEqual(['opened']);
    expect((await caseRow(caseCode))?.state).toBe('open');
  });

  it('a moderator replies through the bot: the user gets the message in the platform, the reply is stored on the case (shown escaped) and audited', async () => {
    const reply = 'We are checking <b>your</b> payment.\r\nThanks & sorry';
    const res = await call(url(`/_gm/support/${caseCode}/reply`), {
      method: 'POST',
      cookie: sessions['moderator'],
      form: { _csrf: csrf(sessions['moderator'] ?? ''), text: reply },
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('data-outcome="delivered"');
    const messages = sentToUser();
    expect(messages.at(-1)?.message.text).toBe(`Support case ${caseCode}:\nWe are checking <b>your</b> payment.\nThanks & sorry`);
    expect(await events(caseCode)).toEqual([
      { kind: 'opened', text: '', outcome: '' },
      { kind: 'reply', text: 'We are checking <b>your</b> payment.\nThanks & sorry', outcome: 'delivered' },
    ]);
    expect(res.text).toContain('<pre>We are checking &lt;b&gt;your&lt;/b&gt; payment.\nThanks &amp; sorry</pre>');
    const audit = await stack.db.query<{ login: string; action: string; outcome: string; detail: string }>(
      `select o.login, a.action, a.outcome, a.detail from operator_audit a join operators o on o.id = a.operator_id where a.target = $1`,
      [caseCode],
    );
    expect(audit.rows).toEqual([{ login: 'moderator@ops.test', action: 'support_reply', outcome: 'delivered', detail: '' }]);
    const empty = await call(url(`/_gm/support/${caseCode}/reply`), {
      method: 'POST',
      cookie: sessions['moderator'],
      form: { _csrf: csrf(sessions['moderator'] ?? ''), text: '   ' },
    });
    expect(empty.status).toBe(400);
  });

  it('a moderator resolves the case once (audited); it leaves the open list and takes no more replies', async () => {
    const form = { _csrf: csrf(sessions['moderator'] ?? '') };
    const res = await call(url(`/_gm/support/${caseCode}/resolve`), { method: 'POST', cookie: sessions['moderator'], form });
    expect(res.status).toBe(200);
    expect(res.text).toContain('<td id="state">resolved</td>');
    expect(res.text).toMatch(/<tr data-action="support_reply"><td>[^<]*<\/td><td>moderator@ops\.test<\/td>/);
    expect(res.text).toMatch(/<tr data-action="support_resolve"><td>[^<]*<\/td><td>moderator@ops\.test<\/td>/);
    expect(res.text).not.toContain('id="reply"');
    expect((await call(url(`/_gm/support/${caseCode}/resolve`), { method: 'POST', cookie: sessions['moderator'], form })).status).toBe(409);
    expect(
      (
        await call(url(`/_gm/support/${caseCode}/reply`), {
          method: 'POST',
          cookie: sessions['moderator'],
          form: { ...form, text: 'late' },
        })
      ).status,
    ).toBe(409);
    const list = await call(url('/_gm/support'), { cookie: sessions['viewer'] });
    expect([...list.text.matchAll(/data-case="(C-[0-9A-Z]{6})"/g)].map((m) => m[1])).toEqual([olderCode]);
    const audit = await stack.db.query<{ action: string }>(`select action from operator_audit where target = $1 order by id`, [caseCode]);
    expect(audit.rows.map((r) => r.action)).toEqual(['support_reply', 'support_resolve']);
  });
});
