import { createHmac } from 'node:crypto';
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
  return {
    status: res.status,
    location: res.headers.get('location'),
    setCookie: res.headers.getSetCookie(),
    headers: res.headers,
    text: await res.text(),
  };
}

describe("console: a player's data exported and the account deleted on request, with CSRF, confirmation and audit", () => {
  let stack: ConsoleStack;
  let account: string;
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

  const auditRows = async () =>
    (
      await stack.db.query<{ login: string | null; action: string; target: string; outcome: string; detail: string }>(
        `select o.login, a.action, a.target, a.outcome, a.detail from operator_audit a left join operators o on o.id = a.operator_id
         where a.action in ('account_export', 'account_delete') order by a.id`,
      )
    ).rows;
  const accountRow = async () =>
    (
      await stack.db.query<{ status: string; display_name: string; email: string | null; identities: string }>(
        `select status, display_name, email, (select count(*)::text from platform_identities where account_id = $1) as identities
         from accounts where id = $1`,
        [account],
      )
    ).rows[0];

  beforeAll(async () => {
    stack = await startConsoleStack();
    for (const role of ['viewer', 'moderator']) {
      expect(createOperator(stack.db.url, `${role}@privacy.test`, role).status).toBe(0);
      sessions[role] = await signIn(`${role}@privacy.test`);
    }
    account =
      (
        await stack.db.query<{ id: string }>(
          `insert into accounts (display_name, email, email_confirmed_at) values ('Rosalind <b>Asker</b>', 'rosalind.asker@example.test', now()) returning id`,
        )
      ).rows[0]?.id ?? '';
    await stack.db.query(
      `insert into wallet_segments (account_id, segment, balance) values ($1, 'direct', 0), ($1, 'telegram', 0), ($1, 'vk', 0)`,
      [account],
    );
    await stack.db.query(`insert into platform_identities (account_id, kind, external_id) values ($1, 'telegram', '8409001')`, [account]);
  }, 120_000);
  afterAll(() => stack?.stop());

  it("the player's page offers Export data (a CSRF form) and Delete account (to a confirmation page), escaped", async () => {
    const page = await call(url(`/_gm/users/${account}`), { cookie: sessions['moderator'] ?? '' });
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      `<form method="post" action="/_gm/users/${account}/export" class="action"><input type="hidden" name="_csrf"`,
    );
    expect(page.text).toContain(`<form method="get" action="/_gm/users/${account}/delete" class="action" id="delete-start">`);
    expect(page.text).toContain('Rosalind &lt;b&gt;Asker&lt;/b&gt;');
  });

  it('Export data needs the moderator role and the CSRF token; it downloads the same JSON as the REST export and is audited', async () => {
    const moderator = sessions['moderator'] ?? '';
    const viewer = sessions['viewer'] ?? '';
    expect((await call(url(`/_gm/users/${account}/export`), { method: 'POST', cookie: moderator, form: {} })).status).toBe(403);
    expect(
      (await call(url(`/_gm/users/${account}/export`), { method: 'POST', cookie: moderator, form: { _csrf: csrf(viewer) } })).status,
    ).toBe(403);
    expect(
      (await call(url(`/_gm/users/${account}/export`), { method: 'POST', cookie: viewer, form: { _csrf: csrf(viewer) } })).status,
    ).toBe(403);
    expect(await auditRows()).toEqual([]);

    const res = await call(url(`/_gm/users/${account}/export`), { method: 'POST', cookie: moderator, form: { _csrf: csrf(moderator) } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="account-${account}-export.json"`);
    const document = JSON.parse(res.text) as Record<string, unknown>;
    expect(document).toMatchObject({
      profile: { account_id: account, display_name: 'Rosalind <b>Asker</b>', email: 'rosalind.asker@example.test' },
      identities: [{ kind: 'telegram', external_id: '8409001' }],
      support_cases: [],
    });
    expect(await auditRows()).toEqual([
      { login: 'moderator@privacy.test', action: 'account_export', target: `account:${account}`, outcome: 'ok', detail: '' },
    ]);
  });

  it('Delete account acts only from its confirmation page with CSRF: the GET, a plain POST or a forged token erase nothing; the confirmed one erases and is audited with the reason', async () => {
    const moderator = sessions['moderator'] ?? '';
    const reason = 'player asked by e-mail, ticket 4411';
    const confirmPage = await call(url(`/_gm/users/${account}/delete?reason=${encodeURIComponent(reason)}`), { cookie: moderator });
    expect(confirmPage.status).toBe(200);
    expect(confirmPage.text).toContain('<p id="question">Delete account <strong id="account">');
    expect(confirmPage.text).toContain(`<tr data-fact="reason"><th>Reason (kept in the audit)</th><td>${reason}</td></tr>`);
    const token = /name="confirm" value="([^"]+)"/.exec(confirmPage.text)?.[1] ?? '';
    expect(token).not.toBe('');
    expect((await accountRow())?.status).toBe('active');

    expect((await call(url(`/_gm/users/${account}/delete?reason=`), { cookie: moderator })).status).toBe(400);
    const noCsrf = await call(url(`/_gm/users/${account}/delete`), { method: 'POST', cookie: moderator, form: { reason, confirm: token } });
    expect(noCsrf.status).toBe(403);
    const plain = await call(url(`/_gm/users/${account}/delete`), {
      method: 'POST',
      cookie: moderator,
      form: { _csrf: csrf(moderator), reason },
    });
    expect(plain.status).toBe(200);
    expect(plain.text).toContain('id="again"');
    const otherReason = await call(url(`/_gm/users/${account}/delete`), {
      method: 'POST',
      cookie: moderator,
      form: { _csrf: csrf(moderator), reason: 'something else', confirm: token },
    });
    expect(otherReason.text).toContain('id="again"');
    const viewer = sessions['viewer'] ?? '';
    expect(
      (
        await call(url(`/_gm/users/${account}/delete`), {
          method: 'POST',
          cookie: viewer,
          form: { _csrf: csrf(viewer), reason, confirm: token },
        })
      ).status,
    ).toBe(403);
    expect(await accountRow()).toMatchObject({ status: 'active', identities: '1' });

    const done = await call(url(`/_gm/users/${account}/delete`), {
      method: 'POST',
      cookie: moderator,
      form: { _csrf: csrf(moderator), reason, confirm: token },
    });
    expect(done.status).toBe(200);
    expect(done.text).toContain('id="outcome" data-outcome="deleted"');
    expect(await accountRow()).toEqual({ status: 'deleted', display_name: '', email: null, identities: '0' });
    expect((await auditRows()).slice(1)).toEqual([
      { login: 'moderator@privacy.test', action: 'account_delete', target: `account:${account}`, outcome: 'ok', detail: reason },
    ]);

    const again = await call(url(`/_gm/users/${account}/delete`), {
      method: 'POST',
      cookie: moderator,
      form: { _csrf: csrf(moderator), reason, confirm: token },
    });
    expect(again.status).toBe(409);
    expect((await call(url(`/_gm/users/${account}`), { cookie: moderator })).text).toContain('id="deleted"');
  });
});
