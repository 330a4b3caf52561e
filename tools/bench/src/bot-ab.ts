/**
 * Bot A/B bench (issue #39 target 3): the updates-owner bot's CPU per stars payment and the TCP
 * connections it opens to the platform, for one or more builds of the bot in one run. Each build is
 * a checkout root whose `dist/apps/bot/main.js` is its bundle; each gets its own stack (this
 * checkout's backend and gateway, that root's bot, a platform emulator and a database). Rounds
 * alternate the builds; in each, BOT_AB_PAYERS payers pay stars orders for BOT_AB_SECONDS
 * (create_invoice, pre-checkout, successful_payment), and the round ends when every approved
 * payment is credited. Bot CPU is read from /proc; new connections are counted by a TCP forwarder in
 * front of the emulator, after the round's first STEADY_AFTER_S seconds (steady state). Prints each build's medians and ratios to the first build, and the targets
 * (≤ 3 ms bot CPU per payment, ≤ 1 new platform connection per 100 payments) for the last build.
 *
 * Run: `BOT_AB_ROOTS=<root A>,<root B> npm run bot-ab -w tools/bench` (default: this checkout alone;
 * BOT_AB_RUNS rounds, default 5; BOT_AB_SECONDS, default 6; BOT_AB_PAYERS, default 16; BENCH_CPU_PROF=<dir> for the bot's CPU profiles). Build each
 * root's bot bundle first (`node tools/build/bundle.mjs apps/bot`).
 */
/* eslint-disable @nx/enforce-module-boundaries -- the bench runs the fault suite's stack (tools/faults harness). */
import { createServer, connect, type Server } from 'node:net';
import path from 'node:path';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { createOrder, createProduct, telegramCustomer, type Customer, type Order } from '../../faults/src/harness/api.js';
import { freshDatabase, type FreshDatabase } from '../../faults/src/harness/postgres.js';
import { startStack, TELEGRAM_BOT_TOKEN, type Stack } from '../../faults/src/harness/stack.js';
import { waitFor } from '../../faults/src/harness/wait.js';
import { printResult } from './report/result.js';
import { buildBundles, loadLine, root } from './services.js';
import { median } from './stats.js';
import { cpuMsOf } from './wallet-pgbench.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const RUNS = env('BOT_AB_RUNS', 5);
const SECONDS = env('BOT_AB_SECONDS', 6);
const PAYERS = env('BOT_AB_PAYERS', 16);
const roots = (process.env['BOT_AB_ROOTS'] ?? root).split(',').filter((r) => r !== '');
const TARGET_CPU_MS = 3;
const TARGET_CONNECTIONS_PER_100 = 1;

/** A TCP forwarder that counts the connections it accepts. */
async function countingForwarder(targetPort: number): Promise<{ port: number; accepted: () => number; close: () => Promise<void> }> {
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted += 1;
    const upstream = connect(targetPort, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    const end = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

interface Build {
  label: string;
  platform: PlatformEmulator;
  forwarder: Awaited<ReturnType<typeof countingForwarder>>;
  db: FreshDatabase;
  stack: Stack;
  product: string;
  payers: { userId: number; customer: Customer }[];
}

interface Round {
  payments: number;
  failed: number;
  botCpuMs: number;
  /** Connections opened in the steady part of the round (after STEADY_AFTER_S), and the payments made in it. */
  connections: number;
  steadyPayments: number;
  seconds: number;
}

/**
 * The round's first seconds reopen what the idle gap before it (another build's round) let the
 * server's keep-alive timeout close; connections are counted after them, in steady state.
 */
const STEADY_AFTER_S = 2;

async function startBuild(dir: string): Promise<Build> {
  const platform = await startPlatformEmulator({ tokens: [TELEGRAM_BOT_TOKEN] });
  const forwarder = await countingForwarder(Number(new URL(platform.url).port));
  const db = await freshDatabase();
  const stack = await startStack({
    databaseUrl: db.url,
    platformApiRoot: `http://127.0.0.1:${forwarder.port}`,
    botBundle: path.join(dir, 'dist/apps/bot/main.js'),
    logLevel: 'warn',
    // The harness knows the gateway is ready from its info line 'gateway listening'.
    gatewayEnv: { LOG_LEVEL: 'info' },
    // BENCH_CPU_PROF=<dir>: the bot writes a V8 CPU profile there when it stops.
    ...(process.env['BENCH_CPU_PROF'] ? { botEnv: { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env['BENCH_CPU_PROF']}` } } : {}),
  });
  const product = await createProduct(
    stack.urls.gateway,
    { title: 'Chips 10', atoms: [{ kind: 'chips', quantity: 10n }], prices: [{ method: 'xtr', amount: 5n, currency: 'XTR' }] },
    stack.operatorToken,
  );
  const payers: Build['payers'] = [];
  for (let i = 0; i < PAYERS; i += 1) {
    const userId = 60_000 + i;
    platform.control.createUser({ id: userId, firstName: `Payer ${i}`, started: true });
    payers.push({ userId, customer: await telegramCustomer(stack.urls.api, userId) });
  }
  return { label: path.basename(dir), platform, forwarder, db, stack, product, payers };
}

async function payOne(b: Build, p: Build['payers'][number]): Promise<boolean> {
  const res = await createOrder(b.stack.urls.api, p.customer, b.product, 'stars');
  if (res.status !== 201) return false;
  const { preCheckoutQueryId } = b.platform.control.pay({ link: (res.body as Order).invoice_link ?? '', userId: p.userId });
  await waitFor('pre-checkout', () => b.platform.control.preCheckout(preCheckoutQueryId)?.status !== 'pending', 20_000, 5);
  return b.platform.control.preCheckout(preCheckoutQueryId)?.status === 'approved';
}

async function uncredited(b: Build): Promise<number> {
  const { rows } = await b.db.query<{ n: number }>(
    "select count(*)::int as n from orders where rail = 'stars' and checkout_hold_until is not null and paid_at is null",
  );
  return rows[0]?.n ?? 0;
}

/** Pays for `seconds` with every payer, then waits until every approved payment is credited. */
async function round(b: Build, seconds: number): Promise<Round> {
  const pid = b.stack.bot?.pid ?? 0;
  const cpu0 = cpuMsOf(pid);
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let payments = 0;
  let failed = 0;
  let steady: { connections: number; payments: number } | undefined;
  const mark = setTimeout(() => {
    steady = { connections: b.forwarder.accepted(), payments };
  }, STEADY_AFTER_S * 1000);
  await Promise.all(
    b.payers.map(async (p) => {
      while (performance.now() < end) {
        if (await payOne(b, p).catch(() => false)) payments += 1;
        else failed += 1;
      }
    }),
  );
  clearTimeout(mark);
  const connections = b.forwarder.accepted() - (steady?.connections ?? 0);
  const steadyPayments = payments - (steady?.payments ?? 0);
  await waitFor('approved payments credited', async () => (await uncredited(b)) === 0, 60_000, 20);
  return { payments, failed, botCpuMs: cpuMsOf(pid) - cpu0, connections, steadyPayments, seconds: (performance.now() - t0) / 1000 };
}

const fixed = (n: number, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : '?');

async function main(): Promise<void> {
  buildBundles(['backend', 'gateway', 'bot']);
  const builds: Build[] = [];
  try {
    for (const dir of roots) builds.push(await startBuild(dir));
    for (const b of builds) await round(b, 2);
    const results = new Map<Build, Round[]>(builds.map((b) => [b, []]));
    for (let r = 0; r < RUNS; r += 1) {
      const order = r % 2 === 0 ? builds : [...builds].reverse();
      for (const b of order) results.get(b)?.push(await round(b, SECONDS));
    }
    const cpuPer = (x: Round) => x.botCpuMs / Math.max(1, x.payments);
    const connPer100 = (x: Round) => (x.connections * 100) / Math.max(1, x.steadyPayments);
    const first = results.get(builds[0] as Build) ?? [];
    const lines = [
      `bot A/B bench ${new Date().toISOString()}: ${RUNS} rounds of ${SECONDS} s, ${PAYERS} payers, stars payments (create_invoice, pre-checkout, successful_payment, ForwardPayment), node ${process.version}   [${loadLine()}]`,
    ];
    const figures = builds.map((b) => {
      const rs = results.get(b) ?? [];
      const ratios = rs.map((x, i) => cpuPer(x) / cpuPer(first[i] as Round));
      const cpu = median(rs.map(cpuPer));
      const conns = median(rs.map(connPer100));
      lines.push(
        `  ${b.label.padEnd(12)} bot CPU ${fixed(cpu)} ms/payment (rounds ${rs.map((x) => fixed(cpuPer(x))).join(' ')}) x${fixed(median(ratios))} of ${builds[0]?.label}; ${fixed(median(rs.map((x) => x.payments / x.seconds)), 1)} payments/s; new platform connections ${fixed(conns, 1)} per 100 payments in steady state (after ${STEADY_AFTER_S} s); failed ${rs.reduce((n, x) => n + x.failed, 0)}`,
      );
      return { b, cpu, conns, ratio: median(ratios) };
    });
    const last = figures[figures.length - 1];
    if (last) {
      const cpuOk = last.cpu <= TARGET_CPU_MS;
      const connOk = last.conns <= TARGET_CONNECTIONS_PER_100;
      lines.push(
        `target bot CPU <= ${TARGET_CPU_MS} ms per stars payment (${last.b.label}): ${fixed(last.cpu)} ms => ${fixed(1000 / last.cpu, 0)} payments/s per core ${cpuOk ? 'PASS' : 'FAIL'}`,
        `target <= ${TARGET_CONNECTIONS_PER_100} new platform connection per 100 payments (${last.b.label}): ${fixed(last.conns, 1)} ${connOk ? 'PASS' : 'FAIL'}`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    printResult({
      bench: 'bot-ab',
      figures: figures.flatMap((f, i) => [
        {
          name: `bot CPU per stars payment (${f.b.label})`,
          value: f.cpu,
          unit: 'ms',
          ...(i === figures.length - 1 ? { target: { on: 'value' as const, op: '<=' as const, limit: TARGET_CPU_MS } } : {}),
          ...(i > 0 ? { ratio: f.ratio } : {}),
        },
        {
          name: `new platform connections per 100 payments (${f.b.label})`,
          value: f.conns,
          unit: '',
          ...(i === figures.length - 1 ? { target: { on: 'value' as const, op: '<=' as const, limit: TARGET_CONNECTIONS_PER_100 } } : {}),
        },
      ]),
      context: `${RUNS} rounds of ${SECONDS} s, ${PAYERS} payers, ${loadLine()}`,
    });
  } finally {
    for (const b of builds) {
      await b.stack.stop();
      await b.forwarder.close();
      await b.platform.stop();
      await b.db.drop();
    }
  }
}

await main();
