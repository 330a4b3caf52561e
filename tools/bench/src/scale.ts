// Replicas bench (issue #17): wallet.buy and stars payments (each counted once credited: a phase
// waits for the bot's outbox to drain) through 1 gateway + 1 backend, 1 + 2 and 2 + 2, every
// topology up at once (each its own database, emulators and NATS), measured in short interleaved
// phases: this shared machine's speed drifts by tens of percent between minutes, so
// topologies measured minutes apart are not comparable, phases seconds apart are. Prints throughput,
// CPU per request (gateways + backends, from /proc) and the whole machine's CPU per request for each
// phase, then each topology as the median (and range) of per-round ratios to 1 + 1. Then wallet.buy
// paced (open loop) at one rate on every topology, half of 1 + 1's closed-loop median unless
// SCALE_BENCH_PACED_RATE says otherwise: latency p50/p99 and CPU per request at a load a deploy runs.
// `npm run scale -w tools/bench`; SCALE_BENCH_SECONDS per phase (default 5), SCALE_BENCH_ROUNDS
// (default 6), SCALE_BENCH_WARMUP_SECONDS unmeasured per stack and load first (default 10),
// SCALE_BENCH_CONCURRENCY (default 16), SCALE_BENCH_STARS_CONCURRENCY (default 4),
// SCALE_BENCH_TOPOLOGIES (default `1x2,2x2`), SCALE_BENCH_LOG_LEVEL of the processes (default warn,
// FAULTS_VERBOSE=1 shows their lines).
/* eslint-disable @nx/enforce-module-boundaries -- the replicas bench runs the very processes of the
   scale-out fault suite (tools/faults harness) with the emulators in-process, so both measure one topology. */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
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
import { CARD_SHOP, NOTIFICATION_PATH, TELEGRAM_BOT_TOKEN } from '../../faults/src/harness/stack.js';
import { waitFor } from '../../faults/src/harness/wait.js';
import { operatorToken, startCluster, type Cluster } from '../../faults/src/harness/cluster.js';

const SECONDS = Number(process.env['SCALE_BENCH_SECONDS'] ?? 5);
const CONCURRENCY = Number(process.env['SCALE_BENCH_CONCURRENCY'] ?? 16);
const STARS_CONCURRENCY = Number(process.env['SCALE_BENCH_STARS_CONCURRENCY'] ?? 4);
const ROUNDS = Number(process.env['SCALE_BENCH_ROUNDS'] ?? 6);
const WARMUP_SECONDS = Number(process.env['SCALE_BENCH_WARMUP_SECONDS'] ?? 10);
const IDLE_SECONDS = 3;
/** The paced wallet.buy phase's rate: SCALE_BENCH_PACED_RATE, or this share of 1 + 1's closed-loop median of the same run. */
const PACED_SHARE = 0.5;
const PACED_MAX_IN_FLIGHT = 256;
/** A pause before each measured phase, so the previous phase's tail (credits of paid orders) is done. */
const SETTLE_MS = 1_000;
const TICKS = 100; // USER_HZ on Linux
const CORES = availableParallelism();

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

/** CPU seconds the whole machine has been busy so far (all cores, from /proc/stat). */
function machineBusy(): number {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
  const busy = fields.slice(0, 8).reduce((n, v, i) => (i === 3 || i === 4 ? n : n + v), 0);
  return busy / TICKS;
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
  /** CPU seconds of the whole machine (PostgreSQL, NATS, the bot, the load generator and emulators included). */
  machineCpu: number;
  /** Why the first failed call failed (status and body, or the error). */
  firstFailure?: string;
}

/** One call's outcome: true, or why it failed. */
type Outcome = true | string;

/**
 * Starts measuring a phase on `cluster` (time, gateway and backend CPU, the machine's CPU); the
 * returned function ends it with the phase's counts.
 */
function startMeasure(cluster: Cluster): (counts: { ok: number; failed: number; firstFailure: string | undefined }) => Phase {
  const cpu0 = cpuSeconds(cluster);
  const machine0 = machineBusy();
  const t0 = performance.now();
  return ({ ok, failed, firstFailure }) => {
    const cpu1 = cpuSeconds(cluster);
    return {
      ok,
      failed,
      seconds: (performance.now() - t0) / 1000,
      cpu: cpu1.gateways + cpu1.backends - cpu0.gateways - cpu0.backends,
      gatewayCpu: cpu1.gateways - cpu0.gateways,
      machineCpu: machineBusy() - machine0,
      ...(firstFailure ? { firstFailure } : {}),
    };
  };
}

/**
 * Runs `one` in `workers` closed loops for `seconds`, then `drain` (work the calls left behind);
 * counts successes, failures and the CPU the stack's gateways and backends (and the whole machine)
 * used meanwhile.
 */
async function loops(
  cluster: Cluster,
  one: (worker: number, i: number) => Promise<Outcome>,
  workers: number,
  seconds: number,
  drain?: () => Promise<string | undefined>,
): Promise<Phase> {
  const done = startMeasure(cluster);
  const end = performance.now() + seconds * 1000;
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
  // What the calls set going must be done inside the phase's time and CPU (and a drain that fails is a failure).
  const drained = await drain?.();
  if (drained !== undefined) {
    failed += 1;
    firstFailure ??= drained;
  }
  return done({ ok, failed, firstFailure });
}

/** A paced phase: the closed-loop figures plus each call's latency (ms), sorted. */
interface Paced extends Phase {
  latencies: number[];
}

/**
 * Starts `one` at a fixed `rate` per second for `seconds` whatever the answers (an open loop, as
 * real players arrive), each call's latency counted from when it was due, so a stack that falls
 * behind shows it; a call that would be more than PACED_MAX_IN_FLIGHT in flight counts as failed.
 */
async function pacedLoop(
  cluster: Cluster,
  one: (worker: number, i: number) => Promise<Outcome>,
  rate: number,
  seconds: number,
): Promise<Paced> {
  const done = startMeasure(cluster);
  const t0 = performance.now();
  const latencies: number[] = [];
  const calls: Promise<void>[] = [];
  let ok = 0;
  let failed = 0;
  let inFlight = 0;
  let firstFailure: string | undefined;
  const total = Math.floor(rate * seconds);
  for (let i = 0; i < total; i += 1) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait >= 1) await new Promise((r) => setTimeout(r, wait));
    if (inFlight >= PACED_MAX_IN_FLIGHT) {
      failed += 1;
      firstFailure ??= `over ${PACED_MAX_IN_FLIGHT} calls in flight: the stack fell behind ${rate.toFixed(0)}/s`;
      continue;
    }
    inFlight += 1;
    calls.push(
      one(i % CONCURRENCY, i)
        .catch((err: unknown) => String(err))
        .then((outcome) => {
          inFlight -= 1;
          latencies.push(performance.now() - due);
          if (outcome === true) ok += 1;
          else {
            failed += 1;
            firstFailure ??= outcome;
          }
        }),
    );
  }
  await Promise.all(calls);
  return { ...done({ ok, failed, firstFailure }), latencies: latencies.sort((a, b) => a - b) };
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

/** One running topology: its stack, and one phase of each load on it. */
interface Stack {
  name: string;
  buy(seconds: number): Promise<Phase>;
  /** wallet.buy started at `rate` per second (open loop). */
  pacedBuy(rate: number, seconds: number): Promise<Paced>;
  pay(seconds: number): Promise<Phase>;
  idleMsPerSecond(): Promise<number>;
  /** Why each load's first failure failed, with what the processes logged at warn and above. */
  explain(p: Phase): string;
  stop(): Promise<void>;
}

async function startStack(gateways: number, backends: number): Promise<Stack> {
  const platform = await startPlatformEmulator({ tokens: [TELEGRAM_BOT_TOKEN] });
  const provider = await startProviderEmulator({ shops: [CARD_SHOP] });
  const db = await freshDatabase();
  let cluster: Cluster | undefined;
  const stop = async () => {
    await cluster?.stop();
    await provider.stop();
    await platform.stop();
    await db.drop();
  };
  try {
    cluster = await startCluster({
      databaseUrl: db.url,
      platformApiRoot: platform.apiRoot,
      providerApiUrl: provider.apiUrl,
      gateways,
      backends,
      bots: 1,
      logLevel: process.env['SCALE_BENCH_LOG_LEVEL'] ?? 'warn',
    });
    const c = cluster;
    const g0 = c.gateways[0];
    if (!g0) throw new Error('no gateway');
    const api = (i: number) => c.gateways[i % c.gateways.length]?.api ?? g0.api;
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
    provider.control.setWebhookUrl(`${g0.http}${NOTIFICATION_PATH}`);
    // Every buyer gets chips once (a card purchase), then buys hints with them.
    const buyers: Customer[] = [];
    for (let i = 0; i < CONCURRENCY; i += 1) {
      const buyer = await directCustomer(api(i), `bench-${i}@example.test`, c.mailDir);
      const order = (await createOrder(api(i), buyer, pack, 'card')).body as Order;
      await provider.control.succeedPayment(new URL(order.confirmation_url ?? 'http://x/').searchParams.get('orderId') ?? '');
      buyers.push(buyer);
    }
    const payers: { userId: number; customer: Customer }[] = [];
    for (let i = 0; i < STARS_CONCURRENCY; i += 1) {
      const userId = 50_000 + i;
      platform.control.createUser({ id: userId, firstName: `Payer ${i}`, started: true });
      payers.push({ userId, customer: await telegramCustomer(api(i), userId) });
    }
    const buyOne = async (w: number, i: number): Promise<Outcome> => {
      const res = await call(`${api(w + i)}/user/wallet`, {
        method: 'POST',
        headers: bearer(buyers[w] as Customer),
        json: { product_id: hint },
      });
      return res.status === 200 || `wallet.buy ${res.status} ${JSON.stringify(res.body)}`;
    };
    const payOne = async (w: number, i: number): Promise<Outcome> => {
      const p = payers[w] as (typeof payers)[number];
      const res = await createOrder(api(w + i), p.customer, stars, 'stars');
      if (res.status !== 201) return `create order ${res.status} ${JSON.stringify(res.body)}`;
      const { preCheckoutQueryId } = platform.control.pay({ link: (res.body as Order).invoice_link ?? '', userId: p.userId });
      await waitFor('pre-checkout', () => platform.control.preCheckout(preCheckoutQueryId)?.status !== 'pending', 10_000, 5);
      const answer = platform.control.preCheckout(preCheckoutQueryId);
      return answer?.status === 'approved' || `pre-checkout ${JSON.stringify(answer)}`;
    };
    // A stars payment is done once credited: the bot forwards it from its outbox after the approval.
    const creditsDone = async (): Promise<string | undefined> => {
      const pending = async () =>
        (
          await db.query<{ n: number }>(
            "select count(*)::int as n from orders where rail = 'stars' and checkout_hold_until is not null and paid_at is null",
          )
        ).rows[0]?.n ?? 0;
      try {
        await waitFor('approved stars payments credited', async () => (await pending()) === 0, 30_000, 20);
        return undefined;
      } catch {
        return `${await pending()} approved stars payments not credited within 30 s`;
      }
    };
    return {
      name: name([gateways, backends]),
      buy: (seconds) => loops(c, buyOne, CONCURRENCY, seconds),
      pacedBuy: (rate, seconds) => pacedLoop(c, buyOne, rate, seconds),
      pay: (seconds) => loops(c, payOne, STARS_CONCURRENCY, seconds, creditsDone),
      idleMsPerSecond: () => idleCpu(c),
      explain: (p) => `${p.firstFailure ?? ''} | logged: ${warnings(c)}`,
      stop,
    };
  } catch (err: unknown) {
    await stop();
    throw err;
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
const machinePerReq = (p: Phase) => (p.machineCpu * 1000) / Math.max(p.ok, 1);
const machineBusyShare = (p: Phase) => p.machineCpu / p.seconds / CORES;
/** The q-quantile of sorted `xs` (nearest rank). */
const quantile = (xs: readonly number[], q: number) => xs[Math.min(xs.length - 1, Math.max(0, Math.ceil(q * xs.length) - 1))] ?? NaN;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? NaN) : ((s[m - 1] ?? NaN) + (s[m] ?? NaN)) / 2;
};

process.stdout.write(
  `replicas bench: every topology up at once on its own database; after ${WARMUP_SECONDS} s of unmeasured warm-up each, ${ROUNDS} rounds of ${SECONDS} s per topology and load, the order rotating each round; wallet.buy at ${CONCURRENCY} in flight, stars payments ${STARS_CONCURRENCY} in flight (one bot)\n`,
);
const stacks: Stack[] = [];
try {
  for (const t of TOPOLOGIES) stacks.push(await startStack(t[0], t[1]));
  const results = new Map<string, { buy: Phase; pay: Phase }[]>();
  // Each load in turn: warm-up of every stack, then the rounds, each round starting one topology later.
  for (const load of ['buy', 'pay'] as const) {
    for (const s of stacks) await s[load](WARMUP_SECONDS);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (let k = 0; k < stacks.length; k += 1) {
        const s = stacks[(round + k) % stacks.length] as Stack;
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        const p = await s[load](SECONDS);
        const runs = results.get(s.name) ?? [];
        const run = runs[round] ?? ({} as { buy: Phase; pay: Phase });
        run[load] = p;
        runs[round] = run;
        results.set(s.name, runs);
        process.stdout.write(
          `#${round + 1} ${s.name} | ${(load === 'buy' ? 'wallet.buy' : 'stars payment').padEnd(14)} | ${perSecond(p).toFixed(1).padStart(8)}/s | ${cpuPerReq(p).toFixed(2).padStart(6)} ms CPU/req (gateways ${gatewayShare(p).toFixed(2)}) | machine ${machinePerReq(p).toFixed(2)} ms/req, ${(machineBusyShare(p) * 100).toFixed(0)} % busy | ${p.failed} failed${p.firstFailure ? ` (first: ${s.explain(p)})` : ''}\n`,
        );
      }
    }
  }
  // Paced wallet.buy: the same rate on every topology, well under saturation, as a deploy runs.
  const oneBuys = (results.get(name([1, 1])) ?? []).map((f) => perSecond(f.buy));
  const rate = Number(process.env['SCALE_BENCH_PACED_RATE'] ?? Math.round(PACED_SHARE * median(oneBuys)));
  const pacedResults = new Map<string, Paced[]>();
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let k = 0; k < stacks.length; k += 1) {
      const s = stacks[(round + k) % stacks.length] as Stack;
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const p = await s.pacedBuy(rate, SECONDS);
      const runs = pacedResults.get(s.name) ?? [];
      runs[round] = p;
      pacedResults.set(s.name, runs);
      process.stdout.write(
        `#${round + 1} ${s.name} | paced buy ${rate}/s | ${perSecond(p).toFixed(1).padStart(8)}/s | p50 ${quantile(p.latencies, 0.5).toFixed(1)} ms, p99 ${quantile(p.latencies, 0.99).toFixed(1)} ms | ${cpuPerReq(p).toFixed(2).padStart(6)} ms CPU/req (gateways ${gatewayShare(p).toFixed(2)}) | machine ${(machineBusyShare(p) * 100).toFixed(0)} % busy | ${p.failed} failed${p.firstFailure ? ` (first: ${s.explain(p)})` : ''}\n`,
      );
    }
  }
  // Idle CPU last, once every stack has settled (right after start-up it includes the seeding's tail).
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const idle = new Map<string, number>();
  for (const s of stacks) idle.set(s.name, await s.idleMsPerSecond());
  // Ratios to 1 + 1 are taken per round (one round's phases are seconds apart), then the median and the range.
  const one = results.get(name([1, 1])) ?? [];
  process.stdout.write('median of rounds; throughput and CPU per request as the median (and range) of per-round ratios to 1 gw + 1 be:\n');
  for (const t of TOPOLOGIES) {
    const rs = results.get(name(t)) ?? [];
    for (const [what, pick] of [
      ['wallet.buy', (f: { buy: Phase; pay: Phase }) => f.buy],
      ['stars payment', (f: { buy: Phase; pay: Phase }) => f.pay],
    ] as const) {
      const ratios = (fn: (p: Phase) => number) => rs.map((f, i) => fn(pick(f)) / fn(pick(one[i] ?? f)));
      const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
      process.stdout.write(
        `  ${name(t)} | ${what.padEnd(14)} | ${median(rs.map((f) => perSecond(pick(f))))
          .toFixed(1)
          .padStart(8)}/s (${median(ratios(perSecond)).toFixed(2)}, ${range(ratios(perSecond))}) | ${median(
          rs.map((f) => cpuPerReq(pick(f))),
        )
          .toFixed(2)
          .padStart(
            6,
          )} ms CPU/req (${median(ratios(cpuPerReq)).toFixed(2)}x) | machine ${median(rs.map((f) => machinePerReq(pick(f)))).toFixed(2)} ms/req | idle ${(idle.get(name(t)) ?? 0).toFixed(0)} ms CPU/s | ${rs.reduce((n, f) => n + pick(f).failed, 0)} failed\n`,
      );
    }
  }
  const onePaced = pacedResults.get(name([1, 1])) ?? [];
  process.stdout.write(
    `paced wallet.buy at ${rate}/s: medians of rounds, p99 and CPU per request as the median (and range) of per-round ratios to 1 gw + 1 be:\n`,
  );
  for (const t of TOPOLOGIES) {
    const rs = pacedResults.get(name(t)) ?? [];
    const ratios = (fn: (p: Paced) => number) => rs.map((p, i) => fn(p) / fn(onePaced[i] ?? p));
    const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
    const p99 = (p: Paced) => quantile(p.latencies, 0.99);
    process.stdout.write(
      `  ${name(t)} | ${median(rs.map(perSecond)).toFixed(1).padStart(8)}/s | p50 ${median(rs.map((p) => quantile(p.latencies, 0.5))).toFixed(1)} ms | p99 ${median(rs.map(p99)).toFixed(1)} ms (${median(ratios(p99)).toFixed(2)}x, ${range(ratios(p99))}) | ${median(rs.map(cpuPerReq)).toFixed(2)} ms CPU/req (${median(ratios(cpuPerReq)).toFixed(2)}x) | ${rs.reduce((n, p) => n + p.failed, 0)} failed\n`,
    );
  }
} finally {
  for (const s of stacks) await s.stop();
}
