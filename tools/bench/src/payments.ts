/**
 * Payments bench: ForwardPayment credits per second through bot-link (mTLS gRPC) -> gateway ->
 * backend -> PostgreSQL, with BENCH_DUPLICATE_PERCENT (default 10) of the calls re-sending an
 * earlier charge (the bot's outbox retry), BENCH_WINDOW calls in flight (default 64), up to
 * BENCH_PAYMENTS distinct orders (default 40000) or BENCH_MAX_SECONDS (default 30). Prints credits/s,
 * p50/p99, and the double-credit count from the ledger (must be 0), then runs the ledger audit, and
 * ends with a BENCH_RESULT line. The gateway and backend run from their esbuild bundles with
 * NODE_ENV=production and LOG_LEVEL=warn (services.ts); the backend's pool is its default 20
 * unless BENCH_DB_POOL_MAX says otherwise. The bot side is a lean gRPC client on one mTLS session
 * (load/grpc-unary.ts), so the load generator takes little of the shared cores; the CPU each
 * process spent per call is printed.
 * Run: `npm run payments -w tools/bench`. Needs the local PostgreSQL (DATABASE_URL or
 * postgres://postgres@127.0.0.1:5432/test).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { botlink } from '@wordgame/contracts';
import { ensureDevCerts } from '@wordgame/testkit';
import { printResult } from './report/result.js';
import {
  buildBundles,
  freePort,
  gatewayEnv,
  quietBackendEnv,
  loadLine,
  root,
  runAudit,
  startBundle,
  stopAll,
  waitHealthy,
} from './services.js';
import { summarize } from './stats.js';
import { GrpcUnaryClient } from './load/grpc-unary.js';
import { cpuMsOf } from './wallet-pgbench.js';
import { runWindowed } from './window.js';

const payments = Number(process.env['BENCH_PAYMENTS'] ?? 40_000);
const window = Number(process.env['BENCH_WINDOW'] ?? 64);
const maxSeconds = Number(process.env['BENCH_MAX_SECONDS'] ?? 30);
const duplicatePercent = Number(process.env['BENCH_DUPLICATE_PERCENT'] ?? 10);
/** The backend's own default pool (20) unless BENCH_DB_POOL_MAX says otherwise; printed with the figures. */
const poolMax = process.env['BENCH_DB_POOL_MAX'] ?? '20';
const serverUrl = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const STARS = 10n;
const TARGET_PER_SECOND = 1500;

async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Inserts `n` accounts with one pending stars order each; returns the order ids in order. */
async function seedOrders(url: string, n: number): Promise<string[]> {
  const [product] = await query<{ id: string }>(url, `insert into catalog_products (title) values ('Bench stars pack') returning id`);
  await query(
    url,
    `with a as (insert into accounts (display_name) select 'bench' || g from generate_series(1, $1::int) g returning id)
     insert into wallet_segments (account_id, segment) select id, s from a, unnest(array['direct', 'telegram', 'vk']) s`,
    [n],
  );
  const rows = await query<{ id: string }>(
    url,
    `insert into orders (id, account_id, product_id, title, rail, provider, segment, amount, currency, chips, created_at, expires_at)
     select gen_random_uuid(), id, $1, 'Bench stars pack', 'stars', 'telegram_stars', 'telegram', $2, 'XTR', 100, now(), now() + interval '30 minutes'
     from accounts order by id returning id`,
    [product?.id, String(STARS)],
  );
  return rows.map((r) => r.id);
}

async function main(): Promise<void> {
  const dbName = `bench_payments_${randomBytes(4).toString('hex')}`;
  await query(serverUrl, `create database ${dbName}`);
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${dbName}`;
  const url = dbUrl.toString();
  const children: ChildProcess[] = [];
  try {
    const [backendPort, httpPort, botlinkPort, internalPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const certs = ensureDevCerts(path.join(root, '.data/certs'));
    const backendUrl = `http://127.0.0.1:${backendPort}`;
    buildBundles(['backend', 'gateway']);
    children.push(startBundle('backend', quietBackendEnv(url, backendPort, internalPort, poolMax)));
    await waitHealthy(`${backendUrl}/health`);
    children.push(startBundle('gateway', gatewayEnv(backendUrl, { http: httpPort, botlink: botlinkPort, internal: internalPort }, certs)));
    await waitHealthy(`http://127.0.0.1:${httpPort}/health`);

    const orders = await seedOrders(url, payments);
    const bot = new GrpcUnaryClient(`https://127.0.0.1:${botlinkPort}`, certs);
    const charge = (k: number) => `bench-charge-${k}`;
    const forward = async (k: number) => {
      const res = await bot.call(botlink.BotLink.method.forwardPayment, {
        orderId: orders[k] ?? '',
        platformPaymentChargeId: charge(k),
        amount: STARS,
        platformUserId: BigInt(k + 1),
      });
      if (!res.credited) throw new Error(`payment ${k} was not credited`);
    };
    await runWindowed(Math.min(200, payments), window, maxSeconds, (i) => forward(i));

    const pids = children.map((c) => c.pid ?? 0);
    const cpuBefore = [...pids.map(cpuMsOf), process.cpuUsage()] as const;
    let fresh = Math.min(200, payments);
    let duplicates = 0;
    const issued = fresh;
    const run = await runWindowed(Math.ceil(((payments - issued) * 100) / (100 - duplicatePercent)), window, maxSeconds, (i) => {
      if (i % Math.round(100 / Math.max(duplicatePercent, 1)) === 0 && duplicatePercent > 0 && fresh > 0) {
        duplicates += 1;
        return forward(Math.floor(Math.random() * fresh));
      }
      if (fresh >= payments) return forward(Math.floor(Math.random() * fresh));
      fresh += 1;
      return forward(fresh - 1);
    });
    const s = summarize(run.latenciesMs, run.seconds);
    const client = process.cpuUsage(cpuBefore[pids.length] as NodeJS.CpuUsage);
    const perCall = (ms: number) => `${Math.round((ms * 1000) / Math.max(1, s.count))} us`;
    const cpuLine = `cpu/call: backend ${perCall(cpuMsOf(pids[0] ?? 0) - (cpuBefore[0] as number))}, gateway ${perCall(cpuMsOf(pids[1] ?? 0) - (cpuBefore[1] as number))}, load generator ${perCall((client.user + client.system) / 1000)}`;
    bot.close();
    const creditedOrders = fresh - issued;

    const [doubles] = await query<{ n: string }>(
      url,
      `select count(*) as n from (select order_id from ledger_operations where kind = 'purchase' group by order_id having count(*) > 1) d`,
    );
    const [paid] = await query<{ n: string }>(url, `select count(*) as n from orders where state = 'paid'`);
    const [unmatched] = await query<{ n: string }>(url, `select count(*) as n from unmatched_payments`);
    await stopAll(children);
    const audit = runAudit(url);
    const creditedPerSecond = creditedOrders / s.seconds;
    const doubleCredits = Number(doubles?.n ?? NaN);
    process.stdout.write(
      [
        `payments bench: ForwardPayment bot-link (mTLS gRPC) -> gateway -> backend -> PostgreSQL, ${window} in flight, bundles with NODE_ENV=production LOG_LEVEL=warn, DB_POOL_MAX=${poolMax}, node ${process.version}`,
        `calls ${s.count} in ${s.seconds.toFixed(2)} s = ${Math.round(s.perSecond)} calls/s; p50 ${s.p50Ms.toFixed(2)} ms, p99 ${s.p99Ms.toFixed(2)} ms   [${loadLine()}]`,
        cpuLine,
        `new credits ${creditedOrders} = ${Math.round(creditedPerSecond)} credited/s; duplicates re-sent ${duplicates} (${((duplicates / s.count) * 100).toFixed(1)} %)`,
        `orders paid ${paid?.n ?? '?'}; unmatched ${unmatched?.n ?? '?'}; double credits ${doubles?.n ?? '?'} (must be 0)`,
        `target >= ${TARGET_PER_SECOND} credited/s: ${creditedPerSecond >= TARGET_PER_SECOND ? 'met' : 'NOT met'}`,
        `ledger audit: ${audit.clean ? 'clean' : `PROBLEMS\n${audit.output}`}`,
        '',
      ].join('\n'),
    );
    printResult({
      bench: 'payments',
      figures: [
        {
          name: 'ForwardPayment credited/s',
          value: creditedPerSecond,
          unit: '/s',
          target: { on: 'value', op: '>=', limit: TARGET_PER_SECOND },
        },
        { name: 'ForwardPayment p99', value: s.p99Ms, unit: 'ms' },
        { name: 'double credits', value: doubleCredits, unit: '', target: { on: 'value', op: '<=', limit: 0 } },
        { name: 'ledger audit problems', value: audit.problems, unit: '', target: { on: 'value', op: '<=', limit: 0 } },
      ],
      context: `${window} in flight, ${duplicatePercent} % duplicates, DB_POOL_MAX=${poolMax}, ${loadLine()}`,
    });
  } finally {
    await stopAll(children);
    await query(serverUrl, `drop database if exists ${dbName} with (force)`);
  }
}

await main();
