import { jest } from '@jest/globals';
import { DomainError } from '@wordgame/contracts';
import { openDatabase, type Database } from '../src/db/database.js';
import { keyOf } from '../src/limits/keys.js';
import { limiterFor } from '../src/limits/limits.store.js';
import { keyQuotaOver, quotaOver, type Quota } from '../src/limits/quota.js';
import { freshMigratedPostgres } from '../src/testing/databases.js';

const HOUR_MS = 3_600_000;
const ACCOUNT = { prefix: 'order_acct', points: 2, durationSeconds: 3_600 };
const ADDRESS = { prefix: 'order_addr', points: 3, durationSeconds: 3_600 };

let pg: Database & { url: string };
let clock: number;
const now = () => new Date(clock);

beforeAll(async () => {
  pg = await freshMigratedPostgres();
});
afterAll(async () => {
  await pg.close();
});
beforeEach(async () => {
  clock = Date.UTC(2026, 11, 5, 12);
  await pg.pool.query('delete from rate_limits');
});

async function rows(): Promise<Record<string, { points: number; expire: number | null }>> {
  const { rows: found } = await pg.pool.query<{ key: string; points: number; expire: bigint | null }>(
    'select key, points, expire from rate_limits order by key',
  );
  return Object.fromEntries(found.map((r) => [r.key, { points: r.points, expire: r.expire === null ? null : Number(r.expire) }]));
}

/** The DomainError a take threw, or null when it was allowed. */
async function outcome(take: Promise<void>): Promise<DomainError | null> {
  try {
    await take;
    return null;
  } catch (err: unknown) {
    if (err instanceof DomainError) return err;
    throw err;
  }
}

describe('a quota takes its account and address counters in one statement', () => {
  it('writes both rows in the library format (prefix:key, points, expire in epoch ms) with one query', async () => {
    const quota = quotaOver({ store: { kind: 'postgres', pool: pg.pool }, now }, ACCOUNT, ADDRESS);
    const query = jest.spyOn(pg.pool, 'query');
    try {
      await quota.take(7n, '203.0.113.9');
      expect(query).toHaveBeenCalledTimes(1);
    } finally {
      query.mockRestore();
    }
    expect(await rows()).toEqual({
      'order_acct:7': { points: 1, expire: clock + HOUR_MS },
      [`order_addr:${keyOf('203.0.113.9')}`]: { points: 1, expire: clock + HOUR_MS },
    });
    await quota.take(7n, null);
    expect((await rows())['order_acct:7']).toEqual({ points: 2, expire: clock + HOUR_MS });
  });

  it('keeps its counters in an UNLOGGED table: a take writes no WAL for the rows and waits for no WAL flush', async () => {
    // (Measured while writing this: two counters taken again wrote 296 bytes of WAL logged and only the
    // commit record unlogged; WAL is the whole cluster's, shared with suites running beside this one,
    // so the test checks the table's persistence rather than the bytes.)
    const persistence = await pg.pool.query<{ relpersistence: string }>(
      `select relpersistence from pg_class where relname = 'rate_limits'`,
    );
    expect(persistence.rows[0]?.relpersistence).toBe('u');
  });

  it('refuses with rate_limited and the wait left, and a refused call still counts on both counters', async () => {
    const quota = quotaOver({ store: { kind: 'postgres', pool: pg.pool }, now }, ACCOUNT, ADDRESS);
    expect(await outcome(quota.take(8n, '198.51.100.1'))).toBeNull();
    clock += 60_000;
    expect(await outcome(quota.take(8n, '198.51.100.1'))).toBeNull();
    clock += 1_500;
    const refused = await outcome(quota.take(8n, '198.51.100.1'));
    expect(refused?.code).toBe('rate_limited');
    expect(refused?.metadata['x-retry-after']).toBe(String(Math.ceil((HOUR_MS - 61_500) / 1000)));
    const after = await rows();
    expect(after['order_acct:8']?.points).toBe(3);
    expect(after[`order_addr:${keyOf('198.51.100.1')}`]?.points).toBe(3);
    // The address is now spent too: another account from it is refused, and that refusal counts.
    expect((await outcome(quota.take(9n, '198.51.100.1')))?.code).toBe('rate_limited');
    expect((await rows())[`order_addr:${keyOf('198.51.100.1')}`]?.points).toBe(4);
  });

  it('answers the longest wait when both counters are spent', async () => {
    const quota = quotaOver({ store: { kind: 'postgres', pool: pg.pool }, now }, ACCOUNT, ADDRESS);
    await pg.pool.query('insert into rate_limits (key, points, expire) values ($1, 9, $2), ($3, 9, $4)', [
      'order_acct:10',
      clock + 5_000,
      `order_addr:${keyOf('192.0.2.10')}`,
      clock + 90_000,
    ]);
    expect((await outcome(quota.take(10n, '192.0.2.10')))?.metadata['x-retry-after']).toBe('90');
  });

  it('starts a new window once the old one has expired by the injected clock', async () => {
    const quota = quotaOver({ store: { kind: 'postgres', pool: pg.pool }, now }, ACCOUNT, ADDRESS);
    for (let i = 0; i < 3; i += 1) await outcome(quota.take(11n, null));
    expect((await outcome(quota.take(11n, null)))?.code).toBe('rate_limited');
    clock += HOUR_MS;
    expect(await outcome(quota.take(11n, null))).toBeNull();
    expect((await rows())['order_acct:11']).toEqual({ points: 1, expire: clock + HOUR_MS });
  });

  it('continues counts rate-limiter-flexible wrote, and the library continues ours', async () => {
    const system = () => new Date();
    const quota = quotaOver({ store: { kind: 'postgres', pool: pg.pool }, now: system }, ACCOUNT, ADDRESS);
    const library = limiterFor({ kind: 'postgres', pool: pg.pool }, ACCOUNT, false);
    await library.consume('12');
    await library.consume('12');
    expect((await outcome(quota.take(12n, null)))?.code).toBe('rate_limited');
    const byLibrary = await library.get('12');
    expect(byLibrary?.consumedPoints).toBe(3);

    await quota.take(13n, null);
    const res = await library.consume('13');
    expect(res.consumedPoints).toBe(2);
    await expect(library.consume('13')).rejects.toMatchObject({ consumedPoints: 3 });
  });

  it('two replicas on their own pools share one count: of 12 parallel takes exactly the allowance passes', async () => {
    const other = await openDatabase({ url: pg.url, poolMax: 4 });
    try {
      const allowance = { prefix: 'case_user', points: 5, durationSeconds: 3_600 };
      const replicas = [pg, other].map((d) => keyQuotaOver({ store: { kind: 'postgres', pool: d.pool }, now }, allowance));
      const takes = Array.from({ length: 12 }, (_, i) => outcome((replicas[i % 2] as (typeof replicas)[number]).take('telegram:42')));
      const outcomes = await Promise.all(takes);
      expect(outcomes.filter((o) => o === null)).toHaveLength(5);
      expect(outcomes.filter((o) => o?.code === 'rate_limited')).toHaveLength(7);
      expect((await rows())[`case_user:${keyOf('telegram:42')}`]?.points).toBe(12);

      const quotas: Quota[] = [pg, other].map((d) => quotaOver({ store: { kind: 'postgres', pool: d.pool }, now }, ACCOUNT, ADDRESS));
      const both = await Promise.all(
        Array.from({ length: 8 }, (_, i) => outcome((quotas[i % 2] as Quota).take(BigInt(20 + (i % 4)), '192.0.2.77'))),
      );
      expect(both.filter((o) => o === null)).toHaveLength(3);
      expect((await rows())[`order_addr:${keyOf('192.0.2.77')}`]?.points).toBe(8);
    } finally {
      await other.close();
    }
  });
});
