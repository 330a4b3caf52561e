// Replicas bench (issue #17): wallet.buy and stars payments through 1 gateway + 1 backend, 1 + 2 and
// 2 + 2 in one run, each a fresh stack on a fresh database sharing NATS; prints throughput and CPU per
// request (gateways + backends, from /proc) for each. `npm run scale -w tools/bench`
// (SCALE_BENCH_SECONDS per phase, default 8; SCALE_BENCH_CONCURRENCY, default 16).
/* eslint-disable @nx/enforce-module-boundaries -- the replicas bench runs the very processes of the
   scale-out fault suite (tools/faults harness) with the emulators in-process, so both measure one topology. */
import { readFileSync } from 'node:fs';
import { startPlatformEmulator } from '@wordgame/platform-emulator';
import { startProviderEmulator } from '@wordgame/provider-emulator';
import {
  call,
  bearer,
  createOrder,
  createProduct,
  directCustomer,
  telegramCustomer,
  type Customer,
  type Order,
} from '../../faults/src/harness/api.js';
import { freshDatabase } from '../../faults/src/harness/postgres.js';
import { CARD_SHOP, INTAKE_PATH, TELEGRAM_BOT_TOKEN } from '../../faults/src/harness/stack.js';
import { waitFor } from '../../faults/src/harness/wait.js';
import { operatorToken, startCluster, type Cluster } from '../../faults/src/harness/cluster.js';

const SECONDS = Number(process.env['SCALE_BENCH_SECONDS'] ?? 8);
const CONCURRENCY = Number(process.env['SCALE_BENCH_CONCURRENCY'] ?? 16);
const TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) used so far by the stack's gateways and backends. */
function cpuSeconds(cluster: Cluster): number {
  let ticks = 0;
  for (const p of [...cluster.gateways.map((g) => g.process), ...cluster.backends.map((b) => b.process)]) {
    if (p.pid === undefined) continue;
    const fields = readFileSync(`/proc/${p.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  }
  return ticks / TICKS;
}

interface Phase {
  ok: number;
  failed: number;
  seconds: number;
  cpu: number;
}

/** Runs `one` in CONCURRENCY (or `workers`) closed loops for SECONDS; counts successes and CPU. */
async function phase(cluster: Cluster, one: (worker: number, i: number) => Promise<boolean>, workers = CONCURRENCY): Promise<Phase> {
  const cpu0 = cpuSeconds(cluster);
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  let ok = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; performance.now() < end; i += 1) {
        if (await one(w, i).catch(() => false)) ok += 1;
        else failed += 1;
      }
    }),
  );
  return { ok, failed, seconds: (performance.now() - t0) / 1000, cpu: cpuSeconds(cluster) - cpu0 };
}

async function topology(gateways: number, backends: number): Promise<string[]> {
  const platform = await startPlatformEmulator({ tokens: [TELEGRAM_BOT_TOKEN] });
  const provider = await startProviderEmulator({ shops: [CARD_SHOP] });
  const db = await freshDatabase();
  const cluster = await startCluster({
    databaseUrl: db.url,
    platformApiRoot: platform.apiRoot,
    providerApiUrl: provider.apiUrl,
    gateways,
    backends,
    bots: 1,
    logLevel: 'warn',
  });
  try {
    const g0 = cluster.gateways[0];
    if (!g0) throw new Error('no gateway');
    const api = (i: number) => cluster.gateways[i % cluster.gateways.length]?.api ?? g0.api;
    const op = await operatorToken(db.url, g0.http, 'catalog_editor');
    const pack = await createProduct(
      g0.http,
      {
        title: 'Chips pack',
        atoms: [{ kind: 'chips', quantity: 10_000_000n }],
        prices: [{ method: 'provider', amount: 100_000n, currency: 'RUB' }],
      },
      op,
    );
    const hint = await createProduct(
      g0.http,
      { title: 'One hint', atoms: [{ kind: 'hints', quantity: 1n }], prices: [{ method: 'chips', amount: 1n, currency: 'CHIPS' }] },
      op,
    );
    const stars = await createProduct(
      g0.http,
      { title: 'Chips 10', atoms: [{ kind: 'chips', quantity: 10n }], prices: [{ method: 'xtr', amount: 5n, currency: 'XTR' }] },
      op,
    );
    provider.control.setWebhookUrl(`${g0.http}${INTAKE_PATH}`);
    // Every buyer gets chips once (a card purchase), then buys hints with them.
    const buyers: Customer[] = [];
    for (let i = 0; i < CONCURRENCY; i += 1) {
      const buyer = await directCustomer(api(i), `bench-${i}@example.test`, cluster.mailDir);
      const order = (await createOrder(api(i), buyer, pack, 'card')).body as Order;
      await provider.control.succeedPayment(new URL(order.confirmation_url ?? 'http://x/').searchParams.get('orderId') ?? '');
      buyers.push(buyer);
    }
    const buy = await phase(cluster, async (w, i) => {
      const res = await call(`${api(w + i)}/user/wallet`, {
        method: 'POST',
        headers: bearer(buyers[w] as Customer),
        json: { product_id: hint },
      });
      return res.status === 200;
    });
    const payers: { userId: number; customer: Customer }[] = [];
    for (let i = 0; i < 4; i += 1) {
      const userId = 50_000 + i;
      platform.control.createUser({ id: userId, firstName: `Payer ${i}`, started: true });
      payers.push({ userId, customer: await telegramCustomer(api(i), userId) });
    }
    const pay = await phase(
      cluster,
      async (w, i) => {
        const p = payers[w] as (typeof payers)[number];
        const res = await createOrder(api(w + i), p.customer, stars, 'stars');
        if (res.status !== 201) return false;
        const { preCheckoutQueryId } = platform.control.pay({ link: (res.body as Order).invoice_link ?? '', userId: p.userId });
        await waitFor('pre-checkout', () => platform.control.preCheckout(preCheckoutQueryId)?.status !== 'pending', 10_000, 5);
        return platform.control.preCheckout(preCheckoutQueryId)?.status === 'approved';
      },
      4,
    );
    const line = (name: string, p: Phase) =>
      `${gateways} gw + ${backends} be | ${name.padEnd(14)} | ${(p.ok / p.seconds).toFixed(1).padStart(8)}/s | ${((p.cpu * 1000) / Math.max(p.ok, 1)).toFixed(2).padStart(6)} ms CPU/req | ${p.failed} failed`;
    return [line('wallet.buy', buy), line('stars payment', pay)];
  } finally {
    await cluster.stop();
    await provider.stop();
    await platform.stop();
    await db.drop();
  }
}

process.stdout.write(
  `replicas bench: ${SECONDS} s per phase, wallet.buy at ${CONCURRENCY} in flight, stars payments 4 in flight (one bot)\n`,
);
for (const [g, b] of [
  [1, 1],
  [1, 2],
  [2, 2],
] as const) {
  process.stdout.write(`${(await topology(g, b)).join('\n')}\n`);
}
