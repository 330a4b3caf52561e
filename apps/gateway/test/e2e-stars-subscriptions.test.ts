import type { PlatformEmulator, PreCheckoutView } from '@wordgame/platform-emulator';
import { eventually } from './support/botlink-gateway.js';
import { call } from './support/edge.js';
import { reconcileCli } from './support/reconcile-cli.js';
import {
  bearer,
  createProduct,
  startPaymentsStack,
  telegramCustomer,
  type Customer,
  type OrderBody,
  type PaymentsStack,
} from './support/payments-stack.js';

const PAYER = 8301;
const PERIOD = 2_592_000;

interface SubscriptionBody {
  id: string;
  state: string;
  paid_until: string | null;
  next_renewal: string | null;
  cancelled_at: string | null;
  periods: number;
}

/**
 * A monthly pass across real processes: client -> gateway -> backend -> create_invoice with the
 * subscription period over the real bot-link -> the real bot -> the platform emulator; the payer pays
 * through the emulator's control API, the emulator's clock renews the subscription twice (each a
 * successful_payment the bot forwards with is_recurring and the expiration date), the reconcile
 * CLI reads the platform's list through the bot and finds every charge credited, the player
 * cancels from the REST edge (edit_star_subscription through the bot), and the platform lets the
 * subscription expire at the end of its paid period instead of renewing it.
 */
describe('e2e: a monthly pass through gateway, backend, bot and the platform emulator', () => {
  let stack: PaymentsStack;
  let platform: PlatformEmulator;
  let payer: Customer;
  let pass: string;

  const subscriptions = async () =>
    ((await call(`${stack.api}/user/subscriptions`, { headers: bearer(payer) })).body as { subscriptions: SubscriptionBody[] })
      .subscriptions;
  const noAdsUntil = async () => {
    const wallet = (await call(`${stack.api}/user/wallet`, { headers: bearer(payer) })).body as {
      benefits: { origin: string; no_ads_until: string | null; hints: string }[];
    };
    return wallet.benefits.find((b) => b.origin === 'telegram')?.no_ads_until ?? null;
  };
  const iso = (unix: number) => new Date(unix * 1000).toISOString();
  const pay = async (link: string): Promise<PreCheckoutView> => {
    const { preCheckoutQueryId } = platform.control.pay({ link, userId: PAYER });
    let view: PreCheckoutView | undefined;
    await eventually(() => {
      view = platform.control.preCheckout(preCheckoutQueryId);
      return view !== undefined && view.status !== 'pending';
    }, 20_000);
    if (!view) throw new Error('no pre-checkout');
    return view;
  };

  beforeAll(async () => {
    stack = await startPaymentsStack({ bot: true });
    if (!stack.platform) throw new Error('no platform emulator');
    platform = stack.platform;
    platform.control.createUser({ id: PAYER, firstName: 'Payer', started: true });
    pass = await createProduct(stack, 'Monthly pass', 10n, { xtr: 100n });
    await stack.db.query('update catalog_products set subscription_period = 2592000 where id = $1', [pass]);
    payer = await telegramCustomer(stack.api, PAYER);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('first payment, two renewals, a cancellation and the expiry at the end of the paid period', async () => {
    const started = new Date(Date.now() - 1_000);
    const res = await call(`${stack.api}/user/wallet/orders`, {
      method: 'POST',
      headers: bearer(payer),
      json: { product_id: pass, rail: 'stars' },
    });
    expect(res.status).toBe(201);
    const order = res.body as OrderBody;
    const invoice = platform.control.state().invoices.find((i) => i.link === order.invoice_link);
    expect(invoice).toMatchObject({ payload: order.order_id, amount: 100, subscriptionPeriod: PERIOD });

    // first payment: the subscription starts, the pass runs to the platform's expiration date
    const checkout = await pay(order.invoice_link ?? '');
    expect(checkout.status).toBe('approved');
    const firstCharge = checkout.telegramPaymentChargeId ?? '';
    await eventually(async () => (await subscriptions()).length === 1, 20_000);
    let platformSub = platform.control.subscription(firstCharge);
    if (!platformSub) throw new Error('no platform subscription');
    let [mine] = await subscriptions();
    expect(mine).toMatchObject({
      state: 'active',
      periods: 1,
      paid_until: iso(platformSub.expiresAt),
      next_renewal: iso(platformSub.expiresAt),
    });
    expect(await noAdsUntil()).toBe(iso(platformSub.expiresAt));

    // two renewals on the platform's clock, each forwarded by the bot and credited once
    for (const periods of [2, 3]) {
      const advanced = platform.control.advanceClock(PERIOD);
      expect(advanced.renewals).toHaveLength(1);
      await eventually(async () => (await subscriptions())[0]?.periods === periods, 20_000);
    }
    platformSub = platform.control.subscription(firstCharge);
    if (!platformSub) throw new Error('no platform subscription');
    expect(platformSub.chargeIds).toHaveLength(3);
    [mine] = await subscriptions();
    expect(mine).toMatchObject({ state: 'active', periods: 3, paid_until: iso(platformSub.expiresAt) });
    expect(await noAdsUntil()).toBe(iso(platformSub.expiresAt));
    const renewals = await stack.db.query<{ n: number }>(
      `select count(*)::int as n from orders o join ledger_operations l on l.order_id = o.id and l.kind = 'purchase'
       where o.platform_charge_id = any($1::text[])`,
      [platformSub.chargeIds],
    );
    expect(renewals.rows[0]?.n).toBe(3);
    expect((await stack.db.query('select 1 from unmatched_payments')).rowCount).toBe(0);

    // reconciliation through the real bot's get_star_transactions: the platform lists the first
    // charge and both renewals (dated on its clock, so the window reaches its latest renewal; each
    // charge carries the subscription period) and each matches the order its charge credited
    const listed = platform.control.state().payments.filter((p) => platformSub?.chargeIds.includes(p.telegramPaymentChargeId));
    expect(listed.map((p) => p.subscriptionPeriod)).toEqual([PERIOD, PERIOD, PERIOD]);
    const run = await reconcileCli(stack, [
      '--from',
      started.toISOString(),
      '--to',
      new Date((platformSub.expiresAt + 1) * 1000).toISOString(),
    ]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(run.stdout) as { run: { outcome: string; rails: string[] }; mismatches: unknown[] };
    expect(report.run).toMatchObject({ outcome: 'clean', rails: ['card', 'stars'] });
    expect(report.mismatches).toEqual([]);

    // the player cancels: the bot edits the platform's subscription; the pass stays to its end
    const cancelled = await call(`${stack.api}/user/subscriptions/${mine?.id ?? ''}/cancel`, { method: 'POST', headers: bearer(payer) });
    expect(cancelled).toMatchObject({
      status: 200,
      body: { state: 'cancelled', paid_until: iso(platformSub.expiresAt), next_renewal: null },
    });
    expect(platform.control.subscription(firstCharge)?.canceled).toBe(true);
    expect(await noAdsUntil()).toBe(iso(platformSub.expiresAt));

    // the paid period ends on the platform: no renewal, the subscription expires there
    const end = platformSub.expiresAt;
    const after = platform.control.advanceClock(PERIOD);
    expect(after.renewals).toHaveLength(0);
    expect(after.expired).toEqual([{ subscriptionId: platformSub.id, reason: 'canceled' }]);
    expect(platform.control.subscription(firstCharge)?.status).toBe('expired');
    // no charge came, so the backend's pass ends exactly where the platform's paid period ended
    [mine] = await subscriptions();
    expect(mine).toMatchObject({ periods: 3, paid_until: iso(end) });
    const kept = await stack.db.query<{ n: number }>('select count(*)::int as n from star_subscription_periods');
    expect(kept.rows[0]?.n).toBe(3);
    // re-enabling an expired subscription is refused by the platform; the player is told it has ended
    const reenable = await call(`${stack.api}/user/subscriptions/${mine?.id ?? ''}/enable`, { method: 'POST', headers: bearer(payer) });
    expect(reenable).toMatchObject({ status: 409, body: { error: { code: 'subscription_expired' } } });
    expect((await subscriptions())[0]?.state).toBe('cancelled');
  });
});
