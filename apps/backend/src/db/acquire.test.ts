import { sql } from 'kysely';
import pg from 'pg';
import { testServerUrl } from '@wordgame/testkit';
import { boundCheckouts, CONNECT_RETRY_DELAYS_MS, withinCall } from './acquire.js';
import { openDatabase } from './database.js';
import { isDatabaseUnavailable } from './unavailable.js';

/** A pool of one connection, its checkouts bounded, the one connection checked out by the test. */
async function fullPool(jobTimeoutMs: number): Promise<{ pool: pg.Pool; held: pg.PoolClient }> {
  const pool = new pg.Pool({ connectionString: testServerUrl(), max: 1, connectionTimeoutMillis: 15_000 });
  boundCheckouts(pool, jobTimeoutMs);
  const held = await pool.connect();
  return { pool, held };
}

function settled<T>(promise: Promise<T>): { readonly done: boolean; readonly promise: Promise<T> } {
  const state = { done: false, promise };
  promise.then(
    () => (state.done = true),
    () => (state.done = true),
  );
  return state;
}

describe('pool checkouts bounded by the call', () => {
  it('a call waits for a connection past the fixed job timeout, and gets it once one is free', async () => {
    const { pool, held } = await fullPool(50);
    try {
      const call = settled(withinCall(new AbortController().signal, () => pool.query<{ one: number }>('select 1 as one')));
      const job = pool.query('select 1');
      const jobError = await job.then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(isDatabaseUnavailable(jobError)).toBe(true);
      expect(call.done).toBe(false);
      held.release();
      expect((await call.promise).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it("a call's checkout ends with the call's abort reason, and the connection granted later goes back to the pool", async () => {
    const { pool, held } = await fullPool(60_000);
    try {
      const abort = new AbortController();
      const reason = new Error('deadline passed');
      const waiting = withinCall(abort.signal, () => pool.connect());
      abort.abort(reason);
      await expect(waiting).rejects.toBe(reason);
      await expect(withinCall(abort.signal, () => pool.query('select 1'))).rejects.toBe(reason);
      held.release();
      const rows = await pool.query<{ two: number }>('select 2 as two');
      expect(rows.rows).toEqual([{ two: 2 }]);
      expect(pool.totalCount).toBe(1);
      expect(pool.waitingCount).toBe(0);
    } finally {
      await pool.end();
    }
  });

  it("openDatabase bounds kysely's and prepared statements' checkouts the same way", async () => {
    const database = await openDatabase({ url: testServerUrl(), poolMax: 1 });
    const held = await database.pool.connect();
    try {
      const abort = new AbortController();
      const reason = new Error('caller went away');
      const viaKysely = withinCall(abort.signal, () => sql`select 1`.execute(database.db));
      const viaPoolQuery = withinCall(abort.signal, () => database.pool.query('select 1'));
      abort.abort(reason);
      await expect(viaKysely).rejects.toBe(reason);
      await expect(viaPoolQuery).rejects.toBe(reason);
    } finally {
      held.release();
      await database.close();
    }
  });

  /** A pg Client whose first `failures` connection attempts (across all instances) fail as a missing DNS answer does. */
  function flakyClient(failures: number): { Client: typeof pg.Client; attempts: () => number } {
    let attempts = 0;
    type Callback = ((err: Error) => void) | ((err: null, c: pg.Client) => void);
    class Flaky extends pg.Client {
      override connect(): Promise<pg.Client>;
      override connect(callback: Callback): void;
      override connect(callback?: Callback): Promise<pg.Client> | void {
        attempts += 1;
        if (attempts <= failures) {
          const err = Object.assign(new Error('getaddrinfo ENOTFOUND postgres'), { code: 'ENOTFOUND', syscall: 'getaddrinfo' });
          if (callback) return void process.nextTick(() => (callback as (e: Error) => void)(err));
          return Promise.reject(err);
        }
        if (callback) return super.connect(callback);
        return super.connect();
      }
    }
    return { Client: Flaky, attempts: () => attempts };
  }

  it('opens a new connection again after a network failure (nothing was sent), and gives up after the last retry', async () => {
    const once = flakyClient(1);
    const pool = new pg.Pool({ connectionString: testServerUrl(), max: 1, Client: once.Client });
    boundCheckouts(pool, 60_000);
    try {
      expect((await withinCall(new AbortController().signal, () => pool.query<{ one: number }>('select 1 as one'))).rows).toEqual([
        { one: 1 },
      ]);
      expect(once.attempts()).toBe(2);
    } finally {
      await pool.end();
    }
    const always = flakyClient(Number.MAX_SAFE_INTEGER);
    const down = new pg.Pool({ connectionString: testServerUrl(), max: 1, Client: always.Client });
    boundCheckouts(down, 60_000);
    try {
      const err = await down.query('select 1').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isDatabaseUnavailable(err)).toBe(true);
      expect(always.attempts()).toBe(CONNECT_RETRY_DELAYS_MS.length + 1);
      expect(CONNECT_RETRY_DELAYS_MS.length).toBeGreaterThan(0);
    } finally {
      await down.end();
    }
  });
});
