import { Code, ConnectError } from '@connectrpc/connect';
import { backendApi, encodeTable, fb } from '@wordgame/contracts';
import { startHarness, as, type Harness } from './support/harness.js';
import { newAccount } from './support/wallet.js';

const walletQuery = encodeTable((b) => fb.WalletQuery.createWalletQuery(b));
const CALLER = 'direct;web';

describe('a busy pool slows calls down, it does not fail them', () => {
  let h: Harness;
  beforeAll(async () => {
    // One pooled connection, and work outside a call gives up on it after 50 ms.
    h = await startHarness({ DB_POOL_MAX: '1', DB_ACQUIRE_TIMEOUT_MS: '50', REAPER_INTERVAL_MS: '0', MODERATION_LAPSE_INTERVAL_MS: '0' });
  });
  afterAll(() => h.stop());

  /** Resolves once one of the backend's connections waits for a lock (polled; no fixed wait). */
  async function someoneWaitsOnALock(): Promise<void> {
    for (;;) {
      const { rows } = await h.database.pool.query<{ n: string }>(
        "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      );
      if (Number(rows[0]?.n) > 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('a call waits for the pool past DB_ACQUIRE_TIMEOUT_MS and is served once the connection is free; one whose deadline passes ends deadline_exceeded', async () => {
    const id = await newAccount(h.database.db);
    const wallet = h.client(backendApi.WalletService);
    const locker = await h.database.pool.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table wallet_segments, benefits in access exclusive mode');
      // The first call takes the pool's one connection and waits on the lock; the next two wait for the connection.
      const holder = wallet.getWallet({ body: walletQuery }, as(id, CALLER));
      await someoneWaitsOnALock();
      const patient = wallet.getWallet({ body: walletQuery }, { ...as(id, CALLER), timeoutMs: 120_000 });
      const hurried = wallet.getWallet({ body: walletQuery }, { ...as(id, CALLER), timeoutMs: 1_000 });
      const hurriedError = await hurried.then(
        () => undefined,
        (err: unknown) => ConnectError.from(err),
      );
      expect(hurriedError?.code).toBe(Code.DeadlineExceeded);
      // The patient call has now waited about 20 times DB_ACQUIRE_TIMEOUT_MS for the connection.
      await locker.query('commit');
      expect((await holder).body.length).toBeGreaterThan(0);
      expect((await patient).body.length).toBeGreaterThan(0);
      expect((await wallet.getWallet({ body: walletQuery }, as(id, CALLER))).body.length).toBeGreaterThan(0);
    } finally {
      await locker.query('rollback').catch(() => undefined);
      locker.release();
    }
  });
});
