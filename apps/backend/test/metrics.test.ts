import { backendApi } from '@wordgame/contracts';
import { paymentIdOf, resetCardFixture, startCardFixture, type CardFixture } from './card-support.js';
import { createOrder, eventually, forward, intakeBody } from './payments-support.js';
import { failure } from './support/harness.js';
import { newAccount } from './support/wallet.js';

/** One sample of a scrape: the value of `name{labels}` exactly as exposed, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = new Map([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l): [string, string] => [l[1] ?? '', l[2] ?? '']));
    if (Object.entries(labels).every(([k, v]) => got.get(k) === v)) return Number(m[3]);
  }
  return undefined;
}

/**
 * The backend's /metrics, read from a started backend (its own listener) after real calls: a card
 * payment through the provider emulator, provider 5xx and 429 faults, a rate-limited order, an
 * unmatched stars payment, the reaper ticking, scrape-time order and pool state.
 */
describe('backend metrics', () => {
  let f: CardFixture;
  const scrape = async () => {
    const res = await fetch(f.h.metricsUrl);
    expect(res.status).toBe(200);
    return res.text();
  };

  beforeAll(async () => {
    f = await startCardFixture({ REAPER_INTERVAL_MS: '200', ORDER_CREATE_MAX: '3' });
    await resetCardFixture(f);
  });
  afterAll(() => f.stop());

  it('serves /metrics only on its own port, and nothing else there', async () => {
    const base = f.h.metricsUrl.replace(/\/metrics$/, '');
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(f.h.metricsUrl, { method: 'POST' })).status).toBe(404);
    expect(new URL(f.h.metricsUrl).hostname).toBe('127.0.0.1');
    // The Connect port does not serve metrics to anyone without the service token.
    expect((await fetch(`${f.h.url}/metrics`)).status).not.toBe(200);
  });

  it('counts a card payment end to end: provider calls, RPC codes, the credit by rail, open orders while pending', async () => {
    const account = await newAccount(f.db(), { address: 'metrics-card@example.org', confirmed: true });
    const order = await createOrder(f.payments, account, 'direct;web', f.pack, 'card');
    let text = await scrape();
    expect(sample(text, 'backend_provider_calls_total', { provider: 'yookassa', operation: 'create_payment', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'backend_rpc_requests_total', { method: 'PaymentsService/CreateOrder', code: 'ok' })).toBe(1);
    expect(sample(text, 'backend_rpc_duration_seconds_count', { method: 'PaymentsService/CreateOrder' })).toBe(1);
    expect(sample(text, 'backend_orders_open', { rail: 'card', state: 'pending', age: 'lt_1m', payment: 'yes' })).toBe(1);

    await f.emulator.control.succeedPayment(await paymentIdOf(f.db(), order.orderId));
    await eventually(async () => sample(await scrape(), 'backend_credits_total', { rail: 'card' }) === 1);
    // The order-state gauges are cached for 5 s: wait for the next read.
    await eventually(
      async () =>
        sample(await scrape(), 'backend_orders_open', { rail: 'card', state: 'pending', age: 'lt_1m', payment: 'yes' }) === undefined,
      8_000,
    );
    text = await scrape();
    expect(sample(text, 'backend_credits_total', { rail: 'stars' })).toBe(0);
    expect(sample(text, 'backend_credit_latency_seconds_count', { rail: 'card' })).toBe(1);
    expect(
      sample(text, 'backend_provider_calls_total', { provider: 'yookassa', operation: 'get_payment', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'backend_rpc_requests_total', { method: 'NotificationService/Intake', code: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'backend_customer_notices_total', { kind: 'credited', channel: 'email', outcome: 'sent' })).toBe(1);
  });

  it('tells a provider 5xx from a 429 and counts the notification the backend could not decide', async () => {
    const account = await newAccount(f.db(), { address: 'metrics-faults@example.org', confirmed: true });
    // One order per fault: a second notification of one payment within PROVIDER_REREAD_WINDOW_MS re-reads nothing.
    const hint = async () => {
      const order = await createOrder(f.payments, account, 'direct;web', f.pack, 'card');
      const paymentId = await paymentIdOf(f.db(), order.orderId);
      return JSON.stringify({
        type: 'notification',
        event: 'payment.succeeded',
        object: { id: paymentId, status: 'succeeded', metadata: { order_id: order.orderId } },
      });
    };
    const [first, second] = [await hint(), await hint()];
    f.emulator.control.addFault({ method: 'GET', pathPrefix: '/v3/payments', status: 500, times: 1 });
    expect(await failure(intakeBody(f.notifications, first))).toMatchObject({ errorCode: 'intake_unavailable' });
    f.emulator.control.addFault({ method: 'GET', pathPrefix: '/v3/payments', status: 429, times: 1 });
    expect(await failure(intakeBody(f.notifications, second))).toMatchObject({ errorCode: 'intake_unavailable' });
    const text = await scrape();
    expect(
      sample(text, 'backend_provider_calls_total', { provider: 'yookassa', operation: 'get_payment', outcome: 'server_error' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'backend_provider_calls_total', { provider: 'yookassa', operation: 'get_payment', outcome: 'rate_limited' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'backend_rpc_requests_total', { method: 'NotificationService/Intake', code: 'unavailable' })).toBe(2);
    expect(
      sample(text, 'backend_provider_call_duration_seconds_count', { provider: 'yookassa', operation: 'get_payment' }),
    ).toBeGreaterThanOrEqual(3);
  });

  it('counts rate-limit refusals by procedure and unmatched stars payments by reason', async () => {
    const account = await newAccount(f.db(), { address: 'metrics-limit@example.org', confirmed: true });
    for (let i = 0; i < 3; i += 1) await createOrder(f.payments, account, 'direct;web', f.pack, 'card');
    expect(await failure(createOrder(f.payments, account, 'direct;web', f.pack, 'card'))).toMatchObject({ errorCode: 'rate_limited' });

    const intake = f.h.client(backendApi.BotIntakeService);
    expect(await forward(intake, 'no-such-order', 'metrics-charge-1', 10n)).toBe(false);
    expect(await forward(intake, 'no-such-order', 'metrics-charge-1', 10n)).toBe(false);
    // The row is pending until the automatic stars refund returns it (refunded); either way it is one.
    const recorded = (t: string) =>
      ['pending', 'refunded', 'failed'].reduce(
        (n, refund_status) => n + (sample(t, 'backend_unmatched_payments', { refund_status }) ?? 0),
        0,
      );
    await eventually(async () => recorded(await scrape()) === 1, 8_000);
    const text = await scrape();
    expect(sample(text, 'backend_rate_limit_refusals_total', { method: 'PaymentsService/CreateOrder' })).toBe(1);
    expect(sample(text, 'backend_rate_limit_refusals_total', { method: 'ConsoleService/SignIn' })).toBe(0);
    expect(sample(text, 'backend_rpc_requests_total', { method: 'PaymentsService/CreateOrder', code: 'resource_exhausted' })).toBe(1);
    // A replayed ForwardPayment is not a second unmatched payment.
    expect(sample(text, 'backend_unmatched_payments_total', { rail: 'stars', reason: 'unknown_order' })).toBe(1);
    expect(sample(text, 'backend_rpc_requests_total', { method: 'BotIntakeService/ForwardPayment', code: 'ok' })).toBe(2);
  });

  it('reports reaper ticks, pool use, readiness and process metrics, and no id in any label', async () => {
    await eventually(async () => (sample(await scrape(), 'backend_reaper_ticks_total', { outcome: 'ok' }) ?? 0) >= 2);
    const text = await scrape();
    expect(sample(text, 'backend_reaper_last_tick_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(sample(text, 'backend_reaper_tick_duration_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'backend_ready')).toBe(1);
    expect(sample(text, 'backend_db_pool_max')).toBe(20);
    expect(sample(text, 'backend_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'backend_db_pool_waiting')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'backend_db_pool_acquire_seconds_count')).toBeGreaterThan(10);
    expect(sample(text, 'backend_process_cpu_seconds_total')).toBeGreaterThan(0);
    // No order, payment, account or charge id in any label value.
    expect(text).not.toMatch(/="[^"]*[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(text).not.toMatch(/metrics-charge|="[0-9]{6,}"/);
  });
});
