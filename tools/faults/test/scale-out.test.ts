import { startPlatformEmulator, type PlatformEmulator, type PreCheckoutView } from '@wordgame/platform-emulator';
import { startProviderEmulator, type ProviderEmulator } from '@wordgame/provider-emulator';
import { gatewayApi } from '@wordgame/contracts';
import {
  balance,
  bearer,
  call,
  createOrder,
  createProduct,
  directCustomer,
  telegramCustomer,
  type Customer,
  type Order,
} from '../src/harness/api.js';
import { runLedgerAudit } from '../src/harness/audit.js';
import { commandClient, sendToUser } from '../src/harness/commands.js';
import { creditFacts } from '../src/harness/ledger.js';
import { freshDatabase, type FreshDatabase } from '../src/harness/postgres.js';
import { report } from '../src/harness/scale.js';
import { CARD_SHOP, NOTIFICATION_PATH, TELEGRAM_BOT_TOKEN } from '../src/harness/stack.js';
import { delay, waitFor } from '../src/harness/wait.js';
import { directBackend, moderate, playMove, watch, type LiveEvent } from '../src/harness/backend-direct.js';
import { operatorToken, startCluster, type Cluster, type GatewayReplica } from '../src/harness/cluster.js';
import { settlesWithin } from '@wordgame/testkit';

const SUITE = 'scale-out: 2 gateways, 2 backends, NATS';
const CHIPS = 10n;

/**
 * Issue #17's Done-when, on real processes: two gateways and two backends sharing PostgreSQL and
 * NATS, the platform and provider emulators, a bot that owns updates and one that does not, both
 * dialling the gateways through an L4 balancer. Through either gateway a stars and a card purchase
 * are credited once; a moderation on either backend reaches the bot as a chat gate; a watcher on one
 * backend sees a move made on the other; the gateway holding the owner's Link is SIGKILLed and the
 * bot relinks to the other within 5 s with commands flowing again and none replayed; a backend is
 * SIGKILLed under load (answers are 2xx or a clean 503, nothing credited twice) and the other drains
 * on SIGTERM under load failing nothing; the ledger audit is clean.
 */
describe('scale-out: several gateways and backends stay correct', () => {
  let platform: PlatformEmulator;
  let provider: ProviderEmulator;
  let db: FreshDatabase;
  let cluster: Cluster;
  let starsProduct: string;
  let cardProduct: string;
  let operator: string;
  const orderIds: string[] = [];
  let nextUser = 9_100;

  const gw = (i: number): GatewayReplica => {
    const g = cluster.gateways[i];
    if (!g) throw new Error(`no gateway ${i}`);
    return g;
  };
  const payer = async (via: GatewayReplica): Promise<{ userId: number; customer: Customer }> => {
    const userId = nextUser++;
    platform.control.createUser({ id: userId, firstName: `Scale ${userId}`, started: true });
    return { userId, customer: await telegramCustomer(via.api, userId) };
  };
  const payStars = async (link: string, userId: number): Promise<PreCheckoutView> => {
    const { preCheckoutQueryId } = platform.control.pay({ link, userId });
    let view: PreCheckoutView | undefined;
    await waitFor(
      'pre-checkout answered',
      () => {
        view = platform.control.preCheckout(preCheckoutQueryId);
        return view !== undefined && view.status !== 'pending';
      },
      20_000,
    );
    if (!view) throw new Error('no pre-checkout');
    return view;
  };
  const paymentIdOf = (order: Order) => new URL(order.confirmation_url ?? 'http://x/').searchParams.get('orderId') ?? '';

  beforeAll(async () => {
    platform = await startPlatformEmulator({ tokens: [TELEGRAM_BOT_TOKEN] });
    provider = await startProviderEmulator({ shops: [CARD_SHOP] });
    db = await freshDatabase();
    cluster = await startCluster({ databaseUrl: db.url, platformApiRoot: platform.apiRoot, providerApiUrl: provider.apiUrl });
    operator = await operatorToken(db.url, gw(0).http, 'refunder,catalog_editor,moderator');
    starsProduct = await createProduct(
      gw(0).http,
      { title: 'Chips 10 stars', atoms: [{ kind: 'chips', quantity: CHIPS }], prices: [{ method: 'xtr', amount: 5n, currency: 'XTR' }] },
      operator,
    );
    cardProduct = await createProduct(
      gw(1).http,
      {
        title: 'Chips 10 card',
        atoms: [{ kind: 'chips', quantity: CHIPS }],
        prices: [{ method: 'provider', amount: 9900n, currency: 'RUB' }],
      },
      operator,
    );
    // Both bots are linked, on either gateway, before anything is sent.
    await waitFor('both bots linked', async () => (await linkedBots()).length === 2, 20_000);
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await provider?.stop();
    await platform?.stop();
    await db?.drop();
  });

  /** `instanceId@gatewayIndex` of every open Link, read from the gateways' metrics and logs. */
  const linkedBots = async (): Promise<string[]> => {
    const out: string[] = [];
    cluster.gateways.forEach((g, i) => {
      if (!g.process.running) return;
      const open = new Map<string, boolean>();
      for (const l of g.process.logs) {
        if (l.run !== g.process.starts) continue;
        const id = l.entry['instanceId'];
        if (typeof id !== 'string') continue;
        if (l.entry['msg'] === 'bot link opened') open.set(id, true);
        if (l.entry['msg'] === 'bot link ended') open.set(id, false);
      }
      for (const [id, on] of open) if (on) out.push(`${id}@${i}`);
    });
    return Promise.resolve(out);
  };

  it('a stars purchase through either gateway is credited once', async () => {
    for (const g of [gw(0), gw(1)]) {
      const p = await payer(g);
      const res = await createOrder(g.api, p.customer, starsProduct, 'stars');
      expect(res.status).toBe(201);
      const order = res.body as Order;
      expect(order.invoice_link).toMatch(/^https?:/);
      orderIds.push(order.order_id);
      expect((await payStars(order.invoice_link ?? '', p.userId)).status).toBe('approved');
      await waitFor('stars credited', async () => (await balance(g.api, p.customer, 'telegram')) === CHIPS, 20_000);
    }
    const facts = await creditFacts(db, orderIds);
    expect(facts).toMatchObject({ paid: 2, purchaseRows: 2, doubleCredited: [], inconsistent: [] });
  });

  it('a card purchase through either gateway is credited once', async () => {
    const ids: string[] = [];
    for (const [i, g] of [gw(0), gw(1)].entries()) {
      provider.control.setWebhookUrl(`${g.http}${NOTIFICATION_PATH}`);
      const buyer = await directCustomer(g.api, `scale-card-${i}@example.test`, cluster.mailDir);
      const res = await createOrder(g.api, buyer, cardProduct, 'card');
      expect(res.status).toBe(201);
      const order = res.body as Order;
      ids.push(order.order_id);
      const { notification } = await provider.control.succeedPayment(paymentIdOf(order));
      expect(notification.attempts.map((a) => a.status)).toEqual([200]);
      await waitFor('card credited', async () => (await balance(g.api, buyer, 'direct')) === CHIPS, 20_000);
    }
    orderIds.push(...ids);
    expect(await creditFacts(db, ids)).toMatchObject({ paid: 2, purchaseRows: 2, doubleCredited: [], inconsistent: [] });
  });

  it('a moderation on either backend reaches the bot as a chat gate', async () => {
    const target = await payer(gw(0));
    const external = String(target.userId);
    const [b1, b2] = cluster.backends.map((b) => directBackend(b.url));
    if (!b1 || !b2) throw new Error('two backends');
    // The bot's own Ack came back either way: delivered, or not_delivered (the user is in no chat).
    // no_bot, error or timeout would mean the command never reached a bot.
    const blocked = await moderate(b1, operator, target.customer.accountId, 'block');
    const unblocked = await moderate(b2, operator, target.customer.accountId, 'unblock');
    expect(blocked).toHaveLength(1);
    expect(unblocked).toHaveLength(1);
    expect(blocked[0]).toMatch(new RegExp(`^${external}:deny:(delivered|not_delivered)$`));
    expect(unblocked[0]).toMatch(new RegExp(`^${external}:allow:(delivered|not_delivered)$`));
    report(SUITE, `moderation: block on backend1 -> ${blocked[0] ?? ''}, unblock on backend2 -> ${unblocked[0] ?? ''}`);
  });

  it('a watcher on one backend sees a move made through the other', async () => {
    const p = await payer(gw(0));
    const created = await call(`${gw(0).api}/games`, {
      method: 'POST',
      headers: bearer(p.customer),
      json: { variant: 'classic', vs_ai: true },
    });
    expect(created.status).toBe(201);
    const gameId = BigInt((created.body as { game_id: string }).game_id);
    const [b1, b2] = cluster.backends.map((b) => directBackend(b.url));
    if (!b1 || !b2) throw new Error('two backends');
    const seen: LiveEvent[] = [];
    const stop = new AbortController();
    const watching = watch(b1, p.customer.accountId, gameId, stop.signal, seen);
    try {
      await waitFor('snapshot', () => seen.some((e) => e.kind === 'snapshot'), 10_000);
      expect(await playMove(b2, p.customer.accountId, gameId, 'apple')).toBe(2);
      await waitFor(
        'the robot move served by backend2 seen on backend1',
        () => seen.some((e) => e.kind === 'opponent_moved' && e.byRobot === true),
        10_000,
      );
      expect(seen.find((e) => e.kind === 'opponent_moved')).toMatchObject({ seat: 1, byRobot: true });
    } finally {
      stop.abort();
      await watching;
    }
  });

  it('the gateway holding the owner bot is SIGKILLed: the bot relinks to the other within 5 s, commands flow again, none replayed', async () => {
    const owner = (await linkedBots()).find((l) => l.startsWith('scale-bot-1@'));
    expect(owner).toBeDefined();
    const dead = Number(owner?.split('@')[1]);
    const alive = dead === 0 ? 1 : 0;
    const target = await payer(gw(alive));
    const texts = new Map<string, string>();
    // Commands pushed at the surviving gateway's internal port, before, across and after the kill.
    const client = commandClient(gw(alive).internal);
    let n = 0;
    let sending = true;
    const sender = (async () => {
      while (sending) {
        const text = `scale-${n++}`;
        texts.set(text, await sendToUser(client, target.userId, text, 5_000).catch((e: unknown) => `THROW ${String(e)}`));
        await delay(20);
      }
    })();
    await delay(500);
    const killedAt = performance.now();
    await gw(dead).process.kill();
    const relinkMs = await waitFor(
      'owner bot relinked to the surviving gateway',
      async () => (await linkedBots()).includes(`scale-bot-1@${alive}`),
      10_000,
      20,
    );
    const relinkedAt = performance.now();
    // Commands sent after the relink are delivered (the one in flight at the kill may time out).
    const firstAfter = n;
    await waitFor(
      'three commands sent after the relink delivered',
      () => [...texts.keys()].filter((t) => Number(t.slice(6)) >= firstAfter && texts.get(t) === 'DELIVERED').length >= 3,
      20_000,
    );
    await delay(300);
    sending = false;
    await sender;
    const outcomes: Record<string, number> = {};
    for (const o of texts.values()) outcomes[o] = (outcomes[o] ?? 0) + 1;
    report(
      SUITE,
      `gateway${dead + 1} SIGKILLed: owner bot relinked on gateway${alive + 1} after ${relinkMs.toFixed(0)} ms (${(relinkedAt - killedAt).toFixed(0)} ms from the kill); ${texts.size} commands: ${JSON.stringify(outcomes)}`,
    );
    // Nothing replayed: every text reached the platform at most once, and every delivered one exactly once.
    const sent = platform.control.messages({ chatId: target.userId, direction: 'from_bot' }).map((m) => m.message.text ?? '');
    const counts = new Map<string, number>();
    for (const t of sent) counts.set(t, (counts.get(t) ?? 0) + 1);
    expect([...counts.values()].filter((c) => c > 1)).toEqual([]);
    for (const [text, outcome] of texts) if (outcome === 'DELIVERED') expect(counts.get(text)).toBe(1);
    expect(Object.keys(outcomes).every((o) => ['DELIVERED', 'NO_BOT', 'ERROR', 'FAILED', 'TIMEOUT'].includes(o))).toBe(true);
    // A stars purchase works again end to end through the survivor.
    const res = await createOrder(gw(alive).api, target.customer, starsProduct, 'stars');
    expect(res.status).toBe(201);
    orderIds.push((res.body as Order).order_id);
    expect((await payStars((res.body as Order).invoice_link ?? '', target.userId)).status).toBe('approved');
    await waitFor('credited after the relink', async () => (await balance(gw(alive).api, target.customer, 'telegram')) === CHIPS, 20_000);
    await gw(dead).process.start();
  }, 60_000);

  /** Card purchases and wallet reads through both gateways until `until` resolves; answers every status seen. */
  const loadUntil = async (
    until: Promise<unknown>,
    buyers: Customer[],
    ids: { orderId: string; paymentId: string }[],
  ): Promise<Map<number, number>> => {
    const statuses = new Map<number, number>();
    const count = (s: number) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
    let going = true;
    void until.finally(() => (going = false));
    const worker = async (w: number) => {
      for (let i = 0; going; i += 1) {
        const g = gw((w + i) % 2);
        const buyer = buyers[w % buyers.length] as Customer;
        const res = await createOrder(g.api, buyer, cardProduct, 'card').catch(() => ({ status: 0, body: undefined }));
        count(res.status);
        if (res.status === 201) {
          const order = res.body as Order;
          ids.push({ orderId: order.order_id, paymentId: paymentIdOf(order) });
          await provider.control.succeedPayment(paymentIdOf(order)).catch(() => undefined);
        }
        const read = await call(`${g.api}/user/wallet`, { headers: bearer(buyer) }).catch(() => ({ status: 0 }));
        count(read.status);
      }
    };
    await Promise.all([0, 1, 2, 3].map(worker));
    return statuses;
  };

  it('a backend SIGKILLed under load: answers are 2xx or a clean 503, nothing credited twice; the other drains on SIGTERM failing nothing', async () => {
    provider.control.setWebhookUrl(`${gw(0).http}${NOTIFICATION_PATH}`);
    const buyers = [
      await directCustomer(gw(0).api, 'scale-load-0@example.test', cluster.mailDir),
      await directCustomer(gw(1).api, 'scale-load-1@example.test', cluster.mailDir),
    ];
    const [b1, b2] = cluster.backends;
    if (!b1 || !b2) throw new Error('two backends');

    const killIds: { orderId: string; paymentId: string }[] = [];
    const killed = loadUntil(
      (async () => {
        await delay(1_500);
        await b1.process.kill();
        await delay(1_500);
      })(),
      buyers,
      killIds,
    );
    const afterKill = await killed;
    report(SUITE, `backend1 SIGKILLed under load: answers ${JSON.stringify(Object.fromEntries(afterKill))}`);
    expect([...afterKill.keys()].every((s) => s === 200 || s === 201 || s === 503)).toBe(true);
    expect((afterKill.get(200) ?? 0) + (afterKill.get(201) ?? 0)).toBeGreaterThan(0);
    await b1.process.start();

    const drainIds: { orderId: string; paymentId: string }[] = [];
    let drained: { code: number | null } | undefined;
    const draining = loadUntil(
      (async () => {
        await delay(1_500);
        drained = await b2.process.stop();
        await delay(1_000);
      })(),
      buyers,
      drainIds,
    );
    const afterDrain = await draining;
    report(
      SUITE,
      `backend2 drained on SIGTERM under load (exit ${String(drained?.code)}): answers ${JSON.stringify(Object.fromEntries(afterDrain))}`,
    );
    expect(drained?.code).toBe(0);
    expect([...afterDrain.keys()].every((s) => s === 200 || s === 201)).toBe(true);
    await b2.process.start();

    // Every paid card order is credited exactly once (the reaper re-checks what a dead backend left;
    // it re-checks an order only once it is a minute old, so the wait covers that age and a tick).
    const load = [...killIds, ...drainIds];
    const succeeded = load.filter((o) => provider.control.payment(o.paymentId).payment.status === 'succeeded').map((o) => o.orderId);
    orderIds.push(...load.map((o) => o.orderId));
    await waitFor(
      'every order paid at the provider credited',
      async () => (await creditFacts(db, succeeded)).paid === succeeded.length,
      90_000,
      250,
    );
    const facts = await creditFacts(db, orderIds);
    report(
      SUITE,
      `${orderIds.length} orders (${load.length} under load, ${succeeded.length} of them paid at the provider): ${facts.paid} paid, ${facts.purchaseRows} purchase rows, ${facts.doubleCredited.length} double credits`,
    );
    expect(facts.doubleCredited).toEqual([]);
    expect(facts.inconsistent).toEqual([]);
    expect(facts.purchaseRows).toBe(facts.paid);
  }, 180_000);

  it('the ledger audit is clean at the end', () => {
    const audit = runLedgerAudit(db.url);
    report(SUITE, `ledger audit: ${audit.clean ? 'clean' : 'PROBLEMS'} over ${audit.operations} operations`);
    expect(audit.clean).toBe(true);
  });

  it('no bot anywhere is no_bot at once through the cluster', async () => {
    for (const b of cluster.bots) await b.process.stop();
    // At once: answered before the command's own deadline, which a wait for a bot would run out.
    const deadlineMs = 60_000;
    const answer = sendToUser(commandClient(gw(0).internal), 9_100, 'nobody', deadlineMs);
    expect(await settlesWithin(answer, deadlineMs, 'no_bot before the command deadline')).toBe(
      gatewayApi.Outcome[gatewayApi.Outcome.NO_BOT],
    );
  }, 120_000);
});
