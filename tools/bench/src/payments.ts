/**
 * Payments bench: ForwardPayment credits per second through bot-link (mTLS gRPC) -> gateway ->
 * backend -> PostgreSQL, with BENCH_DUPLICATE_PERCENT (default 10) of the calls re-sending an
 * earlier charge (the bot's outbox retry), BENCH_WINDOW calls in flight (default 64), up to
 * BENCH_PAYMENTS distinct orders (default 20000) or BENCH_MAX_SECONDS (default 30). Prints credits/s,
 * p50/p99, and the double-credit count from the ledger (must be 0), then runs the ledger audit.
 * Run: `npx tsx tools/bench/src/payments.ts`. Needs the local PostgreSQL (DATABASE_URL or
 * postgres://postgres@127.0.0.1:5432/test).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ensureDevCerts } from '@wordgame/testkit';
import { summarize } from './stats.js';
import { botClient } from './tls.js';
import { runWindowed } from './window.js';
import { freePort } from '@wordgame/testkit';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');
const payments = Number(process.env['BENCH_PAYMENTS'] ?? 20_000);
const window = Number(process.env['BENCH_WINDOW'] ?? 64);
const maxSeconds = Number(process.env['BENCH_MAX_SECONDS'] ?? 30);
const duplicatePercent = Number(process.env['BENCH_DUPLICATE_PERCENT'] ?? 10);
const serverUrl = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const STARS = 10n;


async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

function start(name: string, entry: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [tsx, entry], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[${name}] ${chunk.toString()}`));
  return child;
}

async function waitHealthy(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not become healthy`);
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
    children.push(
      start('backend', 'apps/backend/src/main.ts', {
        DATABASE_URL: url,
        BACKEND_PORT: String(backendPort),
        BACKEND_SEED_CATALOG: 'false',
        DB_POOL_MAX: String(Math.max(window, 20)),
        LOG_LEVEL: 'warn',
        REAPER_INTERVAL_MS: '0',
        GATEWAY_INTERNAL_URL: `http://127.0.0.1:${internalPort}`,
        MAIL_DEV_DIR: mkdtempSync(path.join(tmpdir(), 'bench-mail-')),
      }),
    );
    await waitHealthy(`${backendUrl}/health`);
    children.push(
      start('gateway', 'apps/gateway/src/main.ts', {
        BACKEND_URL: backendUrl,
        GATEWAY_HTTP_PORT: String(httpPort),
        BOTLINK_PORT: String(botlinkPort),
        GATEWAY_INTERNAL_PORT: String(internalPort),
        BOTLINK_TLS_CA: certs.ca.cert,
        BOTLINK_TLS_CERT: certs.gateway.cert,
        BOTLINK_TLS_KEY: certs.gateway.key,
        LOG_LEVEL: 'warn',
      }),
    );
    await waitHealthy(`http://127.0.0.1:${httpPort}/health`);

    const orders = await seedOrders(url, payments);
    const bot = botClient(`https://127.0.0.1:${botlinkPort}`, certs);
    const charge = (k: number) => `bench-charge-${k}`;
    const forward = async (k: number) => {
      const res = await bot.forwardPayment({ orderId: orders[k] ?? '', platformPaymentChargeId: charge(k), amount: STARS, platformUserId: BigInt(k + 1) });
      if (!res.credited) throw new Error(`payment ${k} was not credited`);
    };
    await runWindowed(Math.min(200, payments), window, maxSeconds, (i) => forward(i));

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
    const creditedOrders = fresh - issued;

    const [doubles] = await query<{ n: string }>(url, `select count(*) as n from (select order_id from ledger_operations where kind = 'purchase' group by order_id having count(*) > 1) d`);
    const [paid] = await query<{ n: string }>(url, `select count(*) as n from orders where state = 'paid'`);
    const [unmatched] = await query<{ n: string }>(url, `select count(*) as n from unmatched_payments`);
    const audit = spawnSync(process.execPath, [tsx, 'apps/backend/src/ledger/audit-cli.ts'], { cwd: root, env: { ...process.env, DATABASE_URL: url }, encoding: 'utf8' });
    process.stdout.write(
      [
        `payments bench: ForwardPayment bot-link (mTLS gRPC) -> gateway -> backend -> PostgreSQL, ${window} in flight, node ${process.version}`,
        `calls ${s.count} in ${s.seconds.toFixed(2)} s = ${Math.round(s.perSecond)} calls/s; p50 ${s.p50Ms.toFixed(2)} ms, p99 ${s.p99Ms.toFixed(2)} ms`,
        `new credits ${creditedOrders} = ${Math.round(creditedOrders / s.seconds)} credited/s; duplicates re-sent ${duplicates} (${((duplicates / s.count) * 100).toFixed(1)} %)`,
        `orders paid ${paid?.n ?? '?'}; unmatched ${unmatched?.n ?? '?'}; double credits ${doubles?.n ?? '?'} (must be 0)`,
        `target >= 1500 credited/s: ${creditedOrders / s.seconds >= 1500 ? 'met' : 'NOT met'}`,
        `ledger audit: ${audit.status === 0 ? 'clean' : `PROBLEMS (exit ${audit.status})\n${audit.stdout}${audit.stderr}`}`,
        '',
      ].join('\n'),
    );
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
    await query(serverUrl, `drop database if exists ${dbName} with (force)`);
  }
}

await main();
