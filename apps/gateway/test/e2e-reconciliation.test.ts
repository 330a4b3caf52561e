import { createHmac } from 'node:crypto';
import type { PlatformEmulator } from '@wordgame/platform-emulator';
import { eventually } from './support/botlink-gateway.js';
import { reconcileCli } from './support/reconcile-cli.js';
import { call } from './support/edge.js';
import { createOperator, OPERATOR_PASSWORD } from './support/operator-api.js';
import {
  bearer,
  createProduct,
  directCustomer,
  startPaymentsStack,
  telegramCustomer,
  type Customer,
  type OrderBody,
  type PaymentsStack,
} from './support/payments-stack.js';

const PAYER = 8201;

/** A console HTTP call without following redirects, with an optional session cookie and form. */
async function gm(url: string, init: { method?: string; cookie?: string; form?: Record<string, string> } = {}) {
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
 * Provider reconciliation across real processes: the backend and the `reconcile` CLI as their own
 * processes, the gateway with its console, the real bot reading getStarTransactions from the
 * platform emulator, and the provider emulator. Mismatches made in both emulators show in the CLI's
 * report and on /_gm/reconciliation, where a refunder returns money taken but not credited.
 */
describe('e2e: provider reconciliation, CLI and console', () => {
  let stack: PaymentsStack;
  let platform: PlatformEmulator;
  let pack: string;
  let cardBuyer: Customer;
  let starsBuyer: Customer;
  const sessions: Record<string, string> = {};
  const url = (path: string) => `${stack.urls.httpUrl}${path}`;
  const csrf = (cookie: string) =>
    createHmac('sha256', cookie.replace(/^gm_session=/, ''))
      .update('wordgame-console-csrf-v1')
      .digest('base64url');

  async function signIn(login: string): Promise<string> {
    const form = await gm(url('/_gm/login'));
    const nonceCookie = form.setCookie.find((c) => c.startsWith('gm_login='))?.split(';')[0] ?? '';
    const nonce = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? '';
    const res = await gm(url('/_gm/login'), {
      method: 'POST',
      cookie: nonceCookie,
      form: { _csrf: nonce, login, password: OPERATOR_PASSWORD },
    });
    expect(res.status).toBe(303);
    return res.setCookie.find((c) => c.startsWith('gm_session='))?.split(';')[0] ?? '';
  }

  /** Runs the reconcile CLI as its own process with the backend's configuration. */
  const reconcile = (args: string[], extraEnv: Record<string, string> = {}) => reconcileCli(stack, args, extraEnv);

  const order = async (who: Customer, rail: 'card' | 'stars') => {
    const res = await call(`${stack.api}/user/wallet/orders`, { method: 'POST', headers: bearer(who), json: { product_id: pack, rail } });
    expect(res.status).toBe(201);
    return res.body as OrderBody;
  };
  const paymentIdOf = async (orderId: string) =>
    (await stack.db.query<{ provider_payment_id: string }>('select provider_payment_id from orders where id = $1', [orderId])).rows[0]
      ?.provider_payment_id ?? '';

  beforeAll(async () => {
    stack = await startPaymentsStack({ bot: true, backendEnv: { RECONCILIATION_INTERVAL_MS: '0', STAR_REFUND_INTERVAL_MS: '0' } });
    if (!stack.platform) throw new Error('no platform emulator');
    platform = stack.platform;
    platform.control.createUser({ id: PAYER, firstName: 'Payer', started: true });
    const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
      try {
        return await run();
      } catch (err: unknown) {
        throw new Error(`${name}: ${String(err)} ${String((err as { cause?: unknown }).cause)}`);
      }
    };
    pack = await step('product', () => createProduct(stack, 'Chips 300', 300n, { rub: 29_900n, xtr: 30n }));
    cardBuyer = await step('card buyer', () => directCustomer(stack, 'recon-card@example.test', true));
    starsBuyer = await step('stars buyer', () => telegramCustomer(stack.api, PAYER));
    for (const role of ['viewer', 'refunder'])
      expect(createOperator(stack.db.url, `recon-${role}@ops.test`, role === 'viewer' ? 'viewer' : 'viewer,refunder').status).toBe(0);
    // createOperator blocks this process while the CLI runs: a pooled keep-alive socket the
    // gateway closed meanwhile fails the first request on it, so sign-in gets one retry.
    for (const role of ['viewer', 'refunder']) {
      sessions[role] = await step(`sign in ${role}`, () => signIn(`recon-${role}@ops.test`).catch(() => signIn(`recon-${role}@ops.test`)));
    }
  }, 240_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('finds each mismatch made in the emulators; the console shows them and a refunder returns the money', async () => {
    const from = new Date(Date.now() - 1_000);
    // card: a lost notification (taken, not credited) and a payment the provider forgot (credited, not taken)
    const lost = await order(cardBuyer, 'card');
    const lostPayment = await paymentIdOf(lost.order_id);
    stack.provider.control.payQuietly(lostPayment);
    const forgotten = await order(cardBuyer, 'card');
    const forgottenPayment = await paymentIdOf(forgotten.order_id);
    await stack.provider.control.succeedPayment(forgottenPayment);
    await eventually(
      async () => (await stack.db.query(`select 1 from orders where id = $1 and state = 'paid'`, [forgotten.order_id])).rowCount === 1,
      20_000,
    );
    stack.provider.control.removePayment(forgottenPayment);
    // stars: a paid order whose charge the platform now reports with another amount, and a charge the bot never forwarded
    const paid = await order(starsBuyer, 'stars');
    platform.control.pay({ link: paid.invoice_link ?? '', userId: PAYER });
    await eventually(
      async () => (await stack.db.query(`select 1 from orders where id = $1 and state = 'paid'`, [paid.order_id])).rowCount === 1,
      30_000,
    );
    const paidCharge =
      (await stack.db.query<{ platform_charge_id: string }>('select platform_charge_id from orders where id = $1', [paid.order_id])).rows[0]
        ?.platform_charge_id ?? '';
    platform.control.alterCharge(paidCharge, 29);
    const never = await order(starsBuyer, 'stars');
    const { telegramPaymentChargeId: neverCharge } = platform.control.unforwardedCharge({
      userId: PAYER,
      amount: 30,
      payload: never.order_id,
    });

    const run = await reconcile(['--from', from.toISOString(), '--to', new Date(Date.now() + 2_000).toISOString()]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 1, stderr: '' });
    const report = JSON.parse(run.stdout) as {
      run: { outcome: string; rails: string[] };
      mismatches: Array<{ id: string; kind: string; rail: string; orderId: string | null; paymentId: string }>;
    };
    expect(report.run).toMatchObject({ outcome: 'mismatches', rails: ['card', 'stars'] });
    const found = report.mismatches.map((m) => [m.kind, m.rail, m.orderId, m.paymentId]);
    expect(found).toEqual(
      expect.arrayContaining([
        ['taken_not_credited', 'card', lost.order_id, lostPayment],
        ['credited_not_taken', 'card', forgotten.order_id, forgottenPayment],
        ['amount_mismatch', 'stars', paid.order_id, paidCharge],
        ['taken_not_credited', 'stars', never.order_id, neverCharge],
      ]),
    );
    expect(found).toHaveLength(4);
    const idOf = (payment: string) => report.mismatches.find((m) => m.paymentId === payment)?.id ?? '';

    // a viewer reads the report without actions
    const viewed = await gm(url('/_gm/reconciliation'), { cookie: sessions['viewer'] ?? '' });
    expect(viewed.status).toBe(200);
    expect(viewed.text).toContain('data-outcome="mismatches"');
    for (const id of [lost.order_id, forgotten.order_id, paid.order_id, neverCharge, lostPayment]) expect(viewed.text).toContain(id);
    expect(viewed.text).toContain('Money taken, not credited');
    expect(viewed.text).not.toContain('/_gm/reconciliation/act');
    const refused = await gm(url('/_gm/reconciliation/act'), {
      method: 'POST',
      cookie: sessions['viewer'] ?? '',
      form: { _csrf: csrf(sessions['viewer'] ?? ''), mismatch: idOf(lostPayment), action: 'credit' },
    });
    expect(refused.status).toBe(403);

    // a refunder credits the card order the money was taken for, and returns the stars charge
    const refunder = sessions['refunder'] ?? '';
    const shown = await gm(url('/_gm/reconciliation'), { cookie: refunder });
    expect(shown.text).toContain('action="/_gm/reconciliation/act"');
    // Each money action is confirmed on its page (amount, currency, rail, player, order) before it acts.
    const act = async (payment: string, action: string) => {
      const confirmation = await gm(url(`/_gm/reconciliation/act?mismatch=${idOf(payment)}&action=${action}`), { cookie: refunder });
      return gm(url('/_gm/reconciliation/act'), {
        method: 'POST',
        cookie: refunder,
        form: {
          _csrf: csrf(refunder),
          mismatch: idOf(payment),
          action,
          confirm: /name="confirm" value="([^"]+)"/.exec(confirmation.text)?.[1] ?? '',
        },
      });
    };
    const stars = await gm(url(`/_gm/reconciliation/act?mismatch=${idOf(neverCharge)}&action=refund`), { cookie: refunder });
    expect(stars.status).toBe(200);
    expect(stars.text).toContain('<tr data-fact="amount"><th>Amount</th><td><span data-minor="30">30 XTR</span></td></tr>');
    expect(stars.text).toContain('<tr data-fact="rail"><th>Rail</th><td>stars (telegram_stars)</td></tr>');
    expect(stars.text).toContain(`(platform user ${PAYER})`);
    expect(stars.text).toContain(never.order_id);
    const credited = await act(lostPayment, 'credit');
    expect(credited.status).toBe(200);
    expect(credited.text).toContain('data-outcome="credited"');
    expect((await stack.db.query<{ state: string }>('select state from orders where id = $1', [lost.order_id])).rows[0]?.state).toBe(
      'paid',
    );
    const returned = await act(neverCharge, 'refund');
    expect(returned.status).toBe(200);
    expect(returned.text).toContain('data-outcome="refunded"');
    expect(platform.control.starRefunds()).toEqual([
      expect.objectContaining({ telegramPaymentChargeId: neverCharge, userId: PAYER, totalAmount: 30 }),
    ]);
    const again = await act(neverCharge, 'refund');
    expect(again.status).toBe(409);
    expect(again.text).toContain('data-code="already_resolved"');
    expect(again.text).toContain('by <span class="by">recon-refunder@ops.test</span>');
    const audit = await stack.db.query<{ action: string; outcome: string }>(
      `select action, outcome from operator_audit where action like 'reconciliation_%' order by id`,
    );
    // the viewer's POST was refused by the gateway's role guard, and the second refund stopped at its
    // confirmation (the row is resolved, so there is nothing to confirm): neither reached the action
    expect(audit.rows).toEqual([
      { action: 'reconciliation_credit', outcome: 'credited' },
      { action: 'reconciliation_refund', outcome: 'refunded' },
    ]);
    const after = await gm(url('/_gm/reconciliation'), { cookie: refunder });
    expect(after.text).toContain('data-open="2"');
  }, 180_000);

  it('a clean window reports nothing and the CLI exits 0; bad arguments exit 2', async () => {
    const later = new Date(Date.now() + 60_000);
    const clean = await reconcile(['--from', later.toISOString(), '--to', new Date(later.getTime() + 60_000).toISOString()]);
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ run: { outcome: 'clean' }, mismatches: [] });
    const bad = await reconcile(['--from', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--from must be an ISO 8601 time/);
    const page = await gm(url('/_gm/reconciliation'), { cookie: sessions['viewer'] ?? '' });
    expect(page.text).toContain('data-outcome="clean"');
    // The rows the first test resolved left the report with this run; the history keeps them, with who did what.
    const history = await gm(url('/_gm/reconciliation?view=history'), { cookie: sessions['viewer'] ?? '' });
    expect(history.status).toBe(200);
    const resolved = [...history.text.matchAll(/<tr data-id="\d+" data-resolution="([^"]*)">[\s\S]*?<td class="by">([^<]*)<\/td>/g)].map(
      (m) => [m[1]?.split(':')[0], m[2]],
    );
    expect(resolved).toEqual([
      ['refunded', 'recon-refunder@ops.test'],
      ['credited', 'recon-refunder@ops.test'],
    ]);
  }, 180_000);

  it('the real bot against a newest-first platform: past the call bound the CLI exits 3 and the console says incomplete; within it every charge is found', async () => {
    platform.control.setStarTransactionsOrder('newest_first');
    try {
      const from = new Date(Date.now() - 1_000);
      const lost = new Set(
        Array.from(
          { length: 120 },
          () => platform.control.unforwardedCharge({ userId: PAYER, amount: 30, payload: '' }).telegramPaymentChargeId,
        ),
      );
      const args = ['--from', from.toISOString(), '--to', new Date(Date.now() + 2_000).toISOString()];
      const short = await reconcile(args, { RECONCILIATION_STARS_MAX_CALLS: '1' });
      expect({ code: short.code, stderr: short.stderr }).toEqual({ code: 3, stderr: '' });
      const stopped = JSON.parse(short.stdout) as { run: { outcome: string; error: string }; mismatches: unknown[] };
      expect(stopped.run.outcome).toBe('incomplete');
      expect(stopped.run.error).toMatch(/call bound reached \(1 calls\).*RECONCILIATION_STARS_MAX_CALLS/);
      expect(stopped.mismatches).toEqual([]);
      const page = await gm(url('/_gm/reconciliation'), { cookie: sessions['viewer'] ?? '' });
      expect(page.text).toContain('data-outcome="incomplete"');
      expect(page.text).toContain('nothing reported for this run');

      const whole = await reconcile(args);
      expect({ code: whole.code, stderr: whole.stderr }).toEqual({ code: 1, stderr: '' });
      const report = JSON.parse(whole.stdout) as { mismatches: Array<{ kind: string; paymentId: string }> };
      expect(report.mismatches.map((m) => `${m.kind} ${m.paymentId}`).sort()).toEqual(
        [...lost].map((id) => `taken_not_credited ${id}`).sort(),
      );
    } finally {
      platform.control.setStarTransactionsOrder('oldest_first');
    }
  }, 180_000);
});
