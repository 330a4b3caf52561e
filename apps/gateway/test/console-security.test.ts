import { createHmac, randomUUID } from 'node:crypto';
import {
  createOperator,
  OPERATOR_PASSWORD,
  paidCardOrder,
  startConsoleStack,
  takenNotCredited,
  type ConsoleStack,
} from './console-support.js';

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

describe('console access control, CSRF and return paths', () => {
  let stack: ConsoleStack;
  let account: string;
  let orderId: string;
  const sessions: Record<string, string> = {};
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
    const cookie = res.setCookie.find((c) => c.startsWith('gm_session='));
    expect(cookie).toMatch(/; Path=\/_gm; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    return cookie?.split(';')[0] ?? '';
  }

  beforeAll(async () => {
    stack = await startConsoleStack();
    for (const role of ['viewer', 'refunder', 'catalog_editor', 'moderator']) {
      expect(createOperator(stack.db.url, `${role.replace('_', '-')}@ops.test`, role).status).toBe(0);
      sessions[role] = await signIn(`${role.replace('_', '-')}@ops.test`);
    }
    expect(createOperator(stack.db.url, 'all@ops.test', 'viewer,refunder,catalog_editor,moderator').status).toBe(0);
    sessions['all'] = await signIn('all@ops.test');
    account =
      (await stack.db.query<{ id: string }>(`insert into accounts (display_name) values ('<img src=x onerror=alert(1)>') returning id`))
        .rows[0]?.id ?? '';
    const product =
      (await stack.db.query<{ id: string }>(`insert into catalog_products (title) values ('Pack') returning id`)).rows[0]?.id ?? '';
    orderId = await paidCardOrder(stack, account, product, 9_900n, 100n, new Date());
  }, 120_000);
  afterAll(() => stack?.stop());

  const refundQuery = () => `order=${orderId}&return=${encodeURIComponent('/_gm/ledger')}`;
  /** The ledger refund's confirmation page of `order` as `cookie`'s operator sees it, and its form's confirm token. */
  async function refundConfirmation(cookie: string, order: string) {
    const page = await call(url(`/_gm/ledger/refund?order=${order}&return=${encodeURIComponent('/_gm/ledger')}`), { cookie });
    return { ...page, token: /name="confirm" value="([^"]+)"/.exec(page.text)?.[1] ?? '' };
  }
  /** A confirmation page's facts table (`data-fact` rows) as name to text. */
  const facts = (text: string) =>
    Object.fromEntries(
      [...text.matchAll(/<tr data-fact="([a-z]+)"><th>[^<]*<\/th><td>([\s\S]*?)<\/td><\/tr>/g)].map((m) => [
        m[1] ?? '',
        (m[2] ?? '').replace(/<[^>]+>/g, ''),
      ]),
    );
  const pages = () =>
    [
      ['/_gm/', null],
      ['/_gm/ledger', 'viewer'],
      ['/_gm/ledger/export.csv', 'viewer'],
      ['/_gm/unmatched', 'viewer'],
      ['/_gm/reconciliation', 'viewer'],
      ['/_gm/reconciliation?view=history', 'viewer'],
      ['/_gm/reconciliation/act?mismatch=1&action=refund', 'refunder'],
      [`/_gm/ledger/refund?${refundQuery()}`, 'refunder'],
      ['/_gm/catalog', 'catalog_editor'],
      ['/_gm/catalog/new', 'catalog_editor'],
      ['/_gm/catalog/1', 'catalog_editor'],
      ['/_gm/users?q=1', 'moderator'],
      [`/_gm/users/${account}`, 'moderator'],
    ] as const;
  const actions = () =>
    [
      ['/_gm/logout', null, {}],
      ['/_gm/ledger/refund', 'refunder', { order: orderId, return: '/_gm/ledger' }],
      ['/_gm/reconciliation/act', 'refunder', { mismatch: '1', action: 'resolve' }],
      ['/_gm/catalog/save', 'catalog_editor', { product_id: '0', title: 'Sneaky', atom_hints: '1', price_chips: '5' }],
      [`/_gm/users/${account}/moderate`, 'moderator', { action: 'block' }],
    ] as const;
  const untouched = async () => {
    const state = (
      await stack.db.query<{ status: string; refunds: string; products: string }>(
        `select (select status from accounts where id = $1) as status,
              (select count(*)::text from ledger_operations where kind = 'refund') as refunds,
              (select count(*)::text from catalog_products where title = 'Sneaky') as products`,
        [account],
      )
    ).rows[0];
    expect(state).toEqual({ status: 'active', refunds: '0', products: '0' });
    expect(stack.provider.control.payments().flatMap((p) => p.refunds)).toEqual([]);
  };

  it('sends every page to sign-in without a session or with a forged one', async () => {
    for (const [path] of pages()) {
      for (const cookie of [undefined, 'gm_session=forged-token-value']) {
        const res = await call(url(path), cookie ? { cookie } : {});
        expect([path, res.status, res.location?.startsWith('/_gm/login')]).toEqual([path, 303, true]);
      }
    }
  });

  it('refuses every action without a session (401), changing nothing', async () => {
    for (const [path, , form] of actions()) {
      for (const cookie of [undefined, 'gm_session=forged-token-value']) {
        const res = await call(url(path), { method: 'POST', form: { ...form, _csrf: 'x' }, ...(cookie ? { cookie } : {}) });
        expect([path, res.status]).toEqual([path, 401]);
      }
    }
    await untouched();
  });

  it('refuses every page and action to an operator without its role (403)', async () => {
    for (const [path, role] of pages()) {
      if (role === null) continue;
      for (const other of ['viewer', 'refunder', 'catalog_editor', 'moderator'].filter((r) => r !== role)) {
        const res = await call(url(path), { cookie: sessions[other] ?? '' });
        expect([path, other, res.status]).toEqual([path, other, 403]);
      }
    }
    for (const [path, role, form] of actions()) {
      if (role === null) continue;
      for (const other of ['viewer', 'refunder', 'catalog_editor', 'moderator'].filter((r) => r !== role)) {
        const cookie = sessions[other] ?? '';
        const res = await call(url(path), { method: 'POST', cookie, form: { ...form, _csrf: csrf(cookie) } });
        expect([path, other, res.status]).toEqual([path, other, 403]);
      }
    }
    await untouched();
  });

  it("refuses every action without a CSRF token, with a wrong one, or with another session's (403)", async () => {
    const cookie = sessions['all'] ?? '';
    for (const [path, , form] of actions()) {
      for (const token of [undefined, 'wrong', csrf(sessions['viewer'] ?? '')]) {
        const res = await call(url(path), { method: 'POST', cookie, form: token === undefined ? { ...form } : { ...form, _csrf: token } });
        expect([path, token, res.status]).toEqual([path, token, 403]);
      }
    }
    const login = await call(url('/_gm/login'), { method: 'POST', form: { login: 'all@ops.test', password: OPERATOR_PASSWORD } });
    expect(login.status).toBe(403);
    expect(login.setCookie.some((c) => c.startsWith('gm_session='))).toBe(false);
    expect((await call(url('/_gm/users?q=1'), { cookie })).status).toBe(200);
    await untouched();
  });

  it.each([
    'https://evil.example/',
    '//evil.example/_gm/ledger',
    '/\\evil.example',
    '/_gm/\\evil.example',
    '/_gm/%2F%2Fevil.example',
    '/_gm/%5Cevil.example',
    '/_gm/..%2F..%2Fevil',
    '/_gm/%252F%252Fevil.example',
    '%2F%2Fevil.example',
    '/_gm/ledger%0D%0ALocation:%20https://evil.example',
    'javascript:alert(1)',
    '/evil',
  ])('refuses the refund return destination %j on the confirm page and the action', async (destination) => {
    const cookie = sessions['all'] ?? '';
    const confirm = await call(url(`/_gm/ledger/refund?order=${orderId}&return=${encodeURIComponent(destination)}`), { cookie });
    expect(confirm.status).toBe(400);
    expect(confirm.text).toContain('return destination was refused');
    const action = await call(url('/_gm/ledger/refund'), {
      method: 'POST',
      cookie,
      form: { _csrf: csrf(cookie), order: orderId, return: destination },
    });
    expect(action.status).toBe(400);
    expect(action.text).not.toContain('evil.example"');
    await untouched();
  });

  it('answers a page cursor beyond int64 or past any timestamp with 400, never a 5xx', async () => {
    const cookie = sessions['viewer'] ?? '';
    const canonical = (await call(url('/_gm/ledger'), { cookie })).location ?? '';
    expect(canonical).toMatch(/^\/_gm\/ledger\?/);
    for (const after of [
      '99999999999999999999.1',
      '9999999999999999999.1',
      '9223372036854775807.1',
      '253402300800000000.1',
      '1.9223372036854775808',
      '0.5',
      '5.0',
    ]) {
      const res = await call(url(`${canonical}&after=${after}`), { cookie });
      expect([after, res.status]).toEqual([after, 400]);
    }
    const last = await call(url(`${canonical}&after=253402300799999999.9223372036854775807`), { cookie });
    expect(last.status).toBe(200);
  });

  it('never redirects sign-in to a foreign return path, and escapes what it prints', async () => {
    const form = await call(url(`/_gm/login?return=${encodeURIComponent('//evil.example/')}`));
    expect(form.text).not.toContain('evil.example');
    const cookie = sessions['all'] ?? '';
    const found = await call(url(`/_gm/users?q=${account}`), { cookie });
    expect(found.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(found.text).not.toContain('<img src=x');
    expect(found.status).toBe(200);
    const ledger = await call(url('/_gm/ledger?wallet=%22%3E%3Cscript%3E'), { cookie });
    expect(ledger.status).toBe(400);
    expect(ledger.text).not.toContain('<script>');
  });

  it('answers pages with no-store, a script-free CSP and no framing; the token catalog API still works', async () => {
    const res = await fetch(url('/_gm/ledger'), { headers: { cookie: sessions['viewer'] ?? '' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const session = await fetch(url('/_gm/api/session'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'catalog-editor@ops.test', password: OPERATOR_PASSWORD }),
    });
    expect(session.status).toBe(200);
    const { token } = (await session.json()) as { token: string };
    const api = await fetch(url('/_gm/api/catalog/products'), { headers: { authorization: `Bearer ${token}` } });
    expect(api.status).toBe(200);
  });

  it('shows unmatched stars payments with their refund outcome, escaped, by status', async () => {
    await stack.db.query(
      `insert into unmatched_payments (provider, platform_charge_id, order_id, amount, platform_user_id, reason, refund_status, refund_attempts, refund_error, refunded_at)
       values ('telegram_stars', 'ch-pending', '<script>alert(1)</script>', 5, 42, 'unknown_order', 'pending', 2, 'no ack in time', null),
              ('telegram_stars', 'ch-refunded', 'o-2', 7, 43, 'order_paid', 'refunded', 1, null, now()),
              ('telegram_stars', 'ch-failed', 'o-3', 9, 44, 'amount_mismatch', 'failed', 1, 'platform 400: Bad Request: CHARGE_NOT_FOUND', null)`,
    );
    const all = await call(url('/_gm/unmatched'), { cookie: sessions['viewer'] ?? '' });
    expect(all.status).toBe(200);
    expect(all.text).not.toContain('<script>alert(1)');
    expect(all.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(all.text).toMatch(/data-pending="1" data-refunded="1" data-failed="1"/);
    expect(all.text).toMatch(/data-charge="ch-failed" data-status="failed">[\s\S]*refund failed[\s\S]*CHARGE_NOT_FOUND/);
    expect(all.text).toMatch(/data-charge="ch-pending" data-status="pending">[\s\S]*refund pending[\s\S]*no ack in time/);
    const failed = await call(url('/_gm/unmatched?status=failed'), { cookie: sessions['viewer'] ?? '' });
    expect(failed.text).toContain('ch-failed');
    expect(failed.text).not.toContain('ch-refunded');
    expect((await call(url('/_gm/unmatched?status=bogus'), { cookie: sessions['viewer'] ?? '' })).status).toBe(400);
    expect((await call(url('/_gm/unmatched?before=-1'), { cookie: sessions['viewer'] ?? '' })).status).toBe(400);
    expect((await call(url('/_gm/unmatched?before=9223372036854775808'), { cookie: sessions['viewer'] ?? '' })).status).toBe(400);
    expect((await call(url('/_gm/unmatched?before=9223372036854775807'), { cookie: sessions['viewer'] ?? '' })).status).toBe(200);
  });

  it("the ledger's Refund acts only from its confirmation page: a GET or a plain POST moves nothing and shows amount, currency, rail, player and order", async () => {
    const product =
      (await stack.db.query<{ id: string }>(`insert into catalog_products (title) values ('Ledger confirm pack') returning id`)).rows[0]
        ?.id ?? '';
    const order = await paidCardOrder(stack, account, product, 4_900n, 10n, new Date());
    const cookie = sessions['refunder'] ?? '';
    const paymentId =
      (await stack.db.query<{ id: string }>('select provider_payment_id as id from orders where id = $1', [order])).rows[0]?.id ?? '';
    const moved = async () => ({
      refunds: stack.provider.control.payment(paymentId).refunds.length,
      ledger: (await stack.db.query(`select 1 from ledger_operations where order_id = $1 and kind = 'refund'`, [order])).rowCount,
      audited: (await stack.db.query(`select 1 from operator_audit where action = 'refund' and target = $1`, [`order:${order}`])).rowCount,
    });
    const nothing = { refunds: 0, ledger: 0, audited: 0 };
    const shownFacts = {
      action: 'Refund in full',
      amount: '49.00 RUB',
      currency: 'RUB',
      rail: 'card (yookassa)',
      player: `account ${account}`,
      order: `${order} (now paid, 10 chips)`,
    };
    const shown = await refundConfirmation(cookie, order);
    expect(shown.status).toBe(200);
    expect(facts(shown.text)).toEqual(shownFacts);
    expect(shown.text).toContain('data-minor="4900"');
    expect(shown.text).toContain('id="back" href="/_gm/ledger"');
    expect(shown.token).not.toBe('');
    expect(await moved()).toEqual(nothing);

    // A plain POST (the old one-click form), a token of another session, of another order or a made-up one: the confirmation again.
    const otherSession = await refundConfirmation(sessions['all'] ?? '', order);
    const otherOrder = await refundConfirmation(cookie, orderId);
    expect(otherOrder.token).not.toBe('');
    for (const confirm of [undefined, otherSession.token, otherOrder.token, 'forged', '']) {
      const res = await call(url('/_gm/ledger/refund'), {
        method: 'POST',
        cookie,
        form: { _csrf: csrf(cookie), order, return: '/_gm/ledger', ...(confirm === undefined ? {} : { confirm }) },
      });
      expect([confirm, res.status]).toEqual([confirm, 200]);
      expect(res.text).toContain('id="unconfirmed"');
      expect(res.text).toContain('Nothing was done');
      expect(facts(res.text)).toEqual(shownFacts);
      expect(res.text).toMatch(/<form method="post" action="\/_gm\/ledger\/refund" id="refund-form">/);
      expect(await moved()).toEqual(nothing);
    }

    // The order changes after the page was shown (here: its chips snapshot): that page's token no longer acts.
    await stack.db.query('update orders set chips = 11 where id = $1', [order]);
    const stale = await call(url('/_gm/ledger/refund'), {
      method: 'POST',
      cookie,
      form: { _csrf: csrf(cookie), order, return: '/_gm/ledger', confirm: shown.token },
    });
    expect(stale.status).toBe(200);
    expect(stale.text).toContain('does not match this order as it is now');
    expect(facts(stale.text)['order']).toBe(`${order} (now paid, 11 chips)`);
    expect(await moved()).toEqual(nothing);

    // The confirmation page's own form acts, once.
    const fresh = await refundConfirmation(cookie, order);
    const done = await call(url('/_gm/ledger/refund'), {
      method: 'POST',
      cookie,
      form: { _csrf: csrf(cookie), order, return: '/_gm/ledger', confirm: fresh.token },
    });
    expect(done.status).toBe(200);
    expect(done.text).toContain('data-outcome="succeeded"');
    expect(await moved()).toEqual({ refunds: 1, ledger: 1, audited: 1 });
    // Refunded: its confirmation page offers nothing and says so.
    const again = await refundConfirmation(cookie, order);
    expect(again.status).toBe(409);
    expect(again.token).toBe('');
    expect(again.text).toContain('data-code="already_refunded"');

    // Stars: the player is the account and the platform user the stars go back to; an unknown order is 404 and offers nothing.
    const starsOrder = randomUUID();
    await stack.db.query(
      `insert into orders (id, account_id, product_id, title, rail, provider, segment, amount, currency, chips, state, created_at, expires_at, paid_at, platform_charge_id, platform_user_id)
       values ($1, $2, $3, 'Star pack', 'stars', 'telegram_stars', 'telegram', 50, 'XTR', 70, 'paid', now(), now() + interval '30 minutes', now(), $4, 7001)`,
      [starsOrder, account, product, `charge-${starsOrder}`],
    );
    const stars = await refundConfirmation(cookie, starsOrder);
    expect(stars.status).toBe(200);
    expect(facts(stars.text)).toEqual({
      action: 'Refund in full',
      amount: '50 XTR',
      currency: 'XTR',
      rail: 'stars (telegram_stars)',
      player: `account ${account} (platform user 7001)`,
      order: `${starsOrder} (now paid, 70 chips)`,
    });
    expect(stars.text).toContain('refund_star_payment');
    const unknown = await refundConfirmation(cookie, randomUUID());
    expect(unknown.status).toBe(404);
    expect(unknown.token).toBe('');
  });

  it('offers to start a new refund after the provider canceled one, and the new one is recorded once', async () => {
    const product =
      (await stack.db.query<{ id: string }>(`insert into catalog_products (title) values ('Retry pack') returning id`)).rows[0]?.id ?? '';
    const order = await paidCardOrder(stack, account, product, 4_900n, 10n, new Date());
    const cookie = sessions['refunder'] ?? '';
    const form = { order, return: '/_gm/ledger', _csrf: csrf(cookie), confirm: (await refundConfirmation(cookie, order)).token };
    stack.provider.control.setRefundOutcome('canceled', { times: 1 });
    const canceled = await call(url('/_gm/ledger/refund'), { method: 'POST', cookie, form });
    expect(canceled.status).toBe(409);
    expect(canceled.text).toContain('data-outcome="canceled"');
    expect(canceled.text).toMatch(/<form[^>]*action="\/_gm\/ledger\/refund"[\s\S]*Start a new refund/);
    // The outcome page's own form carries the confirmation: pressing it starts the new refund.
    expect(/name="confirm" value="([^"]+)"/.exec(canceled.text)?.[1]).toBe(form.confirm);
    const again = await call(url('/_gm/ledger/refund'), { method: 'POST', cookie, form });
    expect(again.status).toBe(200);
    expect(again.text).toContain('data-outcome="succeeded"');
    const rows = await stack.db.query(`select 1 from ledger_operations where order_id = $1 and kind = 'refund'`, [order]);
    expect(rows.rowCount).toBe(1);
  });
  /** The confirmation page of `action` on `mismatch` as `cookie`'s operator sees it, and its form's confirm token. */
  async function confirmation(cookie: string, mismatch: string, action: string) {
    const page = await call(url(`/_gm/reconciliation/act?mismatch=${mismatch}&action=${action}`), { cookie });
    return { ...page, token: /name="confirm" value="([^"]+)"/.exec(page.text)?.[1] ?? '' };
  }

  it('Credit and Refund pressed at once by two operators: one happens, and the other page says which and by whom', async () => {
    const product =
      (await stack.db.query<{ id: string }>(`insert into catalog_products (title) values ('Race pack') returning id`)).rows[0]?.id ?? '';
    stack.provider.control.addFault({ method: 'POST', pathPrefix: '/v3/refunds', status: 'timeout', delayMs: 150, times: 4 });
    for (let round = 0; round < 4; round += 1) {
      const { orderId, paymentId, mismatch } = await takenNotCredited(stack, account, product);
      const who = (i: number) => ((i + round) % 2 === 0 ? 'refunder' : 'all');
      // Both operators have the confirmation page open, then both confirm at once.
      const confirmed = await Promise.all(['credit', 'refund'].map((action, i) => confirmation(sessions[who(i)] ?? '', mismatch, action)));
      const press = (login: 'refunder' | 'all', action: string, confirm: string) => {
        const cookie = sessions[login] ?? '';
        return call(url('/_gm/reconciliation/act'), {
          method: 'POST',
          cookie,
          form: { _csrf: csrf(cookie), mismatch, action, confirm },
        }).then((page) => ({ login, action, ...page }));
      };
      const pages = await Promise.all(['credit', 'refund'].map((action, i) => press(who(i), action, confirmed[i]?.token ?? '')));
      const won = pages.filter((p) => p.status === 200);
      const lost = pages.filter((p) => p.status === 409);
      expect([round, won.length, lost.length]).toEqual([round, 1, 1]);
      const winner = won[0];
      const loser = lost[0];
      if (!winner || !loser) throw new Error('unreachable');
      const state = (await stack.db.query<{ state: string }>('select state from orders where id = $1', [orderId])).rows[0]?.state;
      expect([round, state === 'paid', stack.provider.control.payment(paymentId).refunds.length]).toEqual([
        round,
        winner.action === 'credit',
        winner.action === 'refund' ? 1 : 0,
      ]);
      expect(winner.text).toContain(winner.action === 'credit' ? 'data-outcome="credited"' : 'data-outcome="refunded"');
      expect(loser.text).toContain('Another action came first');
      expect(loser.text).toMatch(/data-code="(already_resolved|action_in_progress)"/);
      const told = /id="outcome"[^>]*>([^<]*)</.exec(loser.text)?.[1] ?? '';
      expect(told).toContain(`${winner.login}@ops.test`);
      expect(told).toContain(winner.action);
    }
  });

  it('Refund and Credit of a reconciliation row act only from their confirmation page: a GET or a plain POST moves nothing and shows amount, currency, rail, player and order', async () => {
    const product =
      (await stack.db.query<{ id: string }>(`insert into catalog_products (title) values ('Confirm pack') returning id`)).rows[0]?.id ?? '';
    const cookie = sessions['refunder'] ?? '';
    const moved = async (orderId: string, paymentId: string, mismatch: string) => ({
      state: (await stack.db.query<{ state: string }>('select state from orders where id = $1', [orderId])).rows[0]?.state,
      refunds: stack.provider.control.payment(paymentId).refunds.length,
      resolution:
        (await stack.db.query<{ resolution: string | null }>('select resolution from reconciliation_mismatches where id = $1', [mismatch]))
          .rows[0]?.resolution ?? null,
      audited: (await stack.db.query(`select 1 from operator_audit where target = $1`, [`mismatch:${mismatch}`])).rowCount,
    });
    const nothing = { state: 'pending', refunds: 0, resolution: null, audited: 0 };
    for (const action of ['refund', 'credit'] as const) {
      const { orderId, paymentId, mismatch } = await takenNotCredited(stack, account, product);
      const shown = await confirmation(cookie, mismatch, action);
      expect(shown.status).toBe(200);
      expect(facts(shown.text)).toEqual({
        action: action === 'refund' ? 'Refund' : 'Credit the order',
        amount: '49.00 RUB',
        currency: 'RUB',
        rail: 'card (yookassa)',
        player: `account ${account}`,
        order: `${orderId} (now pending, 10 chips)`,
        payment: paymentId,
        mismatch: expect.stringContaining(`${mismatch} (Money taken, not credited, run `) as string,
      });
      expect(shown.text).toContain('data-minor="4900"');
      expect(shown.token).not.toBe('');
      expect(await moved(orderId, paymentId, mismatch)).toEqual(nothing);
      // The report's button is a link to this page, not a form that acts.
      const report = await call(url('/_gm/reconciliation'), { cookie: sessions['all'] ?? '' });
      expect(report.text).toContain(`href="/_gm/reconciliation/act?mismatch=${mismatch}&amp;action=${action}"`);

      // A plain POST (the old one-click form), a token of another session, of the other action or a made-up one: the confirmation again.
      const otherAction = await confirmation(cookie, mismatch, action === 'refund' ? 'credit' : 'refund');
      const otherSession = await confirmation(sessions['all'] ?? '', mismatch, action);
      for (const confirm of [undefined, otherAction.token, otherSession.token, 'forged']) {
        const res = await call(url('/_gm/reconciliation/act'), {
          method: 'POST',
          cookie,
          form: { _csrf: csrf(cookie), mismatch, action, ...(confirm === undefined ? {} : { confirm }) },
        });
        expect([confirm, res.status]).toEqual([confirm, 200]);
        expect(res.text).toContain('id="unconfirmed"');
        expect(res.text).toContain('Nothing was done');
        expect(facts(res.text)).toMatchObject({
          amount: '49.00 RUB',
          currency: 'RUB',
          rail: 'card (yookassa)',
          player: `account ${account}`,
        });
        expect(await moved(orderId, paymentId, mismatch)).toEqual(nothing);
      }

      // The confirmation page's own form acts.
      const done = await call(url('/_gm/reconciliation/act'), {
        method: 'POST',
        cookie,
        form: { _csrf: csrf(cookie), mismatch, action, confirm: shown.token },
      });
      expect(done.status).toBe(200);
      expect(done.text).toContain(action === 'refund' ? 'data-outcome="refunded"' : 'data-outcome="credited"');
      const after = await moved(orderId, paymentId, mismatch);
      expect(after).toEqual(
        action === 'refund'
          ? { state: 'failed', refunds: 1, resolution: expect.stringMatching(/^refunded:/) as string, audited: 1 }
          : { state: 'paid', refunds: 0, resolution: `credited:${orderId}`, audited: 1 },
      );
      // Resolved: its confirmation page offers nothing and says what was done, by whom.
      const again = await confirmation(cookie, mismatch, action);
      expect(again.status).toBe(409);
      expect(again.token).toBe('');
      expect(again.text).toContain('data-code="already_resolved"');
      expect(again.text).toContain('by <span class="by">refunder@ops.test</span>');
    }
  });

  it('a resolved row stays in the history view (what was done, by whom, when) after a new run replaces the report; paged newest first', async () => {
    const product =
      (await stack.db.query<{ id: string }>(`insert into catalog_products (title) values ('History pack') returning id`)).rows[0]?.id ?? '';
    const refunded = await takenNotCredited(stack, account, product);
    const marked = await takenNotCredited(stack, account, product);
    const refunder = sessions['refunder'] ?? '';
    const shown = await confirmation(refunder, refunded.mismatch, 'refund');
    const done = await call(url('/_gm/reconciliation/act'), {
      method: 'POST',
      cookie: refunder,
      form: { _csrf: csrf(refunder), mismatch: refunded.mismatch, action: 'refund', confirm: shown.token },
    });
    expect(done.status).toBe(200);
    const all = sessions['all'] ?? '';
    const resolved = await call(url('/_gm/reconciliation/act'), {
      method: 'POST',
      cookie: all,
      form: { _csrf: csrf(all), mismatch: marked.mismatch, action: 'resolve' },
    });
    expect(resolved.text).toContain('data-outcome="resolved"');
    const refundId = stack.provider.control.payment(refunded.paymentId).refunds[0]?.id ?? '';
    expect(refundId).not.toBe('');

    // The next run finds nothing: the report no longer lists either row, the history does.
    await stack.db.query(
      `insert into reconciliation_runs (trigger, window_from, window_to, started_at, finished_at, outcome, rails)
       values ('schedule', now() - interval '1 hour', now(), now(), now(), 'clean', 'card')`,
    );
    const viewer = sessions['viewer'] ?? '';
    const report = await call(url('/_gm/reconciliation'), { cookie: viewer });
    expect(report.text).toContain('data-outcome="clean"');
    expect(report.text).not.toContain(`data-id="${refunded.mismatch}"`);
    const history = await call(url('/_gm/reconciliation?view=history'), { cookie: viewer });
    expect(history.status).toBe(200);
    const rowOf = (text: string, id: string) => new RegExp(`<tr data-id="${id}"[^>]*>([\\s\\S]*?)</tr>`).exec(text)?.[1] ?? '';
    const cells = (row: string) => [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => (m[1] ?? '').replace(/<[^>]+>/g, ''));
    const at = async (id: string) =>
      (
        await stack.db.query<{ at: string }>(
          `select to_char(resolved_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS') as at from reconciliation_mismatches where id = $1`,
          [id],
        )
      ).rows[0]?.at;
    expect(cells(rowOf(history.text, marked.mismatch)).slice(0, 3)).toEqual([await at(marked.mismatch), 'all@ops.test', 'marked resolved']);
    expect(cells(rowOf(history.text, refunded.mismatch)).slice(0, 3)).toEqual([
      await at(refunded.mismatch),
      'refunder@ops.test',
      `refunded ${refundId}`,
    ]);
    expect(cells(rowOf(history.text, refunded.mismatch))).toContain(`account ${account}`);
    // Newest resolution first: the row marked resolved last comes before the refunded one.
    expect(history.text.indexOf(`data-id="${marked.mismatch}"`)).toBeLessThan(history.text.indexOf(`data-id="${refunded.mismatch}"`));

    // More resolved rows than one page, several resolved at one instant: the pages cover each exactly once, newest first.
    const run = (await stack.db.query<{ id: string }>(`select id::text from reconciliation_runs order by id desc limit 1`)).rows[0]?.id;
    const operator = (await stack.db.query<{ id: string }>(`select id::text from operators where login = 'all@ops.test'`)).rows[0]?.id;
    await stack.db.query(
      `insert into reconciliation_mismatches (run_id, kind, rail, provider, payment_ref, resolution, resolved_at, resolved_by)
       select $1, 'refund_provider_only', 'card', 'yookassa', 'hist-' || i, 'resolved', now() - (i / 4) * interval '1 second', $2
         from generate_series(1, 60) i`,
      [run, operator],
    );
    const expected = (
      await stack.db.query<{ id: string }>(
        `select m.id::text from reconciliation_mismatches m where m.resolved_at is not null order by m.resolved_at desc, m.id desc`,
      )
    ).rows.map((r) => r.id);
    expect(expected.length).toBeGreaterThan(60);
    const seen: string[] = [];
    let next: string | null = '/_gm/reconciliation?view=history';
    for (let pages = 0; next !== null && pages < 10; pages += 1) {
      const res = await call(url(next), { cookie: viewer });
      expect(res.status).toBe(200);
      const ids = [...res.text.matchAll(/<tr data-id="(\d+)"/g)].map((m) => m[1] ?? '');
      expect(ids.length).toBeLessThanOrEqual(50);
      seen.push(...ids);
      next = /id="next" href="([^"]+)"/.exec(res.text)?.[1]?.replace(/&amp;/g, '&') ?? null;
    }
    expect(seen).toEqual(expected);
    expect((await call(url('/_gm/reconciliation?view=history&before=x.1'), { cookie: viewer })).status).toBe(400);
    expect((await call(url('/_gm/reconciliation?view=bogus'), { cookie: viewer })).status).toBe(400);
  });

  it('six refund presses of one order at once make one provider refund; the other pages say it is in progress or done', async () => {
    const product =
      (await stack.db.query<{ id: string }>(`insert into catalog_products (title) values ('Six pack') returning id`)).rows[0]?.id ?? '';
    const order = await paidCardOrder(stack, account, product, 4_900n, 10n, new Date());
    const tokens = {
      refunder: (await refundConfirmation(sessions['refunder'] ?? '', order)).token,
      all: (await refundConfirmation(sessions['all'] ?? '', order)).token,
    };
    stack.provider.control.addFault({ method: 'POST', pathPrefix: '/v3/refunds', status: 'timeout', delayMs: 150, times: 6 });
    const pages = await Promise.all(
      Array.from({ length: 6 }, (_, i) => {
        const login = i % 2 === 0 ? 'refunder' : 'all';
        const cookie = sessions[login] ?? '';
        return call(url('/_gm/ledger/refund'), {
          method: 'POST',
          cookie,
          form: { order, return: '/_gm/ledger', _csrf: csrf(cookie), confirm: tokens[login] },
        });
      }),
    );
    const calls = stack.provider.control
      .requests()
      .filter((r) => r.method === 'POST' && r.path === '/v3/refunds' && r.idempotenceKey === `refund-${order}`);
    expect(calls).toHaveLength(1);
    for (const page of pages) {
      if (page.status === 200) {
        expect(page.text).toContain('data-outcome="succeeded"');
      } else {
        expect(page.status).toBe(409);
        expect(page.text).toContain('data-outcome="in_progress"');
        expect(page.text).toMatch(/a refund of this order by (refunder|all)@ops\.test is in progress since /);
      }
    }
    const rows = await stack.db.query(`select 1 from ledger_operations where order_id = $1 and kind = 'refund'`, [order]);
    expect(rows.rowCount).toBe(1);
  });
});
