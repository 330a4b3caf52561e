import { connector } from '@wordgame/contracts';
import { notifyPaymentFailed } from '../src/payments/card/notify.js';
import { paymentIdOf, resetCardFixture, startCardFixture, type CardFixture } from './card-support.js';
import { createOrder, deliverInvoices, eventually, listOrders, telegramAccount } from './payments-support.js';
import { mailbox } from './support/harness.js';
import { newAccount } from './support/wallet.js';

/** A canceled card payment is told on every channel the account has: the bot and confirmed e-mail. */
describe('failed card payment notice', () => {
  let f: CardFixture;

  beforeAll(async () => {
    f = await startCardFixture();
  });
  afterAll(() => f.stop());
  beforeEach(() => resetCardFixture(f));

  const mailsTo = async (address: string) => (await mailbox(f.h.mailDir)).filter((m) => m.includes(`To: ${address}\r\n`));
  const notices = () => f.bot.commands.filter((c) => c.payload.case === 'notify');
  const cancel = async (accountId: bigint) => {
    const order = await createOrder(f.payments, accountId, 'direct;web', f.pack, 'card');
    await f.emulator.control.cancelPayment(await paymentIdOf(f.db(), order.orderId), {
      party: 'payment_network',
      reason: 'insufficient_funds',
    });
    expect(f.webhook.dispositions).toEqual([{ disposition: 'handled', detail: 'failed' }]);
    const [listed] = await listOrders(f.payments, accountId, 'direct;web');
    expect(listed).toMatchObject({ orderId: order.orderId, state: 'failed', failureReason: 'insufficient_funds' });
    return order.orderId;
  };

  it('an account with only a confirmed e-mail gets a mail naming the order and the reason', async () => {
    const id = await newAccount(f.db(), { address: 'mail-only@example.org', confirmed: true });
    const orderId = await cancel(id);
    await eventually(async () => (await mailsTo('mail-only@example.org')).length > 0);
    const [mail] = await mailsTo('mail-only@example.org');
    expect(mail).toContain('Subject: Your payment did not go through');
    expect(mail).toContain(orderId);
    expect(mail).toContain('insufficient_funds');
    expect(mail).toContain('1000 chips');
    expect(notices()).toEqual([]);
  });

  it('an account with a telegram identity and a confirmed e-mail is told on both', async () => {
    const id = await telegramAccount(f.db(), '91001', { address: 'both@example.org', confirmed: true });
    const orderId = await cancel(id);
    await eventually(async () => notices().length > 0 && (await mailsTo('both@example.org')).length > 0);
    const notice = notices()[0];
    if (notice?.payload.case !== 'notify') throw new Error('no notify');
    expect(notice.payload.value).toMatchObject({
      kind: connector.NotificationKind.PAYMENT_FAILED,
      recipient: { externalId: '91001' },
      params: { order_id: orderId },
    });
    expect(await mailsTo('both@example.org')).toHaveLength(1);
  });

  it('an unconfirmed e-mail gets no mail; the bot still tells the customer', async () => {
    const id = await telegramAccount(f.db(), '91002', { address: 'unconfirmed@example.org', confirmed: false });
    await notifyPaymentFailed(f.deps, {
      accountId: id,
      orderId: '00000000-0000-4000-8000-000000000001',
      title: '1000 chips',
      reason: 'card_expired',
    });
    expect(notices()).toHaveLength(1);
    expect(await mailsTo('unconfirmed@example.org')).toEqual([]);
  });

  it('never throws when a channel fails', async () => {
    const id = await telegramAccount(f.db(), '91003', { address: 'broken@example.org', confirmed: true });
    const deps = {
      ...f.deps,
      mailer: { send: () => Promise.reject(new Error('smtp down for broken@example.org')), forget: () => Promise.resolve(0) },
    };
    f.bot.respond = () => {
      throw new Error('gateway down');
    };
    try {
      await expect(
        notifyPaymentFailed(deps, { accountId: id, orderId: '00000000-0000-4000-8000-000000000002', title: 't', reason: 'r' }),
      ).resolves.toBeUndefined();
    } finally {
      f.bot.respond = deliverInvoices;
    }
  });
});
