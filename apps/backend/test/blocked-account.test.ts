import { Code, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { sql } from 'kysely';
import { BUY_STATEMENT, grantChips, spenderRow } from '../src/ledger/postings/index.js';
import { DECLINE } from '../src/payments/stars/intake.js';
import { createBody, grantHints, hintBody, view } from './game-support.js';
import {
  createOrder,
  eventually,
  forward,
  preCheckout,
  startBotCommandServer,
  telegramAccount,
  type BotCommandServer,
} from './payments-support.js';
import { as, errorOf, failure, startHarness, type Harness } from './support/harness.js';
import { buyBody, createProduct, newAccount, readPurchase } from './support/wallet.js';

/**
 * A block takes effect at once for every money write the player starts, whatever a gateway's
 * session cache still says: the backend reads the account's status under a lock on its row, in
 * the transaction of the write. Here the callers arrive with trusted headers, as a gateway holding
 * a cached session sends them.
 */
describe('a blocked account spends nothing, from the moment the block commits (backend on PostgreSQL)', () => {
  let bot: BotCommandServer;
  let h: Harness;
  let wallet: Client<typeof backendApi.WalletService>;
  let payments: Client<typeof backendApi.PaymentsService>;
  let intake: Client<typeof backendApi.BotIntakeService>;
  let games: Client<typeof backendApi.GameService>;
  let operator: Client<typeof backendApi.ConsoleService>;
  let hint: bigint;
  let pack: bigint;
  let nextUser = 9_100;

  beforeAll(async () => {
    bot = await startBotCommandServer();
    h = await startHarness({ GATEWAY_INTERNAL_URL: bot.url, REAPER_INTERVAL_MS: '0', GAME_DAILY_HINTS: '0' });
    wallet = h.client(backendApi.WalletService);
    payments = h.client(backendApi.PaymentsService);
    intake = h.client(backendApi.BotIntakeService);
    games = h.client(backendApi.GameService);
    operator = h.client(backendApi.ConsoleService);
    const admin = h.client(backendApi.CatalogAdminService);
    hint = await createProduct(admin, { title: 'One hint', atoms: [['hints', 1n]], prices: [['chips', 10n]] });
    pack = await createProduct(admin, { title: '100 chips', atoms: [['chips', 100n]], prices: [['xtr', 50n]] });
  });
  afterAll(async () => {
    await h.stop();
    await bot.stop();
  });

  const db = () => h.database.db;
  const me = (id: bigint) => as(id, 'telegram');
  const moderate = async (id: bigint, action: string, untilUnix = 0n) =>
    decodeTable(
      (
        await operator.moderate({
          body: encodeTable((b) =>
            fb.ModerationAction.createModerationAction(b, id, b.createString(action), untilUnix, b.createString('test')),
          ),
        })
      ).body,
      (bb) => fb.ModerationResult.getRootAsModerationResult(bb),
      (t) => t.account()?.status(),
    );
  const buy = (id: bigint) => wallet.buy({ body: buyBody(hint) }, me(id));
  const useHint = (id: bigint, gameId: bigint) => games.useHint({ body: hintBody(gameId) }, me(id));
  const invoices = () => bot.commands.filter((c) => c.payload.case === 'createInvoice').length;
  /**
   * The links minted since `sent` invoices, and how many orders carry their ids: a stars order mints
   * its link before the one statement that locks the account and inserts, so a blocked account's
   * order may have minted one, which no order (and so no pre-checkout, no money) ever answers to.
   */
  const mintedSince = async (sent: number) => {
    const ids = bot.commands.flatMap((c) => (c.payload.case === 'createInvoice' ? [c.payload.value.payload] : [])).slice(sent);
    const opened = ids.length === 0 ? [] : await db().selectFrom('orders').select('id').where('id', 'in', ids).execute();
    return { minted: ids.length, opened: opened.length };
  };

  /** A telegram player with 100 chips and 2 wallet hints, a human game where it is to move, and a pending stars order. */
  async function player() {
    const id = await telegramAccount(db(), String((nextUser += 1)));
    const opponent = await newAccount(db());
    await grantChips(db(), id, 'telegram', 100n, 'test chips');
    await grantHints(db(), id, 'telegram', 2n);
    const game = view((await games.createGame({ body: createBody('classic', false, opponent) }, me(id))).body);
    const order = await createOrder(payments, id, 'telegram', pack, 'stars');
    return { id, gameId: game.gameId, orderId: order.orderId };
  }

  /** Everything a money write of the account could have touched. */
  const written = async (id: bigint) => ({
    ledger: await db().selectFrom('ledger_operations').select(['id', 'kind']).where('account_id', '=', id).orderBy('id').execute(),
    segments: await db()
      .selectFrom('wallet_segments')
      .select(['segment', 'balance'])
      .where('account_id', '=', id)
      .orderBy('segment')
      .execute(),
    benefits: await db().selectFrom('benefits').select(['origin', 'hints']).where('account_id', '=', id).orderBy('origin').execute(),
    orders: await db()
      .selectFrom('orders')
      .select(['id', 'state', 'checkout_hold_until'])
      .where('account_id', '=', id)
      .orderBy('id')
      .execute(),
    buys: await db().selectFrom('buy_requests').select('idempotency_key').where('account_id', '=', id).execute(),
    hints: await db().selectFrom('player_stats').select('hints_used').where('account_id', '=', id).execute(),
  });
  const suspended = { code: Code.PermissionDenied, errorCode: 'account_suspended' };

  it('refuses a buy, a stars order, a wallet hint and a stars pre-checkout right after the block, writing nothing; a charge already taken is still credited', async () => {
    const p = await player();
    expect(await moderate(p.id, 'block')).toBe('suspended');
    const before = await written(p.id);
    const sent = invoices();

    const outcome = (call: Promise<unknown>) => call.then((value) => ({ done: value }), errorOf);
    expect({
      buy: await outcome(buy(p.id)),
      order: await outcome(createOrder(payments, p.id, 'telegram', pack, 'stars')),
      hint: await outcome(useHint(p.id, p.gameId)),
      preCheckout: await outcome(preCheckout(intake, p.orderId, 50n, 'XTR')),
    }).toEqual({ buy: suspended, order: suspended, hint: suspended, preCheckout: { done: { ok: false, reason: DECLINE.account } } });
    expect(await written(p.id)).toEqual(before);
    expect(await mintedSince(sent)).toEqual({ minted: 1, opened: 0 });

    // Money conservation: stars the platform has already taken are credited, blocked or not.
    expect(await forward(intake, p.orderId, `charge-${p.id}`, 50n)).toBe(true);
    const telegram = await db()
      .selectFrom('wallet_segments')
      .select('balance')
      .where('account_id', '=', p.id)
      .where('segment', '=', 'telegram')
      .executeTakeFirstOrThrow();
    expect(telegram.balance).toBe(200n);

    expect(await moderate(p.id, 'unblock')).toBe('active');
    expect(readPurchase((await buy(p.id)).body).price).toBe(10n);
  });

  it('a temporary block refuses spending until its end, read from the account row as it stands', async () => {
    const p = await player();
    expect(await moderate(p.id, 'temp_block', BigInt(Math.floor(Date.now() / 1000) + 3_600))).toBe('suspended');
    expect(await failure(buy(p.id))).toEqual(suspended);
    // Its end passed (before any lapse tick has set the account active): spending is open again.
    await db()
      .updateTable('accounts')
      .set({ suspended_until: new Date(Date.now() - 1_000) })
      .where('id', '=', p.id)
      .execute();
    expect(readPurchase((await buy(p.id)).body).price).toBe(10n);
  });

  it('a block still in flight holds each money write until it commits, and then refuses it', async () => {
    const p = await player();
    const before = await written(p.id);
    const sent = invoices();
    const lockWaiters = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*)::text as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(db())
        ).rows[0]?.n,
      );

    // The block's transaction locks and updates the account row, then writes its audit row: holding
    // the audit table keeps that transaction open after its update, uncommitted.
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let tableHeld = (): void => undefined;
    const held = new Promise<void>((resolve) => (tableHeld = resolve));
    const holder = db()
      .transaction()
      .execute(async (trx) => {
        await sql`lock table operator_audit in exclusive mode`.execute(trx);
        tableHeld();
        await released;
      });
    await held;
    const block = moderate(p.id, 'block');
    try {
      await eventually(async () => (await lockWaiters()) >= 1);

      const settled: string[] = [];
      const track = <T>(name: string, call: Promise<T>) =>
        call.then(
          (value) => {
            settled.push(name);
            return { ok: true as const, value };
          },
          (err: unknown) => {
            settled.push(name);
            return { ok: false as const, failure: errorOf(err) };
          },
        );
      const writes = [
        track('buy', buy(p.id)),
        track('order', createOrder(payments, p.id, 'telegram', pack, 'stars')),
        track('hint', useHint(p.id, p.gameId)),
        track('pre-checkout', preCheckout(intake, p.orderId, 50n, 'XTR')),
      ];
      // Each write waits on the account row the uncommitted block holds (or, without that lock, goes through).
      await eventually(async () => settled.length > 0 || (await lockWaiters()) >= 5);
      expect(settled).toEqual([]);

      release();
      await holder;
      expect(await block).toBe('suspended');
      const outcomes = await Promise.all(writes);
      expect(outcomes.slice(0, 3)).toEqual([
        { ok: false, failure: suspended },
        { ok: false, failure: suspended },
        { ok: false, failure: suspended },
      ]);
      expect(outcomes[3]).toEqual({ ok: true, value: { ok: false, reason: DECLINE.account } });
      expect(await written(p.id)).toEqual(before);
      expect(await mintedSince(sent)).toEqual({ minted: 1, opened: 0 });
    } finally {
      release();
      await holder;
      await block.catch(() => undefined);
    }
  });

  it('wallet.buy locks and reads the account row exactly as every other money write does (spenderRow)', () => {
    expect(BUY_STATEMENT).toContain(`acct AS MATERIALIZED (\n  ${spenderRow('$1', '$7')}\n)`);
  });
});
