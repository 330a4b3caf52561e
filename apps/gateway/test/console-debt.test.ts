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

/**
 * A console refund of a pack whose chips were partly spent leaves a debt, and the user pages show
 * it: the search row names it, the account page marks the segment's negative balance (gateway ->
 * backend -> PostgreSQL with the provider emulator).
 */
describe('console shows a wallet debt on the user pages', () => {
  let stack: ConsoleStack;
  let cookie: string;
  const url = (path: string) => `${stack.urls.httpUrl}${path}`;
  const csrf = (session: string) =>
    createHmac('sha256', session.replace(/^gm_session=/, ''))
      .update('wordgame-console-csrf-v1')
      .digest('base64url');

  beforeAll(async () => {
    stack = await startConsoleStack();
    expect(createOperator(stack.db.url, 'debts@ops.test', 'viewer,refunder,moderator').status).toBe(0);
    const form = await call(url('/_gm/login'));
    const nonceCookie = form.setCookie.find((c) => c.startsWith('gm_login='))?.split(';')[0] ?? '';
    const nonce = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? '';
    const res = await call(url('/_gm/login'), {
      method: 'POST',
      cookie: nonceCookie,
      form: { _csrf: nonce, login: 'debts@ops.test', password: OPERATOR_PASSWORD },
    });
    cookie = res.setCookie.find((c) => c.startsWith('gm_session='))?.split(';')[0] ?? '';
  }, 120_000);
  afterAll(() => stack?.stop());

  it('refund after spending: the account page shows the negative balance as a debt, the search row names it', async () => {
    const account =
      (await stack.db.query<{ id: string }>(`insert into accounts (display_name) values ('Debtor <i>') returning id`)).rows[0]?.id ?? '';
    const product =
      (await stack.db.query<{ id: string }>(`insert into catalog_products (title) values ('Pack') returning id`)).rows[0]?.id ?? '';
    const orderId = await paidCardOrder(stack, account, product, 9_900n, 100n, new Date());
    await stack.db.query(`update wallet_segments set balance = balance - 60 where account_id = $1 and segment = 'direct'`, [account]);
    await stack.db.query(
      `insert into ledger_operations (account_id, kind, segment, chips_delta, note) values ($1, 'spend', 'direct', -60, 'spent before the refund')`,
      [account],
    );

    const before = await call(url(`/_gm/users/${account}`), { cookie });
    expect(before.text).toContain('<td id="debt">none</td>');
    expect(before.text).toContain('<tr data-segment="direct"><td>direct</td><td>40</td><td>0</td></tr>');

    const confirmation = await call(url(`/_gm/ledger/refund?order=${orderId}&return=${encodeURIComponent('/_gm/ledger')}`), { cookie });
    const confirm = /name="confirm" value="([^"]+)"/.exec(confirmation.text)?.[1] ?? '';
    const refund = await call(url('/_gm/ledger/refund'), {
      method: 'POST',
      cookie,
      form: { _csrf: csrf(cookie), order: orderId, return: '/_gm/ledger', confirm },
    });
    expect(refund.text).toContain('data-outcome="succeeded"');
    expect(
      (
        await stack.db.query<{ balance: string }>(`select balance from wallet_segments where account_id = $1 and segment = 'direct'`, [
          account,
        ])
      ).rows[0]?.balance,
    ).toBe('-60');

    const detail = await call(url(`/_gm/users/${account}`), { cookie });
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('<td id="debt" class="debt">direct: -60 chips</td>');
    expect(detail.text).toContain(
      '<tr data-segment="direct" class="in-debt"><td>direct</td><td class="debt">-60 (debt)</td><td>0</td></tr>',
    );
    expect(detail.text).toContain('Debtor &lt;i&gt;');
    const found = await call(url(`/_gm/users?q=${account}`), { cookie });
    expect(found.text).toContain('<td class="debt">direct: -60 chips</td>');
  });
});
