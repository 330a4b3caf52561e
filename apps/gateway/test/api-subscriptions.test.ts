import { randomUUID } from 'node:crypto';
import { call } from './support/edge.js';
import {
  bearer,
  createProduct,
  directCustomer,
  startPaymentsStack,
  telegramCustomer,
  type Customer,
  type PaymentsStack,
} from './support/payments-stack.js';

const DAY = 86_400_000;

interface SubscriptionBody {
  id: string;
  product_id: string;
  title: string;
  state: string;
  paid_until: string | null;
  next_renewal: string | null;
  cancelled_at: string | null;
  amount: string;
  currency: string;
  period_seconds: string;
  periods: number;
}

/**
 * The player's monthly passes through the REST edge (gateway -> backend -> PostgreSQL), with no
 * bot linked: listing, the refusals of cancel/enable, and that nothing is recorded when the bot
 * cannot be reached. The flow with the bot and the platform emulator is e2e-stars-subscriptions.test.ts.
 */
describe('REST /api/v1/user/subscriptions through gateway -> backend -> PostgreSQL', () => {
  let stack: PaymentsStack;
  let subs: string;
  let payer: Customer;
  let stranger: Customer;
  let pass: string;
  const ids: Record<'active' | 'expired', string> = { active: '', expired: '' };

  /** A paid pass order with its subscription and one period ending at `paidUntil` (what a first payment records). */
  async function seedSubscription(who: Customer, paidUntil: Date): Promise<string> {
    const orderId = randomUUID();
    const charge = `seed-${orderId}`;
    await stack.db.query(
      `insert into orders (id, account_id, product_id, title, rail, provider, shop, segment, amount, currency, chips, state, created_at, expires_at, paid_at, platform_charge_id, subscription_period, pass_until)
       values ($1, $2, $3, 'Monthly pass', 'stars', 'telegram_stars', null, 'telegram', 100, 'XTR', 0, 'paid', now(), now() + interval '30 minutes', now(), $4, 2592000, $5)`,
      [orderId, who.accountId, pass, charge, paidUntil],
    );
    const sub = await stack.db.query<{ id: string }>(
      `insert into star_subscriptions (account_id, product_id, first_order_id, segment, platform_user_id, amount, currency, paid_until, last_charge_id)
       values ($1, $2, $3, 'telegram', 9101, 100, 'XTR', $4, $5) returning id::text`,
      [who.accountId, pass, orderId, paidUntil, charge],
    );
    const id = sub.rows[0]?.id ?? '';
    await stack.db.query(
      `insert into star_subscription_periods (charge_id, subscription_id, order_id, renewal, period_start, period_end)
       values ($1, $2, $3, false, $4::timestamptz - interval '30 days', $4)`,
      [charge, id, orderId, paidUntil],
    );
    return id;
  }

  const list = async (who: Customer) => {
    const res = await call(subs, { headers: bearer(who) });
    expect(res.status).toBe(200);
    return (res.body as { subscriptions: SubscriptionBody[] }).subscriptions;
  };
  const edit = (who: Customer, id: string, verb: 'cancel' | 'enable') =>
    call(`${subs}/${id}/${verb}`, { method: 'POST', headers: bearer(who) });

  beforeAll(async () => {
    stack = await startPaymentsStack();
    subs = `${stack.api}/user/subscriptions`;
    pass = await createProduct(stack, 'Monthly pass', 10n, { xtr: 100n, rub: 9900n });
    await stack.db.query('update catalog_products set subscription_period = 2592000 where id = $1', [pass]);
    payer = await telegramCustomer(stack.api, 9101);
    stranger = await telegramCustomer(stack.api, 9102);
    ids.active = await seedSubscription(payer, new Date(Date.now() + 10 * DAY));
    ids.expired = await seedSubscription(payer, new Date(Date.now() - DAY));
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it("lists the caller's passes newest first, with the next renewal of an active one", async () => {
    const mine = await list(payer);
    expect(mine.map((s) => [s.id, s.state])).toEqual([
      [ids.expired, 'expired'],
      [ids.active, 'active'],
    ]);
    const active = mine[1];
    expect(active).toMatchObject({
      product_id: pass,
      title: 'Monthly pass',
      amount: '100',
      currency: 'XTR',
      period_seconds: '2592000',
      periods: 1,
      cancelled_at: null,
    });
    expect(active?.next_renewal).toBe(active?.paid_until);
    expect(mine[0]?.next_renewal).toBeNull();
    expect(await list(stranger)).toEqual([]);
    expect((await call(subs)).status).toBe(401);
  });

  it('refuses bad, unknown, foreign and expired passes with their codes', async () => {
    expect(await edit(payer, 'abc', 'cancel')).toMatchObject({ status: 400, body: { error: { code: 'invalid_subscription_id' } } });
    expect(await edit(payer, '999999', 'cancel')).toMatchObject({ status: 404, body: { error: { code: 'unknown_subscription' } } });
    expect(await edit(stranger, ids.active, 'cancel')).toMatchObject({ status: 404, body: { error: { code: 'unknown_subscription' } } });
    expect(await edit(payer, ids.expired, 'enable')).toMatchObject({ status: 409, body: { error: { code: 'subscription_expired' } } });
    expect((await call(`${subs}/${ids.active}/cancel`, { method: 'POST' })).status).toBe(401);
  });

  it('records nothing when the bot cannot be reached, and re-enabling a renewing pass sends nothing', async () => {
    expect(await edit(payer, ids.active, 'cancel')).toMatchObject({ status: 503, body: { error: { code: 'bot_unavailable' } } });
    expect((await list(payer)).find((s) => s.id === ids.active)?.state).toBe('active');
    expect(await edit(payer, ids.active, 'enable')).toMatchObject({ status: 200, body: { id: ids.active, state: 'active' } });
  });

  it('lists a pass in the catalog as a monthly pass, with its stars price only, and not outside Telegram', async () => {
    const catalog = async (who: Customer) =>
      (
        (await call(`${stack.api}/user/wallet/catalog`, { headers: bearer(who) })).body as {
          products: { product_id: string; subscription_period_seconds: number | null; prices: { method: string }[] }[];
        }
      ).products;
    const listed = (await catalog(payer)).find((p) => p.product_id === pass);
    expect(listed).toMatchObject({ subscription_period_seconds: 2592000, prices: [{ method: 'xtr' }] });
    const web = await directCustomer(stack, 'pass-catalog@example.test', true);
    expect((await catalog(web)).find((p) => p.product_id === pass)).toBeUndefined();
  });

  it('sells a pass on the stars rail only', async () => {
    const web = await directCustomer(stack, 'pass-card@example.test', true);
    const res = await call(`${stack.api}/user/wallet/orders`, {
      method: 'POST',
      headers: bearer(web),
      json: { product_id: pass, rail: 'card' },
    });
    expect(res).toMatchObject({ status: 409, body: { error: { code: 'subscription_stars_only' } } });
  });
});
