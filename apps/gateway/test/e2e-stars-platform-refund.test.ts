import type { PlatformEmulator, PreCheckoutView } from '@wordgame/platform-emulator';
import { eventually } from './support/botlink-gateway.js';
import { reconcileCli } from './support/reconcile-cli.js';
import { call } from './support/edge.js';
import {
  balance,
  bearer,
  createProduct,
  ledgerRows,
  startPaymentsStack,
  telegramCustomer,
  type Customer,
  type OrderBody,
  type PaymentsStack,
} from './support/payments-stack.js';

const PAYER = 8301;

/**
 * A refund made outside the bot (Telegram support), across real processes: the platform emulator's
 * control API refunds a stars charge, the real bot process reads the refunded_payment and forwards it
 * (ForwardRefund) through the gateway to the backend process, which reverses the pack once; the payer
 * is told; the same message delivered again changes nothing; the reconcile CLI finds nothing.
 */
describe('e2e: a stars refund made outside the bot is applied at once', () => {
  let stack: PaymentsStack;
  let platform: PlatformEmulator;
  let payer: Customer;
  let pack: string;

  beforeAll(async () => {
    stack = await startPaymentsStack({ bot: true, backendEnv: { STAR_REFUND_INTERVAL_MS: '0' } });
    if (!stack.platform) throw new Error('no platform emulator');
    platform = stack.platform;
    platform.control.createUser({ id: PAYER, firstName: 'Payer', started: true, languageCode: 'en' });
    pack = await createProduct(stack, 'Chips 300', 300n, { xtr: 30n });
    payer = await telegramCustomer(stack.api, PAYER);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  /** Runs the reconcile CLI as its own process with the backend's configuration; its JSON report. */
  async function reconcile(from: Date): Promise<{ code: number | null; report: { mismatches: Array<{ paymentId: string }> } }> {
    const { code, stdout } = await reconcileCli(stack, ['--from', from.toISOString(), '--to', new Date(Date.now() + 2_000).toISOString()]);
    return { code, report: JSON.parse(stdout) as { mismatches: Array<{ paymentId: string }> } };
  }

  it('control API refunds -> ledger reversed once, payer told -> a second delivery changes nothing -> reconciliation has no finding', async () => {
    const from = new Date(Math.floor(Date.now() / 1000) * 1000 - 1_000);
    const res = await call(`${stack.api}/user/wallet/orders`, {
      method: 'POST',
      headers: bearer(payer),
      json: { product_id: pack, rail: 'stars' },
    });
    expect(res.status).toBe(201);
    const order = res.body as OrderBody;
    const { preCheckoutQueryId } = platform.control.pay({ link: order.invoice_link ?? '', userId: PAYER });
    let view: PreCheckoutView | undefined;
    await eventually(() => (view = platform.control.preCheckout(preCheckoutQueryId))?.payment !== undefined, 20_000);
    const charge = view?.payment?.telegramPaymentChargeId ?? '';
    await eventually(async () => (await ledgerRows(stack.db, order.order_id, 'purchase')) === 1, 20_000);
    expect(await balance(stack.api, payer, 'telegram')).toBe('300');

    const told = () =>
      platform.control
        .messages({ chatId: PAYER, direction: 'from_bot' })
        .map((m) => m.message.text ?? '')
        .filter((t) => t.includes('was refunded'));
    const { message } = platform.control.supportRefund(charge);
    await eventually(async () => (await ledgerRows(stack.db, order.order_id, 'refund')) === 1, 20_000);
    expect(await balance(stack.api, payer, 'telegram')).toBe('0');
    await eventually(() => told().length === 1, 20_000);
    const state = async () =>
      (
        await stack.db.query<{ state: string; refund_id: string | null }>('select state, refund_id from orders where id = $1', [
          order.order_id,
        ])
      ).rows[0];
    expect(await state()).toEqual({ state: 'paid', refund_id: charge });

    // Telegram delivers the same refunded_payment again.
    platform.control.injectUpdate({ message });
    await eventually(() => (platform.control.state().bots[0]?.pendingUpdates.length ?? 1) === 0, 20_000);
    const recorded = () =>
      (stack.bot?.logs ?? []).filter((l) => l['msg'] === 'refund forwarded and recorded' && l['platformChargeId'] === charge);
    await eventually(() => recorded().length === 2, 20_000);
    const events = await stack.db.query<{ n: string }>(
      "select count(*) as n from payment_events where order_id = $1 and kind = 'refunded'",
      [order.order_id],
    );
    expect(events.rows[0]?.n).toBe('1');
    const { code, report } = await reconcile(from);
    expect(report.mismatches.filter((m) => m.paymentId === charge)).toEqual([]);
    expect(code).toBe(0);
    expect(await ledgerRows(stack.db, order.order_id, 'refund')).toBe(1);
    expect(await balance(stack.api, payer, 'telegram')).toBe('0');
    expect(told()).toHaveLength(1);
  }, 120_000);
});
