import { randomUUID } from 'node:crypto';
import { createOperator, OPERATOR_PASSWORD, startConsoleStack, type ConsoleStack } from './console-support.js';

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
 * /_gm/subscriptions (gateway -> backend -> PostgreSQL): active monthly passes now, and first
 * payments, renewals and cancellations per UTC day, from what the backend recorded.
 */
describe('console subscriptions figures', () => {
  let stack: ConsoleStack;
  const url = (path: string) => `${stack.urls.httpUrl}${path}`;

  async function signIn(login: string, roles: string): Promise<string> {
    expect(createOperator(stack.db.url, login, roles).status).toBe(0);
    const form = await call(url('/_gm/login'));
    const nonceCookie = form.setCookie.find((c) => c.startsWith('gm_login='))?.split(';')[0] ?? '';
    const nonce = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? '';
    const res = await call(url('/_gm/login'), {
      method: 'POST',
      cookie: nonceCookie,
      form: { _csrf: nonce, login, password: OPERATOR_PASSWORD },
    });
    return res.setCookie.find((c) => c.startsWith('gm_session='))?.split(';')[0] ?? '';
  }

  /** A subscription with `renewals` renewals recorded today, paid until `paidUntil`, cancelled or not. */
  async function seed(paidUntil: Date, renewals: number, cancelled: boolean): Promise<void> {
    const account = (await stack.db.query<{ id: string }>(`insert into accounts (display_name) values ('Subscriber') returning id`)).rows[0]
      ?.id;
    const product = (await stack.db.query<{ id: string }>(`insert into catalog_products (title) values ('Monthly pass') returning id`))
      .rows[0]?.id;
    const orderIds = Array.from({ length: renewals + 1 }, () => randomUUID());
    for (const id of orderIds)
      await stack.db.query(
        `insert into orders (id, account_id, product_id, title, rail, provider, segment, amount, currency, chips, state, created_at, expires_at, paid_at, platform_charge_id, subscription_period)
         values ($1, $2, $3, 'Monthly pass', 'stars', 'telegram_stars', 'telegram', 100, 'XTR', 0, 'paid', now(), now(), now(), $4, 2592000)`,
        [id, account, product, `c-${id}`],
      );
    const sub = (
      await stack.db.query<{ id: string }>(
        `insert into star_subscriptions (account_id, product_id, first_order_id, segment, platform_user_id, amount, currency, paid_until, last_charge_id, cancelled_at)
         values ($1, $2, $3, 'telegram', 1, 100, 'XTR', $4, 'x', ${cancelled ? 'now()' : 'null'}) returning id::text`,
        [account, product, orderIds[0], paidUntil],
      )
    ).rows[0]?.id;
    for (const [i, id] of orderIds.entries())
      await stack.db.query(
        `insert into star_subscription_periods (charge_id, subscription_id, order_id, renewal, period_start, period_end) values ($1, $2, $3, $4, now(), $5)`,
        [`c-${id}`, sub, id, i > 0, paidUntil],
      );
  }

  beforeAll(async () => {
    stack = await startConsoleStack();
    const day = 86_400_000;
    await seed(new Date(Date.now() + 20 * day), 2, false);
    await seed(new Date(Date.now() + 5 * day), 1, true);
    await seed(new Date(Date.now() - day), 0, false);
  }, 120_000);
  afterAll(() => stack?.stop());

  it("shows active passes now and today's first payments, renewals and cancellations", async () => {
    const cookie = await signIn('subs-viewer@ops.test', 'viewer');
    const res = await call(url('/_gm/subscriptions?days=7'), { cookie });
    expect(res.status).toBe(200);
    expect(res.text).toContain('data-active="2" data-cancelled="1"');
    const today = new Date().toISOString().slice(0, 10);
    const row = new RegExp(`<tr data-day="${today}">.*?</tr>`, 's').exec(res.text)?.[0] ?? '';
    expect(row).toContain('<td class="num started">3</td>');
    expect(row).toContain('<td class="num renewals">3</td>');
    expect(row).toContain('<td class="num cancellations">1</td>');
    expect((res.text.match(/<tr data-day=/g) ?? []).length).toBe(7);
    expect((await call(url('/_gm/subscriptions?days=5'), { cookie })).status).toBe(400);
    expect((await call(url('/_gm/'), { cookie })).text).toContain('href="/_gm/subscriptions"');
  });

  it('needs the viewer role', async () => {
    const cookie = await signIn('subs-moderator@ops.test', 'moderator');
    expect((await call(url('/_gm/subscriptions'), { cookie })).status).toBe(403);
    expect((await call(url('/_gm/subscriptions'))).status).toBe(303);
  });
});
