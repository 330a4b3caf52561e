import { createHmac } from 'node:crypto';
import { createOperator, OPERATOR_PASSWORD, paidCardOrder, startConsoleStack, type ConsoleStack } from './console-support.js';

/** Fetch without following redirects, with an optional session cookie and form body. */
async function call(url: string, init: { method?: string; cookie?: string; form?: Record<string, string> } = {}) {
  const headers: Record<string, string> = {};
  if (init.cookie) headers['cookie'] = init.cookie;
  let body: string | undefined;
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body, redirect: 'manual' });
  return { status: res.status, setCookie: res.headers.getSetCookie(), text: await res.text() };
}

const CHIPS_CAP = 500;

/**
 * Make-goods through the console edge (gateway -> backend process -> PostgreSQL): the granter role
 * on the page and the action, the mandatory reason, the daily cap, a double submit granting once,
 * a refund's debt paid off, a grant settling a support case (linked and audited on the case), and
 * the ledger still equal to the balances.
 */
describe('console make-goods (/_gm/grant)', () => {
  let stack: ConsoleStack;
  let granter: string;
  let viewer: string;
  const url = (path: string) => `${stack.urls.httpUrl}${path}`;
  const csrf = (session: string) =>
    createHmac('sha256', session.replace(/^gm_session=/, ''))
      .update('wordgame-console-csrf-v1')
      .digest('base64url');
  const signIn = async (login: string) => {
    const form = await call(url('/_gm/login'));
    const nonceCookie = form.setCookie.find((c) => c.startsWith('gm_login='))?.split(';')[0] ?? '';
    const nonce = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? '';
    const res = await call(url('/_gm/login'), {
      method: 'POST',
      cookie: nonceCookie,
      form: { _csrf: nonce, login, password: OPERATOR_PASSWORD },
    });
    return res.setCookie.find((c) => c.startsWith('gm_session='))?.split(';')[0] ?? '';
  };
  const newAccount = async (name = 'Player') =>
    (await stack.db.query<{ id: string }>(`insert into accounts (display_name) values ($1) returning id`, [name])).rows[0]?.id ?? '';
  const balance = async (account: string, segment = 'direct') =>
    (
      await stack.db.query<{ balance: string }>(`select balance from wallet_segments where account_id = $1 and segment = $2`, [
        account,
        segment,
      ])
    ).rows[0]?.balance;
  /** The grant form's hidden fields for the account (and case), as the page gave them. */
  const openForm = async (cookie: string, account: string, supportCase = '') => {
    const page = await call(url(`/_gm/grant?account=${account}${supportCase ? `&case=${supportCase}` : ''}`), { cookie });
    expect(page.status).toBe(200);
    return { page, formToken: /name="form_token" value="([^"]+)"/.exec(page.text)?.[1] ?? '' };
  };
  const submit = (cookie: string, fields: Record<string, string>) =>
    call(url('/_gm/grant'), {
      method: 'POST',
      cookie,
      form: { _csrf: csrf(cookie), segment: 'direct', chips: '0', hints: '0', no_ads_days: '0', case: '', ...fields },
    });
  /** Ledger and balances agree for every segment of the database (what the ledger audit checks for chips). */
  const ledgerMatchesBalances = async () =>
    (
      await stack.db.query<{ n: string }>(`
        select count(*) as n from wallet_segments s
        full join (select account_id, segment, sum(chips_delta) as total from ledger_operations where segment is not null group by 1, 2) l
          on l.account_id = s.account_id and l.segment = s.segment
        where coalesce(s.balance, 0) <> coalesce(l.total, 0)`)
    ).rows[0]?.n;

  beforeAll(async () => {
    stack = await startConsoleStack({ backendEnv: { BACKEND_MAKE_GOOD_DAILY_CHIPS_CAP: String(CHIPS_CAP) } });
    expect(createOperator(stack.db.url, 'granter@ops.test', 'viewer,refunder,moderator,granter').status).toBe(0);
    expect(createOperator(stack.db.url, 'viewer@ops.test', 'viewer,refunder,moderator').status).toBe(0);
    granter = await signIn('granter@ops.test');
    viewer = await signIn('viewer@ops.test');
  }, 120_000);
  afterAll(() => stack?.stop());

  it('needs the granter role: the page and the action are refused without it, and nothing is granted', async () => {
    const account = await newAccount();
    // The console's own guard (the form without an account asks the backend nothing) and the backend's (with one).
    expect((await call(url('/_gm/grant'), { cookie: viewer })).status).toBe(403);
    expect((await call(url(`/_gm/grant?account=${account}`), { cookie: viewer })).status).toBe(403);
    const post = await submit(viewer, { account, chips: '10', reason: 'r', form_token: 'a'.repeat(24) });
    expect(post.status).toBe(403);
    expect((await call(url(`/_gm/users/${account}`), { cookie: viewer })).text).not.toContain('id="make-good"');
    expect((await call(url(`/_gm/users/${account}`), { cookie: granter })).text).toContain(`href="/_gm/grant?account=${account}"`);
    expect(await balance(account)).toBeUndefined();
  });

  it('needs a reason (checked by the backend, whatever the browser does), then grants once per form: a double submit is replayed', async () => {
    const account = await newAccount();
    const { page, formToken } = await openForm(granter, account);
    expect(page.text).toContain('<tr data-cap="chips"><td>Chips: 500</td><td>0</td><td class="left">500</td></tr>');
    const refused = await submit(granter, { account, chips: '100', reason: '  ', form_token: formToken });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('data-outcome="refused" data-code="invalid_make_good"');
    expect(await balance(account)).toBeUndefined();

    const first = await submit(granter, { account, chips: '100', reason: 'server fault lost a game', form_token: formToken });
    expect(first.status).toBe(200);
    expect(first.text).toContain('data-outcome="granted"');
    expect(first.text).toContain('<span id="balance">100</span>');
    const again = await submit(granter, { account, chips: '100', reason: 'server fault lost a game', form_token: formToken });
    expect(again.text).toContain('data-outcome="replayed"');
    expect(await balance(account)).toBe('100');
    const rows = await stack.db.query<{ kind: string; chips_delta: string }>(
      `select kind, chips_delta from ledger_operations where account_id = $1`,
      [account],
    );
    expect(rows.rows).toEqual([{ kind: 'make_good', chips_delta: '100' }]);
    const audit = await stack.db.query<{ outcome: string }>(
      `select outcome from operator_audit where action = 'make_good' and target = $1 order by id`,
      [`account:${account}`],
    );
    expect(audit.rows.map((r) => r.outcome)).toEqual(['refused', 'granted', 'replayed']);
  });

  it("enforces the operator's daily cap: a grant past it is refused with the form kept", async () => {
    const account = await newAccount();
    const used = Number(
      (
        await stack.db.query<{ n: string }>(
          `select coalesce(sum(chips), 0) as n from make_goods m join operators o on o.id = m.operator_id where o.login = 'granter@ops.test'`,
        )
      ).rows[0]?.n,
    );
    const { formToken } = await openForm(granter, account);
    const over = await submit(granter, { account, chips: String(CHIPS_CAP - used + 1), reason: 'too generous', form_token: formToken });
    expect(over.status).toBe(409);
    expect(over.text).toContain('data-code="make_good_cap_reached"');
    expect(over.text).toContain('value="too generous"');
    expect(await balance(account)).toBeUndefined();
  });

  it('settles a support case and pays off the debt a refund left: the case links the grant, its audit shows it', async () => {
    const account = await newAccount('Debtor');
    const product =
      (await stack.db.query<{ id: string }>(`insert into catalog_products (title) values ('Pack') returning id`)).rows[0]?.id ?? '';
    const orderId = await paidCardOrder(stack, account, product, 9_900n, 100n, new Date());
    await stack.db.query(`update wallet_segments set balance = balance - 60 where account_id = $1 and segment = 'direct'`, [account]);
    await stack.db.query(`insert into ledger_operations (account_id, kind, segment, chips_delta) values ($1, 'spend', 'direct', -60)`, [
      account,
    ]);
    const confirmation = await call(url(`/_gm/ledger/refund?order=${orderId}&return=${encodeURIComponent('/_gm/ledger')}`), {
      cookie: granter,
    });
    const confirm = /name="confirm" value="([^"]+)"/.exec(confirmation.text)?.[1] ?? '';
    const refund = await call(url('/_gm/ledger/refund'), {
      method: 'POST',
      cookie: granter,
      form: { _csrf: csrf(granter), order: orderId, return: '/_gm/ledger', confirm },
    });
    expect(refund.text).toContain('data-outcome="succeeded"');
    expect(await balance(account)).toBe('-60');

    await stack.db.query(
      `insert into support_cases (code, platform, platform_user_id, account_id, language, text, opened_at) values ('C-MG0001', 'telegram', 77, $1, 'en', 'my chips went negative', now())`,
      [account],
    );
    const casePage = await call(url('/_gm/support/C-MG0001'), { cookie: granter });
    expect(casePage.text).toContain(`href="/_gm/grant?account=${account}&amp;case=C-MG0001"`);
    const { page, formToken } = await openForm(granter, account, 'C-MG0001');
    expect(page.text).toContain('<tr data-segment="direct" class="in-debt"><td>direct</td><td class="debt">-60 (debt)</td>');
    expect(page.text).toContain('<option value="direct" selected>');
    const paid = await submit(granter, { account, chips: '60', reason: 'settle the refund debt', case: 'C-MG0001', form_token: formToken });
    expect(paid.text).toContain('data-outcome="granted"');
    expect(await balance(account)).toBe('0');
    const detail = await call(url(`/_gm/users/${account}`), { cookie: granter });
    expect(detail.text).toContain('<td id="debt">none</td>');
    const after = await call(url('/_gm/support/C-MG0001'), { cookie: granter });
    expect(after.text).toMatch(/<tr data-action="make_good">.*<td>C-MG0001<\/td><td>granted<\/td><\/tr>/);
    expect(await ledgerMatchesBalances()).toBe('0');
  });
});
