import { startPlatformEmulator, type PlatformEmulator, type PreCheckoutView } from '@wordgame/platform-emulator';
import { balance, createOrder, createProduct, telegramCustomer, type Customer, type Order } from '../src/harness/api.js';
import { runLedgerAudit } from '../src/harness/audit.js';
import { creditFacts } from '../src/harness/ledger.js';
import { freshDatabase, type FreshDatabase } from '../src/harness/postgres.js';
import { Rng, seedFromEnv } from '../src/harness/rng.js';
import { report, scaled } from '../src/harness/scale.js';
import { startStack, TELEGRAM_BOT_TOKEN, type Stack } from '../src/harness/stack.js';
import { delay, waitFor } from '../src/harness/wait.js';

const SUITE = 'bot SIGKILL during stars payments';
const PAYMENTS = scaled(50, 1_000);
const PAYERS = scaled(5, 20);
const WORKERS = scaled(4, 8);
/**
 * The kills: KILLS moments drawn from the seed, each a point in the payment stream (after the k-th
 * approved payment) plus a delay, so the count does not depend on how fast the machine pays; then
 * how long the bot stays dead, and a payer's pause between payments (uniform, ms).
 */
const KILLS = scaled(12, 200);
const KILL_DELAY: [number, number] = [0, 400];
const DEAD_FOR: [number, number] = [0, 300];
const THINK: [number, number] = [0, 200];
const CHIPS = 10n;
const STARS = 5n;

/**
 * Suite 3 of issue #8: customers pay N stars orders through the platform emulator (pre-checkout,
 * then the successful payment, as a Telegram client would) while the real bot process is SIGKILLed
 * at random moments (seeded; the seed is printed, FAULTS_SEED replays it) and started again on the
 * same SQLite outbox. A payment whose pre-checkout was not answered is simply paid again, as a
 * customer would. At the end every order is paid exactly once at the platform and credited exactly
 * once: N orders paid, one purchase ledger row each, each bound to its own charge, nothing
 * unmatched, every wallet holds what its payer bought, and the ledger audit is clean.
 */
describe('faults: bot SIGKILLed at random moments during stars payments', () => {
  let platform: PlatformEmulator;
  let db: FreshDatabase;
  let stack: Stack;
  let payers: { userId: number; customer: Customer }[];
  let product: string;

  beforeAll(async () => {
    platform = await startPlatformEmulator({ tokens: [TELEGRAM_BOT_TOKEN] });
    db = await freshDatabase();
    stack = await startStack({
      databaseUrl: db.url,
      platformApiRoot: platform.apiRoot,
      botEnv: {
        BOTLINK_BACKOFF_INITIAL_MS: '200',
        BOTLINK_BACKOFF_MAX_MS: '1000',
        BOT_OUTBOX_RETRY_INITIAL_MS: '200',
        BOT_OUTBOX_RETRY_MAX_MS: '2000',
      },
    });
    product = await createProduct(
      stack.urls.gateway,
      { title: 'Chips 10', atoms: [{ kind: 'chips', quantity: CHIPS }], prices: [{ method: 'xtr', amount: STARS, currency: 'XTR' }] },
      stack.operatorToken,
    );
    payers = [];
    for (let i = 0; i < PAYERS; i += 1) {
      const userId = 7_000 + i;
      platform.control.createUser({ id: userId, firstName: `Payer ${i}`, started: true });
      payers.push({ userId, customer: await telegramCustomer(stack.urls.api, userId) });
    }
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await platform?.stop();
    await db?.drop();
  });

  it(
    `every one of ${PAYMENTS} payments is credited exactly once`,
    async () => {
      const bot = stack.bot;
      if (!bot) throw new Error('no bot');
      const started = performance.now();
      // Orders first (create_invoice needs the bot), round-robin over the payers.
      const orders: { order: Order; payer: (typeof payers)[number] }[] = [];
      for (let i = 0; i < PAYMENTS; i += 1) {
        const payer = payers[i % payers.length];
        if (!payer) throw new Error('no payer');
        const res = await createOrder(stack.urls.api, payer.customer, product, 'stars');
        expect(res.status).toBe(201);
        orders.push({ order: res.body as Order, payer });
      }

      const seed = seedFromEnv();
      const rng = new Rng(seed);
      const think = new Rng(seed + 1);
      report(
        SUITE,
        `seed ${seed} (FAULTS_SEED=${seed} replays the kill schedule), ${PAYMENTS} payments by ${PAYERS} payers, ${WORKERS} paying at once`,
      );

      const charges = new Map<string, string>();
      const outcomes = { approved: 0, rejected: 0, expired: 0, alreadyPaid: 0 };
      let next = 0;
      const payOnce = async (link: string, userId: number): Promise<PreCheckoutView> => {
        const { preCheckoutQueryId } = platform.control.pay({ link, userId });
        let view: PreCheckoutView | undefined;
        await waitFor(
          'pre-checkout answered or expired',
          () => {
            view = platform.control.preCheckout(preCheckoutQueryId);
            return view !== undefined && view.status !== 'pending';
          },
          30_000,
        );
        if (!view) throw new Error('no pre-checkout');
        return view;
      };
      const worker = async () => {
        for (let i = next++; i < orders.length; i = next++) {
          const entry = orders[i];
          if (!entry) break;
          for (;;) {
            const view = await payOnce(entry.order.invoice_link ?? '', entry.payer.userId);
            if (view.status === 'approved') {
              outcomes.approved += 1;
              charges.set(entry.order.order_id, view.telegramPaymentChargeId ?? '');
              await delay(think.int(...THINK));
              break;
            }
            if (view.errorMessage === 'This order is already paid.') outcomes.alreadyPaid += 1;
            if (view.status === 'expired') outcomes.expired += 1;
            else outcomes.rejected += 1;
          }
        }
      };

      let paying = true;
      let kills = 0;
      const killPoints = Array.from({ length: KILLS }, () => rng.int(0, PAYMENTS - 1)).sort((a, b) => a - b);
      const chaos = (async () => {
        for (const point of killPoints) {
          await waitFor(
            'payments to reach the next kill point',
            () => !paying || outcomes.approved >= point,
            scaled(120_000, 1_800_000),
            10,
          );
          await delay(rng.int(...KILL_DELAY));
          if (!paying) break;
          await bot.kill();
          kills += 1;
          await delay(rng.int(...DEAD_FOR));
          await bot.start();
        }
      })();
      try {
        await Promise.all(Array.from({ length: WORKERS }, worker));
      } finally {
        paying = false;
        await chaos;
      }
      if (!bot.running) await bot.start();

      const ids = orders.map((o) => o.order.order_id);
      await waitFor('every paid order credited', async () => (await creditFacts(db, ids)).paid === PAYMENTS, scaled(90_000, 600_000), 250);
      const elapsed = (performance.now() - started) / 1000;
      const facts = await creditFacts(db, ids);
      const stored = bot.messages('successful payment stored in the outbox');
      const retries = bot.messages('ForwardPayment got no response; retrying').length;
      // Counted from the bot's logs, which a SIGKILL can cut short. A charge stored by one run of the
      // bot and forwarded by a later one crossed a kill in the outbox.
      const storedIn = new Map<unknown, number>();
      for (const line of bot.logs)
        if (line.entry['msg'] === 'successful payment stored in the outbox' && !storedIn.has(line.entry['platformChargeId']))
          storedIn.set(line.entry['platformChargeId'], line.run);
      const acrossKill = bot.logs.filter(
        (l) => l.entry['msg'] === 'payment forwarded and credited' && (storedIn.get(l.entry['platformChargeId']) ?? l.run) < l.run,
      ).length;
      report(
        SUITE,
        `${PAYMENTS} payments, ${kills} SIGKILLs in ${elapsed.toFixed(1)} s; pre-checkouts: ${outcomes.approved} approved, ${outcomes.rejected} declined and ${outcomes.expired} unanswered (bot down; paid again); ` +
          `outbox: ${stored.length} stores logged (a SIGKILL can take the log line of a committed store with it; the orders below are the truth), ${stored.filter((e) => e['added'] === false).length} updates delivered again after a kill, ${acrossKill} charges forwarded by a later bot run than stored them, ${retries} ForwardPayment retries; ` +
          `orders paid ${facts.paid}, purchase rows ${facts.purchaseRows}, double credits ${facts.doubleCredited.length}, unmatched ${facts.unmatched}`,
      );

      // The platform took exactly one payment per order, and the backend bound each to its charge.
      const platformPayments = platform.control.state().payments.filter((p) => ids.includes(p.payload));
      expect(platformPayments).toHaveLength(PAYMENTS);
      expect(new Set(platformPayments.map((p) => p.payload)).size).toBe(PAYMENTS);
      expect(outcomes.alreadyPaid).toBe(0);
      const bound = await db.query<{ id: string; charge: string | null }>(
        'select id::text as id, platform_charge_id as charge from orders where id = any($1::uuid[])',
        [ids],
      );
      expect(bound.rows.filter((r) => r.charge !== charges.get(r.id))).toEqual([]);

      expect(facts).toEqual({
        orders: PAYMENTS,
        paid: PAYMENTS,
        purchaseRows: PAYMENTS,
        doubleCredited: [],
        inconsistent: [],
        unmatched: 0,
      });
      for (const payer of payers) {
        const bought = BigInt(orders.filter((o) => o.payer === payer).length);
        expect(await balance(stack.urls.api, payer.customer, 'telegram')).toBe(bought * CHIPS);
      }
      const audit = runLedgerAudit(db.url);
      report(SUITE, `ledger audit: ${audit.clean ? 'clean' : 'PROBLEMS'} over ${audit.operations} operations`);
      expect(audit.output).toContain('"clean": true');
      expect(audit.clean).toBe(true);
    },
    scaled(240_000, 3_600_000),
  );
});
