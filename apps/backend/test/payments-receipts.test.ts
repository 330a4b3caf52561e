import { createClient } from '@connectrpc/connect';
import { backendApi } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import { buildBackend } from '../src/app.js';
import { loadBackendConfig, type BackendConfig } from '../src/config/index.js';
import { refundOrder } from '../src/payments/refunds/console.js';
import { paymentIdOf, resetCardFixture, startCardFixture, type CardFixture } from './card-support.js';
import { createOrder, refund, SHOPS_ENV } from './payments-support.js';
import { newAccount } from './support/wallet.js';
import { TEST_RATE_LIMITS, TEST_SERVICE_TOKENS } from '@wordgame/testkit';
import { backendTransport } from './support/harness.js';

/** Itemised fiscal receipts reach the provider only when BACKEND_YOOKASSA_VAT_CODE is set. */
describe('fiscal receipts', () => {
  let f: CardFixture;

  beforeAll(async () => {
    f = await startCardFixture({ BACKEND_YOOKASSA_VAT_CODE: '2' });
  });
  afterAll(() => f.stop());
  beforeEach(() => resetCardFixture(f));

  const paidOrder = async (email: string) => {
    const id = await newAccount(f.db(), { address: email, confirmed: true });
    const order = await createOrder(f.payments, id, 'direct;web', f.pack, 'card');
    await f.emulator.control.succeedPayment(await paymentIdOf(f.db(), order.orderId));
    expect(f.webhook.dispositions).toEqual([{ disposition: 'handled', detail: 'credited' }]);
    return order.orderId;
  };

  const marks = (orderId: string) =>
    f.db().selectFrom('orders').select(['receipt_sent', 'refund_receipt_sent']).where('id', '=', orderId).executeTakeFirstOrThrow();

  it('a console refund sends an itemised receipt of the full amount to the customer e-mail', async () => {
    const orderId = await paidOrder('refund-receipt@example.org');
    expect(await marks(orderId)).toEqual({ receipt_sent: true, refund_receipt_sent: false });
    const r = await refund(f.refunds, orderId);
    expect(r.status).toBe('succeeded');
    // The player's history reads these marks to say a receipt was sent with the payment and the refund.
    expect(await marks(orderId)).toEqual({ receipt_sent: true, refund_receipt_sent: true });
    const { receipt } = f.emulator.control.refund(r.refundId ?? '');
    expect(receipt).toEqual({
      customer: { email: 'refund-receipt@example.org' },
      items: [
        {
          description: '1000 chips',
          quantity: '1.00',
          amount: { value: '299.00', currency: 'RUB' },
          vat_code: 2,
          payment_subject: 'service',
          payment_mode: 'full_payment',
        },
      ],
    });
  });

  it('without a VAT code the console refund sends no receipt', async () => {
    const orderId = await paidOrder('refund-plain@example.org');
    const noVat = { ...f.deps, card: f.deps.card ? { ...f.deps.card, vatCode: null } : null };
    const r = await refundOrder(noVat, orderId);
    expect(r.status).toBe('succeeded');
    expect(f.emulator.control.refund(r.refundId).receipt).toBeNull();
    expect(await marks(orderId)).toEqual({ receipt_sent: true, refund_receipt_sent: false });
  });

  it('BACKEND_YOOKASSA_VAT_CODE in the environment, through the config parse, puts a receipt on the payment', async () => {
    const env: Record<string, string> = {
      BACKEND_PORT: '0',
      BACKEND_METRICS_PORT: '0',
      DATABASE_URL: f.h.database.url,
      MAIL_DEV_DIR: f.h.mailDir,
      GATEWAY_INTERNAL_URL: f.bot.url,
      BACKEND_YOOKASSA_API_URL: f.emulator.apiUrl,
      BACKEND_YOOKASSA_SHOPS: SHOPS_ENV,
      BACKEND_YOOKASSA_VAT_CODE: '7',
      REAPER_INTERVAL_MS: '0',
      MODERATION_LAPSE_INTERVAL_MS: '0',
      ...TEST_SERVICE_TOKENS,
      ...TEST_RATE_LIMITS,
    };
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    let config: BackendConfig;
    try {
      config = loadBackendConfig();
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    expect(config.BACKEND_YOOKASSA_VAT_CODE).toBe(7);
    const app = buildBackend(config, createLogger('receipts-env', 'silent'));
    const { url } = await app.start();
    try {
      const payments = createClient(backendApi.PaymentsService, backendTransport(url));
      const id = await newAccount(f.db(), { address: 'env-receipt@example.org', confirmed: true });
      const order = await createOrder(payments, id, 'direct;web', f.pack, 'card');
      const view = f.emulator.control.payment(await paymentIdOf(f.db(), order.orderId));
      expect(view.receipt).toMatchObject({
        customer: { email: 'env-receipt@example.org' },
        items: [{ description: '1000 chips', amount: { value: '299.00', currency: 'RUB' }, vat_code: 7 }],
      });
    } finally {
      await app.stop();
    }
  });
});
