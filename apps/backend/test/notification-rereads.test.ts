import { sql } from 'kysely';
import { createLogger } from '@wordgame/logging';
import { createBackendMetrics } from '../src/metrics/index.js';
import { handleNotification } from '../src/payments/card/notifications.js';
import { RereadWindow } from '../src/payments/card/reread-window.js';
import type { PaymentDeps } from '../src/payments/deps.js';
import { createReaper } from '../src/payments/reaper/reaper.js';
import { countingProvider, paymentIdOf, resetCardFixture, startCardFixture, type CardFixture } from './card-support.js';
import { createOrder } from './payments-support.js';
import { newAccount } from './support/wallet.js';

/** Notification re-reads on one replica, on PostgreSQL against the provider emulator. */
describe('provider re-reads caused by notifications', () => {
  let f: CardFixture;

  beforeAll(async () => {
    f = await startCardFixture();
  });
  afterAll(() => f.stop());
  beforeEach(async () => {
    await resetCardFixture(f);
    f.emulator.control.setAutoNotify(false);
  });

  const hint = (paymentId: string, orderId: string) =>
    Buffer.from(
      JSON.stringify({ type: 'notification', event: 'payment.succeeded', object: { id: paymentId, metadata: { order_id: orderId } } }),
    );
  const claims = async () =>
    (await sql<{ object_id: string }>`select object_id from provider_rereads order by object_id`.execute(f.db())).rows.map(
      (r) => r.object_id,
    );

  it('concurrent notifications of one payment share one provider read and are counted; the window then holds on this replica', async () => {
    const account = await newAccount(f.db(), { address: `rereads-${Date.now()}@example.org`, confirmed: true });
    const { orderId } = await createOrder(f.payments, account, 'direct;web', f.pack, 'card');
    const paymentId = await paymentIdOf(f.db(), orderId);
    if (!f.deps.card) throw new Error('no card rail');
    const provider = countingProvider(f.adapter);
    const metrics = createBackendMetrics();
    const rereads = new RereadWindow({
      db: f.db(),
      windowMs: 60_000,
      now: () => new Date(),
      metrics: metrics.payments,
      logger: createLogger('rereads', 'silent'),
    });
    const deps: PaymentDeps = { ...f.deps, card: { ...f.deps.card, provider }, metrics: metrics.payments, rereads };
    try {
      const all = await Promise.all(Array.from({ length: 20 }, () => handleNotification(deps, 'yookassa', hint(paymentId, orderId))));
      // Each either shared the one re-read (its outcome) or met its window.
      for (const d of all) expect(['handled:not_settled', 'handled:reread_coalesced']).toContain(`${d.disposition}:${d.detail}`);
      expect(provider.reads).toEqual([paymentId]);
      expect(await handleNotification(deps, 'yookassa', hint(paymentId, orderId))).toEqual({
        disposition: 'handled',
        detail: 'reread_coalesced',
      });
      expect(provider.reads).toEqual([paymentId]);
      const text = await metrics.registry.metrics();
      const count = (reason: string) =>
        Number(new RegExp(`backend_notification_rereads_coalesced_total\\{kind="payment",reason="${reason}"\\} (\\d+)`).exec(text)?.[1]);
      expect(count('in_flight') + count('window')).toBe(20);
      expect(await claims()).toContain(paymentId);
    } finally {
      rereads.stop();
    }
  });

  it('a reaper tick prunes claims older than an hour and keeps recent ones', async () => {
    const now = new Date();
    await sql`insert into provider_rereads (shop, kind, object_id, last_reread_at) values
      ('direct-shop', 'payment', 'old-payment', ${new Date(now.getTime() - 3_700_000)}),
      ('direct-shop', 'refund', 'old-refund', ${new Date(now.getTime() - 3_700_000)}),
      ('direct-shop', 'payment', 'recent-payment', ${new Date(now.getTime() - 60_000)})`.execute(f.db());
    await createReaper(f.deps, { intervalMs: 0, recheckBatch: 200, recheckConcurrency: 8 }).tick(now);
    const left = await claims();
    expect(left).toContain('recent-payment');
    expect(left).not.toContain('old-payment');
    expect(left).not.toContain('old-refund');
  });
});
