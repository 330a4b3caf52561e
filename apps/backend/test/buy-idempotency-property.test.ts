import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { backendApi } from '@wordgame/contracts';
import fc from 'fast-check';
import { sql } from 'kysely';
import { auditLedger } from '../src/ledger/audit.js';
import { grantChips } from '../src/ledger/postings/append.js';
import { as, startHarness, type Harness } from './support/harness.js';
import { buyBody, createProduct, newAccount, readPurchase } from './support/wallet.js';

/** Polls `done` every 10 ms until it holds; fails naming `what` once `timeoutMs` passed (a deadline, not a timing assertion). */
async function waitFor(done: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const PRICE = 3n;
const FUNDED = 30n;

type Purchase = ReturnType<typeof readPurchase>;
type Answer = { ok: true; purchase: Purchase } | { ok: false; code: Code };

/** One copy of the request: when it leaves after the first, and whether its caller gives up while the backend works on it. */
interface Copy {
  delayMs: number;
  givesUp: boolean;
}

/**
 * Duplicates of one Idempotency-Key raced against the real backend on PostgreSQL. In `race` the
 * copies go out a few milliseconds apart and race for the account's locks; in `held` another
 * transaction holds the account's segment rows until every copy's statement is waiting on them
 * (seen in pg_stat_activity), then the copies whose caller gives up are cancelled (the gateway's
 * deadline passed: the backend goes on and commits) before the locks are released. Afterwards the
 * key is sent once more. Holds when the key spent exactly once (one `spend` ledger row, one stored
 * first result, the balance down by one price), at most one answer says `replayed: false`, every
 * other answer and the late repeat carry the same purchase with `replayed: true`, and the only
 * failures are the cancelled calls.
 */
describe('wallet.buy: one Idempotency-Key spends at most once, however its duplicates race', () => {
  let h: Harness;
  let wallet: Client<typeof backendApi.WalletService>;
  let product: bigint;

  beforeAll(async () => {
    h = await startHarness();
    wallet = h.client(backendApi.WalletService);
    product = await createProduct(h.client(backendApi.CatalogAdminService), {
      title: 'Hints x3',
      atoms: [['hints', 3n]],
      prices: [['chips', PRICE]],
    });
  });
  afterAll(() => h.stop());

  /** Buy calls the backend has answered so far (every code): a call whose caller gave up is counted once its handler is done. */
  const buysAnswered = async (): Promise<number> => {
    const text = await (await fetch(h.metricsUrl)).text();
    let n = 0;
    for (const m of text.matchAll(/^backend_rpc_requests_total\{([^}]*)\} (\d+)$/gm))
      if ((m[1] ?? '').includes('method="WalletService/Buy"')) n += Number(m[2]);
    return n;
  };

  /**
   * wallet.buy statements waiting on a row lock in this database (pg_stat_activity keeps the first
   * 1,024 bytes of a query: matched on the statement's opening, its account row read with `$7`).
   */
  const buysWaiting = async (): Promise<number> => {
    const { rows } = await sql<{ n: string }>`
      select count(*)::text as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'
        and position('suspended_until > $7::timestamptz' in query) > 0`.execute(h.database.db);
    return Number(rows[0]?.n ?? 0);
  };

  const send = (accountId: bigint, key: string, signal?: AbortSignal): Promise<Answer> =>
    wallet.buy({ body: buyBody(product, key) }, { ...as(accountId, 'direct'), ...(signal ? { signal } : {}) }).then(
      (res) => ({ ok: true, purchase: readPurchase(res.body) }),
      (err: unknown) => ({ ok: false, code: ConnectError.from(err).code }),
    );

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** Sends the copies (each after its delay); with `held`, under a lock on the account's segments released as described above. */
  async function race(accountId: bigint, key: string, copies: readonly Copy[], held: boolean): Promise<Answer[]> {
    if (!held) return Promise.all(copies.map(async (c) => (await sleep(c.delayMs), send(accountId, key))));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const holding = new Promise<void>((r) => (locked = r));
    const blocker = h.database.db.transaction().execute(async (trx) => {
      await sql`select segment from wallet_segments where account_id = ${accountId} order by segment for update`.execute(trx);
      locked();
      await released;
    });
    try {
      await holding;
      const aborts = copies.map(() => new AbortController());
      const answers = copies.map(async (c, i) => (await sleep(c.delayMs), send(accountId, key, aborts[i]?.signal)));
      await waitFor(async () => (await buysWaiting()) === copies.length, `${copies.length} buys waiting on the account's locks`, 8_000);
      copies.forEach((c, i) => c.givesUp && aborts[i]?.abort());
      const gaveUp = await Promise.all(answers.filter((_, i) => copies[i]?.givesUp));
      expect(gaveUp.every((a) => !a.ok && a.code === Code.Canceled)).toBe(true);
      release();
      return await Promise.all(answers);
    } finally {
      release();
      await blocker;
    }
  }

  it('concurrent copies and copies whose caller gave up while the backend worked: one spend, the rest replayed', async () => {
    let seq = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(fc.record({ delayMs: fc.integer({ min: 0, max: 12 }), givesUp: fc.boolean() }), { minLength: 2, maxLength: 5 }),
        async (held, drawn) => {
          const copies = drawn.map((c) => ({ ...c, givesUp: held && c.givesUp }));
          const accountId = await newAccount(h.database.db);
          await grantChips(h.database.db, accountId, 'direct', FUNDED, 'test');
          const key = `dup-${++seq}`;
          const before = await buysAnswered();
          const answers = await race(accountId, key, copies, held);
          // Every copy reached the backend; once all are answered there, nothing of this key is still running.
          await waitFor(async () => (await buysAnswered()) - before === copies.length, 'every copy answered by the backend', 30_000);
          const late = await send(accountId, key);

          if (!late.ok) throw new Error(`the late repeat failed with ${Code[late.code]}`);
          expect(late.purchase.replayed).toBe(true);
          const same = { ...late.purchase, replayed: false };
          copies.forEach((c, i) => {
            const a = answers[i] as Answer;
            if (c.givesUp) expect(a).toEqual({ ok: false, code: Code.Canceled });
            else if (!a.ok) throw new Error(`copy ${i} failed with ${Code[a.code]}`);
            else expect({ ...a.purchase, replayed: false }).toEqual(same);
          });
          // The copy that spent answers `replayed: false`, unless its caller gave up before the answer.
          const spentAnswers = answers.filter((a) => a.ok && !a.purchase.replayed).length;
          if (copies.some((c) => c.givesUp)) expect(spentAnswers).toBeLessThanOrEqual(1);
          else expect(spentAnswers).toBe(1);

          const spends = await h.database.db
            .selectFrom('ledger_operations')
            .select('chips_delta')
            .where('account_id', '=', accountId)
            .where('kind', '=', 'spend')
            .execute();
          expect(spends.map((s) => s.chips_delta)).toEqual([-PRICE]);
          const stored = await h.database.db
            .selectFrom('buy_requests')
            .select('idempotency_key')
            .where('account_id', '=', accountId)
            .execute();
          expect(stored).toEqual([{ idempotency_key: key }]);
          const balance = await h.database.db
            .selectFrom('wallet_segments')
            .select('balance')
            .where('account_id', '=', accountId)
            .where('segment', '=', 'direct')
            .executeTakeFirstOrThrow();
          expect(balance.balance).toBe(FUNDED - PRICE);
        },
      ),
      { numRuns: 24 },
    );
    expect((await auditLedger(h.database.db)).problems).toEqual([]);
  }, 240_000);
});
