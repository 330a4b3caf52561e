import { backendApi, connector, gatewayApi, type botlink } from '@wordgame/contracts';
import { forwardPayment } from '../src/payments/stars/intake.js';
import { paymentIdOf, resetCardFixture, startCardFixture, type CardFixture } from './card-support.js';
import { createOrder, deliverInvoices, eventually, forward, telegramAccount } from './payments-support.js';
import { mailbox } from './support/harness.js';
import { createProduct, newAccount } from './support/wallet.js';

/**
 * The customer is told when money arrives, on the channels the account has, exactly once per
 * credit: a replayed ForwardPayment, a redelivered provider notification or concurrent forwards
 * of one charge never tell them again; a failing channel never undoes or blocks the credit.
 */
describe('payment credited notice', () => {
  let f: CardFixture;
  let starsPack: bigint;

  beforeAll(async () => {
    f = await startCardFixture();
    starsPack = await createProduct(f.h.client(backendApi.CatalogAdminService), {
      title: '300 chips',
      atoms: [['chips', 300n]],
      prices: [['xtr', 150n]],
    });
  });
  afterAll(() => f.stop());
  beforeEach(() => resetCardFixture(f));

  const mailsTo = async (address: string) => (await mailbox(f.h.mailDir)).filter((m) => m.includes(`To: ${address}\r\n`));
  const credited = (externalId: string) =>
    f.bot.commands.filter(
      (c): c is botlink.Command & { payload: { case: 'notify' } } =>
        c.payload.case === 'notify' &&
        c.payload.value.kind === connector.NotificationKind.PAYMENT_CREDITED &&
        c.payload.value.recipient?.externalId === externalId,
    );
  /** Waits until any background notice has had time to go out, then returns what was sent. */
  const settle = () => new Promise((r) => setTimeout(r, 300));

  it('a card payment is told once by mail, however often the provider notifies', async () => {
    const id = await newAccount(f.db(), { address: 'card-credit@example.org', confirmed: true });
    const order = await createOrder(f.payments, id, 'direct;web', f.pack, 'card');
    const paymentId = await paymentIdOf(f.db(), order.orderId);
    await f.emulator.control.succeedPayment(paymentId);
    expect(f.webhook.dispositions).toEqual([{ disposition: 'handled', detail: 'credited' }]);
    await eventually(async () => (await mailsTo('card-credit@example.org')).length > 0);
    const [mail] = await mailsTo('card-credit@example.org');
    expect(mail).toContain('Subject: Your payment was received');
    expect(mail).toContain(order.orderId);
    expect(mail).toContain('1000 chips');

    for (const n of f.emulator.control.notifications()) await f.emulator.control.redeliver(n.id);
    await f.emulator.control.notify({ objectId: paymentId, event: 'payment.succeeded' });
    expect(f.webhook.dispositions.length).toBeGreaterThanOrEqual(3);
    expect(f.webhook.dispositions.slice(1).every((d) => d.detail === 'already_settled')).toBe(true);
    await settle();
    expect(await mailsTo('card-credit@example.org')).toHaveLength(1);
    expect(f.bot.commands.filter((c) => c.payload.case === 'notify')).toEqual([]);
  });

  it('a stars payment is told once through the bot (and by mail when confirmed); replays and concurrent forwards add nothing', async () => {
    const id = await telegramAccount(f.db(), '93001', { address: 'stars-credit@example.org', confirmed: true });
    const intake = f.h.client(backendApi.BotIntakeService);
    const order = await createOrder(f.payments, id, 'telegram', starsPack, 'stars');
    const results = await Promise.all(
      Array.from({ length: 5 }, () => forward(intake, order.orderId, 'credit-notice-charge-1', 150n, 93001n)),
    );
    expect(results).toEqual([true, true, true, true, true]);
    expect(await forward(intake, order.orderId, 'credit-notice-charge-1', 150n, 93001n)).toBe(true);
    await eventually(async () => credited('93001').length > 0 && (await mailsTo('stars-credit@example.org')).length > 0);
    await settle();
    const notices = credited('93001');
    expect(notices).toHaveLength(1);
    expect(notices[0]?.payload.value.params).toEqual({
      order_id: order.orderId,
      product_title: '300 chips',
      product_title_en: '300 chips',
      product_title_ru: '300 chips',
      chips: '300',
    });
    expect(await mailsTo('stars-credit@example.org')).toHaveLength(1);
  });

  it('an unconfirmed address gets no mail, and a payment that credits nothing tells nobody', async () => {
    const id = await telegramAccount(f.db(), '93002', { address: 'unconfirmed-credit@example.org', confirmed: false });
    const intake = f.h.client(backendApi.BotIntakeService);
    const order = await createOrder(f.payments, id, 'telegram', starsPack, 'stars');
    expect(await forward(intake, order.orderId, 'credit-notice-charge-2', 150n, 93002n)).toBe(true);
    // A second charge for the paid order is unmatched: no credit, no notice.
    expect(await forward(intake, order.orderId, 'credit-notice-charge-3', 150n, 93002n)).toBe(false);
    await eventually(() => credited('93002').length > 0);
    await settle();
    expect(credited('93002')).toHaveLength(1);
    expect(await mailsTo('unconfirmed-credit@example.org')).toEqual([]);
  });

  it('failing channels neither undo nor hold up the credit', async () => {
    const id = await telegramAccount(f.db(), '93003', { address: 'broken-credit@example.org', confirmed: true });
    const order = await createOrder(f.payments, id, 'telegram', starsPack, 'stars');
    const deps = {
      ...f.deps,
      mailer: { send: () => Promise.reject(new Error('smtp down for broken-credit@example.org')), forget: () => Promise.resolve(0) },
    };
    f.bot.respond = (c) => (c.payload.case === 'notify' ? { outcome: gatewayApi.Outcome.NO_BOT } : deliverInvoices(c));
    try {
      await expect(
        forwardPayment(deps, { orderId: order.orderId, platformChargeId: 'credit-notice-charge-4', amount: 150n, platformUserId: 93003n }),
      ).resolves.toBe(true);
      const row = await f.db().selectFrom('orders').select(['state']).where('id', '=', order.orderId).executeTakeFirstOrThrow();
      expect(row.state).toBe('paid');
      await eventually(() => credited('93003').length > 0);
      await settle();
      expect(await mailsTo('broken-credit@example.org')).toEqual([]);
    } finally {
      f.bot.respond = deliverInvoices;
    }
  });
});
