import { Code, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { upsertOperator } from '../src/operators/operators.store.js';
import { signIn } from '../src/operators/sessions.js';
import { failure, startHarness, type Harness } from './support/harness.js';
import { seedLedger } from './console-support.js';
import { orderProduct } from './support/orders.js';
import { newAccount } from './support/wallet.js';

const DAY = 86_400_000;

function query(fromUnix: bigint, toUnix: bigint): Uint8Array {
  return encodeTable((b) => fb.RevenueQuery.createRevenueQuery(b, fromUnix, toUnix));
}

function readReport(body: Uint8Array) {
  return decodeTable(
    body,
    (bb) => fb.RevenueReport.getRootAsRevenueReport(bb),
    (t) => ({
      fromUnix: t.fromUnix(),
      toUnix: t.toUnix(),
      rows: Array.from({ length: t.rowsLength() }, (_, i) => {
        const r = t.rows(i);
        return [
          r?.rail(),
          r?.productId(),
          r?.productTitle(),
          r?.currency(),
          r?.gross(),
          r?.refunds(),
          r?.net(),
          r?.purchases(),
          r?.refundCount(),
        ];
      }),
    }),
  );
}

/** RevenueService on PostgreSQL: the viewer role, the range rules, the default range and the lines. */
describe('revenue query (RevenueService, PostgreSQL)', () => {
  let h: Harness;
  let revenue: Client<typeof backendApi.RevenueService>;
  const today = Math.floor(Date.now() / DAY) * DAY;
  const unix = (ms: number) => BigInt(ms / 1000);

  beforeAll(async () => {
    h = await startHarness({ REAPER_INTERVAL_MS: '0', STAR_REFUND_INTERVAL_MS: '0' });
    revenue = h.client(backendApi.RevenueService);
  });
  afterAll(() => h.stop());

  it('needs the viewer role', async () => {
    await upsertOperator(h.database.db, 'granter-only', 'granter-only password', ['granter']);
    const { token } = await signIn(h.database.db, 'granter-only', 'granter-only password', 1, new Date());
    expect(await failure(revenue.queryRevenue({ body: query(0n, 0n) }, { headers: { 'x-operator-session': token } }))).toEqual({
      code: Code.PermissionDenied,
      errorCode: 'operator_forbidden',
    });
  });

  it('refuses a range that ends before it starts, spans more than 366 days or is out of bounds', async () => {
    for (const [from, to] of [
      [unix(today), unix(today - DAY)],
      [unix(today - 400 * DAY), unix(today)],
      [1n, unix(today)],
      [-1n, 0n],
    ] as const)
      expect(await failure(revenue.queryRevenue({ body: query(from, to) }))).toEqual({
        code: Code.InvalidArgument,
        errorCode: 'invalid_filter',
      });
  });

  it('answers the last 30 days by default, one line per day, rail, product and currency, refunds netted', async () => {
    const account = await newAccount(h.database.db);
    const product = await orderProduct(h.database.db);
    const at = new Date(today - 2 * DAY + 60_000);
    const row = (kind: 'purchase' | 'refund', money: bigint, currency: string) => ({
      account_id: account,
      kind,
      segment: 'direct' as const,
      rail: 'yookassa',
      provider: 'yookassa',
      product_id: product,
      money_minor: money,
      currency,
      created_at: at,
    });
    await h.database.db
      .insertInto('ledger_operations')
      .values([row('purchase', 500n, 'RUB'), row('refund', -200n, 'RUB'), row('purchase', 7n, 'USD')])
      .execute();
    await seedLedger(h.database.db, [{ account, kind: 'grant', at, chips: 50n }]);
    const r = readReport((await revenue.queryRevenue({ body: query(0n, 0n) })).body);
    expect(r.toUnix).toBe(unix(today + DAY));
    expect(r.fromUnix).toBe(unix(today - 29 * DAY));
    expect(r.rows).toEqual([
      ['yookassa', product, 'Test pack', 'RUB', 500n, 200n, 300n, 1n, 1n],
      ['yookassa', product, 'Test pack', 'USD', 7n, 0n, 7n, 1n, 0n],
    ]);
  });
});
