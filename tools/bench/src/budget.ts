// Budgeted replicas bench (issue #29): every gateway, backend and bot process runs under its own
// CPU quota (the CFS bandwidth limit through cgroup v1's cpu controller, cpu.cfs_quota_us per
// cpu.cfs_period_us with cpuacct counting, or cgroup v2's cpu.max with cpu.stat counting; each
// process its own group: cgroup.ts), as each replica would have its own CPU in production, so adding
// a replica adds CPU instead of taking it from the others. It fails (CpuBudgetUnavailable) rather
// than run unbudgeted. PostgreSQL is a private cluster of this run (its processes counted in their
// own cpuacct group, unbudgeted), NATS per stack (counted, unbudgeted), the load generator a
// separate process for wallet.get / wallet.buy (raw keep-alive HTTP/1.1) and this process for stars
// payments (it also runs the platform and provider emulators).
//
// Every topology (default 1+1, 1+2, 2+2, 3+3, one bot each) is up at once, each on its own
// database of the one PostgreSQL; for wallet.get, wallet.buy and credited stars payments, after an
// unmeasured warm-up, ROUNDS rounds of SECONDS per topology, the order rotating each round; the
// one-process peer (src/peer-server.ts, budgeted like 1+1 together) in the same rotation for
// wallet.get and wallet.buy, and pgbench running the stars credit statement after each stars round.
// Prints per phase and then per topology: throughput, p50/p99, CPU per request of each tier and of
// PostgreSQL, each budget's use, the ratio to 1+1 (median of per-round ratios), the capacity
// model's prediction (budget/model.ts) beside it, what saturates, and the targets.
//
// `npm run budget -w tools/bench` (as root). SCALE_BUDGET_CORES per process (default 0.15: 3+3 and
// the bot together take 1.05 of 2 cores, leaving PostgreSQL and the load generator the rest),
// SCALE_BUDGET_PERIOD_US (default 20000), SCALE_BUDGET_BOT_CORES (the bot's, default the same), SCALE_BENCH_SECONDS (5), SCALE_BENCH_ROUNDS (3),
// SCALE_BENCH_WARMUP_SECONDS (5), SCALE_BENCH_CONNECTIONS (24, wallet.get/buy), SCALE_BENCH_STARS_CONCURRENCY
// (32), SCALE_BENCH_TOPOLOGIES (default `1x1,1x2,2x2,3x3`), SCALE_BENCH_POOL_MAX (DB_POOL_MAX of each
// backend and the peer, default 8), SCALE_BENCH_CPU_PROF (a directory for V8 CPU profiles).
/* eslint-disable @nx/enforce-module-boundaries -- the bench runs the very processes of the scale-out
   fault suite (tools/faults harness) and compiles the backend's own credit statement for pgbench. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { startPlatformEmulator } from '@wordgame/platform-emulator';
import { startProviderEmulator } from '@wordgame/provider-emulator';
import { freshDatabase as freshTestDatabase, freePort } from '@wordgame/testkit';
import { createOrder, createProduct, telegramCustomer, type Customer, type Order } from '../../faults/src/harness/api.js';
import { PrivateCluster } from '../../faults/src/harness/postgres.js';
import { NOTIFICATION_PATH, TELEGRAM_BOT_TOKEN, CARD_SHOP } from '../../faults/src/harness/stack.js';
import { waitFor } from '../../faults/src/harness/wait.js';
import { operatorToken, startCluster, type Cluster } from '../../faults/src/harness/cluster.js';
import { CpuGroup, describeRoots, findCgroupRoots, removeParentGroup } from './cgroup.js';
import { predict, size, type TierCosts, type Topology } from './budget/model.js';
import { creditPeer, prepareCreditPeer, type CreditPeer } from './budget/credit-peer.js';
import { runLoad } from './load/run.js';
import type { RequestTemplate } from './load/spec.js';
import { buildBundles, loadLine, root } from './services.js';
import { median, percentile } from './stats.js';
import { backendStatement, BUY_STATEMENT_FILE, READ_WALLET_FILE } from './wallet-pgbench.js';
import { seedProduct, signUp } from './wallet-seed.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const BUDGET = env('SCALE_BUDGET_CORES', 0.15);
const PERIOD_US = env('SCALE_BUDGET_PERIOD_US', 20_000);
/** The updates-owner bot's budget: SCALE_BUDGET_BOT_CORES, else the same as every process (a smaller one shows the stars knee sooner). */
const BOT_BUDGET = env('SCALE_BUDGET_BOT_CORES', BUDGET);
const SECONDS = env('SCALE_BENCH_SECONDS', 5);
const ROUNDS = env('SCALE_BENCH_ROUNDS', 3);
const WARMUP_SECONDS = env('SCALE_BENCH_WARMUP_SECONDS', 5);
const CONNECTIONS = env('SCALE_BENCH_CONNECTIONS', 24);
const STARS_CONCURRENCY = env('SCALE_BENCH_STARS_CONCURRENCY', 32);
const POOL_MAX = String(env('SCALE_BENCH_POOL_MAX', 8));
const CORES = availableParallelism();
const SETTLE_MS = 1_000;
/** A budget counts as saturated at this share of its quota (the kernel's accounting leaves a little unused). */
const SATURATED = 0.9;
const TOPOLOGIES: Topology[] = (process.env['SCALE_BENCH_TOPOLOGIES'] ?? '1x1,1x2,2x2,3x3')
  .split(',')
  .map((t) => t.split('x').map(Number))
  .map(([gateways, backends]) => ({ gateways: gateways ?? 1, backends: backends ?? 1 }));
if (!TOPOLOGIES.some((t) => t.gateways === 1 && t.backends === 1)) TOPOLOGIES.unshift({ gateways: 1, backends: 1 });
const nameOf = (t: Topology) => `${t.gateways}+${t.backends}`;
const PEER = 'one-process';
const PARENT = `wordgame-bench-${process.pid}`;
/** SCALE_BENCH_FLOWS limits the run (e.g. `get` for a profile of wallet.get alone); default all three. */
const FLOWS = (process.env['SCALE_BENCH_FLOWS'] ?? 'get,buy,pay')
  .split(',')
  .filter((f): f is Flow => f === 'get' || f === 'buy' || f === 'pay');
/** SCALE_BENCH_CPU_PROF=<dir>: gateways, backends and the peer write V8 CPU profiles there on exit (for the hop-by-hop profile). */
const PROF_DIR = process.env['SCALE_BENCH_CPU_PROF'];
const profEnv = (name: string): Record<string, string> => {
  if (!PROF_DIR) return {};
  mkdirSync(path.join(PROF_DIR, name), { recursive: true });
  return { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.join(PROF_DIR, name)}` };
};

type Flow = 'get' | 'buy' | 'pay';
const FLOW_NAME: Record<Flow, string> = { get: 'wallet.get', buy: 'wallet.buy', pay: 'stars credited' };
type Role = 'gateway' | 'backend' | 'bot' | 'peer';

/** One measured group: a budgeted Node process, or an unbudgeted counted one (PostgreSQL, NATS). */
interface Member {
  role: Role | 'nats';
  label: string;
  group: CpuGroup;
}

/** What one phase measured. */
interface Phase {
  ok: number;
  failed: number;
  seconds: number;
  p50: number;
  p99: number;
  /** CPU seconds per group label. */
  cpu: Map<string, number>;
  /** Throttled CFS periods per group label. */
  throttled: Map<string, number>;
  postgres: number;
  load: number;
  machine: number;
  /** Cores everything else on the machine used meanwhile (its busy CPU less the bench's processes, over the wall time). */
  others: number;
  /** Wall seconds from the phase's start to its measurement's end (the machine's and PostgreSQL's share are over it). */
  wall: number;
  firstFailure?: string;
}

/** CPU seconds the whole machine has been busy so far (/proc/stat, USER_HZ 100). */
function machineBusy(): number {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  return fields.slice(0, 8).reduce((n, v, i) => (i === 3 || i === 4 ? n : n + v), 0) / 100;
}

/** CPU seconds (user + system) this process has used. */
const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Every pid whose parent is `ppid` (from /proc). */
function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.split(') ')[1]?.split(' ')[1]) === ppid) out.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Starts measuring `members` (+ PostgreSQL, this process as load generator, the machine); the result ends the phase. */
function measure(members: readonly Member[], postgres: CpuGroup) {
  const cpu0 = new Map(members.map((m) => [m.label, m.group.usageSeconds()]));
  const thr0 = new Map(members.map((m) => [m.label, m.group.throttling().throttledPeriods]));
  const pg0 = postgres.usageSeconds();
  const self0 = selfCpu();
  const machine0 = machineBusy();
  const t0 = performance.now();
  return (counts: {
    ok: number;
    failed: number;
    latencies: number[];
    firstFailure?: string;
    loadCpu?: number;
    seconds?: number;
  }): Phase => {
    const cpu = new Map(members.map((m) => [m.label, m.group.usageSeconds() - (cpu0.get(m.label) ?? 0)]));
    const pgCpu = postgres.usageSeconds() - pg0;
    const self = selfCpu() - self0;
    const machine = machineBusy() - machine0;
    const wall = (performance.now() - t0) / 1000;
    const ours = [...cpu.values()].reduce((a, b) => a + b, 0) + pgCpu + self + (counts.loadCpu ?? 0);
    return {
      ok: counts.ok,
      failed: counts.failed,
      seconds: counts.seconds ?? (performance.now() - t0) / 1000,
      p50: percentile(counts.latencies, 50) ?? NaN,
      p99: percentile(counts.latencies, 99) ?? NaN,
      cpu,
      throttled: new Map(members.map((m) => [m.label, m.group.throttling().throttledPeriods - (thr0.get(m.label) ?? 0)])),
      postgres: pgCpu,
      load: counts.loadCpu ?? self,
      machine,
      others: Math.max(0, machine - ours) / wall,
      wall,
      ...(counts.firstFailure === undefined ? {} : { firstFailure: counts.firstFailure }),
    };
  };
}

/** A system under test: a topology of ours or the one-process peer. */
interface Target {
  name: string;
  topology?: Topology;
  /** The target's database. */
  dbUrl: string;
  members: Member[];
  run(flow: Flow, seconds: number): Promise<Phase>;
  stop(): Promise<void>;
}

interface Shared {
  pg: PrivateCluster;
  postgres: CpuGroup;
}

/** The wallet.get / wallet.buy request templates of `tokens` (connection i is account i). */
function templates(tokens: string[], productId: bigint): Record<'get' | 'buy', RequestTemplate[]> {
  const auth = (i: number) => ({ authorization: `Bearer ${tokens[i % tokens.length] ?? ''}` });
  const body = JSON.stringify({ product_id: String(productId) });
  return {
    get: Array.from({ length: CONNECTIONS }, (_, i) => ({ method: 'GET', path: '/api/v1/user/wallet', headers: auth(i) })),
    buy: Array.from({ length: CONNECTIONS }, (_, i) => ({
      method: 'POST',
      path: '/api/v1/user/wallet',
      headers: { ...auth(i), 'content-type': 'application/json' },
      body,
      uniqueHeader: 'idempotency-key',
    })),
  };
}

/** Runs the separate load process against `ports` and measures the phase. */
async function httpPhase(shared: Shared, members: Member[], ports: number[], t: RequestTemplate[], seconds: number): Promise<Phase> {
  let done: ReturnType<typeof measure> | undefined;
  const f = await runLoad(
    {
      host: '127.0.0.1',
      port: ports[0] ?? 0,
      ports,
      seconds,
      mode: 'closed',
      templates: t,
      expectStatus: 200,
      uniquePrefix: randomBytes(4).toString('hex'),
    },
    () => {
      done = measure(members, shared.postgres);
    },
  );
  if (!done) throw new Error('the load generator never said it was ready');
  // The load process reports its own latencies and CPU, from its connections up.
  return {
    ...done({
      ok: f.requests - f.errors,
      failed: f.errors,
      latencies: [],
      loadCpu: f.cpuMs / 1000,
      seconds: f.seconds,
      ...(f.firstError === undefined ? {} : { firstFailure: f.firstError }),
    }),
    p50: f.p50,
    p99: f.p99,
  };
}

async function startStack(shared: Shared, t: Topology): Promise<Target> {
  const platform = await startPlatformEmulator({ tokens: [TELEGRAM_BOT_TOKEN] });
  const provider = await startProviderEmulator({ shops: [CARD_SHOP] });
  const db = await freshTestDatabase('budget', shared.pg.url);
  const tag = `s${t.gateways}x${t.backends}`;
  let cluster: Cluster | undefined;
  const members: Member[] = [];
  const stop = async () => {
    await cluster?.stop();
    for (const m of members) m.group.remove();
    await provider.stop();
    await platform.stop();
    await db.drop();
  };
  try {
    cluster = await startCluster({
      databaseUrl: db.url,
      platformApiRoot: platform.apiRoot,
      providerApiUrl: provider.apiUrl,
      gateways: t.gateways,
      backends: t.backends,
      bots: 1,
      logLevel: 'warn',
      backendEnv: { DB_POOL_MAX: POOL_MAX, ...profEnv(`${tag}-backend`) },
      gatewayEnv: profEnv(`${tag}-gateway`),
    });
    const c = cluster;
    const g0 = c.gateways[0];
    if (!g0) throw new Error('no gateway');
    const ports = c.gateways.map((g) => Number(new URL(g.http).port));
    const api = (i: number) => c.gateways[i % c.gateways.length]?.api ?? g0.api;
    // Seeding runs unbudgeted (sign-ups hash passwords); every process joins its group before the warm-up.
    const tokens = await signUp(g0.http, CONNECTIONS);
    const productId = await seedProduct(db.url);
    const op = await operatorToken(db.url, g0.http, 'catalog_editor');
    const stars = await createProduct(
      g0.http,
      { title: 'Chips 10', atoms: [{ kind: 'chips', quantity: 10n }], prices: [{ method: 'xtr', amount: 5n, currency: 'XTR' }] },
      op,
    );
    provider.control.setWebhookUrl(`${g0.http}${NOTIFICATION_PATH}`);
    const payers: { userId: number; customer: Customer }[] = [];
    for (let i = 0; i < STARS_CONCURRENCY; i += 1) {
      const userId = 50_000 + i;
      platform.control.createUser({ id: userId, firstName: `Payer ${i}`, started: true });
      payers.push({ userId, customer: await telegramCustomer(api(i), userId) });
    }
    const join = (role: Role | 'nats', label: string, pid: number | undefined, cores: number | undefined) => {
      if (pid === undefined) throw new Error(`${label} has no pid`);
      const group = CpuGroup.create(`${PARENT}/${tag}-${label}`, cores, PERIOD_US);
      group.add(pid);
      members.push({ role, label, group });
    };
    c.gateways.forEach((g, i) => join('gateway', `gateway${i + 1}`, g.process.pid, BUDGET));
    c.backends.forEach((b, i) => join('backend', `backend${i + 1}`, b.process.pid, BUDGET));
    c.bots.forEach((b, i) => join('bot', `bot${i + 1}`, b.process.pid, BOT_BUDGET));
    join('nats', 'nats', c.nats.pid, undefined);
    const http = templates(tokens, productId);

    const payOne = async (w: number, i: number): Promise<true | string> => {
      const p = payers[w] as (typeof payers)[number];
      const res = await createOrder(api(w + i), p.customer, stars, 'stars');
      if (res.status !== 201) return `create order ${res.status} ${JSON.stringify(res.body)}`;
      const { preCheckoutQueryId } = platform.control.pay({ link: (res.body as Order).invoice_link ?? '', userId: p.userId });
      await waitFor('pre-checkout', () => platform.control.preCheckout(preCheckoutQueryId)?.status !== 'pending', 20_000, 5);
      const answer = platform.control.preCheckout(preCheckoutQueryId);
      return answer?.status === 'approved' || `pre-checkout ${JSON.stringify(answer)}`;
    };
    const pending = async () =>
      (
        await db.query<{ n: number }>(
          "select count(*)::int as n from orders where rail = 'stars' and checkout_hold_until is not null and paid_at is null",
        )
      ).rows[0]?.n ?? 0;
    // A stars payment counts once credited: the phase ends when the bot's outbox has forwarded every approved one.
    const pay = async (seconds: number): Promise<Phase> => {
      const done = measure(members, shared.postgres);
      const end = performance.now() + seconds * 1000;
      const latencies: number[] = [];
      let ok = 0;
      let failed = 0;
      let firstFailure: string | undefined;
      await Promise.all(
        Array.from({ length: STARS_CONCURRENCY }, async (_, w) => {
          for (let i = 0; performance.now() < end; i += 1) {
            const t0 = performance.now();
            const outcome = await payOne(w, i).catch((err: unknown) => String(err));
            latencies.push(performance.now() - t0);
            if (outcome === true) ok += 1;
            else {
              failed += 1;
              firstFailure ??= outcome;
            }
          }
        }),
      );
      try {
        await waitFor('approved stars payments credited', async () => (await pending()) === 0, 60_000, 20);
      } catch {
        failed += 1;
        firstFailure ??= `${await pending()} approved stars payments not credited within 60 s`;
      }
      latencies.sort((a, b) => a - b);
      return done({ ok, failed, latencies, ...(firstFailure === undefined ? {} : { firstFailure }) });
    };
    return {
      name: nameOf(t),
      topology: t,
      dbUrl: db.url,
      members,
      run: (flow, seconds) => (flow === 'pay' ? pay(seconds) : httpPhase(shared, members, ports, http[flow], seconds)),
      stop,
    };
  } catch (err: unknown) {
    await stop();
    throw err;
  }
}

/** The one-process peer (src/peer-server.ts) on its own database, budgeted as 1 + 1's two processes together. */
async function startPeer(shared: Shared): Promise<Target> {
  const db = await freshTestDatabase('budget_peer', shared.pg.url);
  // The schema and accounts come from one unbudgeted gateway + backend of ours, stopped before the peer starts.
  const platform = await startPlatformEmulator({ tokens: [TELEGRAM_BOT_TOKEN] });
  const provider = await startProviderEmulator({ shops: [CARD_SHOP] });
  const seeding = await startCluster({
    databaseUrl: db.url,
    platformApiRoot: platform.apiRoot,
    providerApiUrl: provider.apiUrl,
    gateways: 1,
    backends: 1,
    bots: 0,
    logLevel: 'warn',
    backendEnv: { DB_POOL_MAX: POOL_MAX },
  });
  let tokens: string[];
  let productId: bigint;
  try {
    tokens = await signUp(seeding.gateways[0]?.http ?? '', CONNECTIONS);
    productId = await seedProduct(db.url);
  } finally {
    await seeding.stop();
    await provider.stop();
    await platform.stop();
  }
  const port = await freePort();
  const members: Member[] = [];
  const child: ChildProcess = spawn(process.execPath, ['--no-warnings', path.join(root, 'tools/bench/src/peer-server.ts')], {
    cwd: root,
    env: {
      PATH: process.env['PATH'] ?? '',
      NODE_ENV: 'production',
      DATABASE_URL: db.url,
      PEER_PORT: String(port),
      PEER_POOL_MAX: POOL_MAX,
      PEER_READ_SQL: backendStatement(root, READ_WALLET_FILE, 'READ_WALLET'),
      PEER_BUY_SQL: backendStatement(root, BUY_STATEMENT_FILE, 'BUY_STATEMENT'),
      ...profEnv('peer'),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the peer exited (${code}) before listening`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', () => resolve());
  });
  const group = CpuGroup.create(`${PARENT}/peer`, 2 * BUDGET, PERIOD_US);
  group.add(child.pid ?? 0);
  members.push({ role: 'peer', label: 'peer', group });
  const http = templates(tokens, productId);
  return {
    name: PEER,
    dbUrl: db.url,
    members,
    run: (flow, seconds) => {
      if (flow === 'pay') throw new Error('the one-process peer serves wallet.get and wallet.buy only');
      return httpPhase(shared, members, [port], http[flow], seconds);
    },
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      await exited;
      group.remove();
      await db.drop();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Summaries

const cpuOf = (p: Phase, members: readonly Member[], role: Member['role']) =>
  members.filter((m) => m.role === role).reduce((n, m) => n + (p.cpu.get(m.label) ?? 0), 0);
const perReqMs = (cpuSeconds: number, p: Phase) => (cpuSeconds * 1000) / Math.max(1, p.ok);
/** The busiest budget of `role` in the phase: its CPU over (seconds × its quota). */
const busiest = (p: Phase, members: readonly Member[], role: Role) => {
  const shares = members
    .filter((m) => m.role === role)
    .map((m) => (p.cpu.get(m.label) ?? 0) / p.seconds / (m.group.cores ?? Number.POSITIVE_INFINITY));
  return shares.length === 0 ? 0 : Math.max(...shares);
};
const rate = (p: Phase) => p.ok / p.seconds;
const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
const fixed = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '-');

function costsOf(p: Phase, members: readonly Member[]): TierCosts {
  return {
    gateways: perReqMs(cpuOf(p, members, 'gateway') + cpuOf(p, members, 'peer'), p),
    backends: perReqMs(cpuOf(p, members, 'backend'), p),
    bot: perReqMs(cpuOf(p, members, 'bot'), p),
    postgres: perReqMs(p.postgres, p),
    nats: perReqMs(cpuOf(p, members, 'nats'), p),
    load: perReqMs(p.load, p),
  };
}
const medianCosts = (cs: TierCosts[]): TierCosts => ({
  gateways: median(cs.map((c) => c.gateways)),
  backends: median(cs.map((c) => c.backends)),
  bot: median(cs.map((c) => c.bot)),
  postgres: median(cs.map((c) => c.postgres)),
  nats: median(cs.map((c) => c.nats)),
  load: median(cs.map((c) => c.load)),
});

function phaseLine(round: number, target: Target, flow: Flow, p: Phase): string {
  const c = costsOf(p, target.members);
  const roles: Role[] = target.topology ? ['gateway', 'backend', ...(flow === 'pay' ? (['bot'] as const) : [])] : ['peer'];
  const budgets = roles.map((r) => `${r} ${pct(busiest(p, target.members, r))}`).join(', ');
  const tiers = target.topology
    ? `gw ${fixed(c.gateways)} be ${fixed(c.backends)}${flow === 'pay' ? ` bot ${fixed(c.bot)}` : ''} nats ${fixed(c.nats)}`
    : `peer ${fixed(c.gateways)}`;
  return `#${round + 1} ${target.name.padEnd(11)} ${FLOW_NAME[flow].padEnd(14)} ${fixed(rate(p), 1).padStart(8)}/s p50 ${fixed(p.p50, 1)} p99 ${fixed(p.p99, 1)} ms | CPU ms/req ${tiers} pg ${fixed(c.postgres)} load ${fixed(c.load)} | busiest budget ${budgets} | pg ${fixed(p.postgres / p.wall)} cores, machine ${pct(p.machine / p.wall / CORES)}, others ${fixed(p.others)} cores | ${p.failed} failed${p.firstFailure ? ` (first: ${p.firstFailure.slice(0, 300)})` : ''}\n`;
}

// ---------------------------------------------------------------------------------------------

const out = (s: string) => process.stdout.write(s);
const roots = findCgroupRoots();
out(
  `budgeted replicas bench ${new Date().toISOString()}: ${describeRoots(roots)}, each gateway, backend and bot ${BUDGET} core${BOT_BUDGET === BUDGET ? '' : ` (the bot ${BOT_BUDGET})`} (quota ${Math.round(BUDGET * PERIOD_US)} us per ${PERIOD_US} us), the one-process peer ${2 * BUDGET} core (1+1's two budgets); PostgreSQL (private cluster), NATS and the load generator unbudgeted, counted; ${CORES} cores; ${loadLine()}\n` +
    `topologies ${TOPOLOGIES.map(nameOf).join(', ')} all up at once; per flow ${WARMUP_SECONDS} s warm-up each, then ${ROUNDS} rounds of ${SECONDS} s, order rotating; wallet.get/buy ${CONNECTIONS} connections (spread over the gateways), stars ${STARS_CONCURRENCY} payers in flight through one bot; DB_POOL_MAX ${POOL_MAX}\n`,
);
buildBundles(['backend', 'gateway', 'bot']);
// Fail before anything starts when budgets cannot be set.
CpuGroup.create(`${PARENT}/probe`, BUDGET, PERIOD_US).remove();

const pg = await PrivateCluster.create();
const targets: Target[] = [];
let creditBench: CreditPeer | undefined;
const postgres = CpuGroup.create(`${PARENT}/postgres`, undefined);
// Interrupted (Ctrl-C, a timeout): kill what this run started and remove its cluster and groups, as the end of a run does.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    for (const t of targets) for (const m of t.members) for (const pid of m.group.pids()) process.kill(pid, 'SIGKILL');
    pg.destroy();
    for (const t of targets) for (const m of t.members) m.group.remove();
    postgres.remove();
    removeParentGroup(PARENT);
    process.exit(130);
  });
try {
  const postmaster = Number(readFileSync(path.join(pg.dir, 'data/postmaster.pid'), 'utf8').split('\n')[0]);
  for (const pid of [postmaster, ...childrenOf(postmaster)]) postgres.add(pid);
  const shared: Shared = { pg, postgres };
  for (const t of TOPOLOGIES) targets.push(await startStack(shared, t));
  targets.push(await startPeer(shared));
  creditBench = await prepareCreditPeer(targets.at(-1)?.dbUrl ?? '');
  const stacks = targets.filter((t) => t.topology);
  const results = new Map<string, Map<Flow, Phase[]>>();
  const creditRuns: { perSecond: number; p50: number; p99: number; postgres: number }[] = [];
  for (const flow of FLOWS) {
    const inRun = flow === 'pay' ? stacks : targets;
    for (const t of inRun) await t.run(flow, WARMUP_SECONDS);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (let k = 0; k < inRun.length; k += 1) {
        const t = inRun[(round + k) % inRun.length] as Target;
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        const p = await t.run(flow, SECONDS);
        const byFlow = results.get(t.name) ?? new Map<Flow, Phase[]>();
        byFlow.set(flow, [...(byFlow.get(flow) ?? []), p]);
        results.set(t.name, byFlow);
        out(phaseLine(round, t, flow, p));
      }
      if (flow === 'pay') {
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        const c = await creditPeer(creditBench, STARS_CONCURRENCY, SECONDS, () => postgres.usageSeconds());
        creditRuns.push({ ...c, postgres: c.postgresMsPerCredit });
        out(
          `#${round + 1} pgbench     credit stmt    ${fixed(c.perSecond, 1).padStart(8)}/s p50 ${fixed(c.p50, 1)} p99 ${fixed(c.p99, 1)} ms | pg ${fixed(c.postgresMsPerCredit)} ms CPU/credit | ${c.uncredited} transactions credited nothing${c.uncredited > 0 ? ' (ran out of pending orders: figures low)' : ''}\n`,
        );
      }
    }
  }

  // ---- per topology
  const one = results.get('1+1') ?? new Map<Flow, Phase[]>();
  const oneTarget = targets.find((t) => t.name === '1+1') as Target;
  const ratioOf = (rs: Phase[], base: Phase[], fn: (p: Phase) => number) => rs.map((p, i) => fn(p) / fn(base[i] ?? p));
  const range = (xs: number[]) => `${fixed(Math.min(...xs))}-${fixed(Math.max(...xs))}`;
  out(
    `\nper topology: medians of ${ROUNDS} rounds; ratio to 1+1 = median (range) of per-round ratios; model = prediction from 1+1's CPU per request (budget/model.ts)\n`,
  );
  const verdicts: string[] = [];
  for (const flow of FLOWS) {
    const base = one.get(flow) ?? [];
    const costs1 = medianCosts(base.map((p) => costsOf(p, oneTarget.members)));
    out(
      `${FLOW_NAME[flow]}: 1+1 CPU per request (ms) gateway ${fixed(costs1.gateways)}, backend ${fixed(costs1.backends)}${flow === 'pay' ? `, bot ${fixed(costs1.bot)}` : ''}, NATS ${fixed(costs1.nats)}, PostgreSQL ${fixed(costs1.postgres)}, load generator ${fixed(costs1.load)}\n`,
    );
    let previous: { name: string; rate: number; botBusy: number } | undefined;
    for (const t of stacks) {
      const rs = results.get(t.name)?.get(flow) ?? [];
      const topo = t.topology as Topology;
      const ratios = ratioOf(rs, base, rate);
      const costs = medianCosts(rs.map((p) => costsOf(p, t.members)));
      const busy = (role: Role) => median(rs.map((p) => busiest(p, t.members, role)));
      const others = median(rs.map((p) => p.others));
      const model = predict(costs1, topo, BUDGET, CORES - others, flow === 'pay', BOT_BUDGET);
      const measured = median(rs.map(rate));
      const diff = measured / model.perSecond - 1;
      const pgCores = median(rs.map((p) => p.postgres / p.wall));
      const machine = median(rs.map((p) => p.machine / p.wall / CORES));
      const budgets: [string, number][] = [
        ['gateways', busy('gateway')],
        ['backends', busy('backend')],
        ...(flow === 'pay' ? [['bot', busy('bot')] as [string, number]] : []),
      ];
      const saturated = budgets.filter(([, b]) => b >= SATURATED).map(([n, b]) => `${n} at ${pct(b)} of budget`);
      const what =
        saturated.length > 0
          ? saturated.join(' and ')
          : `no budget saturated (busiest ${budgets.map(([n, b]) => `${n} ${pct(b)}`).join(', ')}; PostgreSQL ${fixed(pgCores)} cores, machine ${pct(machine)} busy, ${fixed(others)} cores of it others'${machine > 0.9 ? ': the machine is the limit' : ''})`;
      out(
        `  ${t.name.padEnd(5)} ${FLOW_NAME[flow].padEnd(14)} ${fixed(measured, 1).padStart(8)}/s  x${fixed(median(ratios))} (${range(ratios)})  p50 ${fixed(median(rs.map((p) => p.p50)), 1)} p99 ${fixed(median(rs.map((p) => p.p99)), 1)} ms | CPU ms/req gw ${fixed(costs.gateways)} be ${fixed(costs.backends)}${flow === 'pay' ? ` bot ${fixed(costs.bot)}` : ''} nats ${fixed(costs.nats)} pg ${fixed(costs.postgres)} | model ${fixed(model.perSecond, 1)}/s (${model.limitedBy}) ${diff >= 0 ? '+' : ''}${fixed(diff * 100, 0)} % | saturated: ${what} | ${rs.reduce((n, p) => n + p.failed, 0)} failed\n        per process (its CPU over all the stack's requests, ms, and share of its budget): ${t.members
          .filter((m) => m.role !== 'nats' && (flow === 'pay' || m.role !== 'bot'))
          .map((m) => {
            const perReq = median(rs.map((p) => perReqMs(p.cpu.get(m.label) ?? 0, p)));
            const share = median(rs.map((p) => (p.cpu.get(m.label) ?? 0) / p.seconds / (m.group.cores ?? Number.POSITIVE_INFINITY)));
            return `${m.label} ${fixed(perReq)} (${pct(share)})`;
          })
          .join(', ')}\n`,
      );
      if (Math.abs(diff) > 0.15)
        verdicts.push(
          `model off by more than 15 % for ${FLOW_NAME[flow]} on ${t.name}: measured ${fixed(measured, 1)}/s, predicted ${fixed(model.perSecond, 1)}/s (${model.limitedBy}); CPU per request there gw ${fixed(costs.gateways)} be ${fixed(costs.backends)} bot ${fixed(costs.bot)} against 1+1's ${fixed(costs1.gateways)} / ${fixed(costs1.backends)} / ${fixed(costs1.bot)}`,
        );
      if (flow === 'pay') {
        const botBusy = busy('bot');
        if (previous && previous.botBusy >= SATURATED)
          out(
            `        knee: the bot was at ${pct(previous.botBusy)} of its budget on ${previous.name}; ${t.name} credits ${fixed(measured / previous.rate)}x of it\n`,
          );
        previous = { name: t.name, rate: measured, botBusy };
      }
    }
  }

  // ---- peers
  const peerRuns = results.get(PEER) ?? new Map<Flow, Phase[]>();
  const peerTarget = targets.find((t) => t.name === PEER) as Target;
  out(`\npeers (same run, same rounds):\n`);
  const peerRatio: Partial<Record<Flow, number>> = {};
  for (const flow of ['get', 'buy'] as const) {
    const ours = one.get(flow) ?? [];
    const theirs = peerRuns.get(flow) ?? [];
    const ratios = ratioOf(ours, theirs, rate);
    peerRatio[flow] = median(ratios);
    const oursCost = medianCosts(ours.map((p) => costsOf(p, oneTarget.members)));
    const peerCost = medianCosts(theirs.map((p) => costsOf(p, peerTarget.members)));
    out(
      `  ${FLOW_NAME[flow].padEnd(11)} ours 1+1 ${fixed(median(ours.map(rate)), 1)}/s (2 x ${BUDGET} core) / one-process ${fixed(median(theirs.map(rate)), 1)}/s (${2 * BUDGET} core) = ${pct(median(ratios))} (${range(ratios)}) | CPU ms/req ours ${fixed(oursCost.gateways + oursCost.backends)} (gateway ${fixed(oursCost.gateways)} + backend ${fixed(oursCost.backends)}), one-process ${fixed(peerCost.gateways)}; PostgreSQL ours ${fixed(oursCost.postgres)}, one-process ${fixed(peerCost.postgres)} | p50 ${fixed(median(ours.map((p) => p.p50)), 1)} vs ${fixed(median(theirs.map((p) => p.p50)), 1)} ms\n`,
    );
  }
  const pays = one.get('pay') ?? [];
  const creditRatios = pays.map((p, i) => rate(p) / (creditRuns[i]?.perSecond ?? NaN));
  out(
    `  stars credited/s 1+1 ${fixed(median(pays.map(rate)), 1)} / pgbench credit statement ${fixed(median(creditRuns.map((c) => c.perSecond)), 1)}/s at ${STARS_CONCURRENCY} clients = ${pct(median(creditRatios))} (PostgreSQL CPU per credit: pgbench ${fixed(median(creditRuns.map((c) => c.postgres)))} ms, ours ${fixed(median(pays.map((p) => perReqMs(p.postgres, p))))} ms per payment)\n`,
  );

  // ---- bot
  const botRows = stacks.map((t) => {
    const rs = results.get(t.name)?.get('pay') ?? [];
    return { name: t.name, rate: median(rs.map(rate)), busy: median(rs.map((p) => busiest(p, t.members, 'bot'))) };
  });
  const payCosts1 = medianCosts(pays.map((p) => costsOf(p, oneTarget.members)));
  const botLimit = (BOT_BUDGET * 1000) / payCosts1.bot;
  const knee = botRows.find((r) => r.busy >= SATURATED);
  out(
    `\nthe bot (updates owner, ${BOT_BUDGET} core): ${fixed(payCosts1.bot)} ms CPU per credited payment (2 updates: pre_checkout_query, successful_payment) => limit ${fixed(botLimit, 1)} payments/s, ${fixed(2 * botLimit, 1)} updates/s at its budget; measured ${botRows.map((r) => `${r.name} ${fixed(r.rate, 1)}/s at ${pct(r.busy)} of budget`).join(', ')}\n`,
  );

  // ---- targets
  const twoTwo = results.get('2+2');
  const x22 = (flow: Flow) => median(ratioOf(twoTwo?.get(flow) ?? [], one.get(flow) ?? [], rate));
  const mark = (ok: boolean) => (ok ? 'MET' : 'NOT MET');
  out(`\ntargets:\n`);
  if (twoTwo) {
    out(`  wallet.get 2+2 >= 1.8x 1+1: x${fixed(x22('get'))} ${mark(x22('get') >= 1.8)}\n`);
    out(`  wallet.buy 2+2 >= 1.8x 1+1: x${fixed(x22('buy'))} ${mark(x22('buy') >= 1.8)}\n`);
  }
  out(
    `  stars scale until the single bot saturates: ${knee ? `bot at ${pct(knee.busy)} of its budget from ${knee.name} (${fixed(knee.rate, 1)}/s)` : `bot never reached ${pct(SATURATED)} of its budget (busiest ${pct(Math.max(...botRows.map((r) => r.busy)))})`} ${mark(knee !== undefined)}\n`,
  );
  out(`  wallet.get >= 50 % of the one-process peer: ${pct(peerRatio.get ?? NaN)} ${mark((peerRatio.get ?? 0) >= 0.5)}\n`);
  out(`  model within 15 %: ${verdicts.length === 0 ? 'MET' : `NOT MET\n    ${verdicts.join('\n    ')}`}\n`);

  // ---- sizing from the model (the 100x plan)
  const buyCosts = medianCosts((one.get('buy') ?? []).map((p) => costsOf(p, oneTarget.members)));
  const getCosts = medianCosts((one.get('get') ?? []).map((p) => costsOf(p, oneTarget.members)));
  for (const [what, c, x] of [
    ['wallet.buy', buyCosts, 210_000],
    ['wallet.get', getCosts, 710_000],
    ['stars credited', payCosts1, 100 * 43],
  ] as const) {
    const s = size(c, x, 1, 0.7);
    out(
      `sizing ${what} at ${x}/s (1-core replicas at 70 %): ${s.gateways} gateways (${fixed(s.gatewayCores, 1)} cores), ${s.backends} backends (${fixed(s.backendCores, 1)} cores), PostgreSQL ${fixed(s.postgresCores, 1)} cores${what === 'stars credited' ? `, bot ${fixed(s.botCores, 1)} cores` : ''}\n`,
    );
  }
} finally {
  for (const t of targets) await t.stop().catch((err: unknown) => process.stderr.write(`stopping ${t.name}: ${String(err)}\n`));
  postgres.remove();
  pg.destroy();
  removeParentGroup(PARENT);
}
