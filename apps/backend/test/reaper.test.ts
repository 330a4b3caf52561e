import { createReaper, type ReaperOptions } from '../src/payments/reaper/reaper.js';
import type { PaymentDeps } from '../src/payments/deps.js';
import {
  countingProvider,
  paymentIdOf,
  resetCardFixture,
  startCardFixture,
  type CardFixture,
  type CountingProvider,
} from './card-support.js';
import { createOrder } from './payments-support.js';
import { newAccount } from './support/wallet.js';

/** Reaper re-checks on PostgreSQL against the provider emulator, ticked by hand with chosen clocks. */
describe('reaper re-checks of card orders', () => {
  let f: CardFixture;

  beforeAll(async () => {
    f = await startCardFixture();
  });
  afterAll(() => f.stop());
  beforeEach(async () => {
    await resetCardFixture(f);
    f.emulator.control.setAutoNotify(false);
    // Each test sees only its own open orders.
    await f
      .db()
      .updateTable('orders')
      .set({ state: 'failed', failure_reason: 'earlier test' })
      .where('state', 'in', ['pending', 'expired'])
      .execute();
  });

  const options = (o: Partial<ReaperOptions> = {}): ReaperOptions => ({
    intervalMs: 1_000,
    recheckBatch: 200,
    recheckConcurrency: 8,
    ...o,
  });
  const withProvider = (provider: CountingProvider): PaymentDeps => {
    if (!f.deps.card) throw new Error('no card rail');
    return { ...f.deps, card: { ...f.deps.card, provider } };
  };
  const pendingPayments = async (n: number): Promise<string[]> => {
    const id = await newAccount(f.db(), { address: `reaper-${Date.now()}-${n}@example.org`, confirmed: true });
    const ids: string[] = [];
    for (let i = 0; i < n; i += 1) ids.push((await createOrder(f.payments, id, 'direct;web', f.pack, 'card')).orderId);
    return Promise.all(ids.map((o) => paymentIdOf(f.db(), o)));
  };
  /** A moment when every order made in this test is past the one-minute re-check age. */
  const later = (extraMs = 0) => new Date(Date.now() + 61_000 + extraMs);

  it('re-checks a pending order on every tick: two ticks one second apart both re-read it', async () => {
    const [paymentId] = await pendingPayments(1);
    const provider = countingProvider(f.adapter);
    const reaper = createReaper(withProvider(provider), options());
    const t = later();
    expect((await reaper.tick(t)).rechecked).toBe(1);
    expect((await reaper.tick(new Date(t.getTime() + 1_000))).rechecked).toBe(1);
    expect(provider.reads).toEqual([paymentId, paymentId]);

    await f.emulator.control.succeedPayment(paymentId ?? '');
    expect((await reaper.tick(new Date(t.getTime() + 2_000))).credited).toBe(1);
  });

  it('two replicas re-check each order once per tick interval between them', async () => {
    const paymentIds = await pendingPayments(6);
    const provider = countingProvider(f.adapter);
    const deps = withProvider(provider);
    const [a, b] = [createReaper(deps, options()), createReaper(deps, options())];
    const t = later();
    const reports = await Promise.all([a.tick(t), b.tick(t)]);
    expect(reports[0].rechecked + reports[1].rechecked).toBe(6);
    expect([...provider.reads].sort()).toEqual([...paymentIds].sort());
    // Replica b ticks half an interval later: every order is still leased to a's tick.
    expect((await b.tick(new Date(t.getTime() + 500))).rechecked).toBe(0);
    expect((await b.tick(new Date(t.getTime() + 1_000))).rechecked).toBe(6);
  });

  it('every tick re-checks every due order, a page at a time with bounded concurrency, even a backlog of several pages', async () => {
    const paymentIds = await pendingPayments(8);
    f.emulator.control.addFault({ method: 'GET', pathPrefix: '/v3/payments', status: 'timeout', delayMs: 80 });
    const provider = countingProvider(f.adapter);
    const reaper = createReaper(withProvider(provider), options({ recheckBatch: 3, recheckConcurrency: 2 }));
    const t = later();
    for (let tick = 0; tick < 2; tick += 1) {
      const before = provider.reads.length;
      // 8 due orders, pages of 3: one tick claims 3 + 3 + 2 and re-reads each once.
      expect((await reaper.tick(new Date(t.getTime() + tick * 1_000))).rechecked).toBe(8);
      expect([...provider.reads.slice(before)].sort()).toEqual([...paymentIds].sort());
    }
    expect(provider.maxInFlight).toBe(2);
  });

  it('expires a backlog of pending orders larger than one page in one tick', async () => {
    const id = await newAccount(f.db(), { address: `reaper-expire-${Date.now()}@example.org`, confirmed: true });
    const orders: string[] = [];
    for (let i = 0; i < 5; i += 1) orders.push((await createOrder(f.payments, id, 'direct;web', f.pack, 'card')).orderId);
    // Two hundred more pending orders, copies of the first under new ids: past their lifetime at the tick.
    const copied = [
      'account_id',
      'product_id',
      'title',
      'rail',
      'provider',
      'shop',
      'segment',
      'amount',
      'currency',
      'chips',
      'created_at',
      'expires_at',
    ] as const;
    await f
      .db()
      .insertInto('orders')
      .columns(['id', ...copied])
      .expression((eb) =>
        eb
          .selectFrom('orders')
          .select([eb.fn<string>('gen_random_uuid').as('id'), ...copied])
          .where('id', '=', orders[0] ?? '')
          .innerJoin(eb.fn<number>('generate_series', [eb.lit(1), eb.lit(200)]).as('n'), (j) => j.onTrue()),
      )
      .execute();
    const reaper = createReaper(f.deps, options({ recheckBatch: 3 }));
    const report = await reaper.tick(new Date(Date.now() + 31 * 60_000));
    expect(report.expired).toBe(205);
    const left = await f.db().selectFrom('orders').select('id').where('account_id', '=', id).where('state', '=', 'pending').execute();
    expect(left).toEqual([]);
  });
});
