// Replicas bench (issue #17): wallet.buy and stars payments through 1 gateway + 1 backend, 1 + 2 and
// 2 + 2 in one run, each a fresh stack on a fresh database sharing NATS; prints throughput, CPU per
// request (gateways + backends, from /proc) and the stack's idle CPU for each, then each topology as a
// ratio to 1 + 1 (median of rounds). Rounds alternate the order of the topologies, because this
// shared machine's speed drifts between minutes. `npm run scale -w tools/bench` (SCALE_BENCH_SECONDS
// per phase, default 8, after SCALE_BENCH_WARMUP_SECONDS unmeasured, default 4; SCALE_BENCH_CONCURRENCY,
// default 16; SCALE_BENCH_STARS_CONCURRENCY, default 4; SCALE_BENCH_ROUNDS, default 3; SCALE_BENCH_TOPOLOGIES, default `1x2,2x2`;
// SCALE_BENCH_LOG_LEVEL of the processes, default warn, with FAULTS_VERBOSE=1 to see their lines).
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
const STARS_CONCURRENCY = Number(process.env['SCALE_BENCH_STARS_CONCURRENCY'] ?? 4);
const ROUNDS = Number(process.env['SCALE_BENCH_ROUNDS'] ?? 3);
const WARMUP_SECONDS = Number(process.env['SCALE_BENCH_WARMUP_SECONDS'] ?? 4);
const IDLE_SECONDS = 3;
const TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) used so far by the processes (from /proc). */
function cpuOf(processes: readonly { pid: number | undefined }[]): number {
  let ticks = 0;
  for (const p of processes) {
    if (p.pid === undefined) continue;
    const fields = readFileSync(`/proc/${p.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  }
  return ticks / TICKS;
}

/** CPU seconds used so far by the stack's gateways and by its backends. */
function cpuSeconds(cluster: Cluster): { gateways: number; backends: number } {
  return { gateways: cpuOf(cluster.gateways.map((g) => g.process)), backends: cpuOf(cluster.backends.map((b) => b.process)) };
}

interface Phase {
  ok: number;
  failed: number;
  seconds: number;
  /** CPU seconds of the gateways plus the backends, and of the gateways alone. */
  cpu: number;
  gatewayCpu: number;
  /** Why the first failed call failed (status and body, or the error). */
  firstFailure?: string;
}

/** One call's outcome: true, or why it failed. */
type Outcome = true | string;

/**
 * Runs `one` in CONCURRENCY (or `workers`) closed loops for WARMUP_SECONDS unmeasured (every
 * process has to reach optimised code, and more processes take more of that), then for SECONDS;
 * counts successes and CPU of the measured part, failures of both.
 */
async function phase(cluster: Cluster, one: (worker: number, i: number) => Promise<Outcome>, workers = CONCURRENCY): Promise<Phase> {
  const warm = await loops(cluster, one, workers, WARMUP_SECONDS);
  const p = await loops(cluster, one, workers, SECONDS);
  const firstFailure = warm.firstFailure ?? p.firstFailure;
  return { ...p, failed: warm.failed + p.failed, ...(firstFailure ? { firstFailure } : {}) };
}

async function loops(
  cluster: Cluster,
  one: (worker: number, i: number) => Promise<Outcome>,
  workers: number,
  seconds: number,
): Promise<Phase> {
  const cpu0 = cpuSeconds(cluster);
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let ok = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; performance.now() < end; i += 1) {
        const outcome = await one(w, i).catch((err: unknown) => String(err));
        if (outcome === true) ok += 1;
        else {
          failed += 1;
          firstFailure ??= outcome;
        }
      }
    }),
  );
  const cpu1 = cpuSeconds(cluster);
  return {
    ok,
    failed,
    seconds: (performance.now() - t0) / 1000,
    cpu: cpu1.gateways + cpu1.backends - cpu0.gateways - cpu0.backends,
    gatewayCpu: cpu1.gateways - cpu0.gateways,
    ...(firstFailure ? { firstFailure } : {}),
  };
}

/** CPU milliseconds per second the stack's gateways and backends use with no calls at all (timers, pings, the reaper). */
async function idleCpu(cluster: Cluster): Promise<number> {
  const total = () => {
    const c = cpuSeconds(cluster);
    return c.gateways + c.backends;
  };
  const cpu0 = total();
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  return ((total() - cpu0) * 1000) / IDLE_SECONDS;
}

/** The warn-and-above lines every process of the stack logged (level 40+ in pino), most recent last. */
function warnings(cluster: Cluster): string {
  const processes = [...cluster.gateways, ...cluster.backends, ...cluster.bots].map((r) => r.process);
  const lines = processes.flatMap((p) =>
    p.logs.filter((l) => Number(l.entry['level'] ?? 0) >= 40).map((l) => `${p.name}: ${JSON.stringify(l.entry)}`),
  );
  return lines.slice(-6).join(' || ') || 'nothing';
}

interface Figures {
  buy: Phase;
  pay: Phase;
  idleMsPerSecond: number;
}

async function topology(gateways: number, backends: number): Promise<Figures> {
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
    logLevel: process.env['SCALE_BENCH_LOG_LEVEL'] ?? 'warn',
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
    const idleMsPerSecond = await idleCpu(cluster);
    const buy = await phase(cluster, async (w, i) => {
      const res = await call(`${api(w + i)}/user/wallet`, {
        method: 'POST',
        headers: bearer(buyers[w] as Customer),
        json: { product_id: hint },
      });
      return res.status === 200 || `wallet.buy ${res.status} ${JSON.stringify(res.body)}`;
    });
    const payers: { userId: number; customer: Customer }[] = [];
    for (let i = 0; i < STARS_CONCURRENCY; i += 1) {
      const userId = 50_000 + i;
      platform.control.createUser({ id: userId, firstName: `Payer ${i}`, started: true });
      payers.push({ userId, customer: await telegramCustomer(api(i), userId) });
    }
    const pay = await phase(
      cluster,
      async (w, i) => {
        const p = payers[w] as (typeof payers)[number];
        const res = await createOrder(api(w + i), p.customer, stars, 'stars');
        if (res.status !== 201) return `create order ${res.status} ${JSON.stringify(res.body)}`;
        const { preCheckoutQueryId } = platform.control.pay({ link: (res.body as Order).invoice_link ?? '', userId: p.userId });
        await waitFor('pre-checkout', () => platform.control.preCheckout(preCheckoutQueryId)?.status !== 'pending', 10_000, 5);
        const answer = platform.control.preCheckout(preCheckoutQueryId);
        return answer?.status === 'approved' || `pre-checkout ${JSON.stringify(answer)}`;
      },
      STARS_CONCURRENCY,
    );
    // A failure names what the processes logged at warn and above, so it can be traced.
    for (const p of [buy, pay]) if (p.firstFailure !== undefined) p.firstFailure += ` | logged: ${warnings(cluster)}`;
    return { buy, pay, idleMsPerSecond };
  } finally {
    await cluster.stop();
    await provider.stop();
    await platform.stop();
    await db.drop();
  }
}

/** SCALE_BENCH_TOPOLOGIES (e.g. `1x1,1x2`) limits the run; 1 + 1 is always measured, as the reference. */
const TOPOLOGIES = (
  [
    [1, 1],
    [1, 2],
    [2, 2],
  ] as const
).filter(([g, b]) => (g === 1 && b === 1) || (process.env['SCALE_BENCH_TOPOLOGIES'] ?? '1x2,2x2').split(',').includes(`${g}x${b}`));
const name = ([g, b]: readonly [number, number]) => `${g} gw + ${b} be`;
const perSecond = (p: Phase) => p.ok / p.seconds;
const cpuPerReq = (p: Phase) => (p.cpu * 1000) / Math.max(p.ok, 1);
const gatewayShare = (p: Phase) => (p.gatewayCpu * 1000) / Math.max(p.ok, 1);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? NaN) : ((s[m - 1] ?? NaN) + (s[m] ?? NaN)) / 2;
};

process.stdout.write(
  `replicas bench: ${SECONDS} s per phase, ${ROUNDS} rounds (topology order alternating), wallet.buy at ${CONCURRENCY} in flight, stars payments ${STARS_CONCURRENCY} in flight (one bot), idle CPU over ${IDLE_SECONDS} s\n`,
);
const results = new Map<string, Figures[]>();
for (let round = 1; round <= ROUNDS; round += 1) {
  const order = round % 2 === 1 ? TOPOLOGIES : [...TOPOLOGIES].reverse();
  for (const t of order) {
    const f = await topology(t[0], t[1]);
    results.set(name(t), [...(results.get(name(t)) ?? []), f]);
    for (const [what, p] of [
      ['wallet.buy', f.buy],
      ['stars payment', f.pay],
    ] as const) {
      process.stdout.write(
        `#${round} ${name(t)} | ${what.padEnd(14)} | ${perSecond(p).toFixed(1).padStart(8)}/s | ${cpuPerReq(p).toFixed(2).padStart(6)} ms CPU/req (gateways ${gatewayShare(p).toFixed(2)}) | idle ${f.idleMsPerSecond.toFixed(0)} ms CPU/s | ${p.failed} failed${p.firstFailure ? ` (first: ${p.firstFailure})` : ''}\n`,
      );
    }
  }
}
// Ratios to 1 + 1 are taken per round (each round's runs are minutes apart at most), then the median.
const one = results.get(name([1, 1])) ?? [];
process.stdout.write('median of rounds, and the median of per-round ratios to 1 gw + 1 be:\n');
for (const t of TOPOLOGIES) {
  const rs = results.get(name(t)) ?? [];
  for (const [what, pick] of [
    ['wallet.buy', (f: Figures) => f.buy],
    ['stars payment', (f: Figures) => f.pay],
  ] as const) {
    const ratio = (fn: (p: Phase) => number) => median(rs.map((f, i) => fn(pick(f)) / fn(pick(one[i] ?? f))));
    process.stdout.write(
      `  ${name(t)} | ${what.padEnd(14)} | ${median(rs.map((f) => perSecond(pick(f))))
        .toFixed(1)
        .padStart(8)}/s (${(ratio(perSecond) * 100).toFixed(0)} %) | ${median(rs.map((f) => cpuPerReq(pick(f))))
        .toFixed(2)
        .padStart(
          6,
        )} ms CPU/req (${ratio(cpuPerReq).toFixed(2)}x) | idle ${median(rs.map((f) => f.idleMsPerSecond)).toFixed(0)} ms CPU/s | ${rs.reduce((n, f) => n + pick(f).failed, 0)} failed\n`,
    );
  }
}
